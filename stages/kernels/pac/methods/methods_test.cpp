// The PAC measures of docs/methods.md against values computed here: closed forms for signals whose
// sums are known exactly, and direct per-sample formulas in double (TensorPAC's definitions) for
// arbitrary signals.
#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <complex>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <numeric>
#include <stop_token>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/methods/copula.hpp"
#include "stages/kernels/pac/methods/distinct_ranks.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"
#include "stages/kernels/pac/mi_math.hpp"

namespace pacflow {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr std::int64_t kMethodsT = 1200;  // 30 cycles of 40 samples

// Phase of a rhythm of `period` samples, wrapped to (−π, π].
std::vector<float> rhythm_phase(std::int64_t length, double period, double offset = 0) {
  std::vector<float> phase(static_cast<std::size_t>(length));
  for (std::int64_t t = 0; t < length; ++t)
    phase[static_cast<std::size_t>(t)] = static_cast<float>(std::remainder(2 * kPi * static_cast<double>(t) / period + offset, 2 * kPi));
  return phase;
}

// A(t) = 1 + depth · cos(φ(t) − preferred): amplitude locked to the phase.
std::vector<float> locked_amplitude(const std::vector<float>& phase, double depth, double preferred) {
  std::vector<float> a(phase.size());
  for (std::size_t t = 0; t < phase.size(); ++t) a[t] = static_cast<float>(1 + depth * std::cos(phase[t] - preferred));
  return a;
}

// A slowly varying amplitude unrelated to the phase, deterministic.
std::vector<float> unrelated_amplitude(std::int64_t length, double seed) {
  std::vector<float> a(static_cast<std::size_t>(length));
  for (std::int64_t t = 0; t < length; ++t) {
    const double x = static_cast<double>(t);
    a[static_cast<std::size_t>(t)] = static_cast<float>(1.5 + 0.4 * std::sin(0.0131 * x + seed) + 0.3 * std::cos(0.0377 * x * seed));
  }
  return a;
}

// Bands stacked [band][T].
std::vector<float> stack(const std::vector<std::vector<float>>& bands) {
  std::vector<float> out;
  for (const auto& b : bands) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Evaluates `settings` on one series for the given shifts; [shift][p][a].
std::vector<double> evaluate(const mi::MethodSettings& settings, const std::vector<float>& phase,
                             const std::vector<float>& amplitude, std::int64_t n_pha, std::int64_t n_amp,
                             std::vector<std::int64_t> shifts = {0}, const float* envelope = nullptr) {
  const auto length = static_cast<std::int64_t>(phase.size()) / n_pha;
  const auto method = mi::make_method(settings, length);
  std::vector<double> out(shifts.size() * static_cast<std::size_t>(n_pha * n_amp), -1.0);
  method->evaluate({phase.data(), amplitude.data(), envelope, n_pha, n_amp, length}, shifts, out.data());
  return out;
}

mi::MethodSettings with(mi::MethodKind kind) {
  mi::MethodSettings s;
  s.kind = kind;
  return s;
}

// ---- direct per-sample definitions (double) ----

std::complex<double> sum_amplitude_vector(const float* phase, const float* amplitude, std::size_t t) {
  std::complex<double> s = 0;
  for (std::size_t i = 0; i < t; ++i) s += static_cast<double>(amplitude[i]) * std::polar(1.0, static_cast<double>(phase[i]));
  return s;
}

double direct_ndpac(const float* phase, const float* amplitude, std::size_t t, double p) {
  double mean = 0;
  for (std::size_t i = 0; i < t; ++i) mean += amplitude[i];
  mean /= static_cast<double>(t);
  double var = 0;
  for (std::size_t i = 0; i < t; ++i) var += (amplitude[i] - mean) * (amplitude[i] - mean);
  const double sd = std::sqrt(var / static_cast<double>(t - 1));
  std::complex<double> s = 0;
  for (std::size_t i = 0; i < t; ++i) s += (amplitude[i] - mean) / sd * std::polar(1.0, static_cast<double>(phase[i]));
  const double xlim = static_cast<double>(t) * std::pow(boost::math::erf_inv(1 - p), 2);
  return std::norm(s) <= 2 * xlim ? 0.0 : std::abs(s) / static_cast<double>(t);
}

// TensorPAC's _kl_hr per series then heights_ratio: p_j over occupied bins, (max − min) / max.
double direct_hr(const float* phase, const float* amplitude, std::size_t t, int bins) {
  std::vector<double> sums(static_cast<std::size_t>(bins), 0);
  std::vector<int> counts(sums.size(), 0);
  for (std::size_t i = 0; i < t; ++i) {
    const auto j = static_cast<std::size_t>(std::clamp(
        static_cast<int>(std::floor((static_cast<double>(phase[i]) + kPi) * bins / (2 * kPi))), 0, bins - 1));
    sums[j] += amplitude[i];
    ++counts[j];
  }
  std::vector<double> p;
  for (std::size_t j = 0; j < sums.size(); ++j)
    if (counts[j] > 0) p.push_back(sums[j] / counts[j]);
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& v : p) v /= total;
  const double hi = *std::max_element(p.begin(), p.end()), lo = *std::min_element(p.begin(), p.end());
  return (hi - lo) / hi;
}

// TensorPAC's copnorm (rank / (T + 1) through the normal quantile) and nd_mi_gg (covariance over
// T − 1, Cholesky log-determinants, bits), written out for one cell.
std::vector<double> direct_copnorm(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> q(x.size());
  for (std::size_t r = 0; r < q.size(); ++r)
    q[r] = -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * static_cast<double>(r + 1) / static_cast<double>(x.size() + 1));
  // Ties (the periodic test signals repeat exact values) share their ranks' mean quantile.
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double sum = 0;
    int n = 0;
    for (std::size_t r = 0; r < q.size(); ++r)
      if (x[order[r]] == x[i]) sum += q[r], ++n;
    out[i] = sum / n;
  }
  return out;
}

