#pragma once
// Runs of equal phase bin of one series (spec §5's binning), laid out for the shifted MI kernel
// (shifted_mi.cpp): every phase band's runs, ordered by (time block, phase band).
#include <cstdint>
#include <vector>

#include "stages/kernels/pac/shifted_mi.hpp"

namespace pacflow::mi {

constexpr std::int32_t kRunBlock = 256;        // samples per time block: 256 rows of 64 bytes are 16 KiB
constexpr std::int32_t kRunFlushBlocks = 16;  // float sums go into double ones every 4096 samples

// A segment is the runs of one phase band that start in one block; a run may end past its block,
// which is fine because the kernel reads rows wherever a run ends.
struct RunTable {
  struct Segment {
    std::int32_t start_row;  // first sample of the segment's first run
    std::int32_t first;      // runs [first, last)
    std::int32_t last;
    bool flush_after;        // move the float sums into the double ones after this segment
  };
  struct Run {
    std::int32_t end_row;   // one past the run's last sample
    std::int32_t cell_bin;  // p · bins + bin: the run's accumulator
  };
  std::vector<Segment> segments;
  std::vector<Run> runs;
  std::vector<double> inverse_counts;  // [p][bin]: 1 / count, 0 for an empty bin
  std::vector<double> occupied;        // [p][bin]: 1 for a bin with samples, else 0
  bool flushes = false;                // some segment flushes before the end (series > 4096 samples)
};

// The run table of a series' phase bands, binned with simd_bytes-wide vectors (16, 32 or 64).
RunTable make_run_table(const SeriesBands& series, int bins, int simd_bytes);

}  // namespace pacflow::mi
