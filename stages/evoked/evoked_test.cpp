// The evoked stage against its definition, on small epochs written here: each condition's mean over
// its epochs (the series the source left out not in it), removed as it is (subtract) or scaled to
// each epoch by least squares (regress); a response whose size varies across trials is removed
// whole by regress; learning goes in order, and a pipeline learns only when it runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "stages/builtin.hpp"
#include "stages/evoked/evoked_stage.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

constexpr std::int64_t E = 4, C = 2, T = 6;

StreamInfo stream(std::vector<std::int64_t> conditions = {}) {
  StreamInfo s;
  s.leading_dims = {E, C};
  s.leading_names = {"epochs", "channels"};
  s.series_length = T;
  s.sample_rate = 100;
  if (!conditions.empty()) {
    s.condition_names = {"a", "b"};
    s.epoch_conditions = std::move(conditions);
  }
  return s;
}

// x[series][t]: distinct, uneven values.
std::vector<float> signal() {
  std::vector<float> x(static_cast<std::size_t>(E * C * T));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 23) - 7.5f + 0.25f * static_cast<float>(i % 4);
  return x;
}

std::unique_ptr<EvokedStage> planned(const json& params, const StreamInfo& before) {
  auto stage = make_element<EvokedStage>(params);
  json resolved = json::object();
  stage->plan(before, resolved);
  return stage;
}

// The definition: r = mean over the epochs of the series' condition (not left out) at its channel.
std::vector<double> response(const std::vector<float>& x, std::int64_t series, const std::vector<std::int64_t>& conditions,
                             const std::vector<std::int64_t>& left_out = {}) {
  std::vector<double> r(T, 0.0);
  int n = 0;
  const auto condition = [&](std::int64_t e) { return conditions.empty() ? 0 : conditions[static_cast<std::size_t>(e)]; };
  for (std::int64_t e = 0; e < E; ++e) {
    const std::int64_t s = e * C + series % C;
    if (condition(e) != condition(series / C) || std::find(left_out.begin(), left_out.end(), s) != left_out.end()) continue;
    for (std::int64_t t = 0; t < T; ++t) r[static_cast<std::size_t>(t)] += x[static_cast<std::size_t>(s * T + t)];
    ++n;
  }
  for (auto& v : r) v /= n;
  return r;
}

TEST(Evoked, SubtractRemovesEachConditionsMeanOverItsEpochs) {
  const std::vector<std::int64_t> conditions{0, 1, 0, 1};
  auto stage = planned({{"mode", "subtract"}}, stream(conditions));
  const auto x = signal();
  stage->learn(x.data(), 0, E * C);
  std::vector<float> y(x.size());
  stage->apply(x.data(), y.data(), 0, E * C);
  for (std::int64_t s = 0; s < E * C; ++s) {
    const auto r = response(x, s, conditions);
    for (std::int64_t t = 0; t < T; ++t)
      EXPECT_NEAR(y[static_cast<std::size_t>(s * T + t)], x[static_cast<std::size_t>(s * T + t)] - r[static_cast<std::size_t>(t)], 1e-5)
          << "series " << s << ", t " << t;
  }
}

TEST(Evoked, RegressRemovesTheResponseScaledToEachEpochInPlace) {
  auto stage = planned(json::object(), stream());
  const auto x = signal();
  for (std::int64_t first = 0; first < E * C; first += 2 * C)  // in batches of two epochs
    stage->learn(x.data() + first * T, first, 2 * C);
  std::vector<float> y = x;
  stage->apply(y.data(), y.data(), 0, E * C);
  for (std::int64_t s = 0; s < E * C; ++s) {
    const auto r = response(x, s, {});
    double dot = 0, energy = 0, residual_dot = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      dot += x[static_cast<std::size_t>(s * T + t)] * r[static_cast<std::size_t>(t)];
      energy += r[static_cast<std::size_t>(t)] * r[static_cast<std::size_t>(t)];
    }
    for (std::int64_t t = 0; t < T; ++t) {
      const double want = x[static_cast<std::size_t>(s * T + t)] - dot / energy * r[static_cast<std::size_t>(t)];
      EXPECT_NEAR(y[static_cast<std::size_t>(s * T + t)], want, 1e-4) << "series " << s << ", t " << t;
      residual_dot += y[static_cast<std::size_t>(s * T + t)] * r[static_cast<std::size_t>(t)];
    }
    EXPECT_NEAR(residual_dot, 0.0, 1e-3) << "what is left has no part along the response";
  }
}

