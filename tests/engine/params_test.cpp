#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"

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

// A bare number is ambiguous (samples, or seconds as pactools means minimum_shift=1.0): refused,
// with the seconds suggested.
TEST(Params, ABareNumberIsNoDurationAndTheMessageSuggestsSeconds) {
  for (const json& bare : {json(64), json("64"), json(0.5)}) {
    try {
      parse_duration("min_shift", bare);
      FAIL() << bare << " was accepted";
    } catch (const ParamError& e) {
      EXPECT_EQ(e.param(), "min_shift");
      const std::string number = bare.is_string() ? bare.get<std::string>() : bare.dump();
      EXPECT_NE(std::string(e.what()).find(number + " has no unit"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("(" + number + "s?)"), std::string::npos) << e.what();
    }
  }
}

TEST(Params, ParsesDurationsInSamplesSecondsAndMilliseconds) {
  EXPECT_EQ(parse_duration("d", "64smp").samples(512), 64);
  EXPECT_EQ(parse_duration("d", "64 samples").samples(512), 64);
  EXPECT_EQ(parse_duration("d", "1s").samples(512), 512);
  EXPECT_EQ(parse_duration("d", "250ms").samples(512), 128);
  EXPECT_EQ(parse_duration("d", "0.5s").samples(1000), 500);
  EXPECT_THROW(parse_duration("d", "1h"), ParamError);
  EXPECT_THROW(parse_duration("d", "-3s"), ParamError);
  EXPECT_THROW(parse_duration("d", "1.5smp"), ParamError);
  EXPECT_THROW(parse_duration("d", "0x1p3s"), ParamError);
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

#include "engine/api/memory_budget.hpp"

namespace pacflow {
namespace {

TEST(MemoryBudget, ReadsAmountsInDecimalAndBinaryUnitsAndSharesOfTheDevice) {
  const std::size_t device = 80ULL << 30;
  EXPECT_EQ(parse_memory_budget("vram", "40GB").on_device(device), 40'000'000'000ULL);
  EXPECT_EQ(parse_memory_budget("vram", "40 GiB").on_device(device), 40ULL << 30);
  EXPECT_EQ(parse_memory_budget("vram", "512MiB").on_device(device), 512ULL << 20);
  EXPECT_EQ(parse_memory_budget("vram", 2e9).on_device(device), 2'000'000'000ULL);
  EXPECT_EQ(parse_memory_budget("vram", 0.5).on_device(device), 40ULL << 30);
  EXPECT_EQ(parse_memory_budget("vram", "25%").on_device(device), 20ULL << 30);
  EXPECT_EQ(parse_memory_budget("vram", "0.25").on_device(device), 20ULL << 30);
  EXPECT_EQ(parse_memory_budget("vram", "1TB").on_device(device), device);  // never more than the device
  EXPECT_FALSE(MemoryBudget{}.given());
}

TEST(MemoryBudget, RejectsNonsenseNamingTheParameterAndTheForms) {
  for (const json& bad : {json("40 parsecs"), json("-1GB"), json(0), json("abc"), json("120%"), json(512.0),
                         json::array({1})}) {
    try {
      parse_memory_budget("vram", bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const ParamError& e) {
      EXPECT_EQ(e.param(), "vram");
      EXPECT_NE(std::string(e.what()).find("40GB"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pacflow
