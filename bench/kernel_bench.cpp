// The MI + surrogate inner loop against the CPU's vector-add roofline (issue 4).
//
// BM_MiSurrogateLoop/W: shifted_modulation_index on one W1 series (the synthetic source's first
// series through W1's bandpass and hilbert stages: 2048 samples, 10 x 10 bands, 18 bins, the
// observed alignment + the 200 shifts w1.pipe draws) with W-byte vectors, one thread. Its counter
// useful_adds_per_s counts the adds the definition implies (samples x alignments x cells): what a
// per-sample loop would have to do, so it can exceed what the hardware adds per second.
// BM_MiSurrogateLoopLong/T: the same kernel on one series of T samples (gPAC's 600 000), whose rows
// outgrow the caches.
// BM_TrialSummary/M: the trial-level test's summary (add every block, then finish) of 64 epochs x
// 16 channels x 50 x 50 cells at 2 000 permutations (640 MB of sums), M = 0 keeping the sums, 1
// keeping each block's pairings (164 MB) and summing them at the finish, as beyond its state limit.
// BM_VectorAdd/N: y[i] += x[i] over N floats, one thread; N = 32 Ki is cache-resident (the size of
// the kernel's rows), N = 32 Mi streams from memory. bench/README.md gives the ratios.
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "bench/vector_add.hpp"
#include "bench/w1_chain.hpp"
#include "stages/kernels/pac/shifted_mi.hpp"
#include "stages/kernels/surrogates/trial_statistics.hpp"
#include "stages/surrogates/surrogates_stage.hpp"