// Epochs that are one response at sizes 0.5, 1, 2 and 3: regress removes it whole, subtract leaves
// each epoch's difference from the average size.
TEST(Evoked, RegressRemovesAResponseWhoseSizeVariesAcrossTrials) {
  const double sizes[E] = {0.5, 1, 2, 3};
  std::vector<float> x(static_cast<std::size_t>(E * C * T));
  for (std::int64_t s = 0; s < E * C; ++s)
    for (std::int64_t t = 0; t < T; ++t)
      x[static_cast<std::size_t>(s * T + t)] = static_cast<float>(sizes[s / C] * std::sin(1.0 + static_cast<double>(t + s % C)));
  for (const char* mode : {"regress", "subtract"}) {
    auto stage = planned({{"mode", mode}}, stream());
    stage->learn(x.data(), 0, E * C);
    std::vector<float> y(x.size());
    stage->apply(x.data(), y.data(), 0, E * C);
    double largest = 0;
    for (float v : y) largest = std::max(largest, std::abs(static_cast<double>(v)));
    if (std::string(mode) == "regress")
      EXPECT_LT(largest, 1e-5);
    else
      EXPECT_GT(largest, 0.5);
  }
}

TEST(Evoked, SeriesTheSourceLeftOutStayOutOfTheMeanAndAsTheyAre) {
  StreamInfo s = stream();
  s.excluded_series = {2};  // epoch 1, channel 0
  auto stage = planned({{"mode", "subtract"}}, s);
  auto x = signal();
  std::fill_n(x.begin() + 2 * T, T, 0.0f);  // the stand-in
  stage->learn(x.data(), 0, E * C);
  std::vector<float> y(x.size());
  stage->apply(x.data(), y.data(), 0, E * C);
  const auto r = response(x, 0, {}, {2});
  for (std::int64_t t = 0; t < T; ++t) {
    EXPECT_NEAR(y[static_cast<std::size_t>(t)], x[static_cast<std::size_t>(t)] - r[static_cast<std::size_t>(t)], 1e-5);
    EXPECT_EQ(y[static_cast<std::size_t>(2 * T + t)], 0.0f) << "the stand-in is kept";
  }
}

TEST(Evoked, NeedsEpochsAndTwoOfEachConditionAndLearnsInOrder) {
  StreamInfo one_epoch = stream();
  one_epoch.leading_dims = {1, C};
  EXPECT_THROW(planned(json::object(), one_epoch), InputError);
  try {
    planned(json::object(), stream({0, 0, 0, 1}));
    ADD_FAILURE() << "a condition of one epoch";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("condition b has 1 epoch"), std::string::npos) << e.what();
  }
  auto stage = planned(json::object(), stream());
  const auto x = signal();
  EXPECT_THROW(stage->learn(x.data(), C, C), std::logic_error) << "learning must start at series 0";
  std::vector<float> y(x.size());
  EXPECT_THROW(stage->apply(x.data(), y.data(), 0, C), std::logic_error) << "applied before it learned";
}

// Through a pipeline: `validate` plans it without reading the input; a run reads it once first.
TEST(Evoked, APipelineLearnsWhenItRunsAndWritesTheResults) {
  const testing::ScratchDir dir("evoked_pipeline");
  Pipeline p(builtin_registry());
  p.source("synthetic", {{"fs", 256}, {"epochs", 4}, {"channels", 2}, {"n_times", 1024}, {"seed", 1}})
      .stage("evoked")
      .stage("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}})
      .stage("hilbert")
      .stage("mi")
      .sink("npy", {{"dir", dir.path().string()}});
  const json plan = p.validate().to_json();
  EXPECT_EQ(plan["input"]["evoked_removed"], "regress");
  const json report = p.run().to_json();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "pac.npy"));
  EXPECT_EQ(report["pipeline"][1]["name"], "evoked") << report["pipeline"].dump();
  EXPECT_EQ(report["pipeline"][1]["params"]["epochs_per_condition"], json::array({4}));
}

}  // namespace
}  // namespace pacflow::stages
