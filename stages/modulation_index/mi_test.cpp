#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <numbers>
#include <oneapi/tbb/task_arena.h>
#include <vector>

#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/pac/phase_bins.hpp"
#include "stages/kernels/pac/shifted_mi.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

TEST(ModulationIndex, PhaseBinsFollowSpecFormulaAndClamp) {
  const float pi = std::numbers::pi_v<float>;
  EXPECT_EQ(mi::phase_bin(-pi, 18), 0);
  EXPECT_EQ(mi::phase_bin(pi, 18), 17);  // clamped
  EXPECT_EQ(mi::phase_bin(0.0f, 18), 9);
  EXPECT_EQ(mi::phase_bin(-0.01f, 18), 8);
}

PACFLOW_TARGET_64 void phase_bins_64(const float* phase, std::int64_t n, int bins, std::int32_t* out) {
  mi::phase_bins<64>(phase, n, bins, out);
}
PACFLOW_TARGET_32 void phase_bins_32(const float* phase, std::int64_t n, int bins, std::int32_t* out) {
  mi::phase_bins<32>(phase, n, bins, out);
}
void phase_bins_16(const float* phase, std::int64_t n, int bins, std::int32_t* out) { mi::phase_bins<16>(phase, n, bins, out); }

// The vector binning of the kernels is phase_bin lane by lane: bin edges (and the floats on either
// side of them), the clamps at ±π and beyond, infinities and NaN, at every width the CPU has.
TEST(ModulationIndex, VectorPhaseBinsEqualPhaseBinAtEveryWidth) {
  for (int bins : {2, 18, 100, 1024}) {
    std::vector<float> phase = {-4.0f, 4.0f, std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
    for (int j = 0; j <= bins; ++j) {
      const auto edge = static_cast<float>(-std::numbers::pi + 2 * std::numbers::pi * j / bins);
      for (float x : {edge, std::nextafter(edge, -10.0f), std::nextafter(edge, 10.0f)}) phase.push_back(x);
    }
    std::vector<std::int32_t> expected;
    for (float x : phase) expected.push_back(mi::phase_bin(x, bins));
    using BinPhases = void (*)(const float*, std::int64_t, int, std::int32_t*);
    for (const auto& [width, bin_phases] :
         {std::pair<int, BinPhases>{16, phase_bins_16}, {32, phase_bins_32}, {64, phase_bins_64}}) {
      if (width > simd::simd_width()) continue;
      std::vector<std::int32_t> ours(phase.size(), -1);
      bin_phases(phase.data(), static_cast<std::int64_t>(phase.size()), bins, ours.data());
      EXPECT_EQ(ours, expected) << bins << " bins, " << width << "-byte vectors";
    }
  }
}

TEST(ModulationIndex, UniformAmplitudeGivesZeroAndOneBinGivesOne) {
  const int bins = 4;
  std::int64_t counts[4] = {10, 10, 10, 10};
  double flat[4] = {5, 5, 5, 5};
  EXPECT_NEAR(mi::tort_mi(flat, counts, bins), 0.0, 1e-15);
  double peaked[4] = {0, 0, 7, 0};
  EXPECT_NEAR(mi::tort_mi(peaked, counts, bins), 1.0, 1e-15);
  // Empty bins are left out (p_j = 0), not counted as zero-mean bins.
  std::int64_t sparse[4] = {10, 0, 10, 0};
  double two[4] = {5, 0, 5, 0};
  EXPECT_NEAR(mi::tort_mi(two, sparse, bins), 1.0 - std::log(2.0) / std::log(4.0), 1e-15);
}

// The MI of a phase series against a shifted amplitude series, straight from spec §5 and §6: one
// pass over the samples, plain sums, std::log. The fast kernel must agree with it.
double direct_mi(const float* phase, const float* amplitude, std::size_t t, std::int64_t shift, int bins) {
  std::vector<double> sums(static_cast<std::size_t>(bins), 0.0), means(sums.size(), 0.0);
  std::vector<std::int64_t> counts(sums.size(), 0);
  for (std::size_t i = 0; i < t; ++i) {
    const auto j = static_cast<std::size_t>(mi::phase_bin(phase[i], bins));
    sums[j] += amplitude[(i + static_cast<std::size_t>(shift)) % t];
    ++counts[j];
  }
  double total = 0;
  for (std::size_t j = 0; j < sums.size(); ++j)
    if (counts[j] > 0) total += means[j] = sums[j] / static_cast<double>(counts[j]);
  double entropy = 0;
  for (double m : means)
    if (m > 0) entropy += m / total * std::log(m / total);
  return 1.0 + entropy / std::log(static_cast<double>(bins));
}

struct KernelCase {
  std::size_t length;
  std::int64_t n_pha;
  std::int64_t n_amp;
  int bins;
};

class ShiftedKernel : public ::testing::TestWithParam<KernelCase> {};

// Every cell and shift, for band counts below, at and above the 8-lane groups, lengths that are not
// multiples of the 256-sample time block, slow and fast phases (long and short runs) and bins
// that stay empty.
TEST_P(ShiftedKernel, EqualsPerSampleDefinitionForEveryCellAndShift) {
  const KernelCase c = GetParam();
  const std::size_t t = c.length;
  std::vector<float> phase(static_cast<std::size_t>(c.n_pha) * t), amplitude(static_cast<std::size_t>(c.n_amp) * t);
  for (std::size_t p = 0; p < static_cast<std::size_t>(c.n_pha); ++p)
    for (std::size_t i = 0; i < t; ++i) {
      const double x = static_cast<double>(i);
      phase[p * t + i] = static_cast<float>(
          std::remainder(0.01 * static_cast<double>(p + 1) * x * (p % 3 == 2 ? 9.0 : 1.0) + 0.4 * std::sin(0.7 * x),
                         2 * std::numbers::pi));
    }
  for (std::size_t a = 0; a < static_cast<std::size_t>(c.n_amp); ++a)
    for (std::size_t i = 0; i < t; ++i)
      amplitude[a * t + i] = 1.0f + 0.8f * static_cast<float>(std::cos(0.05 * static_cast<double>((i * (a + 3)) % 101)));
  const std::vector<std::int64_t> shifts = {0, 1, static_cast<std::int64_t>(t / 2), static_cast<std::int64_t>(t) - 1};
  const auto cells = static_cast<std::size_t>(c.n_pha * c.n_amp);
  std::vector<double> out(shifts.size() * cells, -1.0);
  const mi::SeriesBands series{phase.data(), amplitude.data(), c.n_pha, c.n_amp, static_cast<std::int64_t>(t)};
  mi::shifted_modulation_index(series, c.bins, shifts, out.data());
  // Every vector width (SSE2, AVX2, AVX-512 where the CPU has it) gives the same bits.
  for (int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    std::vector<double> other(out.size(), -1.0);
    mi::shifted_modulation_index(series, c.bins, shifts, other.data(), width);
    ASSERT_EQ(other, out) << width << "-byte vectors";
  }
  for (std::size_t k = 0; k < shifts.size(); ++k)
    for (std::size_t p = 0; p < static_cast<std::size_t>(c.n_pha); ++p)
      for (std::size_t a = 0; a < static_cast<std::size_t>(c.n_amp); ++a) {
        const double expected = direct_mi(phase.data() + p * t, amplitude.data() + a * t, t, shifts[k], c.bins);
        // Float detrended prefix rows: ~1e-7 relative, far inside spec §9 (2e-5 + 1e-3 relative).
        EXPECT_NEAR(out[k * cells + p * static_cast<std::size_t>(c.n_amp) + a], expected, 1e-9 + 1e-5 * expected)
            << "shift " << shifts[k] << " phase band " << p << " amplitude band " << a;
      }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ShiftedKernel,
                         ::testing::Values(KernelCase{257, 3, 1, 18}, KernelCase{1000, 4, 8, 18},
                                           KernelCase{513, 2, 9, 12}, KernelCase{2048, 5, 17, 18},
                                           KernelCase{300, 3, 3, 200}, KernelCase{64, 1, 2, 2},
                                           // Longer than 4096 samples: the float sums are flushed
                                           // into double ones along the way.
                                           KernelCase{9000, 2, 3, 18}));

// Several phase series against several amplitudes (the trial-level test's block: each phase with
// its own amplitude at every shift and with the others' at shift 0): each job's values are those of
// a call of its own, bit for bit, on every vector width, with 20 amplitude bands (a full group of
// 16 and a group of 4) and on one thread, which then reuses its buffers from job to job, a full
// group's before a partial one's. Amplitudes met by several jobs have their rows built once and
// their single alignments against a phase tiled together (more than one tile: 10 > 8); the one
// met once builds its own.
TEST(ShiftedKernel, ManyPhasesAndAmplitudesGiveEachTheBitsOfItsOwnCall) {
  const std::int64_t t = 700, n_pha = 3, n_amp = 20;
  std::vector<std::vector<float>> phases(2, std::vector<float>(static_cast<std::size_t>(n_pha * t)));
  for (std::size_t k = 0; k < phases.size(); ++k)
    for (std::int64_t p = 0; p < n_pha; ++p)
      for (std::int64_t i = 0; i < t; ++i)
        phases[k][static_cast<std::size_t>(p * t + i)] = static_cast<float>(std::remainder(
            0.03 * static_cast<double>((p + 1 + static_cast<std::int64_t>(k)) * i) + 0.5 * std::sin(0.11 * static_cast<double>(i)),
            2 * std::numbers::pi));
  std::vector<std::vector<float>> amplitudes(5, std::vector<float>(static_cast<std::size_t>(n_amp * t)));
  for (std::size_t k = 0; k < amplitudes.size(); ++k)
    for (std::size_t i = 0; i < amplitudes[k].size(); ++i)
      amplitudes[k][i] = 1.0f + 0.7f * static_cast<float>(std::cos(0.013 * static_cast<double>((i * (k + 2)) % 997)));
  const std::vector<std::int64_t> shifts = {0, 1, 350, 699, 5, 6, 7, 8, 9, 10}, observed = {0}, one = {123};
  struct Case {
    std::size_t phase, amplitude;
    const std::vector<std::int64_t>* shifts;
  };
  std::vector<Case> cases{{0, 0, &shifts}, {1, 1, &shifts}, {1, 4, &one}};
  for (std::size_t k = 0; k < 10; ++k) cases.push_back({0, 1 + k % 3, k == 4 ? &one : &observed});
  cases.push_back({1, 0, &observed});
  const auto cells = static_cast<std::size_t>(n_pha * n_amp);
  std::vector<mi::SeriesBands> series;
  for (const auto& p : phases) series.push_back({p.data(), nullptr, n_pha, n_amp, t});
  for (int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    for (int threads : {1, 2}) {
      std::vector<std::vector<double>> many(cases.size());
      std::vector<mi::ShiftedAmplitude> jobs;
      for (std::size_t k = 0; k < cases.size(); ++k) {
        many[k].assign(cases[k].shifts->size() * cells, -1.0);
        jobs.push_back({amplitudes[cases[k].amplitude].data(), *cases[k].shifts, many[k].data(), cases[k].phase});
      }
      oneapi::tbb::task_arena(threads).execute([&] { mi::shifted_modulation_indices(series, 18, jobs, {}, width); });
      for (std::size_t k = 0; k < cases.size(); ++k) {
        std::vector<double> alone(cases[k].shifts->size() * cells, -1.0);
        mi::SeriesBands own = series[cases[k].phase];
        own.amplitude = amplitudes[cases[k].amplitude].data();
        mi::shifted_modulation_index(own, 18, *cases[k].shifts, alone.data(), width);
        EXPECT_EQ(many[k], alone) << "job " << k << ", " << width << "-byte vectors, " << threads << " threads";
      }
    }
  }
}

TEST(ModulationIndex, ZeroAmplitudeGivesZeroInEveryLane) {
  const std::size_t t = 300;
  std::vector<float> phase(t), amplitude(2 * t, 0.0f);
  for (std::size_t i = 0; i < t; ++i) phase[i] = static_cast<float>(std::remainder(0.1 * static_cast<double>(i), 6.283));
  for (std::size_t i = 0; i < t; ++i) amplitude[t + i] = 2.0f;  // band 1: constant, so MI 0 as well
  std::vector<double> out(2, -1.0);
  const std::int64_t shifts[1] = {7};
  mi::shifted_modulation_index({phase.data(), amplitude.data(), 1, 2, static_cast<std::int64_t>(t)}, 18, shifts,
                               out.data());
  EXPECT_EQ(out[0], 0.0);
  EXPECT_NEAR(out[1], 0.0, 1e-15);
}

TEST(PositiveLog, MatchesStdLogWithinTwoUlpFromTinyToHuge) {
  double worst = 0;
  for (double x = 1e-300; x < 1e300; x *= 1.0137) {
    for (double y : {x, std::nextafter(1.0, 0.0) * x, 1.0 + 1e-12}) {
      const double ours = math::positive_log<double, std::int64_t>(y);
      const double ref = std::log(y);
      worst = std::max(worst, std::abs(ours - ref) / std::max(std::abs(ref), 1e-300));
    }
  }
  EXPECT_LT(worst, 4.5e-16);
  EXPECT_EQ((math::positive_log<double, std::int64_t>(1.0)), 0.0);
}

void expect_mi_matches(const std::string& folder, const std::string& device) {
  const json m = testing::manifest(folder);
  const auto x = testing::load_floats(data_dir() / folder / "x.npy");
  testing::StageHarness h(testing::fixture_stream(folder), device);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  h.add("hilbert", {{"pad", m["hilbert_pad"]}});
  h.add("mi", {{"bins", m["n_bins"]}});
  const Batch batch = h.run(x, 0, h.context().stream().series_count());
  const auto ref = testing::load_doubles(data_dir() / folder / "mi.npy");
  const auto ours = batch.at("pac").values<float>();
  ASSERT_EQ(ours.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i)
    EXPECT_NEAR(ours[i], ref[i], 2e-5 + 1e-3 * std::abs(ref[i])) << folder << " cell " << i;
}

class ModulationIndexOn : public testing::OnDevice {};
TEST_P(ModulationIndexOn, MatchesFixtureSmall) { expect_mi_matches("small", device()); }
TEST_P(ModulationIndexOn, MatchesFixtureNopadTwelveBins) { expect_mi_matches("nopad_bins12", device()); }
TEST_P(ModulationIndexOn, MatchesFixtureLongSeriesWithoutPrecisionLoss) { expect_mi_matches("long", device()); }
INSTANTIATE_TEST_SUITE_P(Devices, ModulationIndexOn, ::testing::ValuesIn(testing::test_devices()),
                         testing::device_test_name);

// Tort's MI on any device is the CPU kernel's, bit for bit, from the same phases and amplitudes: on
// a GPU the run kernel (run_mi_cuda.cu), here over 600 000 samples (146 flushes of the float sums).
TEST_P(ModulationIndexOn, TortEqualsTheCpuKernelBitForBitOnALongSeries) {
  const json m = testing::manifest("long");
  const auto x = testing::load_floats(data_dir() / "long" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("long"), device());
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("mi");
  const Batch batch = h.run(x, 0, 1);
  const auto phase = batch.at("phase").values<float>(), amplitude = batch.at("amplitude").values<float>();
  const std::int64_t t = 600'000, n_pha = 2, n_amp = 2;
  std::vector<double> cpu(static_cast<std::size_t>(n_pha * n_amp));
  const std::int64_t observed[1] = {0};
  mi::shifted_modulation_index({phase.data(), amplitude.data(), n_pha, n_amp, t}, 18, observed, cpu.data());
  const auto pac = batch.at("pac").values<float>();
  for (std::size_t c = 0; c < cpu.size(); ++c) EXPECT_EQ(pac[c], static_cast<float>(cpu[c])) << "cell " << c;
}

// Many bins (fewer samples per bin, another shared-memory layout on GPUs): the stage's MI equals the
// per-sample definition computed here from the same phase and amplitude.
TEST_P(ModulationIndexOn, ManyBinsEqualThePerSampleDefinition) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"), device());
  const int bins = 100;
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("mi", {{"bins", bins}});
  const std::int64_t series = 2;
  const Batch batch = h.run(x, 1, series);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto pac = batch.at("pac").values<float>();
  const std::size_t t = 1024, n_pha = 3, n_amp = 4;
  for (std::size_t s = 0; s < static_cast<std::size_t>(series); ++s)
    for (std::size_t p = 0; p < n_pha; ++p)
      for (std::size_t a = 0; a < n_amp; ++a) {
        std::vector<double> sums(bins, 0.0);
        std::vector<std::int64_t> counts(bins, 0);
        for (std::size_t i = 0; i < t; ++i) {
          const auto j = static_cast<std::size_t>(mi::phase_bin(phase[(s * n_pha + p) * t + i], bins));
          sums[j] += amplitude[(s * n_amp + a) * t + i];
          ++counts[j];
        }
        const double expected = mi::tort_mi(sums.data(), counts.data(), bins);
        EXPECT_NEAR(pac[(s * n_pha + p) * n_amp + a], expected, 1e-6 * std::abs(expected) + 1e-7)
            << "series " << s << " cell " << p << "," << a;
      }
}

}  // namespace
}  // namespace pacflow
