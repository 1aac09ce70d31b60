// The reref stage against its definitions, on small epochs written here: the average reference
// (without the series nan_policy=skip left out), one reference channel, bipolar pairs by label or
// index, segments, and in place.
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/reref/reref_stage.hpp"

namespace pacflow::stages {
namespace {

constexpr std::int64_t E = 2, C = 3, T = 5;

StreamInfo reref_stream(std::vector<std::string> labels = {"Fz", "Cz", "Pz"}, std::int64_t segments = 1) {
  StreamInfo s;
  s.leading_dims = {E, C};
  s.leading_names = {"epochs", "channels"};
  if (segments > 1) {
    s.leading_dims.push_back(segments);
    s.leading_names.emplace_back("segments");
  }
  s.labels = {{}, std::move(labels)};
  s.series_length = T;
  s.sample_rate = 100;
  return s;
}

// x[series][t]: distinct, uneven values.
std::vector<float> reref_signal(std::int64_t series) {
  std::vector<float> x(static_cast<std::size_t>(series * T));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 23) - 7.5f + 0.25f * static_cast<float>(i % 4);
  return x;
}

struct Planned {
  std::unique_ptr<RerefStage> stage;
  StreamInfo after;
  json resolved;
};

Planned plan(const json& params, const StreamInfo& before) {
  Planned p{make_element<RerefStage>(params), {}, json::object()};
  p.after = p.stage->plan(before, p.resolved);
  return p;
}

float reref_at(const std::vector<float>& x, std::int64_t series, std::int64_t t) { return x[static_cast<std::size_t>(series * T + t)]; }

TEST(Reref, AverageSubtractsTheMeanOfTheEpochsChannelsAtEachSample) {
  Planned p = plan(json::object(), reref_stream());
  EXPECT_EQ(p.after.leading_dims, (Shape{E, C}));
  const auto x = reref_signal(E * C);
  std::vector<float> y(x.size());
  p.stage->apply(x.data(), y.data(), 0, E);
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t t = 0; t < T; ++t) {
      double mean = 0;
      for (std::int64_t c = 0; c < C; ++c) mean += reref_at(x, e * C + c, t);
      mean /= C;
      for (std::int64_t c = 0; c < C; ++c)
        ASSERT_EQ(reref_at(y, e * C + c, t), static_cast<float>(reref_at(x, e * C + c, t) - mean)) << e << "," << c << "," << t;
    }
  // In place, as the source's reads apply it: the same values.
  std::vector<float> in_place = x;
  p.stage->apply(in_place.data(), in_place.data(), 0, E);
  EXPECT_EQ(in_place, y);
}

TEST(Reref, SeriesLeftOutStayOutOfTheAverageAndOfTheResults) {
  StreamInfo before = reref_stream();
  before.excluded_series = {1};  // epoch 0, Cz: zeros from the source
  Planned p = plan(json::object(), before);
  EXPECT_EQ(p.after.excluded_series, (std::vector<std::int64_t>{1}));
  auto x = reref_signal(E * C);
  for (std::int64_t t = 0; t < T; ++t) x[static_cast<std::size_t>(1 * T + t)] = 0;
  std::vector<float> y(x.size());
  p.stage->apply(x.data(), y.data(), 0, E);
  for (std::int64_t t = 0; t < T; ++t) {
    const double mean = (static_cast<double>(reref_at(x, 0, t)) + reref_at(x, 2, t)) / 2;
    EXPECT_EQ(reref_at(y, 0, t), static_cast<float>(reref_at(x, 0, t) - mean));
    EXPECT_EQ(reref_at(y, 2, t), static_cast<float>(reref_at(x, 2, t) - mean));
  }
  // A reference channel left out leaves out every channel of that epoch.
  Planned by_cz = plan({{"ref", "Cz"}}, before);
  EXPECT_EQ(by_cz.after.excluded_series, (std::vector<std::int64_t>{0, 1}));
}

TEST(Reref, OneChannelIsSubtractedFromTheOthersAndDropped) {
  Planned p = plan({{"ref", "Cz"}}, reref_stream());
  EXPECT_EQ(p.after.leading_dims, (Shape{E, 2}));
  EXPECT_EQ(p.after.labels[1], (std::vector<std::string>{"Fz", "Pz"}));
  EXPECT_EQ(p.resolved["ref"], "Cz");
  const auto x = reref_signal(E * C);
  std::vector<float> y(static_cast<std::size_t>(E * 2 * T));
  p.stage->apply(x.data(), y.data(), 0, E);
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t t = 0; t < T; ++t) {
      EXPECT_EQ(reref_at(y, e * 2 + 0, t), reref_at(x, e * C + 0, t) - reref_at(x, e * C + 1, t));
      EXPECT_EQ(reref_at(y, e * 2 + 1, t), reref_at(x, e * C + 2, t) - reref_at(x, e * C + 1, t));
    }
  EXPECT_EQ(plan({{"ref", 2}}, reref_stream()).after.labels[1], (std::vector<std::string>{"Fz", "Cz"}));  // by index
}