double log_det_cholesky(const std::vector<std::vector<double>>& c) {
  const std::size_t n = c.size();
  std::vector<std::vector<double>> l(n, std::vector<double>(n, 0));
  double sum_log = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = c[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = i == j ? std::sqrt(s) : s / l[j][j];
      if (i == j) sum_log += std::log(l[i][i]);
    }
  return sum_log;
}

double direct_gc(const float* phase, const float* amplitude, std::size_t t, bool bias_correct) {
  std::vector<double> s(t), c(t), a(t);
  for (std::size_t i = 0; i < t; ++i) {
    s[i] = std::sin(static_cast<double>(phase[i]));
    c[i] = std::cos(static_cast<double>(phase[i]));
    a[i] = amplitude[i];
  }
  const std::vector<std::vector<double>> v = {direct_copnorm(s), direct_copnorm(c), direct_copnorm(a)};
  std::vector<std::vector<double>> cov(3, std::vector<double>(3, 0));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t k = 0; k < t; ++k) cov[i][j] += v[i][k] * v[j][k];
      cov[i][j] /= static_cast<double>(t - 1);
    }
  double hx = log_det_cholesky({{cov[0][0], cov[0][1]}, {cov[1][0], cov[1][1]}});
  double hy = std::log(std::sqrt(cov[2][2]));
  double hxy = log_det_cholesky(cov);
  if (bias_correct) {
    const auto n = static_cast<double>(t);
    const double psi[3] = {boost::math::digamma((n - 1) / 2) / 2, boost::math::digamma((n - 2) / 2) / 2,
                           boost::math::digamma((n - 3) / 2) / 2};
    const double d = (std::log(2.0) - std::log(n - 1)) / 2;
    hx -= 2 * d + psi[0] + psi[1];
    hy -= d + psi[0];
    hxy -= 3 * d + psi[0] + psi[1] + psi[2];
  }
  return (hx + hy - hxy) / std::log(2.0);
}

// ---- closed forms ----

