#pragma once
// The speeds a run-time estimate assumes (engine/plan/run_time_estimate.hpp): a run option
// (RunOptions::rates) that `pipeline_cli validate` may measure (measured_rates).
#include "engine/api/sim_model.hpp"

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

}  // namespace pacflow
