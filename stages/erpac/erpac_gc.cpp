#include "stages/erpac/erpac_gc.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "stages/erpac/erpac_gc_sums.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"

namespace pacflow::erpac {

GaussianCopulaErpac::GaussianCopulaErpac(std::int64_t epochs, std::int64_t length, std::optional<std::int64_t> smooth)
    : epochs_(epochs), length_(length), smooth_(smooth), copula_(epochs) {}

Normalised GaussianCopulaErpac::phases(const float* rows, std::int64_t stride) const {
  return normalised(rows, stride, true);
}

Normalised GaussianCopulaErpac::amplitudes(const float* rows, std::int64_t stride) const {
  return normalised(rows, stride, false);
}

Normalised GaussianCopulaErpac::normalised(const float* rows, std::int64_t stride, bool phase) const {
  const auto e_count = static_cast<std::size_t>(epochs_), t_count = static_cast<std::size_t>(length_);
  Normalised n;
  n.a.resize(e_count * t_count);
  if (phase) n.b.resize(e_count * t_count);
  n.aa.assign(t_count, 0.0);
  n.bb.assign(t_count, 0.0);
  n.ab.assign(t_count, 0.0);
  // A tile of kTimes times at a time: the epochs' rows are read, and the normalised rows written, a
  // cache line's run of times per epoch, not one scattered value per epoch and time.
  constexpr std::size_t kTimes = 16;
  std::vector<float> across(kTimes * e_count);  // [time in tile][epoch]: the values at each time
  std::vector<double> normal(kTimes * e_count), normal_cos(phase ? kTimes * e_count : 0);
  for (std::size_t first = 0; first < t_count; first += kTimes) {
    const std::size_t times = std::min(kTimes, t_count - first);
    for (std::size_t e = 0; e < e_count; ++e) {
      const float* row = rows + static_cast<std::int64_t>(e) * stride + static_cast<std::int64_t>(first);
      for (std::size_t i = 0; i < times; ++i) across[i * e_count + e] = row[i];
    }
    for (std::size_t i = 0; i < times; ++i) {
      const float* values = across.data() + i * e_count;
      if (phase)
        copula_.apply_sin_cos(values, normal.data() + i * e_count, normal_cos.data() + i * e_count);
      else
        copula_.apply(values, normal.data() + i * e_count);
    }
    // Written back a run of times per epoch, and the moments over the epochs summed as they go: each
    // time's sums in epoch order, the tile's times side by side (independent chains of additions).
    double* aa = n.aa.data() + first;
    double* bb = n.bb.data() + first;
    double* ab = n.ab.data() + first;
    for (std::size_t e = 0; e < e_count; ++e) {
      double* a_row = n.a.data() + e * t_count + first;
      for (std::size_t i = 0; i < times; ++i) {
        const double a = normal[i * e_count + e];
        a_row[i] = a;
        aa[i] += a * a;
      }
      if (phase) {
        double* b_row = n.b.data() + e * t_count + first;
        for (std::size_t i = 0; i < times; ++i) {
          const double a = normal[i * e_count + e], b = normal_cos[i * e_count + e];
          b_row[i] = b;
          bb[i] += b * b;
          ab[i] += a * b;
        }
      }
    }
  }
  return n;
}

void GaussianCopulaErpac::information(const Normalised& phase, const Normalised& amplitude, const std::int64_t* pairing,
                                      double* out) const {
  const auto e_count = static_cast<std::size_t>(epochs_), t_count = static_cast<std::size_t>(length_);
  // Σ_e over epochs of sin·A and cos·A at each time, for this pairing.
  std::vector<double> x1y(t_count, 0.0), x2y(t_count, 0.0);
  for (std::size_t e = 0; e < e_count; ++e) {
    const std::size_t paired = pairing ? static_cast<std::size_t>(pairing[e]) : e;
    add_products(phase.a.data() + e * t_count, phase.b.data() + e * t_count, amplitude.a.data() + paired * t_count,
                 t_count, x1y.data(), x2y.data());
  }
  const std::array<const double*, 6> moments{phase.aa.data(), phase.bb.data(), phase.ab.data(),
                                             amplitude.aa.data(), x1y.data(), x2y.data()};
  const auto mi_of = [](const std::array<const double*, 6>& m, std::size_t t) {
    return mi::gaussian_copula_mi({m[0][t], m[1][t], m[2][t], m[3][t], m[4][t], m[5][t]}, 0.0);
  };
  if (!smooth_) {
    // Each time's moments alone (0 + x: the bits of x).
    for (std::size_t t = 0; t < t_count; ++t) out[t] = mi_of(moments, t);
    return;
  }
  // MI_k of the times k − s … k + s pooled, then each time the mean of the MI_k holding it.
  const auto s = static_cast<std::size_t>(*smooth_);
  std::vector<double> pooled(6 * t_count), mi(t_count);
  const std::array<double*, 6> sums{pooled.data(), pooled.data() + t_count, pooled.data() + 2 * t_count,
                                    pooled.data() + 3 * t_count, pooled.data() + 4 * t_count,
                                    pooled.data() + 5 * t_count};
  window_sums(moments, t_count, s, sums);
  const std::array<const double*, 6> pooled_moments{sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]};
  for (std::size_t k = s; k + s < t_count; ++k) mi[k] = mi_of(pooled_moments, k);
  window_means(mi.data(), t_count, s, out);
}

}  // namespace pacflow::erpac
