// Plan facts (engine/api/stage.hpp): typed values one element plans and later ones read, shown in
// the report as JSON.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/stage.hpp"

namespace pacflow {
namespace {

using Edges = std::vector<std::array<double, 2>>;
constexpr PlanFact<Edges> kBands{"bands_hz", "bandpass"};
constexpr PlanFact<std::int64_t> kFftLength{"fft_length", "hilbert"};
constexpr PlanFact<std::string> kSameNameOtherType{"fft_length", "other"};

PlanContext context() {
  StreamInfo stream;
  stream.leading_dims = {1, 2};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = 64;
  stream.sample_rate = 128;
  return PlanContext(stream);
}

TEST(PlanFacts, ALaterElementReadsTheTypedValueAndTheReportShowsItAsJson) {
  PlanContext ctx = context();
  EXPECT_EQ(ctx.find(kBands), nullptr);
  ctx.publish(kBands, {{4, 8}, {8, 12}});
  ctx.publish(kFftLength, 96);
  ASSERT_NE(ctx.find(kBands), nullptr);
  EXPECT_EQ(*ctx.find(kBands), (Edges{{4, 8}, {8, 12}}));
  EXPECT_EQ(ctx.require(kFftLength, "envelope_phase"), 96);
  EXPECT_EQ(ctx.attributes()["bands_hz"], json::parse("[[4.0, 8.0], [8.0, 12.0]]"));
  EXPECT_EQ(ctx.attributes()["fft_length"], 96);
}

TEST(PlanFacts, AMissingFactNamesThePublisherToAddAndMisuseIsAProgrammingError) {
  PlanContext ctx = context();
  try {
    ctx.require(kBands, "png");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "\"png\" needs the bands_hz that stage \"bandpass\" plans; add \"stage bandpass\" "
                                     "before it");
  }
  ctx.publish(kFftLength, 96);
  EXPECT_THROW(ctx.publish(kFftLength, 128), std::logic_error);   // published twice
  EXPECT_THROW(ctx.find(kSameNameOtherType), std::logic_error);   // read as another type
  EXPECT_EQ(ctx.require(kFftLength, "x"), 96);                    // unchanged
}

TEST(PlanFacts, OnlyFactsOfStudyScopeAreSharedAcrossRecordings) {
  constexpr PlanFact<Edges> kStudyBands{"study_bands_hz", "bandpass", FactScope::Study};
  PlanContext ctx = context();
  EXPECT_EQ(ctx.study_facts(), json::object());
  ctx.publish(kFftLength, 96);  // in samples: each recording's own
  ctx.publish(kStudyBands, {{4, 8}});
  EXPECT_EQ(ctx.study_facts(), json::parse(R"({"study_bands_hz": [[4.0, 8.0]]})"));
  EXPECT_EQ(ctx.attributes()["study_bands_hz"], ctx.study_facts()["study_bands_hz"]);  // the report shows both
  EXPECT_EQ(ctx.attributes()["fft_length"], 96);
}

TEST(PlanFacts, CoordinatesAreTypedForTheSinksAndCompactInTheReport) {
  PlanContext ctx = context();
  EXPECT_TRUE(ctx.coordinates().empty());
  ctx.publish_coordinate({"erpac_times", 0.0, 0.1, 11, "s", "time of each sample"});
  ASSERT_EQ(ctx.coordinates().size(), 1u);
  const std::vector<double> times = ctx.coordinates().front().values();
  ASSERT_EQ(times.size(), 11u);
  EXPECT_EQ(times.front(), 0.0);
  EXPECT_EQ(times[10], 1.0);  // start + k step; ten additions of 0.1 would give 0.9999999999999999
  EXPECT_EQ(ctx.attributes()["coordinates"]["erpac_times"],
            json::parse(R"({"start": 0.0, "step": 0.1, "count": 11, "unit": "s", "doc": "time of each sample"})"));
  EXPECT_THROW(ctx.publish_coordinate({"erpac_times", 0, 1, 2, "s", ""}), std::logic_error);
}

}  // namespace
}  // namespace pacflow
