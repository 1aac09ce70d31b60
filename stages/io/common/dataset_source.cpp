#include "stages/io/common/dataset_source.hpp"

#include <fmt/format.h>

namespace pacflow::stages {

StreamInfo DatasetSource::open(const std::stop_token&) {
  throw InputError(
      fmt::format("{}: a {} source runs the pipeline once per recording, as a dataset "
                  "(pipeline_cli run x.pipe, pacflow.run; in C++, run_dataset in "
                  "pipelines/dataset_run.hpp), not as one stream",
                  dataset_input(), dataset_kind()));
}

void DatasetSource::read(std::int64_t, std::int64_t, float*) {
  throw std::logic_error("a dataset source reads no samples");
}

}  // namespace pacflow::stages
