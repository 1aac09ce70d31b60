#include "stages/erpac/erpac_gc.hpp"

#include <cmath>
#include <limits>

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
  std::vector<float> across(e_count);  // the values (angles or amplitudes) across epochs at t
  std::vector<double> normal(e_count), normal_cos(e_count);
  for (std::size_t t = 0; t < t_count; ++t) {
    for (std::size_t e = 0; e < e_count; ++e)
      across[e] = rows[static_cast<std::int64_t>(e) * stride + static_cast<std::int64_t>(t)];
    if (phase) {
      copula_.apply_sin_cos(across.data(), normal.data(), normal_cos.data());
      for (std::size_t e = 0; e < e_count; ++e) n.b[e * t_count + t] = normal_cos[e];
    } else {
      copula_.apply(across.data(), normal.data());
    }
    for (std::size_t e = 0; e < e_count; ++e) n.a[e * t_count + t] = normal[e];
  }
  n.aa.assign(t_count, 0.0);
  n.bb.assign(t_count, 0.0);
  n.ab.assign(t_count, 0.0);
  for (std::size_t e = 0; e < e_count; ++e)
    for (std::size_t t = 0; t < t_count; ++t) {
      const double a = n.a[e * t_count + t];
      n.aa[t] += a * a;
      if (phase) {
        const double b = n.b[e * t_count + t];
        n.bb[t] += b * b;
        n.ab[t] += a * b;
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
    const double* s = phase.a.data() + e * t_count;
    const double* c = phase.b.data() + e * t_count;
    const double* y = amplitude.a.data() + paired * t_count;
    for (std::size_t t = 0; t < t_count; ++t) {
      x1y[t] += s[t] * y[t];
      x2y[t] += c[t] * y[t];
    }
  }
  const auto mi_of = [&](std::size_t from, std::size_t to) {  // times [from, to] pooled
    mi::GaussianMoments m;
    for (std::size_t t = from; t <= to; ++t) {
      m.x1x1 += phase.aa[t];
      m.x2x2 += phase.bb[t];
      m.x1x2 += phase.ab[t];
      m.yy += amplitude.aa[t];
      m.x1y += x1y[t];
      m.x2y += x2y[t];
    }
    return mi::gaussian_copula_mi(m, 0.0);
  };
  if (!smooth_) {
    for (std::size_t t = 0; t < t_count; ++t) out[t] = mi_of(t, t);
    return;
  }
  const auto s = static_cast<std::size_t>(*smooth_);
  std::vector<double> sum(t_count, 0.0), count(t_count, 0.0);
  for (std::size_t k = s; k + s < t_count; ++k) {
    const double v = mi_of(k - s, k + s);
    for (std::size_t t = k - s; t <= k + s; ++t) {
      sum[t] += v;
      count[t] += 1;
    }
  }
  for (std::size_t t = 0; t < t_count; ++t)
    out[t] = count[t] > 0 ? sum[t] / count[t] : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace pacflow::erpac
