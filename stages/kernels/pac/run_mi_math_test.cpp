// The GPU run kernels' arithmetic (run_mi_math.hpp), run here on the host in the GPU's
// decomposition (one alignment of one amplitude band per thread, rows laid out [time][band], runs
// as the kernel extracts them), gives the CPU's tort (at every vector width) and hr bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <numbers>
#include <vector>

#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/run_mi_math.hpp"
#include "stages/kernels/pac/run_table.hpp"
#include "stages/kernels/pac/shifted_mi.hpp"

namespace pacflow {
namespace {

static_assert(mi::kRunFlushSamples == mi::kRunBlock * mi::kRunFlushBlocks);

struct Series {
  std::int64_t length = 0, n_pha = 0, n_amp = 0;
  std::vector<float> phase;      // [n_pha][length]
  std::vector<float> amplitude;  // [n_amp][length]
};

// Phase bands from fast (runs of a sample or two) to still (one run across several flush points),
// amplitudes with and without coupling, one band all zero.
Series make_series(std::int64_t length, std::int64_t n_pha, std::int64_t n_amp) {
  Series s{length, n_pha, n_amp, std::vector<float>(static_cast<std::size_t>(n_pha * length)),
           std::vector<float>(static_cast<std::size_t>(n_amp * length))};
  for (std::int64_t p = 0; p < n_pha; ++p)
    for (std::int64_t i = 0; i < length; ++i) {
      const auto x = static_cast<double>(i);
      const double rate = p % 4 == 3 ? 1e-4 : 0.013 * static_cast<double>(p + 1) * (p % 3 == 2 ? 11.0 : 1.0);
      s.phase[static_cast<std::size_t>(p * length + i)] =
          static_cast<float>(std::remainder(rate * x + 0.3 * std::sin(0.37 * x), 2 * std::numbers::pi));
    }
  for (std::int64_t a = 0; a < n_amp; ++a)
    for (std::int64_t i = 0; i < length; ++i) {
      const auto x = static_cast<double>(i);
      const float v = a == 1 ? 0.0f
                             : static_cast<float>(1.5 + std::cos(0.013 * x) * (0.2 + 0.05 * static_cast<double>(a)) +
                                                  0.3 * std::sin(0.71 * x * static_cast<double>(a + 1)));
      s.amplitude[static_cast<std::size_t>(a * length + i)] = v;
    }
  return s;
}

// The runs of one phase band as the GPU's find_runs lays them out, and the samples per bin.
struct Runs {
  std::vector<std::int32_t> ends, counts;
  std::vector<std::uint16_t> bin_of;
};
Runs runs_of(const float* phase, std::int64_t t, int bins) {
  Runs runs{{}, std::vector<std::int32_t>(static_cast<std::size_t>(bins), 0), {}};
  for (std::int64_t i = 0; i < t; ++i) {
    const int bin = mi::phase_bin(phase[i], bins);
    ++runs.counts[static_cast<std::size_t>(bin)];
    if (i + 1 == t || mi::phase_bin(phase[i + 1], bins) != bin) {
      runs.ends.push_back(static_cast<std::int32_t>(i + 1));
      runs.bin_of.push_back(static_cast<std::uint16_t>(bin));
    }
  }
  return runs;
}

std::int64_t largest(const std::vector<std::int64_t>& shifts) {
  return shifts.empty() ? 0 : *std::max_element(shifts.begin(), shifts.end());
}

// hr's out[k][p][a] as the GPU computes it, with the kernel's arithmetic run on the host.
std::vector<double> heights_on_host(const Series& s, int bins, const std::vector<std::int64_t>& shifts) {
  const std::int64_t t = s.length, rows = t + largest(shifts) + 1;
  std::vector<double> prefix(static_cast<std::size_t>(rows * s.n_amp));
  for (std::int64_t a = 0; a < s.n_amp; ++a)
    mi::wrapped_prefix_rows(s.amplitude.data() + a * t, t, rows, prefix.data() + a, s.n_amp);
  const std::int64_t cells = s.n_pha * s.n_amp;
  std::vector<double> out(shifts.size() * static_cast<std::size_t>(cells), -1.0);
  constexpr std::int64_t kColumns = 5;
  std::vector<double> sums(static_cast<std::size_t>(bins * kColumns));
  for (std::int64_t p = 0; p < s.n_pha; ++p) {
    const Runs runs = runs_of(s.phase.data() + p * t, t, bins);
    for (std::size_t k = 0; k < shifts.size(); ++k)
      for (std::int64_t a = 0; a < s.n_amp; ++a) {
        std::fill(sums.begin(), sums.end(), 0.0);
        mi::add_prefix_runs(runs.ends.data(), runs.bin_of.data(), 0, static_cast<std::int32_t>(runs.ends.size()), 0,
                            prefix.data() + a, s.n_amp, shifts[k], sums.data() + 2, kColumns);
        out[k * static_cast<std::size_t>(cells) + static_cast<std::size_t>(p * s.n_amp + a)] =
            mi::heights_ratio(sums.data() + 2, runs.counts.data(), bins, kColumns);
      }
  }
  return out;
}

// tort's out[k][p][a] as the GPU computes it, with the kernel's arithmetic run on the host.
std::vector<double> run_kernel_on_host(const Series& s, int bins, const std::vector<std::int64_t>& shifts,
                                       std::int32_t runs_per_piece) {
  const std::int64_t t = s.length;
  const std::int64_t rows = t + largest(shifts) + 1;
  // Rows [time][band], as the GPU keeps them; each band's column written by its own thread.
  std::vector<float> q(static_cast<std::size_t>(rows * s.n_amp));
  std::vector<double> means(static_cast<std::size_t>(s.n_amp));
  for (std::int64_t a = 0; a < s.n_amp; ++a) {
    const float* amplitude = s.amplitude.data() + a * t;
    means[static_cast<std::size_t>(a)] = mi::band_mean(amplitude, t);
    mi::detrended_rows(amplitude, t, means[static_cast<std::size_t>(a)], rows, q.data() + a, s.n_amp);
  }
  const std::int64_t cells = s.n_pha * s.n_amp;
  std::vector<double> out(shifts.size() * static_cast<std::size_t>(cells), -1.0);
  // Each bin's sums a column apart, as a thread's are in the block's shared memory.
  constexpr std::int64_t kColumns = 3;
  std::vector<float> partial(static_cast<std::size_t>(bins * kColumns));
  std::vector<double> flushed(partial.size());
  const mi::BinSums sums{partial.data() + 1, flushed.data() + 1, kColumns};
  for (std::int64_t p = 0; p < s.n_pha; ++p) {
    const auto [ends, counts, bin_of] = runs_of(s.phase.data() + p * t, t, bins);
    const auto count = static_cast<std::int32_t>(ends.size());
    for (std::size_t k = 0; k < shifts.size(); ++k)
      for (std::int64_t a = 0; a < s.n_amp; ++a) {
        mi::clear_sums(sums, bins);
        std::int32_t next_flush = mi::kRunFlushSamples;
        for (std::int32_t first = 0; first < count; first += runs_per_piece) {
          const std::int32_t last = std::min(count, first + runs_per_piece);
          const std::int32_t start = first == 0 ? 0 : ends[static_cast<std::size_t>(first - 1)];
          mi::add_runs(ends.data(), bin_of.data(), first, last, start, q.data() + a, s.n_amp, shifts[k], bins, sums,
                       next_flush);
        }
        mi::finish_runs(t, bins, sums, next_flush);
        out[k * static_cast<std::size_t>(cells) + static_cast<std::size_t>(p * s.n_amp + a)] = mi::tort_mi_of_sums(
            sums, counts.data(), bins, means[static_cast<std::size_t>(a)], t, mi::inverse_log_bins(bins));
      }
  }
  return out;
}

struct RunCase {
  std::int64_t length, n_pha, n_amp;
  int bins;
};

class RunKernelArithmetic : public ::testing::TestWithParam<RunCase> {};

TEST_P(RunKernelArithmetic, EqualsTheCpuKernelBitForBit) {
  const RunCase c = GetParam();
  const Series s = make_series(c.length, c.n_pha, c.n_amp);
  const std::int64_t t = c.length;
  const std::vector<std::int64_t> shifts = {0, 1, t / 3, t / 2, t - 1};
  const mi::SeriesBands bands{s.phase.data(), s.amplitude.data(), s.n_pha, s.n_amp, t};
  for (std::int32_t piece : {1 << 30, 7}) {
    const std::vector<double> gpu = run_kernel_on_host(s, c.bins, shifts, piece);
    for (int width : {16, 32, 64}) {
      if (width > simd::simd_width()) continue;
      std::vector<double> cpu(gpu.size(), -2.0);
      mi::shifted_modulation_index(bands, c.bins, shifts, cpu.data(), width);
      for (std::size_t i = 0; i < cpu.size(); ++i)
        ASSERT_EQ(std::memcmp(&cpu[i], &gpu[i], sizeof(double)), 0)
            << "cell " << i << " of " << cpu.size() << ": CPU " << cpu[i] << ", GPU arithmetic " << gpu[i] << " ("
            << width << "-byte vectors, runs in pieces of " << piece << ")";
    }
  }
}

TEST_P(RunKernelArithmetic, HeightsRatioEqualsTheCpuMethodBitForBit) {
  const RunCase c = GetParam();
  const Series s = make_series(c.length, c.n_pha, c.n_amp);
  const std::int64_t t = c.length;
  const std::vector<std::int64_t> shifts = {0, 1, t / 3, t / 2, t - 1};
  const std::vector<double> gpu = heights_on_host(s, c.bins, shifts);
  std::vector<double> cpu(gpu.size(), -2.0);
  mi::MethodSettings settings;
  settings.kind = mi::MethodKind::Hr;
  settings.bins = c.bins;
  mi::make_method(settings, t)->evaluate({s.phase.data(), s.amplitude.data(), nullptr, s.n_pha, s.n_amp, t}, shifts,
                                         cpu.data());
  for (std::size_t i = 0; i < cpu.size(); ++i)
    ASSERT_EQ(std::memcmp(&cpu[i], &gpu[i], sizeof(double)), 0)
        << "cell " << i << " of " << cpu.size() << ": CPU " << cpu[i] << ", GPU arithmetic " << gpu[i];
}

// Lengths below, at and past the flush points (4096 samples), bins from 2 to 200, band counts
// around the CPU's 16-band groups.
INSTANTIATE_TEST_SUITE_P(Shapes, RunKernelArithmetic,
                         ::testing::Values(RunCase{257, 3, 2, 18}, RunCase{4096, 4, 3, 18}, RunCase{4097, 4, 3, 18},
                                           RunCase{8192, 4, 5, 12}, RunCase{12289, 5, 17, 18}, RunCase{999, 2, 4, 2},
                                           RunCase{3001, 3, 3, 200}));

TEST(RunKernelArithmetic, FlushPointsFollowTheRunTable) {
  // A run spanning several flush points: the flushes between its start and the next run's start
  // all happen before that run, and those after the last run's start happen at the end.
  const std::int32_t ends[] = {100, 13000, 13001};
  const std::uint8_t bin_of[] = {0, 1, 0};
  std::vector<float> q(2 * 13001 + 1);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 5) * 0.25f;
  float partial[2] = {};
  double flushed[2] = {};
  const mi::BinSums sums{partial, flushed, 1};
  std::int32_t next_flush = mi::kRunFlushSamples;
  mi::add_runs(ends, bin_of, 0, 3, 0, q.data(), 1, 0, 2, sums, next_flush);
  EXPECT_EQ(next_flush, 4 * mi::kRunFlushSamples);  // flushed at 4096, 8192 and 12288 before run 2
  EXPECT_EQ(flushed[0], static_cast<double>(q[100] - q[0]));
  EXPECT_EQ(flushed[1], static_cast<double>(q[13000] - q[100]));
  EXPECT_EQ(partial[0], q[13001] - q[13000]);
  mi::finish_runs(13001, 2, sums, next_flush);
  EXPECT_EQ(next_flush, 4 * mi::kRunFlushSamples);  // 16384 is past the length: no flush
}

}  // namespace
}  // namespace pacflow