// Over whole cycles of evenly spaced phases Σ e^{iφ} = 0 and Σ cos(φ − φ0) e^{iφ} = T/2 e^{iφ0}, so
// the mean vector length of A = 1 + m cos(φ − φ0) is m / 2.
TEST(Methods, MeanVectorLengthOfCosineModulatedAmplitudeIsHalfTheDepth) {
  const auto phase = rhythm_phase(kMethodsT, 40);
  for (double depth : {0.0, 0.3, 0.8}) {
    const auto out = evaluate(with(mi::MethodKind::Mvl), phase, locked_amplitude(phase, depth, 1.1), 1, 1);
    EXPECT_NEAR(out[0], depth / 2, 1e-6) << depth;
  }
}

// z = m cos(φ − φ0) / σ with σ² = m² T / (2 (T − 1)), so |S| / T = sqrt((T − 1) / (2 T)) whatever the
// depth; far above the p = 0.05 threshold.
TEST(Methods, NormalisedDirectPacOfCosineModulatedAmplitudeIsClosedForm) {
  const auto phase = rhythm_phase(kMethodsT, 40);
  const double expected = std::sqrt(static_cast<double>(kMethodsT - 1) / (2.0 * kMethodsT));
  for (double depth : {0.1, 0.8}) {
    const auto out = evaluate(with(mi::MethodKind::Ndpac), phase, locked_amplitude(phase, depth, -2.0), 1, 1);
    EXPECT_NEAR(out[0], expected, 1e-6) << depth;
  }
}

// With ψ = φ − δ the phase difference is constant: PLV 1; with ψ of another rhythm it averages out.
TEST(Methods, PhaseLockingValueIsOneForConstantLagAndSmallForAnotherRhythm) {
  const auto phase = rhythm_phase(kMethodsT, 40);
  const auto lagged = rhythm_phase(kMethodsT, 40, -0.7);
  const auto other = rhythm_phase(kMethodsT, 40.0 / 3.0);  // 90 cycles: Σ e^{i(φ − ψ)} = 0 over 30 cycles
  const auto amplitude = unrelated_amplitude(kMethodsT, 1);
  const auto envelope = stack({lagged, other});  // [p = 0][a = 0, 1]
  const auto out = evaluate(with(mi::MethodKind::Plv), phase, stack({amplitude, amplitude}), 1, 2, {0}, envelope.data());
  EXPECT_NEAR(out[0], 1.0, 1e-6);
  EXPECT_NEAR(out[1], 0.0, 1e-6);
}

// The heights ratio against its direct definition, and the preferred phase: the amplitude peaks at
// φ0, the centre of bin 7, so that bin has the largest mean.
TEST(Methods, HeightsRatioAndPreferredPhaseOfLockedAmplitude) {
  const int bins = 12;
  const auto phase = rhythm_phase(kMethodsT, 48);  // 4 samples per bin
  const double centre = -kPi + 7.5 * 2 * kPi / bins;
  const auto amplitude = locked_amplitude(phase, 0.5, centre);
  mi::MethodSettings s = with(mi::MethodKind::Hr);
  s.bins = bins;
  const auto out = evaluate(s, phase, amplitude, 1, 1);
  EXPECT_NEAR(out[0], direct_hr(phase.data(), amplitude.data(), kMethodsT, bins), 1e-12);
  std::vector<double> sums(bins, 0);
  std::vector<std::int64_t> counts(bins, 0);
  for (std::size_t i = 0; i < phase.size(); ++i) {
    sums[static_cast<std::size_t>(mi::phase_bin(phase[i], bins))] += amplitude[i];
    ++counts[static_cast<std::size_t>(mi::phase_bin(phase[i], bins))];
  }
  EXPECT_NEAR(mi::preferred_phase(sums.data(), counts.data(), bins), centre, 1e-12);
  std::vector<double> p(bins);
  mi::amplitude_distribution(sums.data(), counts.data(), bins, p.data());
  EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-12);
  EXPECT_EQ(std::max_element(p.begin(), p.end()) - p.begin(), 7);
}

// ---- direct per-sample definitions on arbitrary signals, every cell and shift ----

struct Signals {
  std::vector<float> phase;      // [2][T]
  std::vector<float> amplitude;  // [3][T]
  std::vector<float> envelope;   // [2][3][T]
};

