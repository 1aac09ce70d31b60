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
    const auto source = make_element<SyntheticSource>({{"model", model}, {"epochs", 1}, {"channels", 1}});
    return source->open({}).shifts_keep_coupling;
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
  EXPECT_THROW(make_element<SyntheticSource>({{"f_amp", 300}}), ParamError);
  EXPECT_THROW(make_element<SyntheticSource>({{"model", "sine"}}), ParamError);
  EXPECT_THROW(make_element<SyntheticSource>({{"coupled", {0, 99}}}), ParamError);
}

// The one-parameter bounds are declared, and the engine refuses what lies outside them, naming the
// parameter and the bound.
TEST(Synthetic, DeclaredBoundsAreCheckedNamingTheParameter) {
  const auto refusal = [](const json& given) {
    try {
      make_element<SyntheticSource>(given);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.bare_message();
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refusal({{"fs", 0}}).find("fs: "), std::string::npos);
  EXPECT_NE(refusal({{"fs", 0}}).find("must be greater than 0, got 0"), std::string::npos) << refusal({{"fs", 0}});
  EXPECT_NE(refusal({{"epochs", 0}}).find("epochs: "), std::string::npos);
  EXPECT_NE(refusal({{"epochs", 0}}).find("must be at least 1, got 0"), std::string::npos) << refusal({{"epochs", 0}});
  EXPECT_NE(refusal({{"channels", 0}}).find("must be at least 1, got 0"), std::string::npos);
  EXPECT_NE(refusal({{"chi", 1.5}}).find("chi: "), std::string::npos);
  EXPECT_NE(refusal({{"chi", 1.5}}).find("must be from 0 to 1, got 1.5"), std::string::npos) << refusal({{"chi", 1.5}});
  EXPECT_NE(refusal({{"seed", -1}}).find("seed: "), std::string::npos);
  EXPECT_NE(refusal({{"seed", -1}}).find("must be at least 0, got -1"), std::string::npos) << refusal({{"seed", -1}});
  const std::string model = refusal({{"model", "sine"}});
  EXPECT_NE(model.find("model: must be one of driven, tort, got \"sine\""), std::string::npos) << model;
  // What depends on another parameter, or says more than a bound, is still checked, with its message.
  EXPECT_NE(refusal({{"noise", 1e30}}).find("larger samples overflow the float32 filters"), std::string::npos);
  EXPECT_NE(refusal({{"n_times", 1}}).find("n_times: series need from 2 to 2^31 samples"), std::string::npos);
  EXPECT_EQ(refusal({{"chi", 1}, {"seed", 0}, {"model", "tort"}, {"coupled", {0, 2}}}), "(accepted)");
}

}  // namespace
}  // namespace pacflow::stages
