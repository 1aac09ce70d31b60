// erpac against closed forms and TensorPAC's formulas computed here (pearson, circ_corrcc, the
// chi-squared p-value, MNE's FDR and Bonferroni corrections).
#include <algorithm>
#include <array>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "engine/api/registry.hpp"
#include "stages/builtin.hpp"
#include "stages/erpac/erpac_stage.hpp"
#include "stages/kernels/statistics/multiple_comparisons.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow {
namespace {

constexpr std::int64_t kT = 50;

struct Dims {
  std::int64_t epochs, channels, n_pha, n_amp;
};

// Plans erpac on phase and amplitude tensors given directly ([E·C][n][T]) and runs one batch.
Batch run_erpac(const Dims& s, const std::vector<float>& phase, const std::vector<float>& amplitude,
                const json& params) {
  StreamInfo stream;
  stream.leading_dims = {s.epochs, s.channels};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = kT;
  stream.sample_rate = 100;
  PlanContext ctx(stream);
  ctx.declare({"phase", {s.n_pha, kT}, DType::Float32, false, "given"});
  ctx.declare({"amplitude", {s.n_amp, kT}, DType::Float32, false, "given"});
  const ElementInfo* info = stages::builtin_registry().find(ElementKind::Stage, "erpac");
  auto stage = info->make_stage(Params(params.is_string() ? json{{"mcp", params}} : params, info->params));
  stage->plan(ctx);
  stage->prepare();
  EXPECT_EQ(ctx.batch_multiple(), s.epochs * s.channels);
  Batch batch;
  batch.series_count = s.epochs * s.channels;
  std::copy(phase.begin(), phase.end(), batch.emplace("phase", {s.n_pha, kT}, DType::Float32).values<float>().begin());
  std::copy(amplitude.begin(), amplitude.end(), batch.emplace("amplitude", {s.n_amp, kT}, DType::Float32).values<float>().begin());
  stage->process(batch);
  return batch;
}

// Deterministic, irregular values.
double wobble(double x) { return std::sin(12.9898 * x + 4.1414 * std::sin(78.233 * x)); }

// TensorPAC's pearson: (Σxy − n μx μy) / (sqrt Σ(x − μx)² · sqrt Σ(y − μy)²).
double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double mx = 0, my = 0, sxy = 0, vx = 0, vy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n, sxy += x[i] * y[i];
  for (std::size_t i = 0; i < x.size(); ++i) vx += (x[i] - mx) * (x[i] - mx), vy += (y[i] - my) * (y[i] - my);
  return (sxy - n * mx * my) / (std::sqrt(vx) * std::sqrt(vy));
}

// Irregular phases in [−π, π], [E·C][n_pha][T].
std::vector<float> irregular_phases(const Dims& s) {
  std::vector<float> phase(static_cast<std::size_t>(s.epochs * s.channels * s.n_pha * kT));
  for (std::size_t i = 0; i < phase.size(); ++i)
    phase[i] = static_cast<float>(std::remainder(3.2 * wobble(0.113 * static_cast<double>(i)), 2 * std::numbers::pi));
  return phase;
}

// Amplitudes [E·C][n_amp][T]: sample i is value(i, φ), φ the first phase band's at its series and time.
template <class Value>
std::vector<float> amplitudes_of(const Dims& s, const std::vector<float>& phase, Value value) {
  std::vector<float> amplitude(static_cast<std::size_t>(s.epochs * s.channels * s.n_amp * kT));
  for (std::size_t i = 0; i < amplitude.size(); ++i) {
    const std::size_t series = i / static_cast<std::size_t>(s.n_amp * kT), t = i % kT;
    const double ph = phase[(series * static_cast<std::size_t>(s.n_pha)) * kT + t];
    amplitude[i] = static_cast<float>(value(i, ph));
  }
  return amplitude;
}