Signals irregular_signals(std::int64_t length) {
  Signals s;
  const auto p0 = rhythm_phase(length, 37.3, 0.2), p1 = rhythm_phase(length, 11.9, -1.0);
  s.phase = stack({p0, p1});
  s.amplitude = stack({locked_amplitude(p0, 0.4, 0.5), unrelated_amplitude(length, 2), locked_amplitude(p1, 0.1, -2)});
  std::vector<std::vector<float>> env;
  for (int p = 0; p < 2; ++p)
    for (int a = 0; a < 3; ++a) env.push_back(rhythm_phase(length, p == 0 ? 37.3 : 11.9, 0.3 * a + 0.1 * p));
  for (auto& band : env)  // jitter so nothing is exactly periodic
    for (std::size_t t = 0; t < band.size(); ++t) band[t] = static_cast<float>(std::remainder(band[t] + 0.3 * std::sin(0.01 * static_cast<double>(t)), 2 * kPi));
  s.envelope = stack(env);
  return s;
}

// A circularly shifted copy of each band of `bands` ([n][T]): x((t + s) mod T).
std::vector<float> shifted(const std::vector<float>& bands, std::int64_t length, std::int64_t s) {
  std::vector<float> out(bands.size());
  for (std::size_t b = 0; b < bands.size() / static_cast<std::size_t>(length); ++b)
    for (std::int64_t t = 0; t < length; ++t)
      out[b * static_cast<std::size_t>(length) + static_cast<std::size_t>(t)] =
          bands[b * static_cast<std::size_t>(length) + static_cast<std::size_t>((t + s) % length)];
  return out;
}

TEST(Methods, EveryMethodEqualsItsDirectDefinitionForEveryCellAndShift) {
  const std::int64_t t = 1001;
  const Signals sig = irregular_signals(t);
  // Four shifts, and forty (gc sums that many by FFT, circular_correlation.hpp).
  std::vector<std::int64_t> many = {0, 1, 333, 1000};
  for (std::int64_t k = 0; k < 36; ++k) many.push_back(7 + 27 * k);
  for (const std::vector<std::int64_t>& shifts : {std::vector<std::int64_t>(many.begin(), many.begin() + 4), many})
  for (mi::MethodKind kind : {mi::MethodKind::Mvl, mi::MethodKind::Ndpac, mi::MethodKind::Plv, mi::MethodKind::Hr,
                              mi::MethodKind::Gc}) {
    for (bool variant : {false, true}) {
      mi::MethodSettings s = with(kind);
      s.bins = 15;
      s.ndpac_p = variant ? 1.0 : 0.05;
      s.gc_unbiased = variant;
      const auto out = evaluate(s, sig.phase, sig.amplitude, 2, 3, shifts, sig.envelope.data());
      for (std::size_t k = 0; k < shifts.size(); ++k) {
        const auto amp = shifted(sig.amplitude, t, shifts[k]);
        const auto env = shifted(sig.envelope, t, shifts[k]);
        for (std::size_t p = 0; p < 2; ++p)
          for (std::size_t a = 0; a < 3; ++a) {
            const float* ph = sig.phase.data() + p * t;
            const float* am = amp.data() + a * t;
            double expected = 0;
            switch (kind) {
              case mi::MethodKind::Mvl: expected = std::abs(sum_amplitude_vector(ph, am, t)) / t; break;
              case mi::MethodKind::Ndpac: expected = direct_ndpac(ph, am, t, s.ndpac_p); break;
              case mi::MethodKind::Hr: expected = direct_hr(ph, am, t, s.bins); break;
              case mi::MethodKind::Gc: expected = direct_gc(ph, am, t, s.gc_unbiased); break;
              case mi::MethodKind::Plv: {
                std::complex<double> z = 0;
                const float* psi = env.data() + (p * 3 + a) * t;
                for (std::size_t i = 0; i < static_cast<std::size_t>(t); ++i) z += std::polar(1.0, static_cast<double>(ph[i]) - psi[i]);
                expected = std::abs(z) / t;
                break;
              }
              case mi::MethodKind::Tort: break;
            }
            EXPECT_NEAR(out[k * 6 + p * 3 + a], expected, 1e-10 + 1e-9 * std::abs(expected))
                << mi::method_name(kind) << (variant ? " (variant)" : "") << " shift " << shifts[k] << " cell " << p
                << "," << a;
          }
      }
      // The observed alignment is the same sum whatever else is evaluated beside it.
      const auto observed = evaluate(s, sig.phase, sig.amplitude, 2, 3, {0}, sig.envelope.data());
      for (std::size_t c = 0; c < 6; ++c) EXPECT_EQ(out[c], observed[c]) << mi::method_name(kind) << " cell " << c;
    }
  }
}

