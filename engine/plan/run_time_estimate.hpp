#pragma once
// About how long a run will take, from its plan (what `pipeline_cli validate` prints): an estimate,
// not a promise. Each stage costs its work (Stage::flops_per_series, and the tensor bytes it reads
// and writes) for every series, at the speed of the threads it gets; stages are summed, as they
// share those threads; the source's reading and a fixed start-up are added. Stages on GPUs or sim
// devices are costed with the modelled accelerator's figures (SimModel). Sinks' writing is not
// counted beyond the start-up term.
#include <string>
#include <vector>

#include "engine/api/compute_rates.hpp"
#include "engine/api/estimates.hpp"
#include "engine/api/params.hpp"

namespace pacflow {

// The rates for a CPU whose kernels run with `simd_width_bytes` vectors (16, 32, 64): the default
// scaled by kernel_bench's measured MI-kernel speed at that width (8.3, 13.7 and 20.6·10⁹ useful
// adds per second per thread).
ComputeRates measured_rates(int simd_width_bytes);

namespace detail {
struct BuiltPipeline;
// `threads`: the worker threads of the run (oneTBB's default concurrency).
RunTimeEstimate estimate_run_time(const BuiltPipeline& built, int threads, const ComputeRates& rates);
}  // namespace detail

}  // namespace pacflow
