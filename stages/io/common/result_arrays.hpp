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

// What a run's results have in common with those of every other recording a dataset runs with the
// same pipeline (pipelines/dataset_run.hpp checks and stacks them once): the plan's facts of study
// scope (PlanFact, FactScope::Study: the bands in Hz, the measure, the trial-level test) as the
// report shows them, and the names along the channel and condition axes.
struct SharedFacts {
  json study = json::object();               // by fact name
  std::vector<std::string> channel_names;    // the input's channel labels; empty: none
  std::vector<std::string> condition_names;  // several conditions' names, in order; empty: one
  bool operator==(const SharedFacts&) const = default;
};

// What a run's `arrays` sink received: complete once the run returned.
struct ResultArrays {
  std::vector<ResultArray> arrays;  // in the order the elements declared them
  std::vector<Coordinate> coordinates;
  SharedFacts facts;
};

}  // namespace pacflow::stages
