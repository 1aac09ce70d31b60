#pragma once
// A BrainVision recording (BrainVision Core Data Format 1.0) opened read-only: the header (.vhdr,
// stages/io/brainvision/brainvision_header.hpp), its binary data file, memory-mapped and read only
// where asked, and its markers (.vmrk, brainvision_markers.hpp) as annotations. Physical values are
// the stored values (little-endian INT_16, INT_32 or IEEE_FLOAT_32) times each channel's
// resolution. Data and marker files are named relative to the header's folder. Every error is one
// InputError naming the file (and the header line that named it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/mapped_file.hpp"
#include "stages/io/brainvision/brainvision_header.hpp"
#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

class BrainVisionFile final : public RecordingFile {
 public:
  // Opens the header at `path` and its data file; reads the markers too when asked (a missing
  // marker file is then a warning: no markers).
  BrainVisionFile(std::string path, bool with_markers);

  const std::string& path() const override { return path_; }
  const std::string& format() const override { return format_; }
  bool carries_annotations() const override { return true; }
  const std::vector<RecordingSignal>& signals() const override { return signals_; }
  const std::vector<RecordingAnnotation>& annotations() const override { return annotations_; }
  void read_physical(int signal, std::int64_t start, int count, double* dst) const override;
  // The header, the data file and the marker file (when there is one).
  std::vector<std::string> files() const override { return files_; }
  std::vector<std::string> warnings() const override { return warnings_; }
  const BrainVisionHeader& header() const { return header_; }

 private:
  // Maps the data file, checking that its size is a whole number of samples (and DataPoints=).
  void open_data();
  void read_markers(bool wanted);

  std::string path_;
  std::string format_ = "BrainVision";
  BrainVisionHeader header_;
  std::string data_path_;
  std::optional<MappedFile> data_;
  std::int64_t samples_ = 0;  // per channel
  std::vector<RecordingSignal> signals_;
  std::vector<RecordingAnnotation> annotations_;
  std::vector<std::string> files_;
  std::vector<std::string> warnings_;
};

}  // namespace pacflow::stages
