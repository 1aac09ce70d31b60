#pragma once
// A continuous recording opened read-only, whatever its format (EDF/BDF through EDFlib, BrainVision):
// its signals, its annotations (EDF+ annotations, BrainVision markers) and physical-unit sample
// reads. What the recording sources (stages/io/common/recording_source.hpp) epoch and read.
#include <cstdint>
#include <string>
#include <vector>

namespace pacflow::stages {

struct RecordingSignal {
  std::string label;         // trimmed, e.g. "Fz"
  std::string unit;          // physical dimension, UTF-8, e.g. "uV" or "µV"
  double sample_rate = 0;    // Hz
  std::int64_t samples = 0;  // in the whole recording
  double resolution = 0;     // physical units per stored step: the resolution of the stored values
};

struct RecordingAnnotation {
  double onset_s = 0;     // from the start of the recording
  double duration_s = 0;  // 0 when the annotation has none (an instant)
  std::string text;
  // Another name reject_by_annotation's prefixes are matched against, or empty: a BrainVision
  // marker's Description ("BAD_eye" of "Comment/BAD_eye").
  std::string alias;
};

class RecordingFile {
 public:
  virtual ~RecordingFile() = default;
  RecordingFile() = default;
  RecordingFile(const RecordingFile&) = delete;
  RecordingFile& operator=(const RecordingFile&) = delete;

  // The file named by the user (an EDF file, a BrainVision header).
  virtual const std::string& path() const = 0;
  // e.g. "EDF+", "BDF", "BrainVision".
  virtual const std::string& format() const = 0;
  // False when the format cannot carry annotations at all (plain EDF and BDF).
  virtual bool carries_annotations() const = 0;
  virtual const std::vector<RecordingSignal>& signals() const = 0;
  virtual const std::vector<RecordingAnnotation>& annotations() const = 0;
  // Reads `count` samples of `signal` from sample `start` on, in physical units. Throws InputError
  // naming the file when they cannot be read.
  virtual void read_physical(int signal, std::int64_t start, int count, double* dst) const = 0;
  // Every file the recording is read from, the one named by the user first (a BrainVision header,
  // its data and its markers): no output of a run may replace one of them.
  virtual std::vector<std::string> files() const { return {path()}; }
  // What the user should hear about the file itself (e.g. a marker file named but missing).
  virtual std::vector<std::string> warnings() const { return {}; }
};

}  // namespace pacflow::stages
