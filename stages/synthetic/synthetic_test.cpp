#include <cmath>
#include <gtest/gtest.h>
#include <numeric>

#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"
#include "stages/synthetic/synthetic_source.hpp"

namespace pacflow::stages {
namespace {

TEST(Synthetic, SeriesDependOnlyOnSeedAndIndex) {
  SyntheticConfig c;
  c.n_times = 512;
  std::vector<float> a(512), b(512), other(512);
  synthesize_series(c, 5, a.data());
  synthesize_series(c, 5, b.data());
  EXPECT_EQ(a, b);
  synthesize_series(c, 6, other.data());
  EXPECT_NE(a, other);
  c.seed = 1;
  synthesize_series(c, 5, b.data());
  EXPECT_NE(a, b);
}

TEST(Synthetic, TortModelFollowsItsFormulaWithoutNoise) {
  SyntheticConfig c;
  c.model = "tort";
  c.noise = 0;
  c.chi = 0.25;
  c.n_times = 100;
  std::vector<float> x(100);
  synthesize_series(c, 0, x.data());
  for (int i = 0; i < 100; ++i) {
    const double t = i / c.fs;
    const double slow = std::sin(2 * M_PI * c.f_pha * t);
    const double expected = 0.5 * ((1 - c.chi) * slow + 1 + c.chi) * std::sin(2 * M_PI * c.f_amp * t) + slow;
    EXPECT_NEAR(x[static_cast<std::size_t>(i)], expected, 1e-6) << i;
  }
}

// Only the tort model's pure-sine slow rhythm keeps the coupling under every circular shift; the
// source says so in its stream, for the surrogates stage to warn.
TEST(Synthetic, TortModelSaysShiftsKeepTheCoupling) {
  const auto why = [](const char* model) {
    SyntheticSource source(Params({{"model", model}, {"epochs", 1}, {"channels", 1}}, SyntheticSource::info().params));
    return source.open({}).shifts_keep_coupling;
  };
  EXPECT_NE(why("tort").find("pure-sine slow rhythm"), std::string::npos);
  EXPECT_EQ(why("driven"), "");
}

TEST(Synthetic, DrivenModelNoiseHasRequestedLevel) {
  // Uncoupled (chi = 1) and with the rhythms removed, what is left is the noise: std ~ noise.
  SyntheticConfig c;
  c.chi = 1;
  c.noise = 2.0;
  c.n_times = 20000;
  std::vector<float> x(20000);
  synthesize_series(c, 3, x.data());
  double sum = 0, squares = 0;
  for (float v : x) {
    sum += v;
    squares += v * v;
  }
  const double mean = sum / 20000, var = squares / 20000 - mean * mean;
  // Variance = noise^2 + carrier (sin^2 average 1/2) + slow cos^2 (1/2).
  EXPECT_NEAR(var, 4.0 + 0.5 + 0.5, 0.25);
}

TEST(Synthetic, RejectsBadParameters) {
  const ElementInfo info = SyntheticSource::info();
  EXPECT_THROW(SyntheticSource(Params({{"f_amp", 300}}, info.params)), ParamError);
  EXPECT_THROW(SyntheticSource(Params({{"model", "sine"}}, info.params)), ParamError);
  EXPECT_THROW(SyntheticSource(Params({{"coupled", {0, 99}}}, info.params)), ParamError);
}

}  // namespace
}  // namespace pacflow::stages
