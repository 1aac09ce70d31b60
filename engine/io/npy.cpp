#include "engine/io/npy.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <regex>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_set.hpp"

namespace pacflow {

namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw InputError(fmt::format("{}: not a readable .npy file: {}", name, what));
}

DType parse_descr(const std::string& path, const std::string& descr, bool& big_endian) {
  if (descr.size() < 3) bad(path, fmt::format("unsupported dtype '{}'", descr));
  const char order = descr[0];
  const std::string code = descr.substr(1);
  big_endian = order == '>';
  if (order != '<' && order != '>' && order != '|' && order != '=')
    bad(path, fmt::format("unsupported byte order in dtype '{}'", descr));
  if (code == "f4") return DType::Float32;
  if (code == "f8") return DType::Float64;
  if (code == "i2") return DType::Int16;
  if (code == "i4") return DType::Int32;
  bad(path, fmt::format("dtype '{}' is not supported (use float32, float64, int16 or int32)", descr));
}

void byteswap_in_place(std::byte* data, std::size_t count, std::size_t width) {
  for (std::size_t i = 0; i < count; ++i) std::reverse(data + i * width, data + (i + 1) * width);
}

template <typename From>
void convert_to_float(const std::byte* src, std::size_t count, float* dst) {
  for (std::size_t i = 0; i < count; ++i) {
    From v;
    std::memcpy(&v, src + i * sizeof(From), sizeof(From));
    dst[i] = static_cast<float>(v);
  }
}

// Values in host byte order to float32.
void convert_to_float(DType dtype, const std::byte* src, std::size_t count, float* dst) {
  switch (dtype) {
    case DType::Float32: std::memcpy(dst, src, count * sizeof(float)); return;
    case DType::Float64: convert_to_float<double>(src, count, dst); return;
    case DType::Int16: convert_to_float<std::int16_t>(src, count, dst); return;
    case DType::Int32: convert_to_float<std::int32_t>(src, count, dst); return;
    default: throw std::logic_error("convert_to_float: unsupported dtype");
  }
}

}  // namespace

NpyHeader parse_npy_header(const NpyByteRead& read, std::uint64_t size, const std::string& name) {
  unsigned char start[12] = {};
  const std::size_t got = read(0, start, static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof(start))));
  if (got < 10 || std::memcmp(start, "\x93NUMPY", 6) != 0)
    bad(name, got == 0 ? "the file is empty" : "missing the \\x93NUMPY magic string");
  const int major = start[6];
  std::uint32_t header_len = 0;
  std::uint64_t header_at = 0;
  if (major == 1) {
    header_len = start[8] | (start[9] << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (got < 12) bad(name, "truncated header");
    header_len = start[8] | (start[9] << 8) | (start[10] << 16) | (static_cast<std::uint32_t>(start[11]) << 24);
    header_at = 12;
  } else {
    bad(name, fmt::format("format version {} is not supported", major));
  }
  // Never allocate more than the file holds (or than any sane header needs).
  if (header_len > (1u << 20) || header_at + header_len > size) bad(name, "truncated or oversized header");
  std::string header(header_len, '\0');
  if (read(header_at, header.data(), header_len) != header_len) bad(name, "truncated header");

  NpyHeader result;
  result.data_offset = header_at + header_len;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')")))
    bad(name, "header has no 'descr'");
  result.dtype = parse_descr(name, m[1].str(), result.big_endian);
  if (!std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*(True|False))")))
    bad(name, "header has no 'fortran_order'");
  if (m[1].str() == "True") bad(name, "Fortran-ordered arrays are not supported; save with C order");
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
    bad(name, "header has no 'shape'");
  const std::string dims = m[1].str();
  const std::regex number(R"(\s*(\d+)\s*(,|$))");
  if (dims.find_first_not_of(" ,0123456789") != std::string::npos) bad(name, "malformed 'shape'");
  double elements = 1;  // in double, so an absurd shape cannot overflow the checks below
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it) {
    const std::string digits = (*it)[1].str();
    if (digits.size() > 15) bad(name, fmt::format("dimension {} in 'shape' is too large", digits));
    result.shape.push_back(std::stoll(digits));
    elements *= static_cast<double>(result.shape.back());
  }
  if (elements > 0x1p50) bad(name, fmt::format("shape {} is too large", shape_string(result.shape)));

  const auto need = result.data_offset +
                    static_cast<std::uint64_t>(element_count(result.shape)) * dtype_size(result.dtype);
  if (size < need)
    bad(name, fmt::format("data truncated: shape {} needs {} bytes, the file has {}", shape_string(result.shape), need,
                          size));
  return result;
}