// ndPAC's threshold zeroes weak coupling: |S|² <= 2 T erfinv(1 − p)², and p = 1 keeps it.
TEST(Methods, NormalisedDirectPacZeroesValuesBelowOzkurtsThreshold) {
  const auto phase = rhythm_phase(kMethodsT, 40);
  std::vector<float> amplitude = unrelated_amplitude(kMethodsT, 3);
  for (std::size_t i = 0; i < amplitude.size(); ++i) amplitude[i] += 0.002f * static_cast<float>(std::cos(phase[i]));
  mi::MethodSettings s = with(mi::MethodKind::Ndpac);
  const double weak = direct_ndpac(phase.data(), amplitude.data(), kMethodsT, 1.0);
  ASSERT_GT(weak, 0);
  ASSERT_LT(weak * weak * kMethodsT * kMethodsT, 2 * kMethodsT * std::pow(boost::math::erf_inv(0.95), 2));  // below: zeroed
  EXPECT_EQ(evaluate(s, phase, amplitude, 1, 1)[0], 0.0);
  s.ndpac_p = 1;
  EXPECT_NEAR(evaluate(s, phase, amplitude, 1, 1)[0], weak, 1e-12);
}

TEST(Methods, ConstantAmplitudeGivesZeroForEveryMeasureOfCoupling) {
  const auto phase = rhythm_phase(kMethodsT, 40);
  const std::vector<float> flat(kMethodsT, 2.0f);
  for (mi::MethodKind kind : {mi::MethodKind::Tort, mi::MethodKind::Ndpac, mi::MethodKind::Hr}) {
    EXPECT_NEAR(evaluate(with(kind), phase, flat, 1, 1)[0], 0.0, 1e-12) << mi::method_name(kind);
  }
}

