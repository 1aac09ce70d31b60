// The MI + surrogate inner loop against the CPU's vector-add roofline (issue 4).
//
// BM_MiSurrogateLoop/W: shifted_modulation_index on one W1 series (2048 samples, 10 x 10 bands,
// 18 bins, the observed alignment + 200 shifts) with W-byte vectors, one thread. Its counter
// useful_adds_per_s counts the adds the definition implies (samples x shifts x cells): what a
// per-sample loop would have to do, so it can exceed what the hardware adds per second.
// BM_VectorAdd/N: y[i] += x[i] over N floats, one thread; N = 32 Ki is cache-resident (the size of
// the kernel's rows), N = 32 Mi streams from memory. bench/README.md gives the ratios.
#include <benchmark/benchmark.h>

#include <numbers>
#include <vector>

#include "bench/vector_add.hpp"
#include "stages/modulation_index/shifted_mi.hpp"
#include "stages/surrogates/surrogate_math.hpp"

namespace pacflow {
namespace {

constexpr std::int64_t kLength = 2048;
constexpr std::int64_t kBands = 10;
constexpr std::int64_t kShifts = 201;

struct W1Series {
  std::vector<float> phase = std::vector<float>(kBands * kLength);
  std::vector<float> amplitude = std::vector<float>(kBands * kLength);
  std::vector<std::int64_t> shifts;
  W1Series() {
    // Phases of the W1 band centres (2..20 Hz at 512 Hz) with a jittered rate, amplitudes around 1:
    // the run lengths of the real pipeline's phases.
    for (std::int64_t p = 0; p < kBands; ++p) {
      double theta = 0;
      const double step = 2 * std::numbers::pi * (2.0 + 2.0 * static_cast<double>(p)) / 512.0;
      for (std::int64_t t = 0; t < kLength; ++t) {
        theta += step * (1.0 + 0.3 * std::sin(0.37 * static_cast<double>(t * (p + 1))));
        phase[static_cast<std::size_t>(p * kLength + t)] = static_cast<float>(std::remainder(theta, 2 * std::numbers::pi));
      }
    }
    for (std::size_t i = 0; i < amplitude.size(); ++i)
      amplitude[i] = 1.0f + 0.5f * static_cast<float>(std::cos(0.013 * static_cast<double>(i % 977)));
    shifts.push_back(0);
    for (std::uint64_t k = 0; k + 1 < kShifts; ++k) shifts.push_back(surrogates::timeshift(42, k, 256, kLength));
  }
};

void BM_MiSurrogateLoop(benchmark::State& state) {
  const auto width = static_cast<int>(state.range(0));
  if (width > simd::simd_width()) {
    state.SkipWithError("this CPU lacks that vector width");
    return;
  }
  W1Series series;
  std::vector<double> out(static_cast<std::size_t>(kShifts * kBands * kBands));
  for (auto _ : state)
    mi::shifted_modulation_index({series.phase.data(), series.amplitude.data(), kBands, kBands, kLength}, 18,
                                 series.shifts, out.data(), width);
  state.counters["useful_adds_per_s"] = benchmark::Counter(static_cast<double>(kLength * kShifts * kBands * kBands),
                                                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MiSurrogateLoop)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VectorAdd(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  for (auto _ : state) {
    bench::vector_add(y.data(), x.data(), n);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["adds_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_VectorAdd)->Arg(32 << 10)->Arg(32 << 20)->UseRealTime();

}  // namespace
}  // namespace pacflow

BENCHMARK_MAIN();
