#pragma once
// A run's results as arrays in memory: what the `arrays` sink fills (stages/io/memory/memory_sink.hpp)
// and a dataset's stacked file takes from each recording (stages/io/hdf5/stacked_results.hpp).
#include <string>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

struct ResultArray {
  std::string name;
  Shape shape;                    // leading dims, then the per-series shape
  std::vector<std::string> dims;  // a name per axis of shape
  std::string doc;
  std::vector<float> values;      // C order
};

// What a run's `arrays` sink received: complete once the run returned.
struct ResultArrays {
  std::vector<ResultArray> arrays;  // in the order the elements declared them
  std::vector<Coordinate> coordinates;
};

}  // namespace pacflow::stages
