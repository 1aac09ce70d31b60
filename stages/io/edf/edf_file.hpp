#pragma once
// An EDF, EDF+, BDF or BDF+ recording opened read-only through EDFlib: its signals (annotation
// signals hidden), its EDF+ annotations, and physical-unit sample reads. Open failures become one
// InputError naming the file and what is wrong with it.
#include <cstdint>
#include <string>
#include <vector>

#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

class EdfFile final : public RecordingFile {
 public:
  // Opens `path`; reads the EDF+ annotations too when asked.
  EdfFile(std::string path, bool read_annotations);
  ~EdfFile() override;

  const std::string& path() const override { return path_; }
  // "EDF", "EDF+", "BDF" or "BDF+".
  const std::string& format() const override { return format_; }
  // True for EDF+ and BDF+ (the formats that carry annotations).
  bool plus() const { return format_.back() == '+'; }
  bool carries_annotations() const override { return plus(); }
  const std::vector<RecordingSignal>& signals() const override { return signals_; }
  const std::vector<RecordingAnnotation>& annotations() const override { return annotations_; }
  // Reads `count` samples of `signal` from sample `start` on, in physical units.
  void read_physical(int signal, std::int64_t start, int count, double* dst) const override;

 private:
  // EDFlib's handle, closed (under the table lock) when the file goes away, a throwing constructor
  // included.
  struct Handle {
    int id = -1;
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle();
  };

  std::string path_;
  Handle handle_;
  std::string format_;
  std::vector<RecordingSignal> signals_;
  std::vector<RecordingAnnotation> annotations_;
};

}  // namespace pacflow::stages
