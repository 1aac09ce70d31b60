#include "stages/io/npy/npy_source.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <openssl/evp.h>

#include "engine/errors.hpp"

namespace pacflow::stages {

ElementInfo NpySource::info() {
  ElementInfo info;
  info.kind = ElementKind::Source;
  info.name = "npy";
  info.summary = "NumPy .npy array [E][C][S][T], [E][C][T], [C][T] or [T]; float32/float64/int16/int32";
  info.params = {
      {"path", ParamType::InputFile, nullptr, "", "the .npy file"},
      {"fs", ParamType::Number, nullptr, "Hz", "sample rate"},
  };
  info.make_source = [](const Params& p) { return std::make_unique<NpySource>(p); };
  return info;
}

NpySource::NpySource(const Params& params) : path_(params.string("path")), fs_(params.number("fs")) {
  if (!(fs_ > 0)) throw ParamError("fs", fmt::format("must be > 0, got {}", fs_));
}

StreamInfo NpySource::open() {
  try {
    header_ = read_npy_header(path_);
  } catch (const InputError& e) {
    throw ParamError("path", e.bare_message());  // located at path=… in the .pipe file
  }
  const Shape& s = header_.shape;
  if (s.empty() || s.size() > 4)
    throw InputError(fmt::format("{}: array of shape {} is not supported; expected [T], [C][T], [E][C][T] or "
                                 "[E][C][S][T] (S segments per series)",
                                 path_, shape_string(s)));
  length_ = s.back();
  leading_ = s.size() >= 3 ? Shape(s.begin(), s.end() - 1) : s.size() == 2 ? Shape{1, s[0]} : Shape{1, 1};
  if (length_ < 2 || element_count(leading_) < 1)
    throw InputError(fmt::format("{}: array of shape {} holds no series of at least 2 samples", path_,
                                 shape_string(s)));
  StreamInfo info;
  info.leading_dims = leading_;
  info.leading_names = {"epochs", "channels"};
  if (leading_.size() == 3) info.leading_names.push_back("segments");
  info.series_length = length_;
  info.sample_rate = fs_;
  info.description = {{"source", "npy"},
                      {"path", path_},
                      {"file_shape", s},
                      {"dtype", dtype_name(header_.dtype)},
                      {"fs", fs_},
                      {"sha256", sha256_file(path_)}};
  return info;
}

void NpySource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_npy_rows_as_float(path_, header_, first, count, length_, dst);
  for (std::int64_t i = 0; i < count * length_; ++i) {
    if (!std::isfinite(dst[i])) {
      const std::int64_t series = first + i / length_;
      const std::int64_t segments = leading_.size() == 3 ? leading_[2] : 1;
      const std::int64_t row = series / segments;  // epoch × channels + channel
      throw InputError(fmt::format("{}: {} at epoch {}, channel {}{}, sample {}", path_,
                                   std::isnan(dst[i]) ? "NaN" : "infinite value", row / leading_[1], row % leading_[1],
                                   segments > 1 ? fmt::format(", segment {}", series % segments) : "", i % length_));
    }
  }
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open for reading", path));
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), chunk.size());
    if (in.gcount() > 0 && EVP_DigestUpdate(ctx.get(), chunk.data(), static_cast<std::size_t>(in.gcount())) != 1)
      throw std::runtime_error("SHA-256 update failed");
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error while computing its checksum", path));
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &size) != 1) throw std::runtime_error("SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace pacflow::stages
