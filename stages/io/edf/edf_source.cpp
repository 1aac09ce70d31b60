#include "stages/io/edf/edf_source.hpp"

#include "stages/io/edf/edf_file.hpp"

namespace pacflow::stages {

namespace {

const RecordingTexts& edf_texts() {
  static const RecordingTexts texts{
      "edf", "the .edf or .bdf file",
      "EDF+ annotation text: one epoch around each onset of it; a list [go, nogo] makes one condition per text "
      "(epochs grouped by condition, in the list's order)",
      "epochs overlapping an EDF+ annotation whose text begins with this (any case; a list such as [BAD, EDGE] for "
      "several) are left out, as MNE does; none keeps every epoch",
      "EDF+ or BDF+ annotations"};
  return texts;
}

}  // namespace

EdfSource::EdfSource() : RecordingSource(edf_texts()) {}

void EdfSource::declare(ParamBinder<EdfSource>& p) { declare_recording(p, edf_texts()); }

ElementInfo EdfSource::info() {
  return element_info<EdfSource>(
      "edf", "EDF/EDF+/BDF/BDF+ recording (EDFlib) in physical units, epoched by fixed windows or EDF+ events");
}

std::unique_ptr<RecordingFile> EdfSource::open_file(const std::string& path, bool read_annotations) const {
  return std::make_unique<EdfFile>(path, read_annotations);
}

}  // namespace pacflow::stages
