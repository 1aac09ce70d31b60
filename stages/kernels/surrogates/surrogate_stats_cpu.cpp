#include "stages/kernels/surrogates/surrogate_stats_cpu.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "stages/common/lanes.hpp"

namespace pacflow::surrogates {

namespace {

using State = StreamedStats::State;

// Welford over the surrogates first_k … first_k + count − 1 (rows[count][cells]) for cells [0, cells),
// Bytes / 8 cells per vector and the remainder one by one, with the same operations per cell as
// cell_stats, continuing `m`. largest[i]: surrogate first_k + i's largest value over the cells.
template <int Bytes>
__attribute__((always_inline)) inline void moments(const double* rows, const double* observed, std::int64_t first_k,
                                                   std::int64_t count, std::int64_t cells, const double* largest,
                                                   State& m) {
  using Double = typename simd::Simd<Bytes>::Double;
  using Int64 = typename simd::Simd<Bytes>::Int64;
  constexpr std::int64_t kLanes = simd::Simd<Bytes>::doubles;
  std::int64_t c = 0;
  for (; c + kLanes <= cells; c += kLanes) {
    auto mean = simd::load<Double>(m.mean.data() + c), m2 = simd::load<Double>(m.m2.data() + c);
    auto exceed = simd::load<Int64>(m.exceed.data() + c), exceed_max = simd::load<Int64>(m.exceed_max.data() + c);
    const auto seen = simd::load<Double>(observed + c);
    for (std::int64_t i = 0; i < count; ++i) {
      const auto v = simd::load<Double>(rows + i * cells + c);
      welford_step(v, first_k + i, mean, m2);
      exceed -= v >= seen;  // a true comparison is −1 in every bit
      exceed_max -= largest[i] >= seen;
    }
    simd::store(m.mean.data() + c, mean);
    simd::store(m.m2.data() + c, m2);
    simd::store(m.exceed.data() + c, exceed);
    simd::store(m.exceed_max.data() + c, exceed_max);
  }
  for (; c < cells; ++c) {
    double mean = m.mean[c], m2 = m.m2[c];
    for (std::int64_t i = 0; i < count; ++i) {
      const double v = rows[i * cells + c];
      welford_step(v, first_k + i, mean, m2);
      m.exceed[c] += v >= observed[c] ? 1 : 0;
      m.exceed_max[c] += largest[i] >= observed[c] ? 1 : 0;
    }
    m.mean[c] = mean;
    m.m2[c] = m2;
  }
}

PACFLOW_TARGET_64 void moments_64(const double* rows, const double* observed, std::int64_t first_k, std::int64_t count,
                                  std::int64_t cells, const double* largest, State& m) {
  moments<64>(rows, observed, first_k, count, cells, largest, m);
}
PACFLOW_TARGET_32 void moments_32(const double* rows, const double* observed, std::int64_t first_k, std::int64_t count,
                                  std::int64_t cells, const double* largest, State& m) {
  moments<32>(rows, observed, first_k, count, cells, largest, m);
}
void moments_16(const double* rows, const double* observed, std::int64_t first_k, std::int64_t count,
                std::int64_t cells, const double* largest, State& m) {
  moments<16>(rows, observed, first_k, count, cells, largest, m);
}

}  // namespace

StreamedStats::StreamedStats(const double* observed, std::int64_t cells)
    : observed_(observed, observed + cells),
      state_{std::vector<double>(static_cast<std::size_t>(cells)), std::vector<double>(static_cast<std::size_t>(cells)),
             std::vector<std::int64_t>(static_cast<std::size_t>(cells), 0),
             std::vector<std::int64_t>(static_cast<std::size_t>(cells), 0)} {}

void StreamedStats::add(const double* rows, std::int64_t first_k, std::int64_t count) {
  if (first_k != added_) throw std::logic_error("StreamedStats: surrogates added out of order");
  const auto cells = static_cast<std::int64_t>(observed_.size());
  std::vector<double> largest(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const double* row = rows + i * cells;
    largest[static_cast<std::size_t>(i)] = *std::max_element(row, row + cells);
  }
  const int width = simd::simd_width();
  (width == 64 ? moments_64 : (width == 32 ? moments_32 : moments_16))(rows, observed_.data(), first_k, count, cells,
                                                                       largest.data(), state_);
  added_ += count;
}

void StreamedStats::write(std::int64_t n, std::span<float* const, 5> statistics, float* corrected, Norm norm,
                          std::int64_t at) const {
  if (n != added_) throw std::logic_error("StreamedStats: written before every surrogate was added");
  for (std::size_t c = 0; c < observed_.size(); ++c) {
    const CellStats s = finish_cell_stats(observed_[c], state_.mean[c], state_.m2[c], state_.exceed[c], n);
    const std::size_t to = static_cast<std::size_t>(at) + c;
    statistics[0][to] = static_cast<float>(s.z);
    statistics[1][to] = static_cast<float>(s.mean);
    statistics[2][to] = static_cast<float>(s.std);
    statistics[3][to] = static_cast<float>(s.p);
    statistics[4][to] = static_cast<float>(static_cast<double>(1 + state_.exceed_max[c]) / static_cast<double>(n + 1));
    if (corrected) corrected[to] = static_cast<float>(normalised(observed_[c], s, norm));
  }
}

void surrogate_stats_on_cpu(const double* values, std::int64_t n, std::int64_t cells, std::span<float* const, 5> statistics,
                            float* corrected, Norm norm, std::int64_t at) {
  StreamedStats stats(values, cells);
  stats.add(values + cells, 0, n);
  stats.write(n, statistics, corrected, norm, at);
}

}  // namespace pacflow::surrogates
