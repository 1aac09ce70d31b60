#pragma once
// About how long a run will take, from its plan (what `pipeline_cli validate` prints): an estimate,
// not a promise. Each stage costs its work (Stage::flops_per_series, and the tensor bytes it reads
// and writes) for every series, at the speed of the threads it gets; stages are summed, as they
// share those threads; the source's reading and a fixed start-up are added. Stages on GPUs or sim
// devices are costed with the modelled accelerator's figures (SimModel). Sinks' writing is not
// counted beyond the start-up term.
#include <string>
#include <vector>

#include "engine/api/params.hpp"
#include "engine/devices/sim/sim_device.hpp"

namespace pacflow {

// Speeds for the estimate. Defaults: measured on the reference 2-core machine (bench/README.md).
struct ComputeRates {
  // Work per second of one CPU thread, in Stage::flops_per_series units: the surrogates stage on
  // W1 (16 series × 6.3·10⁷ per series in 17.7 ms on 2 threads, stage_bench, AVX-512 kernels).
  double cpu_flops_per_thread_s = 2.8e10;
  // Tensor bytes a CPU stage reads and writes per second and thread (an assumption: a few times
  // below a core's streaming bandwidth, since tensors are written once and read back later).
  double cpu_bytes_per_thread_s = 5e9;
  // Bytes a kernel whose working set outgrows the caches reads again from memory per second and
  // thread (Stage::streamed_bytes_per_series): gPAC's 10-minute series, about 7 GB/s.
  double cpu_streamed_bytes_per_thread_s = 7e9;
  double startup_s = 0.05;  // loading, FFT plans, threads, writing small outputs
  SimModel accelerator{};   // for stages on cuda or sim devices
};

// The rates for a CPU whose kernels run with `simd_width_bytes` vectors (16, 32, 64): the default
// scaled by kernel_bench's measured MI-kernel speed at that width (8.3, 13.7 and 20.6·10⁹ useful
// adds per second per thread).
ComputeRates measured_rates(int simd_width_bytes);

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

// "0.24 s", "35 s", "12 min".
std::string duration_text(double seconds);

namespace detail {
struct BuiltPipeline;
// `threads`: the worker threads of the run (oneTBB's default concurrency).
RunTimeEstimate estimate_run_time(const BuiltPipeline& built, int threads, const ComputeRates& rates);
}  // namespace detail

}  // namespace pacflow
