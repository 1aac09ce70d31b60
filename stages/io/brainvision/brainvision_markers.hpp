#pragma once
// A BrainVision marker file (.vmrk), BrainVision Core Data Format 1.0: [Marker Infos] lines
// MkN=<Type>,<Description>,<Position>,<Size>,<Channel>[,<Date>], positions 1-based in samples.
// As annotations they read as MNE reads them (mne.io.read_raw_brainvision): the text is
// "<Type>/<Description>" exactly, spaces kept ("Stimulus/S  1"; "\1" stands for a comma), the onset
// (Position - 1) / fs and the duration Size / fs, so a marker of size 1 covers its one sample (MNE
// gives 1 / fs too, not 0); an empty Size is 0, as in MNE. The Description alone is the
// annotation's alias, so reject_by_annotation=BAD leaves out "Bad Interval/…" and "Comment/BAD_eye"
// alike. "New Segment" markers stay annotations ("New Segment/"), events only when events= names
// them. Every error names the file and the line.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

struct BrainVisionMarker {
  std::string type;         // e.g. "Stimulus"
  std::string description;  // e.g. "S  1"
  std::int64_t position = 1;  // 1-based sample
  std::int64_t size = 0;      // samples
  int line = 0;
};

// Parses the bytes of the marker file at `path` (named in errors). Throws InputError
// "PATH:LINE: what is wrong".
std::vector<BrainVisionMarker> parse_vmrk(std::string_view bytes, const std::string& path);

// The markers as annotations of a recording sampled at `fs`, in the file's order.
std::vector<RecordingAnnotation> marker_annotations(const std::vector<BrainVisionMarker>& markers, double fs);

}  // namespace pacflow::stages
