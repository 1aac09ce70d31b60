#include <gtest/gtest.h>

#include "engine/errors.hpp"
#include "engine/params.hpp"

namespace pacflow {
namespace {

const std::vector<ParamSpec> kSchema = {
    {"n", ParamType::Integer, 200, "", ""},
    {"ratio", ParamType::Number, 0.5, "", ""},
    {"shift", ParamType::Duration, nullptr, "", "", true},
    {"list", ParamType::NumberList, nullptr, "", "", true},
    {"path", ParamType::InputFile, nullptr, "", "the file"},
};

TEST(Params, FillsDefaultsAndKeepsGivenValues) {
  const Params p({{"path", "x.npy"}, {"n", 20}}, kSchema);
  EXPECT_EQ(p.integer("n"), 20);
  EXPECT_DOUBLE_EQ(p.number("ratio"), 0.5);
  EXPECT_FALSE(p.has("shift"));
  EXPECT_EQ(p.string("path"), "x.npy");
}

TEST(Params, RejectsWrongTypesNamingTheParameter) {
  try {
    Params({{"path", "x"}, {"n", "abc"}}, kSchema);
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "n");
    EXPECT_EQ(e.bare_message(), "expected an integer (at most 2^63 - 1, or 2^53 when written as a decimal), got \"abc\"");
  }
  EXPECT_THROW(Params({{"path", "x"}, {"n", 2.5}}, kSchema), ParamError);
  EXPECT_THROW(Params({{"path", "x"}, {"list", {1, "a"}}}, kSchema), ParamError);
  EXPECT_THROW(Params(json::object(), kSchema), ParamError);  // path is required
}

TEST(Params, SuggestsNearMissNames) {
  try {
    Params({{"path", "x"}, {"ratoi", 1}}, kSchema);
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.bare_message(), "unknown parameter \"ratoi\"; did you mean \"ratio\"?");
  }
}

TEST(Params, ParsesDurationsInSamplesSecondsAndMilliseconds) {
  EXPECT_EQ(parse_duration("d", 64).samples(512), 64);
  EXPECT_EQ(parse_duration("d", "1s").samples(512), 512);
  EXPECT_EQ(parse_duration("d", "250ms").samples(512), 128);
  EXPECT_EQ(parse_duration("d", "0.5s").samples(1000), 500);
  EXPECT_THROW(parse_duration("d", "1h"), ParamError);
  EXPECT_THROW(parse_duration("d", -3), ParamError);
  EXPECT_THROW(parse_duration("d", "abc"), ParamError);
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

TEST(Params, KeepsLargeIntegersExactAndRejectsOutOfRange) {
  const std::vector<ParamSpec> schema = {{"seed", ParamType::Integer, 0, "", ""}};
  EXPECT_EQ(Params({{"seed", 9007199254740993LL}}, schema).integer("seed"), 9007199254740993LL);
  EXPECT_THROW(Params({{"seed", 18446744073709551615ULL}}, schema), ParamError);
  EXPECT_THROW(Params({{"seed", 1e30}}, schema), ParamError);
  EXPECT_EQ(Params({{"seed", 12.0}}, schema).integer("seed"), 12);
}

}  // namespace
}  // namespace pacflow
