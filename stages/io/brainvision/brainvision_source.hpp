#pragma once
// Source `brainvision`: BrainVision recordings (.vhdr header, binary data file, .vmrk markers; the
// other common EEG format in BIDS beside EDF/BDF) in physical units, with the edf source's
// parameters and behaviour (stages/io/common/recording_source.hpp) over a BrainVisionFile: markers
// are its annotations, "Stimulus/S  1" as MNE names them.
#include <memory>
#include <string>

#include "stages/io/common/recording_source.hpp"

namespace pacflow::stages {

class BrainVisionSource final : public RecordingSource {
 public:
  BrainVisionSource();

  static ElementInfo info();
  static void declare(ParamBinder<BrainVisionSource>& p);

 protected:
  std::unique_ptr<RecordingFile> open_file(const std::string& path, bool read_annotations) const override;
};

}  // namespace pacflow::stages