namespace pacflow {
namespace {

constexpr std::int64_t kShifts = 201;

// Series 0 of W1 after bandpass and hilbert, and the alignments of w1.pipe's surrogates stage.
struct W1Series {
  std::vector<float> phase, amplitude;
  std::vector<std::int64_t> shifts;
  W1Series() {
    bench::W1Chain chain;
    chain.run_first(2);
    const auto take = [&](const char* name, std::int64_t bands) {
      const auto values = chain.batch.at(name).values<float>();
      return std::vector<float>(values.begin(), values.begin() + bands * bench::W1Chain::kLength);
    };
    phase = take("phase", bench::W1Chain::kPhaseBands);
    amplitude = take("amplitude", bench::W1Chain::kAmplitudeBands);
    const auto& surrogates = dynamic_cast<const stages::SurrogatesStage&>(*chain.stages[3]);
    shifts.push_back(0);
    shifts.insert(shifts.end(), surrogates.shifts().begin(), surrogates.shifts().end());
  }
  static constexpr std::int64_t kCells = bench::W1Chain::kPhaseBands * bench::W1Chain::kAmplitudeBands;
  mi::SeriesBands bands() const {
    return {phase.data(), amplitude.data(), bench::W1Chain::kPhaseBands, bench::W1Chain::kAmplitudeBands,
            bench::W1Chain::kLength};
  }
};

void BM_MiSurrogateLoop(benchmark::State& state) {
  const auto width = static_cast<int>(state.range(0));
  if (width > simd::simd_width()) {
    state.SkipWithError("this CPU lacks that vector width");
    return;
  }
  const W1Series series;
  constexpr std::int64_t kLength = bench::W1Chain::kLength;
  constexpr std::int64_t kCells = W1Series::kCells;
  std::vector<double> out(static_cast<std::size_t>(kShifts * kCells));
  const mi::SeriesBands bands = series.bands();
  for (auto _ : state) mi::shifted_modulation_index(bands, 18, series.shifts, out.data(), width);
  state.counters["useful_adds_per_s"] =
      benchmark::Counter(static_cast<double>(kLength * kShifts * kCells), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MiSurrogateLoop)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same series with the observed alignment only: what the mi stage costs a series (the run
// table and detrended rows, then one pass), and what each trial-test pairing cost before session 13.
void BM_MiOneAlignment(benchmark::State& state) {
  const W1Series series;
  constexpr std::int64_t kCells = W1Series::kCells;
  std::vector<double> out(static_cast<std::size_t>(kCells));
  const mi::SeriesBands bands = series.bands();
  const std::int64_t observed[1] = {0};
  for (auto _ : state) mi::shifted_modulation_index(bands, 18, observed, out.data(), 0);
}
BENCHMARK(BM_MiOneAlignment)->Unit(benchmark::kMicrosecond)->UseRealTime();

// What surrogates computes for one channel's block of 8 W1 epochs with the trial-level test on:
// each epoch's row, its observed alignment and 200 shifts, and the pairings of its phase with the
// channel's amplitude in the 7 other epochs (here 8 copies of one series: the cost does not depend
// on the values). /0: one call per row, as before session 14 (each row binned its phase once, and
// built each of its 8 amplitudes' rows and ran each pairing alone); /1: the block in one call, as
// the surrogates stage now does (each amplitude's rows built once, a phase's 7 pairings one tile).
// Against 8 x BM_MiSurrogateLoop/64: the pairings' cost.
void BM_MiTrialBlock(benchmark::State& state) {
  const W1Series series;
  constexpr std::int64_t kCells = W1Series::kCells, kEpochs = 8;
  const bool one_call = state.range(0) != 0;
  const std::vector<std::vector<float>> amplitudes(kEpochs, series.amplitude);
  std::vector<double> out(static_cast<std::size_t>(kEpochs * (kShifts + kEpochs) * kCells));
  const std::int64_t observed[1] = {0};
  const mi::SeriesBands phase = series.bands();
  const std::vector<mi::SeriesBands> phases(kEpochs, phase);
  std::vector<std::vector<mi::ShiftedAmplitude>> rows(kEpochs);
  for (std::size_t e = 0; e < kEpochs; ++e) {
    double* row = out.data() + static_cast<std::ptrdiff_t>(e) * (kShifts + kEpochs) * kCells;
    const std::size_t phase_index = one_call ? e : 0;
    rows[e].push_back({amplitudes[e].data(), series.shifts, row, phase_index});
    for (std::size_t f = 0; f < kEpochs; ++f)
      if (f != e) rows[e].push_back({amplitudes[f].data(), observed, row + (kShifts + f) * kCells, phase_index});
  }
  std::vector<mi::ShiftedAmplitude> block;
  for (const auto& row : rows) block.insert(block.end(), row.begin(), row.end());
  for (auto _ : state) {
    if (one_call)
      mi::shifted_modulation_indices(phases, 18, block, {});
    else
      for (const auto& row : rows) mi::shifted_modulation_indices({&phase, 1}, 18, row, {});
  }
}
BENCHMARK(BM_MiTrialBlock)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// One series of gPAC's scenario (10 min at 1 kHz): 10 phase bands at 2-20 Hz with a slowly
// wandering frequency, 10 amplitude bands of positive noise, the observed alignment and 200
// random shifts, the widest vectors. Its rows (600 000 x 64 bytes) outgrow the caches, so every
// alignment reads them again: compare its useful adds per second with W1's and the streaming
// vector add's.
void BM_MiSurrogateLoopLong(benchmark::State& state) {
  const std::int64_t length = state.range(0), n_pha = 10, n_amp = 10;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> phase(static_cast<std::size_t>(n_pha * length)), amplitude(static_cast<std::size_t>(n_amp * length));
  for (std::int64_t p = 0; p < n_pha; ++p) {
    double angle = 0;
    for (std::int64_t t = 0; t < length; ++t) {
      angle += 2 * std::numbers::pi * (2.0 + 2.0 * static_cast<double>(p) + 0.5 * uniform(rng)) / 1000.0;
      phase[static_cast<std::size_t>(p * length + t)] = static_cast<float>(std::remainder(angle, 2 * std::numbers::pi));
    }
  }
  for (float& a : amplitude) a = 0.5f + uniform(rng);
  std::vector<std::int64_t> shifts{0};
  std::uniform_int_distribution<std::int64_t> shift(1, length - 1);
  for (std::int64_t k = 1; k < kShifts; ++k) shifts.push_back(shift(rng));
  std::vector<double> out(static_cast<std::size_t>(kShifts * n_pha * n_amp));
  const mi::SeriesBands bands{phase.data(), amplitude.data(), n_pha, n_amp, length};
  for (auto _ : state) mi::shifted_modulation_index(bands, 18, shifts, out.data(), 0);
  state.counters["useful_adds_per_s"] = benchmark::Counter(static_cast<double>(length * kShifts * n_pha * n_amp),
                                                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MiSurrogateLoopLong)->Arg(600000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The heavy scaling job's trial-level test at 2 000 permutations: its sums (640 MB) kept, or its
// pairings (164 MB) and the sums made again at the finish. The same bits either way
// (stages/surrogates/trial_statistics_test.cpp); this is the time and memory each takes.
void BM_TrialSummary(benchmark::State& state) {
  constexpr std::int64_t kEpochs = 64, kGroups = 16, kBlock = 8, kPha = 50, kAmp = 50, kCells = kPha * kAmp;
  surrogates::TrialLayout layout{RowLayout{}, kEpochs, kGroups, 2000, {kPha, kAmp}, surrogates::TrialTest::Maxstat,
                                 {}, 1, {}, 42, kBlock, surrogates::TrialFamily::Channels, false, {}};
  if (state.range(0) == 0) layout.state_limit_bytes = 1e12;  // else the default limit, which the sums pass
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<Batch> batches(static_cast<std::size_t>(kEpochs / kBlock));
  for (std::size_t b = 0; b < batches.size(); ++b) {
    batches[b].first_series = static_cast<std::int64_t>(b) * kBlock * kGroups;
    batches[b].series_count = kBlock * kGroups;
    for (double& v : batches[b].emplace(surrogates::kTrialPairingsTensor, {kBlock, kPha, kAmp}, DType::Float64).values<double>())
      v = noise(rng);
    batches[b].emplace(surrogates::kEpochZ, {kPha, kAmp}, DType::Float32);
  }
  for (auto _ : state) {
    surrogates::TrialStatistics stats(layout);
    for (const Batch& batch : batches) stats.add(batch);
    Batch out;
    stats.finish(out);
    benchmark::DoNotOptimize(out.at(surrogates::kTrialPvalues).values<float>().data());
  }
  state.counters["state_MB"] = surrogates::trial_state_bytes(layout) / 1e6;
  state.counters["cells"] = static_cast<double>(kGroups * kCells);
}
BENCHMARK(BM_TrialSummary)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

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