namespace {
NpyHeader read_npy_header(const InputFile& file) {
  return parse_npy_header(
      [&file](std::uint64_t offset, void* dst, std::size_t count) { return file.read_at(offset, dst, count); },
      file.size(), file.path().string());
}
}  // namespace

NpyHeader read_npy_header(const std::filesystem::path& path) {
  return read_npy_header(InputFile(path));  // regular files only: a directory, FIFO or device is refused here
}

void npy_values_to_float(const NpyHeader& header, const std::byte* src, std::size_t count, float* dst) {
  const std::size_t width = dtype_size(header.dtype);
  if (header.big_endian == (std::endian::native == std::endian::big)) {
    convert_to_float(header.dtype, src, count, dst);
    return;
  }
  // Swap through a small stack buffer, so the source stays read-only and no batch-sized copy is made.
  std::array<std::byte, 4096> chunk{};
  const std::size_t per_chunk = chunk.size() / width;
  for (std::size_t done = 0; done < count; done += per_chunk) {
    const std::size_t k = std::min(per_chunk, count - done);
    std::memcpy(chunk.data(), src + done * width, k * width);
    byteswap_in_place(chunk.data(), k, width);
    convert_to_float(header.dtype, chunk.data(), k, dst + done);
  }
}

Tensor read_npy(const std::filesystem::path& path) {
  const InputFile file(path);
  const NpyHeader header = read_npy_header(file);
  Tensor tensor(header.shape, header.dtype);  // no larger than the file, as read_npy_header checked
  if (file.read_at(header.data_offset, tensor.raw(), tensor.bytes()) != tensor.bytes())
    bad(path.string(), "the file shrank while it was being read");
  if (header.big_endian != (std::endian::native == std::endian::big))
    byteswap_in_place(tensor.raw(), static_cast<std::size_t>(tensor.size()), dtype_size(header.dtype));
  return tensor;
}

NpyRowReader::NpyRowReader(const std::filesystem::path& path) : NpyRowReader(InputFile(path)) {}

NpyRowReader::NpyRowReader(const InputFile& file)
    : name_(file.path().string()), header_(read_npy_header(file)), map_(file) {
  check_mapped_size();
}

NpyRowReader::NpyRowReader(const InputFile& archive, std::uint64_t at, std::uint64_t length,
                           std::string name)
    : name_(std::move(name)), map_(archive) {
  const auto bytes = map_.bytes();
  if (at > bytes.size() || length > bytes.size() - at)
    bad(name_, fmt::format("bytes {}..{} lie outside the file of {} bytes", at, at + length, bytes.size()));
  header_ = parse_npy_header(
      [&](std::uint64_t offset, void* dst, std::size_t count) {
        const std::size_t n = offset >= length ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(count, length - offset));
        std::memcpy(dst, bytes.data() + at + offset, n);
        return n;
      },
      length, name_);
  header_.data_offset += at;
}

void NpyRowReader::check_mapped_size() const {
  // The header was checked against the file's size, but the file may have been cut since.
  const auto need = header_.data_offset +
                    static_cast<std::uint64_t>(element_count(header_.shape)) * dtype_size(header_.dtype);
  if (map_.bytes().size() < need) bad(name_, "the file shrank while it was being opened");
}

void NpyRowReader::read_as_float(std::int64_t first, std::int64_t count, std::int64_t row_elements, float* dst,
                                 bool release_read) const {
  if (first < 0 || count < 0 || row_elements < 0 || (first + count) * row_elements > element_count(header_.shape))
    throw std::out_of_range(fmt::format("{}: rows {}..{} are outside the array", name_, first, first + count));
  const std::size_t width = dtype_size(header_.dtype);
  const auto n = static_cast<std::size_t>(count * row_elements);
  const std::size_t offset = header_.data_offset + static_cast<std::size_t>(first * row_elements) * width;
  npy_values_to_float(header_, map_.bytes().data() + offset, n, dst);
  if (release_read) map_.release(offset, n * width);
}

void NpyRowReader::read(std::int64_t first, std::int64_t count, float* dst, bool release) {
  read_as_float(first, count, 1, dst, release);
}

namespace {
std::string npy_v1_header(const Shape& shape, const char* descr = "<f4") {
  std::string dims;
  for (auto d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() == 1) dims = std::to_string(shape[0]) + ",";
  else if (!dims.empty()) dims.resize(dims.size() - 2);
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  const std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>((dict.size() >> 8) & 0xff));
  return out + dict;
}
}  // namespace

std::string npy_bytes(const std::vector<double>& values) {
  static_assert(std::endian::native == std::endian::little, "the writer emits little-endian data");
  std::string out = npy_v1_header({static_cast<std::int64_t>(values.size())}, "<f8");
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return out;
}