TEST(Methods, UnknownMethodListsTheValidOnes) {
  try {
    mi::parse_method("ndPac");
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "method");
    for (const char* name : {"tort", "mvl", "ndpac", "plv", "hr", "gc"})
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

// The circular dot products behind mvl, ndpac, plv and gc: the direct sum for every shift, and the
// same bits on every vector width (lengths around the 16-term blocks).
TEST(Methods, ShiftedDotEqualsDirectSumAndIsIdenticalOnEveryVectorWidth) {
  for (std::int64_t t : {1, 15, 16, 17, 100, 1001}) {
    std::vector<double> u(static_cast<std::size_t>(t)), v(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) {
      u[i] = std::sin(0.37 * static_cast<double>(i)) + 0.1;
      v[i] = std::cos(0.11 * static_cast<double>(i * i % 97));
    }
    std::vector<std::int64_t> shifts = {0, t / 2, t - 1};
    std::vector<double> out(shifts.size());
    mi::shifted_dot(u.data(), v.data(), t, shifts, out.data());
    for (std::size_t k = 0; k < shifts.size(); ++k) {
      double expected = 0;
      for (std::int64_t i = 0; i < t; ++i) expected += u[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>((i + shifts[k]) % t)];
      EXPECT_NEAR(out[k], expected, 1e-12 * static_cast<double>(t)) << t << " shift " << shifts[k];
    }
    for (int width : {16, 32, 64}) {
      if (width > simd::simd_width()) continue;
      std::vector<double> other(shifts.size());
      mi::shifted_dot(u.data(), v.data(), t, shifts, other.data(), 1, width);
      EXPECT_EQ(other, out) << width << "-byte vectors, length " << t;
    }
  }
}

// Copula normalisation from its definition: rank r (1-based) among the values, quantile
// Φ⁻¹(r / (n + 1)) = −√2 erfc⁻¹(2 r / (n + 1)), equal values the mean quantile of their ranks. Sizes on
// both sides of the radix sort's threshold; ties, ±0, negative values and float-valued doubles.
TEST(Methods, CopulaNormalisationIsTheQuantileOfEachValuesRankWithTiesAveraged) {
  std::mt19937_64 generator(7);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (const std::int64_t n : {1, 2, 17, 63, 64, 160, 1500, 4001}) {
    for (const int kind : {0, 1, 2}) {
      std::vector<double> x(static_cast<std::size_t>(n));
      for (auto& v : x) {
        v = normal(generator);
        if (kind == 1) v = static_cast<double>(static_cast<float>(v));  // amplitudes arrive as floats
        if (kind == 2) v = std::round(v);                                // many ties, ±0 among them
      }
      if (kind == 2 && n > 2) x[1] = -0.0;
      std::map<double, std::vector<std::int64_t>> ranks;  // -0 and +0 compare equal: one key
      std::vector<double> sorted(x);
      std::sort(sorted.begin(), sorted.end());
      for (std::int64_t r = 0; r < n; ++r) ranks[sorted[static_cast<std::size_t>(r)]].push_back(r + 1);
      std::vector<double> out(x.size());
      mi::CopulaNormaliser(n).apply(x.data(), out.data());
      if (kind == 1) {  // the float overload ranks the same values by their 4-byte keys
        const std::vector<float> as_float(x.begin(), x.end());
        std::vector<double> from_float(x.size());
        mi::CopulaNormaliser(n).apply(as_float.data(), from_float.data());
        EXPECT_EQ(from_float, out) << "n " << n;
      }
      for (std::size_t i = 0; i < x.size(); ++i) {
        const auto& tied = ranks.at(x[i]);
        double expected = 0;
        for (const std::int64_t r : tied)
          expected += -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * static_cast<double>(r) / static_cast<double>(n + 1));
        expected /= static_cast<double>(tied.size());
        ASSERT_NEAR(out[i], expected, 1e-12) << "n " << n << " kind " << kind << " value " << x[i];
      }
    }
  }
}

// Up to 256 values the float overload ranks by counting the values below each one (in vectors);
// every count is the definition's, for lengths around the vector widths, with infinities among the
// values; two equal values (±0 included) make it give up, so the sort averages their ranks.
TEST(Methods, DistinctRanksCountTheValuesBelowEachAndGiveUpOnTies) {
  // At every vector width this CPU has, for counts that leave every remainder of the passes (eight,
  // four, two and one vectors at a time).
  for (const int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    std::mt19937_64 generator(3);
    std::normal_distribution<float> normal(0.0f, 1e3f);
    for (const std::size_t n : {1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 144, 160, 200, 240, 255, 256}) {
      std::vector<float> x(n);
      for (auto& v : x) v = normal(generator);
      if (n > 3) {
        x[1] = std::numeric_limits<float>::infinity();
        x[2] = -std::numeric_limits<float>::infinity();
        x[3] = 1e-30f;
      }
      std::vector<std::uint32_t> rank(n);
      ASSERT_TRUE(mi::distinct_ranks(x.data(), n, rank.data(), width)) << "width " << width << ", n " << n;
      for (std::size_t i = 0; i < n; ++i) {
        const auto below = std::count_if(x.begin(), x.end(), [&](float v) { return v < x[i]; });
        ASSERT_EQ(rank[i], static_cast<std::uint32_t>(below)) << "width " << width << ", n " << n << ", value " << i;
      }
      if (n < 2) continue;
      const float middle = x[n / 2];
      x[n / 2] = x[(n - 1) / 3];
      if (n / 2 != (n - 1) / 3) {
        EXPECT_FALSE(mi::distinct_ranks(x.data(), n, rank.data(), width)) << "width " << width << ", n " << n << ": a tie";
      }
      x[n / 2] = middle;
      x[n - 1] = x[0];
      EXPECT_FALSE(mi::distinct_ranks(x.data(), n, rank.data(), width)) << "width " << width << ", n " << n << ": a tie";
      x[0] = 0.0f;
      x[n - 1] = -0.0f;
      EXPECT_FALSE(mi::distinct_ranks(x.data(), n, rank.data(), width)) << "width " << width << ", n " << n << ": +0, -0";
      // The copula of these floats (ties: the sort) is that of the same values as doubles.
      std::vector<double> from_float(n), from_double(n);
      const std::vector<double> as_double(x.begin(), x.end());
      mi::CopulaNormaliser(static_cast<std::int64_t>(n)).apply(x.data(), from_float.data());
      mi::CopulaNormaliser(static_cast<std::int64_t>(n)).apply(as_double.data(), from_double.data());
      EXPECT_EQ(from_float, from_double) << "n " << n;
    }
  }
}