// An amplitude that is an affine function of cos φ and sin φ correlates perfectly: ρ = 1, p = e^{−E/2}.
TEST(Erpac, AmplitudeLinearInTheCosineOfThePhaseCorrelatesPerfectly) {
  const Dims s{12, 2, 1, 1};
  std::vector<float> phase(static_cast<std::size_t>(s.epochs * s.channels * kT)), amplitude(phase.size());
  for (std::size_t i = 0; i < phase.size(); ++i) {
    phase[i] = static_cast<float>(std::remainder(3.0 * wobble(0.37 * static_cast<double>(i)), 2 * std::numbers::pi));
    amplitude[i] = static_cast<float>(2.0 + std::cos(static_cast<double>(phase[i]) - 0.8));
  }
  const Batch batch = run_erpac(s, phase, amplitude, "none");
  ASSERT_EQ(batch.at("erpac").shape(), (Shape{2, 1, 1, kT}));
  for (float rho : batch.at("erpac").values<float>()) EXPECT_NEAR(rho, 1.0, 1e-5);
  for (float p : batch.at("erpac_pvalues").values<float>()) EXPECT_NEAR(p, std::exp(-6.0), 1e-6);
}

// Arbitrary signals: ρ from TensorPAC's three Pearson correlations, p = 1 − χ²₂(E ρ²), then the
// corrections, for every channel, band pair and time.
TEST(Erpac, EqualsCircularLinearCorrelationAcrossEpochsWithCorrectedPValues) {
  const Dims s{9, 2, 2, 3};
  const std::vector<float> phase = irregular_phases(s);
  const std::vector<float> amplitude = amplitudes_of(s, phase, [](std::size_t i, double ph) {
    return 1.5 + 0.3 * std::cos(ph) * static_cast<double>(i % 3) + 0.5 * wobble(0.71 * static_cast<double>(i));
  });
  for (const std::string mcp : {"none", "fdr", "bonferroni"}) {
    const Batch batch = run_erpac(s, phase, amplitude, mcp);
    const auto rho = batch.at("erpac").values<float>();
    const auto pv = batch.at("erpac_pvalues").values<float>();
    for (std::int64_t c = 0; c < s.channels; ++c) {
      std::vector<double> raw;
      for (std::int64_t p = 0; p < s.n_pha; ++p)
        for (std::int64_t a = 0; a < s.n_amp; ++a)
          for (std::int64_t t = 0; t < kT; ++t) {
            std::vector<double> x, sn, cs;
            for (std::int64_t e = 0; e < s.epochs; ++e) {
              const std::int64_t series = e * s.channels + c;
              const double ph = phase[static_cast<std::size_t>((series * s.n_pha + p) * kT + t)];
              sn.push_back(std::sin(ph));
              cs.push_back(std::cos(ph));
              x.push_back(amplitude[static_cast<std::size_t>((series * s.n_amp + a) * kT + t)]);
            }
            const double rxs = pearson(x, sn), rxc = pearson(x, cs), rcs = pearson(sn, cs);
            const double expected = std::sqrt((rxc * rxc + rxs * rxs - 2 * rxc * rxs * rcs) / (1 - rcs * rcs));
            const std::size_t cell = static_cast<std::size_t>(((c * s.n_pha + p) * s.n_amp + a) * kT + t);
            ASSERT_NEAR(rho[cell], expected, 1e-5) << "cell " << cell;
            raw.push_back(std::exp(-0.5 * static_cast<double>(s.epochs) * expected * expected));
          }
      // The corrections over this channel's family, written out: BH p_i = min over p_j >= p_i of
      // p_j m / rank_j; Bonferroni p m; both capped at 1.
      const auto m = static_cast<double>(raw.size());
      for (std::size_t i = 0; i < raw.size(); ++i) {
        double expected = raw[i];
        if (mcp == "bonferroni") expected = std::min(1.0, raw[i] * m);
        if (mcp == "fdr") {
          expected = 1.0;
          for (double pj : raw)
            if (pj >= raw[i]) {
              const auto rank = static_cast<double>(std::count_if(raw.begin(), raw.end(), [&](double v) { return v <= pj; }));
              expected = std::min(expected, pj * m / rank);
            }
        }
        ASSERT_NEAR(pv[static_cast<std::size_t>(c) * raw.size() + i], expected, 1e-5 * std::max(expected, 1e-3))
            << mcp << " channel " << c << " cell " << i;
      }
    }
  }
}

