#pragma once
// An EDF, EDF+, BDF or BDF+ recording opened read-only through EDFlib: its signals (annotation
// signals hidden), its EDF+ annotations, and physical-unit sample reads. Open failures become one
// InputError naming the file and what is wrong with it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pacflow::stages {

struct EdfSignal {
  std::string label;        // trimmed, e.g. "Fz"
  std::string unit;         // physical dimension, e.g. "uV"
  double sample_rate = 0;   // Hz
  std::int64_t samples = 0; // in the whole file
  double physical_min = 0, physical_max = 0;
  int digital_min = 0, digital_max = 0;
  // Physical units per digital step: the resolution of the stored values.
  double resolution() const { return (physical_max - physical_min) / (digital_max - digital_min); }
};

struct EdfAnnotation {
  double onset_s = 0;     // from the start of the recording
  double duration_s = 0;  // 0 when the annotation has none (an instant)
  std::string text;
};

class EdfFile {
 public:
  // Opens `path`; reads the EDF+ annotations too when asked.
  EdfFile(std::string path, bool read_annotations);
  ~EdfFile();
  EdfFile(const EdfFile&) = delete;
  EdfFile& operator=(const EdfFile&) = delete;

  const std::string& path() const { return path_; }
  // "EDF", "EDF+", "BDF" or "BDF+".
  const std::string& format() const { return format_; }
  // True for EDF+ and BDF+ (the formats that carry annotations).
  bool plus() const { return format_.back() == '+'; }
  const std::vector<EdfSignal>& signals() const { return signals_; }
  const std::vector<EdfAnnotation>& annotations() const { return annotations_; }
  // Reads `count` samples of `signal` from sample `start` on, in physical units.
  void read_physical(int signal, std::int64_t start, int count, double* dst) const;

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
  std::vector<EdfSignal> signals_;
  std::vector<EdfAnnotation> annotations_;
};

}  // namespace pacflow::stages