TEST(Reref, BipolarPairsByLabelOrIndexGiveOneChannelEachEvenInPlace) {
  Planned p = plan({{"bipolar", json::array({"Fz-Cz", json::array({"Pz", "Fz"}), "1-2"})}}, reref_stream());
  EXPECT_EQ(p.after.labels[1], (std::vector<std::string>{"Fz-Cz", "Pz-Fz", "Cz-Pz"}));
  const auto x = reref_signal(E * C);
  std::vector<float> y(x.size());
  p.stage->apply(x.data(), y.data(), 0, E);
  const std::int64_t pairs[3][2] = {{0, 1}, {2, 0}, {1, 2}};
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t k = 0; k < 3; ++k)
      for (std::int64_t t = 0; t < T; ++t)
        ASSERT_EQ(reref_at(y, e * C + k, t), reref_at(x, e * C + pairs[k][0], t) - reref_at(x, e * C + pairs[k][1], t));
  // As many pairs as channels: the source's reads rewrite the epochs in place; every pair still
  // reads the channels as they came.
  std::vector<float> in_place = x;
  p.stage->apply(in_place.data(), in_place.data(), 0, E);
  EXPECT_EQ(in_place, y);
  // Without labels, pairs by index are labelled by index.
  EXPECT_EQ(plan({{"bipolar", json::array({"0-2"})}}, reref_stream({})).after.labels[1], (std::vector<std::string>{"0-2"}));
}

TEST(Reref, EachSegmentIsReferencedOnItsOwn) {
  constexpr std::int64_t S = 2;
  Planned p = plan(json::object(), reref_stream({"Fz", "Cz", "Pz"}, S));
  const auto x = reref_signal(E * C * S);
  std::vector<float> y(x.size());
  p.stage->apply(x.data(), y.data(), 0, E);
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t t = 0; t < T; ++t) {
        double mean = 0;
        for (std::int64_t c = 0; c < C; ++c) mean += reref_at(x, (e * C + c) * S + s, t);
        mean /= C;
        for (std::int64_t c = 0; c < C; ++c)
          ASSERT_EQ(reref_at(y, (e * C + c) * S + s, t), static_cast<float>(reref_at(x, (e * C + c) * S + s, t) - mean));
      }
}

TEST(Reref, UnclearPairsAndChannelsAreRefusedNamingThem) {
  const auto refusal = [](const json& params, const StreamInfo& before) -> std::string {
    try {
      plan(params, before);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal({{"bipolar", json::array({"Fz-Xx"})}}, reref_stream()).find("\"Fz-Xx\" is not two channels joined by "
                                                                           "'-'"),
            std::string::npos);
  // "A-B-C" splits two ways into labels.
  EXPECT_NE(refusal({{"bipolar", json::array({"A-B-C"})}}, reref_stream({"A", "A-B", "B-C", "C"}))
                .find("\"A-B-C\" is ambiguous as two channels joined by '-'; write the pair as [A, B]"),
            std::string::npos);
  EXPECT_NE(refusal({{"bipolar", json::array({"Fz-Fz"})}}, reref_stream()).find("pairs a channel with itself"),
            std::string::npos);
  EXPECT_NE(refusal({{"ref", "Oz"}}, reref_stream()).find("Oz"), std::string::npos);
  EXPECT_NE(refusal({{"ref", "Cz"}, {"bipolar", json::array({"Fz-Cz"})}}, reref_stream()).find("not both"),
            std::string::npos);
  StreamInfo one = reref_stream({"Fz"});
  one.leading_dims = {E, 1};
  EXPECT_NE(refusal(json::object(), one).find("needs at least 2 channels"), std::string::npos);
}

// A malformed ref= or bipolar= is refused when the element is made (validate, before any input is
// opened), not when it is planned.
TEST(Reref, MalformedSpecsAreRefusedWhenTheStageIsMade) {
  const auto refusal = [](const json& params) -> std::string {
    try {
      make_element<RerefStage>(params);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.bare_message();
    }
    return "";
  };
  EXPECT_EQ(refusal({{"bipolar", json::array({1.5})}}), "bipolar: 1.5 is not a pair of channels (A-B or [A, B])");
  EXPECT_EQ(refusal({{"bipolar", json::array({json::array({"Fz"})})}}), "bipolar: [\"Fz\"] is not a pair of channels");
  EXPECT_EQ(refusal({{"bipolar", json::array()}}), "bipolar: expected a list of pairs such as [F3-C3, C3-P3], got []");
  EXPECT_EQ(refusal({{"ref", -1}}), "ref: -1 is neither a label nor a channel index");
  EXPECT_EQ(refusal({{"ref", "average"}}), "");
  EXPECT_EQ(refusal({{"bipolar", json::array({"Fz-Cz", json::array({0, "Pz"})})}}), "");
}

}  // namespace
}  // namespace pacflow::stages
