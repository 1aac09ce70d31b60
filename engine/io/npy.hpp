#pragma once
// NumPy `.npy` files (format 1.0–3.0 read, 1.0 written): headers, whole-array reads, memory-mapped
// row reads and an atomic streaming writer.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/io/atomic_file.hpp"
#include "engine/io/mapped_file.hpp"
#include "engine/api/tensor.hpp"

#include "engine/io/checksum.hpp"

namespace pacflow {

class InputFile;
class OutputSet;

struct NpyHeader {
  DType dtype = DType::Float32;
  bool big_endian = false;
  Shape shape;
  std::uint64_t data_offset = 0;
};

// Reads up to `count` bytes at `offset` of an .npy file's bytes into dst; returns how many it read.
using NpyByteRead = std::function<std::size_t(std::uint64_t offset, void* dst, std::size_t count)>;

// Parses and checks an .npy header from `read`, over `size` bytes in all (the array's data must fit
// in them): supported dtypes are float32, float64, int16, int32 (either byte order), C order only.
// Throws InputError naming `name` and what is wrong. data_offset is relative to those bytes.
NpyHeader parse_npy_header(const NpyByteRead& read, std::uint64_t size, const std::string& name);

// parse_npy_header on a file (regular files only).
NpyHeader read_npy_header(const std::filesystem::path& path);

// `count` values as the header's dtype and byte order store them, to float32.
void npy_values_to_float(const NpyHeader& header, const std::byte* src, std::size_t count, float* dst);

// Reads a whole array in its own dtype (converted to host byte order).
Tensor read_npy(const std::filesystem::path& path);

// The values of one stored .npy array, read as float32: an .npy file, or a member of an .npz archive.
class NpyValues {
 public:
  virtual ~NpyValues() = default;
  virtual const NpyHeader& header() const = 0;
  // Values [first, first + count) in C order (flat indices) to dst. With `release`, the reader may
  // let go of what it holds of them (for readers that go forward and never return).
  virtual void read(std::int64_t first, std::int64_t count, float* dst, bool release) = 0;
};

// Rows of an .npy array through a memory map: a read touches only the pages of the rows it asks for,
// so files far larger than memory stream batch by batch.
class NpyRowReader final : public NpyValues {
 public:
  // Reads and checks the header (read_npy_header: throws InputError), then maps the file.
  explicit NpyRowReader(const std::filesystem::path& path);
  // The .npy bytes stored uncompressed at [at, at + length) of `archive` (a member of an .npz
  // archive); `name` names them in messages.
  NpyRowReader(const InputFile& archive, std::uint64_t at, std::uint64_t length, std::string name);
  const NpyHeader& header() const override { return header_; }
  // Writes rows [first, first + count) to dst as float32, converted from the file's dtype and byte
  // order; a row is a run of `row_elements` consecutive values (e.g. one series of the last axis).
  // With `release_read`, the pages of these rows are handed back afterwards (for readers that go
  // forward and never return).
  void read_as_float(std::int64_t first, std::int64_t count, std::int64_t row_elements, float* dst,
                     bool release_read = false) const;
  void read(std::int64_t first, std::int64_t count, float* dst, bool release) override;

 private:
  explicit NpyRowReader(const InputFile& file);
  void check_mapped_size() const;

  std::string name_;
  NpyHeader header_;
  MappedFile map_;
};

// A whole one-dimensional float64 (little-endian) .npy file, for small arrays written at once.
std::string npy_bytes(const std::vector<double>& values);

// Writes a float32 array row by row into a temporary file beside `path`; hand_over() gives the
// complete file to the run's OutputSet, which moves it into place with every other output, so
// readers see a complete file or none. Destroying a writer that has not handed over removes it.
// A checkpointed writer streams into a `partial` file of its own instead, which outlives an abort (or
// a kill) so that a later run can resume it; the OutputSet copies it into place.
class NpyWriter {
 public:
  NpyWriter(std::filesystem::path path, Shape shape);
  // Streams into `partial`, keeping its first `keep_values` values (a resumed run; the header must be
  // this array's, the bytes kept must have `keep_checksum` (checksum()'s when they were recorded), and
  // anything after them is cut off), or starting it afresh when `keep_values` is 0. Throws InputError
  // when the partial file does not hold what the caller expects.
  NpyWriter(std::filesystem::path path, Shape shape, std::filesystem::path partial, std::int64_t keep_values,
            const std::string& keep_checksum);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  void append(const float* values, std::int64_t count);
  // Hands every appended value to the operating system; returns how many have been written.
  std::int64_t flush();
  // The checksum (engine/io/checksum.hpp) of the file's bytes so far, header included: what a
  // checkpoint records beside flush()'s count, so a resumed run can tell its partial file is intact.
  std::string checksum() const;
  // Every value written: completes and closes the file (under its temporary name). Throws, naming the
  // file and the system's reason, when the data did not reach the disk (a full disk).
  void close();
  // close() if not done yet, then adds the file to `outputs` for `path` (a temporary becomes the
  // set's to move; a checkpoint's partial file is copied and stays). How a run's sinks finish.
  void hand_over(OutputSet& outputs);
  // close() if not done yet, then renames the file into place on its own: for a file that is not one
  // of a run's outputs (tests and tools writing inputs).
  void commit();
  // Discards the temporary (a checkpoint's partial file is only closed); never throws.
  void abort() noexcept;

 private:
  void open_stream(std::ios::openmode mode);
  [[noreturn]] void write_failed(int error_number) const;

  std::filesystem::path path_;
  std::filesystem::path temp_;
  std::ofstream out_;
  std::int64_t expected_ = 0;
  std::int64_t written_ = 0;
  bool keep_on_abort_ = false;
  Checksum checksum_;    // of every byte written
  bool open_ = false;    // the stream is open
  bool closed_ = false;  // complete, awaiting commit
};

}  // namespace pacflow
