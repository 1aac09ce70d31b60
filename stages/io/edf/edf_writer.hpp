#pragma once
// Writes EDF+ or BDF+ recordings through EDFlib, one-second data records at a time: what
// make_example_inputs and the tests use to make their inputs (no binary files in the repository).
#include <string>
#include <vector>

namespace pacflow::stages {

struct EdfSignalSpec {
  std::string label;
  int sample_rate = 256;  // samples per one-second data record
  double physical_min = -500, physical_max = 500;
  int digital_min = -32768, digital_max = 32767;  // BDF: up to -8388608..8388607
  std::string unit = "uV";
};

class EdfWriter {
 public:
  // Creates `path` (replacing it) as BDF+ when `bdf`, else EDF+. Throws InputError on failure.
  EdfWriter(const std::string& path, bool bdf, const std::vector<EdfSignalSpec>& signals);
  ~EdfWriter();
  EdfWriter(const EdfWriter&) = delete;
  EdfWriter& operator=(const EdfWriter&) = delete;

  // Appends one data record: record[s] holds signal s's sample_rate physical values (clipped to
  // its physical range by EDFlib).
  void write_record(const std::vector<std::vector<double>>& record);
  // Adds an EDF+ annotation (resolution 0.1 ms), stored when the file is closed; a negative
  // duration writes none (an instant).
  void annotate(double onset_s, const std::string& text, double duration_s = -1);
  // Finalises the header and closes the file; throws when EDFlib reports a failure.
  void close();

 private:
  int close_quietly() noexcept;  // EDFlib's status; 0 when already closed

  std::string path_;
  std::vector<EdfSignalSpec> signals_;
  int handle_ = -1;
};

}  // namespace pacflow::stages
