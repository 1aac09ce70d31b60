#include "stages/io/brainvision/brainvision_file.hpp"

#include <bit>
#include <cstddef>
#include <filesystem>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"
#include "stages/io/brainvision/brainvision_markers.hpp"

namespace pacflow::stages {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHeader = std::size_t{16} << 20;    // bytes of a .vhdr read
constexpr std::size_t kMaxMarkers = std::size_t{256} << 20;  // bytes of a .vmrk read

// The little-endian stored value at `p`, whatever the machine's byte order.
template <BinaryFormat F>
double stored(const std::byte* p) {
  const auto byte = [p](int i) { return static_cast<std::uint32_t>(std::to_integer<unsigned>(p[i])); };
  if constexpr (F == BinaryFormat::Int16) {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(byte(0) | byte(1) << 8));
  } else {
    const std::uint32_t u = byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24;
    if constexpr (F == BinaryFormat::Int32) return static_cast<std::int32_t>(u);
    else return std::bit_cast<float>(u);
  }
}

template <BinaryFormat F>
void decode(const std::byte* first, std::size_t stride, int count, double scale, double* dst) {
  for (int i = 0; i < count; ++i) dst[i] = stored<F>(first + static_cast<std::size_t>(i) * stride) * scale;
}

// Opens a file the header names; errors say which line named it.
InputFile open_named(const std::string& header, int line, const char* what, const std::string& path) {
  try {
    return InputFile(path);
  } catch (const InputError& e) {
    std::throw_with_nested(InputError(fmt::format("{}:{}: {} {}", header, line, what, e.bare_message())));
  }
}

}  // namespace

BrainVisionFile::BrainVisionFile(std::string path, bool with_markers) : path_(std::move(path)) {
  header_ = parse_vhdr(InputFile(path_).read_all(kMaxHeader, "a BrainVision header"), path_);
  data_path_ = (fs::path(path_).parent_path() / header_.data_file).string();
  files_ = {path_, data_path_};
  open_data();
  for (const auto& c : header_.channels) signals_.push_back({c.name, c.unit, header_.fs, samples_, c.resolution});
  read_markers(with_markers);
}

void BrainVisionFile::open_data() {
  const InputFile file = open_named(path_, header_.data_file_line, "the data file", data_path_);
  const auto channels = static_cast<std::uint64_t>(header_.channels.size());
  const std::uint64_t frame = channels * static_cast<std::uint64_t>(header_.bytes_per_sample);
  const std::string named = fmt::format("DataFile= at {}:{}", path_, header_.data_file_line);
  if (file.size() % frame != 0)
    throw InputError(fmt::format("{}: its {} bytes are not a whole number of samples of {} channels of {} bytes ({}): "
                                 "{} bytes are left over ({})",
                                 data_path_, file.size(), channels, header_.bytes_per_sample, header_.format_name,
                                 file.size() % frame, named));
  samples_ = static_cast<std::int64_t>(file.size() / frame);
  if (samples_ == 0) throw InputError(fmt::format("{}: the data file holds no samples ({})", data_path_, named));
  if (header_.data_points && *header_.data_points != samples_)
    throw InputError(fmt::format("{}:{}: DataPoints={}, but the data file {} holds {} samples of {} channels ({} "
                                 "bytes of {})",
                                 path_, header_.data_points_line, *header_.data_points, data_path_, samples_, channels,
                                 file.size(), header_.format_name));
  data_.emplace(file);
}

void BrainVisionFile::read_markers(bool wanted) {
  if (!header_.marker_file) {
    if (wanted) warnings_.push_back(fmt::format("{}: no MarkerFile= in [Common Infos]: the recording has no markers", path_));
    return;
  }
  const std::string markers = (fs::path(path_).parent_path() / *header_.marker_file).string();
  if (!wanted) {  // not read, but no output may replace it
    std::error_code ec;
    if (fs::is_regular_file(markers, ec)) files_.push_back(markers);
    return;
  }
  std::optional<InputFile> file;
  try {
    file.emplace(markers);
  } catch (const MissingFileError&) {
    warnings_.push_back(fmt::format("{}: the marker file (MarkerFile= at {}:{}) is missing: the recording is read "
                                    "without markers",
                                    markers, path_, header_.marker_file_line));
    return;
  } catch (const InputError& e) {
    std::throw_with_nested(
        InputError(fmt::format("{}:{}: the marker file {}", path_, header_.marker_file_line, e.bare_message())));
  }
  files_.push_back(markers);
  annotations_ = marker_annotations(parse_vmrk(file->read_all(kMaxMarkers, "a BrainVision marker file"), markers), header_.fs);
}

void BrainVisionFile::read_physical(int signal, std::int64_t start, int count, double* dst) const {
  const auto channels = static_cast<std::int64_t>(signals_.size());
  if (signal < 0 || signal >= channels || start < 0 || count < 0 || start > samples_ - count)
    throw InputError(fmt::format("{}: cannot read {} samples of channel {} from sample {}: the recording has {} "
                                 "channels of {} samples",
                                 data_path_, count, signal, start, channels, samples_));
  const auto b = static_cast<std::size_t>(header_.bytes_per_sample);
  const auto s = static_cast<std::size_t>(signal), t = static_cast<std::size_t>(start);
  const auto n = static_cast<std::size_t>(channels), total = static_cast<std::size_t>(samples_);
  // Vectorized: channel after channel; multiplexed: every channel's sample t, then t + 1.
  const std::size_t offset = header_.vectorized ? (s * total + t) * b : (t * n + s) * b;
  const std::size_t stride = header_.vectorized ? b : n * b;
  const std::byte* first = data_->bytes().data() + offset;
  const double scale = header_.channels[s].resolution;
  switch (header_.format) {
    case BinaryFormat::Int16: decode<BinaryFormat::Int16>(first, stride, count, scale, dst); break;
    case BinaryFormat::Int32: decode<BinaryFormat::Int32>(first, stride, count, scale, dst); break;
    case BinaryFormat::Float32: decode<BinaryFormat::Float32>(first, stride, count, scale, dst); break;
  }
}

}  // namespace pacflow::stages
