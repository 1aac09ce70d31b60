#pragma once
// Source `edf`: EDF, EDF+, BDF or BDF+ recordings through EDFlib, in physical units, epoched by
// fixed windows or around EDF+ annotations, bad spans left out: the recording sources' work
// (stages/io/common/recording_source.hpp) over an EdfFile.
#include <memory>
#include <string>

#include "stages/io/common/recording_source.hpp"

namespace pacflow::stages {

class EdfSource final : public RecordingSource {
 public:
  EdfSource();

  static ElementInfo info();
  static void declare(ParamBinder<EdfSource>& p);

 protected:
  std::unique_ptr<RecordingFile> open_file(const std::string& path, bool read_annotations) const override;
};

}  // namespace pacflow::stages
