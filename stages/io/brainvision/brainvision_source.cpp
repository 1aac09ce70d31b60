#include "stages/io/brainvision/brainvision_source.hpp"

#include "stages/io/brainvision/brainvision_file.hpp"

namespace pacflow::stages {

namespace {

const RecordingTexts& brainvision_texts() {
  static const RecordingTexts texts{
      "brainvision", "the .vhdr header file (its data and marker files are found beside it)",
      "marker as Type/Description, e.g. \"Stimulus/S  1\" (as MNE names them): one epoch around each of its "
      "positions; a list [\"Stimulus/S  1\", \"Stimulus/S  2\"] makes one condition per marker (epochs grouped by "
      "condition, in the list's order)",
      "epochs overlapping a marker whose Type or Description begins with this (any case: \"Bad Interval/…\" and "
      "\"Comment/BAD_eye\" with BAD; a list such as [BAD, EDGE] for several) are left out; none keeps every epoch",
      "markers"};
  return texts;
}

}  // namespace

BrainVisionSource::BrainVisionSource() : RecordingSource(brainvision_texts()) {}

void BrainVisionSource::declare(ParamBinder<BrainVisionSource>& p) { declare_recording(p, brainvision_texts()); }

ElementInfo BrainVisionSource::info() {
  return element_info<BrainVisionSource>(
      "brainvision", "BrainVision recording (.vhdr/.eeg/.vmrk) in physical units, epoched by fixed windows or markers");
}

std::unique_ptr<RecordingFile> BrainVisionSource::open_file(const std::string& path, bool read_annotations) const {
  return std::make_unique<BrainVisionFile>(path, read_annotations);
}

}  // namespace pacflow::stages