// apply_sin_cos sorts the angles once and merges the runs of sin and cos: the same bits as
// normalising sin φ and cos φ each by its own sort, for angles in [-π, π] (with repeats, and ±π/2,
// 0, ±π exactly) and for angles outside it (the runs break; it sorts again).
TEST(Methods, CopulaOfSinesAndCosinesEqualsTheirOwnSorts) {
  std::mt19937_64 generator(11);
  for (const std::int64_t n : {1, 5, 160, 1500}) {
    for (const double span : {std::numbers::pi, 3.0 * std::numbers::pi}) {
      std::uniform_real_distribution<double> uniform(-span, span);
      std::vector<float> phase(static_cast<std::size_t>(n));
      for (auto& v : phase) v = static_cast<float>(uniform(generator));
      const float marks[] = {0.0f, -0.0f, static_cast<float>(std::numbers::pi / 2), static_cast<float>(-std::numbers::pi / 2),
                             static_cast<float>(std::numbers::pi), static_cast<float>(-std::numbers::pi)};
      for (std::size_t i = 0; i < 6 && 2 * i + 1 < phase.size(); ++i) phase[2 * i] = phase[2 * i + 1] = marks[i];
      std::vector<double> sines(phase.size()), cosines(phase.size());
      for (std::size_t i = 0; i < phase.size(); ++i) {
        sines[i] = std::sin(static_cast<double>(phase[i]));
        cosines[i] = std::cos(static_cast<double>(phase[i]));
      }
      const mi::CopulaNormaliser copula(n);
      std::vector<double> sin_expected(phase.size()), cos_expected(phase.size()), sin_out(phase.size()), cos_out(phase.size());
      copula.apply(sines.data(), sin_expected.data());
      copula.apply(cosines.data(), cos_expected.data());
      copula.apply_sin_cos(phase.data(), sin_out.data(), cos_out.data());
      EXPECT_EQ(sin_out, sin_expected) << "n " << n << " span " << span;
      EXPECT_EQ(cos_out, cos_expected) << "n " << n << " span " << span;
    }
  }
}

TEST(Methods, GaussianCopulaMiOfIndependentGaussianMomentsIsZeroAndGrowsWithCorrelation) {
  mi::GaussianMoments m{1, 1, 0, 1, 0, 0};
  EXPECT_EQ(mi::gaussian_copula_mi(m, 0), 0.0);
  m.x1y = 0.6;  // correlation 0.6 with x1 alone: I = −½ log2(1 − 0.36)
  EXPECT_NEAR(mi::gaussian_copula_mi(m, 0), -0.5 * std::log2(1 - 0.36), 1e-15);
}

