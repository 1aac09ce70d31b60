#pragma once
// A plan's estimates as data (engine/plan/memory_estimate.hpp and run_time_estimate.hpp make them):
// the host memory a run needs at most, and about how long it takes, each the sum of its terms.
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow {

struct MemoryEstimate {
  struct Term {
    std::string what;  // "segment 1 (bandpass … mi): 18 batches × 16 series × 2.1 MiB per series"
    double bytes = 0;
  };
  std::vector<Term> terms;
  double total() const;
  json to_json() const;
  // "1.2 GiB = 600.0 MiB (segment …) + …"
  std::string text() const;
};

struct RunTimeEstimate {
  struct Term {
    std::string what;  // "surrogates on cpu: 128 series × 6.3e+07 flops at 2 × 2.8e+10/s"
    double seconds = 0;
    std::string stage;  // a stage's term: its name and its work (Stage::flops_per_series × series)
    double flops = 0;
  };
  std::vector<Term> terms;
  int threads = 1;
  double total() const;
  json to_json() const;
};

// "512.0 KiB", "2.1 MiB", "1.20 GiB".
std::string bytes_text(double bytes);
// "0.24 s", "35 s", "12 min".
std::string duration_text(double seconds);

}  // namespace pacflow
