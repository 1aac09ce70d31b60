#include "stages/kernels/surrogates/surrogate_stats_cpu.hpp"

#include <algorithm>
#include <vector>

#include "stages/common/lanes.hpp"

namespace pacflow::surrogates {

namespace {

struct Moments {
  std::vector<double> mean, m2;                 // Welford's, per cell
  std::vector<std::int64_t> exceed, exceed_max;  // #{k: value_k >= observed}, #{k: largest_k >= observed}
};

// Welford over the surrogates for cells [0, cells), Bytes / 8 cells per vector and the remainder
// one by one, with the same operations per cell as cell_stats. largest[k]: surrogate k's largest
// value over the cells.
template <int Bytes>
__attribute__((always_inline)) inline void moments(const double* values, std::int64_t n, std::int64_t cells,
                                                   const double* largest, Moments& m) {
  using Double = typename simd::Simd<Bytes>::Double;
  using Int64 = typename simd::Simd<Bytes>::Int64;
  constexpr std::int64_t kLanes = simd::Simd<Bytes>::doubles;
  const double* observed = values;
  std::int64_t c = 0;
  for (; c + kLanes <= cells; c += kLanes) {
    Double mean{}, m2{};
    Int64 exceed{}, exceed_max{};
    const auto seen = simd::load<Double>(observed + c);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto v = simd::load<Double>(values + (k + 1) * cells + c);
      welford_step(v, k, mean, m2);
      exceed -= v >= seen;  // a true comparison is −1 in every bit
      exceed_max -= largest[k] >= seen;
    }
    simd::store(m.mean.data() + c, mean);
    simd::store(m.m2.data() + c, m2);
    simd::store(m.exceed.data() + c, exceed);
    simd::store(m.exceed_max.data() + c, exceed_max);
  }
  for (; c < cells; ++c) {
    double mean = 0, m2 = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const double v = values[(k + 1) * cells + c];
      welford_step(v, k, mean, m2);
      m.exceed[c] += v >= observed[c] ? 1 : 0;
      m.exceed_max[c] += largest[k] >= observed[c] ? 1 : 0;
    }
    m.mean[c] = mean;
    m.m2[c] = m2;
  }
}

PACFLOW_TARGET_64 void moments_64(const double* values, std::int64_t n, std::int64_t cells, const double* largest,
                                  Moments& m) {
  moments<64>(values, n, cells, largest, m);
}
PACFLOW_TARGET_32 void moments_32(const double* values, std::int64_t n, std::int64_t cells, const double* largest,
                                  Moments& m) {
  moments<32>(values, n, cells, largest, m);
}
void moments_16(const double* values, std::int64_t n, std::int64_t cells, const double* largest, Moments& m) {
  moments<16>(values, n, cells, largest, m);
}

}  // namespace

void surrogate_stats_on_cpu(const double* values, std::int64_t n, std::int64_t cells, std::span<float* const, 5> statistics,
                            float* corrected, Norm norm, std::int64_t at) {
  const auto count = static_cast<std::size_t>(cells);
  std::vector<double> largest(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const double* row = values + (k + 1) * cells;
    largest[static_cast<std::size_t>(k)] = *std::max_element(row, row + cells);
  }
  Moments m{std::vector<double>(count), std::vector<double>(count), std::vector<std::int64_t>(count, 0),
            std::vector<std::int64_t>(count, 0)};
  const int width = simd::simd_width();
  (width == 64 ? moments_64 : (width == 32 ? moments_32 : moments_16))(values, n, cells, largest.data(), m);
  for (std::size_t c = 0; c < count; ++c) {
    const CellStats s = finish_cell_stats(values[c], m.mean[c], m.m2[c], m.exceed[c], n);
    const std::size_t to = static_cast<std::size_t>(at) + c;
    statistics[0][to] = static_cast<float>(s.z);
    statistics[1][to] = static_cast<float>(s.mean);
    statistics[2][to] = static_cast<float>(s.std);
    statistics[3][to] = static_cast<float>(s.p);
    statistics[4][to] = static_cast<float>(static_cast<double>(1 + m.exceed_max[c]) / static_cast<double>(n + 1));
    if (corrected) corrected[to] = static_cast<float>(normalised(values[c], s, norm));
  }
}

}  // namespace pacflow::surrogates