// erpac n=: each cell's ρ ranked among the ρ of n permutations of the epochs' amplitudes against
// their phases (permutation k: surrogates::epoch_permutation(seed, k, E, …, "erpac"), k = 1…n), as
// -Φ⁻¹(mid-rank / (n + 1)), computed here from the definition.
TEST(Erpac, RankZIsTheCorrelationsRankAmongEpochPermutations) {
  const Dims s{10, 2, 1, 2};
  const std::vector<float> phase = irregular_phases(s);
  // Band 0 coupled to the phase at every time, band 1 not.
  const std::vector<float> amplitude = amplitudes_of(s, phase, [](std::size_t i, double ph) {
    return (i / kT) % 2 == 0 ? 2.0 + std::cos(ph - 0.8) : 1.5 + 0.5 * wobble(0.71 * static_cast<double>(i));
  });
  constexpr std::int64_t kPermutations = 49, kSeed = 7;
  const Batch batch = run_erpac(s, phase, amplitude, {{"n", kPermutations}, {"seed", kSeed}});
  ASSERT_EQ(batch.at("erpac_rank_z").shape(), (Shape{2, 1, 2, kT}));
  const auto z = batch.at("erpac_rank_z").values<float>();
  const auto rho_of = [&](std::int64_t c, std::int64_t a, std::int64_t t, const std::vector<std::int64_t>& paired) {
    std::vector<double> x, sn, cs;
    for (std::int64_t e = 0; e < s.epochs; ++e) {
      const double ph = phase[static_cast<std::size_t>((e * s.channels + c) * kT + t)];
      sn.push_back(std::sin(ph));
      cs.push_back(std::cos(ph));
      x.push_back(amplitude[static_cast<std::size_t>(((paired[static_cast<std::size_t>(e)] * s.channels + c) * s.n_amp + a) * kT + t)]);
    }
    const double rxs = pearson(x, sn), rxc = pearson(x, cs), rcs = pearson(sn, cs);
    return std::sqrt((rxc * rxc + rxs * rxs - 2 * rxc * rxs * rcs) / (1 - rcs * rcs));
  };
  std::vector<std::vector<std::int64_t>> permutations(kPermutations, std::vector<std::int64_t>(s.epochs));
  for (std::int64_t k = 0; k < kPermutations; ++k)
    surrogates::epoch_permutation(kSeed, static_cast<std::uint64_t>(k + 1), s.epochs, permutations[static_cast<std::size_t>(k)].data(),
                                  0x6572706163ULL);
  std::vector<std::int64_t> identity(static_cast<std::size_t>(s.epochs));
  for (std::int64_t e = 0; e < s.epochs; ++e) identity[static_cast<std::size_t>(e)] = e;
  for (std::int64_t c = 0; c < s.channels; ++c)
    for (std::int64_t a = 0; a < s.n_amp; ++a)
      for (std::int64_t t = 0; t < kT; t += 7) {
        const double observed = rho_of(c, a, t, identity);
        double above = 0, tied = 0;
        for (const auto& paired : permutations) {
          const double r = rho_of(c, a, t, paired);
          above += r > observed + 1e-12 ? 1 : 0;
          tied += std::abs(r - observed) <= 1e-12 ? 1 : 0;
        }
        const double mid = (above + (tied + 1) / 2) / static_cast<double>(kPermutations + 1);
        const double expected = std::sqrt(2.0) * boost::math::erfc_inv(2 * mid);
        ASSERT_NEAR(z[static_cast<std::size_t>((c * s.n_amp + a) * kT + t)], expected, 1e-5)
            << "channel " << c << " band " << a << " time " << t;
        if (a == 0) {
          EXPECT_GT(expected, 2.0);  // coupled: above every permutation
        }
      }
  // Without n=, no erpac_rank_z.
  EXPECT_FALSE(run_erpac(s, phase, amplitude, "none").has("erpac_rank_z"));
}