NpyWriter::NpyWriter(std::filesystem::path path, Shape shape)
    : path_(std::move(path)), temp_(temp_path_for(resolved_output(path_))), expected_(element_count(shape)) {
  static_assert(std::endian::native == std::endian::little, "the writer emits little-endian data");
  open_stream(std::ios::trunc);
  const std::string header = npy_v1_header(shape);
  out_.write(header.data(), static_cast<std::streamsize>(header.size()));
  checksum_.update(header.data(), header.size());
}

NpyWriter::NpyWriter(std::filesystem::path path, Shape shape, std::filesystem::path partial, std::int64_t keep_values,
                     const std::string& keep_checksum)
    : path_(std::move(path)), temp_(std::move(partial)), expected_(element_count(shape)), keep_on_abort_(true) {
  const std::string header = npy_v1_header(shape);
  if (keep_values <= 0) {
    open_stream(std::ios::trunc);
    out_.write(header.data(), static_cast<std::streamsize>(header.size()));
    checksum_.update(header.data(), header.size());
    return;
  }
  // Resuming: the file must start with this array's header and hold at least the values to keep.
  const auto keep_bytes = header.size() + static_cast<std::uintmax_t>(keep_values) * sizeof(float);
  std::string start(header.size(), '\0');
  const InputFile partial_file(temp_);  // a regular file: anything else is refused, never waited on
  if (partial_file.read_at(0, start.data(), start.size()) != start.size() || start != header ||
      partial_file.size() < keep_bytes || keep_values > expected_)
    throw InputError(fmt::format("{}: the checkpoint's partial output does not hold the {} values it recorded; "
                                 "remove the checkpoint to start afresh",
                                 temp_.string(), keep_values));
  // The bytes kept are the ones recorded: one flipped byte would resume to other numbers.
  std::vector<char> buffer(std::size_t{4} << 20);
  for (std::uintmax_t done = 0; done < keep_bytes;) {
    const std::size_t got = partial_file.read_at(done, buffer.data(),
                                                 static_cast<std::size_t>(std::min<std::uintmax_t>(buffer.size(), keep_bytes - done)));
    if (got == 0) break;
    checksum_.update(buffer.data(), got);
    done += got;
  }
  if (checksum_.hex() != keep_checksum)
    throw InputError(fmt::format("{}: the checkpoint's partial output is not what it recorded (its checksum differs: "
                                 "a damaged disk, or an edited file); remove the checkpoint to start afresh",
                                 temp_.string()));
  std::error_code ec;
  std::filesystem::resize_file(temp_, keep_bytes, ec);  // cut what was written after the last record
  if (ec) throw InputError(fmt::format("{}: cannot cut back to the checkpoint: {}", temp_.string(), ec.message()));
  open_stream(std::ios::app);
  written_ = keep_values;
}

NpyWriter::~NpyWriter() { abort(); }

void NpyWriter::open_stream(std::ios::openmode mode) {
  out_.open(temp_, std::ios::binary | std::ios::out | mode);
  if (!out_) throw_output_error(temp_, errno, "cannot create the file");
  open_ = true;
}

void NpyWriter::write_failed(int error_number) const { throw_output_error(path_, error_number, "write failed"); }

void NpyWriter::append(const float* values, std::int64_t count) {
  if (!open_) throw std::logic_error("NpyWriter: append after close");
  if (written_ + count > expected_) throw std::logic_error("NpyWriter: more values than the shape holds");
  errno = 0;
  out_.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(count * sizeof(float)));
  if (!out_) write_failed(errno);
  checksum_.update(values, static_cast<std::size_t>(count) * sizeof(float));
  written_ += count;
}

std::string NpyWriter::checksum() const { return checksum_.hex(); }

std::int64_t NpyWriter::flush() {
  errno = 0;
  out_.flush();
  if (!out_) write_failed(errno);
  return written_;
}

void NpyWriter::close() {
  if (closed_) return;
  if (written_ != expected_)
    throw std::logic_error(fmt::format("NpyWriter: {} of {} values written", written_, expected_));
  errno = 0;
  out_.close();
  open_ = false;
  if (!out_) write_failed(errno);
  closed_ = true;
}

void NpyWriter::commit() {
  close();
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) throw_output_error(path_, ec.value(), "cannot move the finished file into place");
  temp_.clear();
}

void NpyWriter::hand_over(OutputSet& outputs) {
  close();
  outputs.add(temp_, path_, keep_on_abort_);
  closed_ = false;
  temp_.clear();  // the set owns a temporary now; a partial file stays the checkpoint's
}

void NpyWriter::abort() noexcept {
  if (open_) out_.close();
  open_ = false;
  closed_ = false;
  if (temp_.empty() || keep_on_abort_) return;
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
  temp_.clear();
}

}  // namespace pacflow
