#pragma once
// NumPy `.npy` files (format 1.0–3.0 read, 1.0 written): headers, whole-array reads, memory-mapped
// row reads and an atomic streaming writer.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/atomic_file.hpp"
#include "engine/mapped_file.hpp"
#include "engine/tensor.hpp"

namespace pacflow {

class OutputSet;

struct NpyHeader {
  DType dtype = DType::Float32;
  bool big_endian = false;
  Shape shape;
  std::uint64_t data_offset = 0;
};

// Reads and checks the header: supported dtypes are float32, float64, int16, int32 (either byte
// order), C order only. Throws InputError naming the file and what is wrong.
NpyHeader read_npy_header(const std::filesystem::path& path);

// Reads a whole array in its own dtype (converted to host byte order).
Tensor read_npy(const std::filesystem::path& path);

// Rows of an .npy array through a memory map: a read touches only the pages of the rows it asks for,
// so files far larger than memory stream batch by batch.
class NpyRowReader {
 public:
  // Reads and checks the header (read_npy_header: throws InputError), then maps the file.
  explicit NpyRowReader(std::filesystem::path path);
  const NpyHeader& header() const { return header_; }
  // Writes rows [first, first + count) to dst as float32, converted from the file's dtype and byte
  // order; a row is a run of `row_elements` consecutive values (e.g. one series of the last axis).
  // With `release_read`, the pages of these rows are handed back afterwards (for readers that go
  // forward and never return).
  void read_as_float(std::int64_t first, std::int64_t count, std::int64_t row_elements, float* dst,
                     bool release_read = false) const;

 private:
  std::filesystem::path path_;
  NpyHeader header_;
  MappedFile map_;
};

// Writes a float32 array row by row into a temporary file beside `path`; hand_over() gives the
// complete file to the run's OutputSet, which moves it into place with every other output, so
// readers see a complete file or none. Destroying a writer that has not handed over removes it.
// A checkpointed writer streams into a `partial` file of its own instead, which outlives an abort (or
// a kill) so that a later run can resume it; the OutputSet copies it into place.
class NpyWriter {
 public:
  NpyWriter(std::filesystem::path path, Shape shape);
  // Streams into `partial`, keeping its first `keep_values` values (a resumed run; the header must be
  // this array's, and anything after them is cut off), or starting it afresh when `keep_values` is 0.
  // Throws InputError when the partial file does not hold what the caller expects.
  NpyWriter(std::filesystem::path path, Shape shape, std::filesystem::path partial, std::int64_t keep_values);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  void append(const float* values, std::int64_t count);
  // Hands every appended value to the operating system; returns how many have been written.
  std::int64_t flush();
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
  bool open_ = false;    // the stream is open
  bool closed_ = false;  // complete, awaiting commit
};

}  // namespace pacflow
