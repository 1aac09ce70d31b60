// The notch stage against SciPy (tests/data/notch/, written by scipy.signal.iirnotch and filtfilt:
// make_notch.py there) and against its definition: a line-frequency sine is removed, a slow one kept.
#include <chrono>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "stages/notch/notch_filter.hpp"
#include "stages/notch/notch_stage.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

json scipy_reference() {
  std::ifstream in(testing::data_dir() / "notch" / "coefficients.json");
  return json::parse(in);
}

StreamInfo stream_of(std::int64_t length, double fs = 256) {
  StreamInfo s;
  s.leading_dims = {1, 1};
  s.leading_names = {"epochs", "channels"};
  s.series_length = length;
  s.sample_rate = fs;
  return s;
}

std::unique_ptr<NotchStage> notch(const json& params) { return make_element<NotchStage>(params); }

TEST(Notch, CoefficientsAreScipysIirnotch) {
  const json ref = scipy_reference();
  for (const double f : {50.0, 100.0}) {
    const notch::Biquad got = notch::iir_notch(f, 30, 256);
    const json& want = ref["notches"][std::to_string(static_cast<int>(f))];
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(got.b[k], want["b"][k].get<double>(), 1e-15) << f << " Hz b" << k;
      EXPECT_NEAR(got.a[k], want["a"][k].get<double>(), 1e-15) << f << " Hz a" << k;
    }
  }
}

TEST(Notch, FiltfiltOfEachHarmonicInTurnIsScipys) {
  const auto x = testing::load_floats(testing::data_dir() / "notch" / "x.npy");
  const auto want = testing::load_doubles(testing::data_dir() / "notch" / "notched.npy");
  // The double-precision filter itself.
  std::vector<double> y(x.begin(), x.end()), scratch;
  for (const double f : {50.0, 100.0}) notch::filtfilt(notch::iir_notch(f, 30, 256), y, scratch);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-12 * (1 + std::abs(want[i]))) << i;
  // The stage: harmonics=all at 256 Hz is 50 and 100 Hz; float32 out.
  const auto stage = notch({{"freq", 50}});
  json resolved;
  stage->plan(stream_of(static_cast<std::int64_t>(x.size())), resolved);
  EXPECT_EQ(resolved["frequencies_hz"], json::array({50.0, 100.0}));
  std::vector<float> out(x.size());
  stage->apply(x.data(), out.data(), 0, 1);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<float>(want[i])) << i;
}

// Away from the ends (the filter's transient), a 50 Hz sine is gone and a 7 Hz one is untouched.
TEST(Notch, RemovesTheLineFrequencyAndKeepsASlowRhythm) {
  constexpr double fs = 500;
  constexpr std::int64_t n = 4000;
  std::vector<float> x(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / fs;
    x[static_cast<std::size_t>(i)] = static_cast<float>(std::sin(2 * std::numbers::pi * 7 * t) +
                                                         2 * std::sin(2 * std::numbers::pi * 50 * t + 1));
  }
  const auto stage = notch({{"freq", 50}, {"harmonics", 1}});
  json resolved;
  stage->plan(stream_of(n, fs), resolved);
  stage->apply(x.data(), x.data(), 0, 1);  // in place, as the source's reads do
  double worst = 0;
  for (std::int64_t i = 1000; i < 3000; ++i) {
    const double slow = std::sin(2 * std::numbers::pi * 7 * static_cast<double>(i) / fs);
    worst = std::max(worst, std::abs(x[static_cast<std::size_t>(i)] - slow));
  }
  EXPECT_LT(worst, 0.01);  // of a 50 Hz amplitude of 2: more than 46 dB down, the 7 Hz within 1%
}

TEST(Notch, FrequenciesAtOrAboveNyquistAndShortSeriesAreRefusedNamingThem) {
  const auto refusal = [](const json& params, std::int64_t length) -> std::string {
    try {
      const auto stage = notch(params);
      json resolved;
      stage->plan(stream_of(length), resolved);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.what();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal({{"freq", 128}}, 512).find("128 Hz is at or above the Nyquist frequency (128 Hz at 256 Hz)"),
            std::string::npos);
  EXPECT_NE(refusal({{"freq", 50}, {"harmonics", 3}}, 512).find("harmonic 3 of 50 Hz, 150 Hz, is at or above the "
                                                                  "Nyquist frequency (128 Hz); use harmonics=2 or all"),
            std::string::npos);
  EXPECT_NE(refusal({{"freq", 50}}, 9).find("series of 9 samples are too short"), std::string::npos);
  EXPECT_NE(refusal({{"freq", 50}, {"harmonics", "some"}}, 512).find("expected all or a count"), std::string::npos);
  EXPECT_NE(refusal({{"freq", 50}, {"harmonics", 2.0}}, 512).find("harmonics: expected all or a count >= 1, got 2.0"),
            std::string::npos);
  EXPECT_NE(refusal({{"freq", 50}, {"q", 0}}, 512).find("q: must be greater than 0, got 0"), std::string::npos);
  EXPECT_NE(refusal({{"freq", -50}}, 512).find("freq: must be greater than 0, got -50"), std::string::npos);
  EXPECT_NE(refusal(json::object(), 512).find("freq: missing required parameter \"freq\""), std::string::npos);
  EXPECT_EQ(refusal({{"freq", 60}, {"harmonics", 2}}, 512), "");
}

// harmonics=all at a mistyped freq (1e-9 Hz at 256 Hz: 1.3e11 harmonics below Nyquist) once planned
// every notch, gigabytes in validate too; a count beyond the bound is refused like it, at once.
TEST(Notch, AbsurdHarmonicCountIsRefusedAtOnceNamingFreqAndHarmonics) {
  const auto refusal = [](const json& params) -> std::string {
    try {
      json resolved;
      notch(params)->plan(stream_of(512), resolved);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.what();
    }
    return "(planned)";
  };
  // 128000 harmonics of 1 mHz below 128 Hz: still cheap to plan without the bound, so this case
  // fails first (ASSERT) should the bound go, before the 1e-9 Hz case could take gigabytes.
  std::string error = refusal({{"freq", 1e-3}});
  ASSERT_NE(error.find("harmonics: "), std::string::npos) << error;
  EXPECT_NE(error.find("harmonics=all at freq=0.001 Hz means 127999 notches below the Nyquist frequency (128 Hz), "
                       "more than the 10000 allowed"),
            std::string::npos)
      << error;
  error = refusal({{"freq", 1e-3}, {"harmonics", 20000}});
  ASSERT_NE(error.find("harmonics: "), std::string::npos) << error;
  EXPECT_NE(error.find("20000 notches are more than the 10000 allowed"), std::string::npos) << error;
  const auto start = std::chrono::steady_clock::now();
  error = refusal({{"freq", 1e-9}});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_NE(error.find("harmonics=all at freq=1e-09 Hz means 1.28e+11 notches"), std::string::npos) << error;
  // The bound itself is allowed: 10000 notches of 1 mHz.
  EXPECT_EQ(refusal({{"freq", 1e-3}, {"harmonics", 10000}}), "(planned)");
}

}  // namespace
}  // namespace pacflow::stages