// Gaussian-copula ERPAC written out: copnorm across epochs (Φ⁻¹(rank / (E + 1))), then the mutual
// information in bits of the 3 x 3 second-moment matrix C of (x1, x2, y), ½ log2(det C_xx C_yy / det C).
double inverse_normal(double p) { return std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1); }

std::vector<double> copnorm(const std::vector<double>& x) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double rank = 1;
    for (const double v : x) rank += v < x[i] ? 1 : 0;
    out[i] = inverse_normal(rank / static_cast<double>(x.size() + 1));
  }
  return out;
}

double gaussian_information(const std::vector<std::array<double, 3>>& samples) {
  double c[3][3] = {};
  for (const auto& v : samples)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c[i][j] += v[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(j)];
  const double det_xx = c[0][0] * c[1][1] - c[0][1] * c[1][0];
  const double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                     c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
  return 0.5 * std::log2(det_xx * c[2][2] / det);
}

TEST(Erpac, GaussianCopulaIsTheInformationOfCopulaNormalisedPhaseAndAmplitude) {
  const Dims s{12, 2, 1, 2};
  const std::vector<float> phase = irregular_phases(s);
  const std::vector<float> amplitude = amplitudes_of(s, phase, [](std::size_t i, double ph) {
    return 1.5 + 0.4 * std::cos(ph) * static_cast<double>(i % 2) + 0.5 * wobble(0.71 * static_cast<double>(i));
  });
  // Per channel, band and time: copnorm across the epochs at that time, pooled over times [from, to].
  const auto expected = [&](std::int64_t c, std::int64_t a, std::int64_t from, std::int64_t to,
                            const std::vector<std::int64_t>& paired) {
    std::vector<std::array<double, 3>> samples;
    for (std::int64_t t = from; t <= to; ++t) {
      std::vector<double> sn, cs, x;
      for (std::int64_t e = 0; e < s.epochs; ++e) {
        const double ph = phase[static_cast<std::size_t>((e * s.channels + c) * kT + t)];
        sn.push_back(std::sin(ph));
        cs.push_back(std::cos(ph));
        x.push_back(amplitude[static_cast<std::size_t>(((e * s.channels + c) * s.n_amp + a) * kT + t)]);
      }
      const auto a1 = copnorm(sn), a2 = copnorm(cs), y = copnorm(x);
      for (std::int64_t e = 0; e < s.epochs; ++e)
        samples.push_back({a1[static_cast<std::size_t>(e)], a2[static_cast<std::size_t>(e)],
                           y[static_cast<std::size_t>(paired[static_cast<std::size_t>(e)])]});
    }
    return gaussian_information(samples);
  };
  std::vector<std::int64_t> identity(static_cast<std::size_t>(s.epochs));
  for (std::int64_t e = 0; e < s.epochs; ++e) identity[static_cast<std::size_t>(e)] = e;
  const auto cell = [&](std::int64_t c, std::int64_t a, std::int64_t t) {
    return static_cast<std::size_t>((c * s.n_amp + a) * kT + t);
  };

  const Batch plain = run_erpac(s, phase, amplitude, {{"method", "gc"}});
  const auto information = plain.at("erpac").values<float>();
  for (std::int64_t c = 0; c < s.channels; ++c)
    for (std::int64_t a = 0; a < s.n_amp; ++a)
      for (std::int64_t t = 0; t < kT; t += 3)
        ASSERT_NEAR(information[cell(c, a, t)], expected(c, a, t, t, identity), 1e-5) << c << " " << a << " " << t;
  EXPECT_TRUE(std::isnan(plain.at("erpac_pvalues").values<float>()[0]));  // no n=: no p-values

  // smooth=2: each window [k - 2, k + 2] pooled, then each time the mean of the windows holding it.
  const Batch smoothed = run_erpac(s, phase, amplitude, {{"method", "gc"}, {"smooth", 2}});
  const auto smooth = smoothed.at("erpac").values<float>();
  for (std::int64_t t = 0; t < kT; t += 7) {
    double sum = 0, count = 0;
    for (std::int64_t k = std::max<std::int64_t>(2, t - 2); k <= std::min<std::int64_t>(kT - 3, t + 2); ++k) {
      sum += expected(1, 0, k - 2, k + 2, identity);
      count += 1;
    }
    ASSERT_NEAR(smooth[cell(1, 0, t)], sum / count, 1e-5) << t;
  }

  // n=: max-T over the channel's cells, (1 + #{k: max over cells of I_k >= I}) / (n + 1), with the
  // permutations of erpac n= (amplitudes of epoch permuted[e] against the phases of epoch e).
  constexpr std::int64_t kPermutations = 19, kSeed = 5;
  const Batch tested = run_erpac(s, phase, amplitude, {{"method", "gc"}, {"n", kPermutations}, {"seed", kSeed}});
  const auto p = tested.at("erpac_pvalues").values<float>();
  for (std::int64_t c = 0; c < s.channels; ++c) {
    std::vector<double> largest(kPermutations, 0.0);
    for (std::int64_t k = 0; k < kPermutations; ++k) {
      std::vector<std::int64_t> permuted(static_cast<std::size_t>(s.epochs));
      surrogates::epoch_permutation(kSeed, static_cast<std::uint64_t>(k + 1), s.epochs, permuted.data(),
                                    0x6572706163ULL);
      for (std::int64_t a = 0; a < s.n_amp; ++a)
        for (std::int64_t t = 0; t < kT; ++t)
          largest[static_cast<std::size_t>(k)] = std::max(largest[static_cast<std::size_t>(k)], expected(c, a, t, t, permuted));
    }
    for (std::int64_t a = 0; a < s.n_amp; ++a)
      for (std::int64_t t = 0; t < kT; t += 11) {
        const double observed = expected(c, a, t, t, identity);
        double reached = 0;
        for (const double m : largest) reached += m >= observed - 1e-9 ? 1 : 0;
        ASSERT_NEAR(p[cell(c, a, t)], (1 + reached) / (kPermutations + 1), 1e-6) << c << " " << a << " " << t;
      }
  }
  EXPECT_THROW(make_element<stages::ErpacStage>({{"smooth", 2}}), ParamError);  // smooth= is gc's
}

TEST(Erpac, NeedsAtLeastThreeEpochsAndAKnownCorrection) {
  const Dims two{2, 1, 1, 1};
  const std::vector<float> v(static_cast<std::size_t>(2 * kT), 0.5f);
  try {
    run_erpac(two, v, v, "fdr");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 epochs"), std::string::npos) << e.what();
  }
  try {
    make_element<stages::ErpacStage>({{"mcp", "holm"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "mcp");
    EXPECT_NE(std::string(e.what()).find("must be one of fdr, bonferroni, none, got \"holm\""), std::string::npos)
        << e.what();
  }
}

TEST(Erpac, FdrKeepsNanOutOfTheFamily) {
  std::vector<double> p = {0.01, NAN, 0.04, 0.03};
  erpac::correct(p, erpac::Correction::Fdr);
  EXPECT_NEAR(p[0], 0.03, 1e-15);  // 0.01 · 3 / 1
  EXPECT_TRUE(std::isnan(p[1]));
  EXPECT_NEAR(p[2], 0.04, 1e-15);  // 0.04 · 3 / 3
  EXPECT_NEAR(p[3], 0.04, 1e-15);  // min(0.03 · 3 / 2, 0.04)
}

}  // namespace
}  // namespace pacflow