// The surrogates evaluate a million shifts of a series in one call: every method checks the run's
// stop between shifts (issue 16) and throws RunCancelled, and a token never stopped changes no bit.
TEST(Methods, EveryMethodThrowsRunCancelledOnceAStopIsRequestedAndGivesTheSameBitsOtherwise) {
  const std::int64_t t = 1001;
  const Signals sig = irregular_signals(t);
  const std::vector<std::int64_t> shifts = {0, 1, 333, 1000, 7};
  std::stop_source stop;
  for (mi::MethodKind kind : {mi::MethodKind::Tort, mi::MethodKind::Mvl, mi::MethodKind::Ndpac, mi::MethodKind::Plv,
                              mi::MethodKind::Hr, mi::MethodKind::Gc}) {
    const mi::MethodSettings s = with(kind);
    const auto method = mi::make_method(s, t);
    const mi::PairView view{sig.phase.data(), sig.amplitude.data(), sig.envelope.data(), 2, 3, t};
    std::vector<double> running(shifts.size() * 6, -1.0);
    method->evaluate(view, shifts, running.data(), stop.get_token());
    EXPECT_EQ(running, evaluate(s, sig.phase, sig.amplitude, 2, 3, shifts, sig.envelope.data()))
        << mi::method_name(kind);
  }
  stop.request_stop();
  for (mi::MethodKind kind : {mi::MethodKind::Tort, mi::MethodKind::Mvl, mi::MethodKind::Ndpac, mi::MethodKind::Plv,
                              mi::MethodKind::Hr, mi::MethodKind::Gc}) {
    std::vector<double> out(shifts.size() * 6);
    EXPECT_THROW(mi::make_method(with(kind), t)
                     ->evaluate({sig.phase.data(), sig.amplitude.data(), sig.envelope.data(), 2, 3, t}, shifts,
                                out.data(), stop.get_token()),
                 RunCancelled)
        << mi::method_name(kind);
  }
}

// The surrogates stage evaluates the rows of a channel's block (their phases) against their own
// amplitudes at every shift and against each other's amplitudes in one evaluate_many call: each
// job's values must be those of its own evaluate(), bit for bit, for every method (Tort bins each
// phase once and shares the amplitudes' sums and passes; the others evaluate job by job).
TEST(Methods, EvaluateManyGivesEachJobTheBitsOfItsOwnEvaluation) {
  const std::int64_t t = 1001;
  const Signals sig = irregular_signals(t);
  // Two phases of 2 bands (the series' and the same reversed in time) and three amplitudes of 3
  // bands (the series' own, reversed, and scaled), each amplitude met by both phases.
  const std::vector<float> other_phase(sig.phase.rbegin(), sig.phase.rend());
  const std::vector<float> reversed(sig.amplitude.rbegin(), sig.amplitude.rend());
  std::vector<float> scaled = sig.amplitude;
  for (float& a : scaled) a = 0.5f * a + 0.25f;
  const std::vector<std::int64_t> shifts = {0, 1, 333, 1000, 7}, observed = {0}, one = {500};
  struct Case {
    std::size_t phase;
    const std::vector<float>* amplitude;
    const std::vector<std::int64_t>* shifts;
  };
  const Case cases[] = {{0, &sig.amplitude, &shifts}, {0, &reversed, &observed}, {0, &scaled, &one},
                        {1, &sig.amplitude, &observed}, {1, &reversed, &shifts}, {1, &scaled, &observed}};
  const std::vector<float>* phases[] = {&sig.phase, &other_phase};
  for (mi::MethodKind kind : {mi::MethodKind::Tort, mi::MethodKind::Mvl, mi::MethodKind::Ndpac, mi::MethodKind::Plv,
                              mi::MethodKind::Hr, mi::MethodKind::Gc}) {
    const mi::MethodSettings s = with(kind);
    const auto method = mi::make_method(s, t);
    std::vector<std::vector<double>> many;
    std::vector<mi::AmplitudeJob> jobs;
    for (const Case& c : cases) many.emplace_back(c.shifts->size() * 6, -1.0);
    for (std::size_t k = 0; k < std::size(cases); ++k)
      jobs.push_back({cases[k].amplitude->data(), sig.envelope.data(), *cases[k].shifts, many[k].data(), cases[k].phase});
    const mi::PairView views[] = {{sig.phase.data(), nullptr, nullptr, 2, 3, t}, {other_phase.data(), nullptr, nullptr, 2, 3, t}};
    method->evaluate_many(views, jobs);
    for (std::size_t k = 0; k < std::size(cases); ++k)
      EXPECT_EQ(many[k], evaluate(s, *phases[cases[k].phase], *cases[k].amplitude, 2, 3, *cases[k].shifts,
                                  sig.envelope.data()))
          << mi::method_name(kind) << ", job " << k;
  }
}

}  // namespace
}  // namespace pacflow
