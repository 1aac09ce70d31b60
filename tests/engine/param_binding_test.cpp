// Parameters declared once (engine/api/param_binding.hpp): the schema, the checks the engine makes
// from it, the fields it sets, and the placement group the engine owns.
#include <gtest/gtest.h>

#include <array>
#include <optional>

#include "engine/api/errors.hpp"
#include "engine/api/param_binding.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "tests/engine/test_elements.hpp"

namespace pacflow {
namespace {

enum class Outline { Square, Round };

using Ranges = std::vector<std::array<double, 2>>;

// A spec read into its own type: [[lo, hi], …], or "LO:HI" for one range.
Ranges read_ranges(const std::string& name, const json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw ParamError(name, "expected LO:HI");
    return {{std::stod(text.substr(0, colon)), std::stod(text.substr(colon + 1))}};
  }
  return value.get<Ranges>();
}

// A stage with one parameter of each kind a stage binds.
class Declared final : public Stage {
 public:
  static void declare(ParamBinder<Declared>& p) {
    p.add(&Declared::cycles_, "cycles", 3, "cycles per filter").unit("cycles").range(1, 1000);
    p.add(&Declared::alpha_, "alpha", 0.05, "significance level").greater_than(0).less_than(1);
    p.add(&Declared::weights_, "weights", std::vector<double>{1.0}, "weights").at_least(0);
    p.add(&Declared::label_, "label", "x", "a label");
    p.parsed(&Declared::bands_, "bands", "2:20", read_ranges, "bands").unit("Hz");
    p.optional(&Declared::shift_, "shift", "a shift");
    p.optional([](Declared& d) -> std::optional<std::int64_t>& { return d.nested_.seed; }, "seed", "a seed");
    p.choice(&Declared::shape_, "shape", {{"square", Outline::Square}, {"round", Outline::Round}}, "square", "the shape");
    p.add(&Declared::path_, "path", "out.npy", "where").as(ParamType::OutputFile);
  }
  // A check across parameters, made once every field is set.
  void configured() {
    if (shape_ == Outline::Round && cycles_ > 10) throw ParamError("cycles", "a round shape takes at most 10 cycles");
    configured_ = true;
  }
  void plan(PlanContext&) override {}
  void process(Batch&) override {}

  int cycles_ = 0;
  double alpha_ = 0;
  std::vector<double> weights_;
  std::string label_;
  Ranges bands_;
  std::optional<Duration> shift_;
  struct {
    std::optional<std::int64_t> seed;
  } nested_;
  Outline shape_ = Outline::Round;
  std::string path_;
  bool configured_ = false;
};

std::string message_of(const json& given) {
  try {
    make_element<Declared>(given);
  } catch (const ParamError& e) {
    return e.param() + ": " + e.bare_message();
  }
  return "no error";
}

TEST(ParamBinding, OneStatementGivesTheSchemaEntry) {
  const ElementInfo info = element_info<Declared>("declared", "a test stage");
  EXPECT_EQ(info.kind, ElementKind::Stage);
  ASSERT_TRUE(info.make_stage);
  ASSERT_EQ(info.params.size(), 9u);
  const ParamSpec& cycles = info.params[0];
  EXPECT_EQ(cycles.name, "cycles");
  EXPECT_EQ(cycles.type, ParamType::Integer);
  EXPECT_EQ(cycles.default_value, 3);
  EXPECT_EQ(cycles.unit, "cycles");
  EXPECT_EQ(cycles.doc, "cycles per filter");
  EXPECT_EQ(cycles.constraint_text(), "1 to 1000");
  EXPECT_EQ(info.params[1].type, ParamType::Number);
  EXPECT_EQ(info.params[1].constraint_text(), ">0 <1");
  EXPECT_EQ(info.params[2].type, ParamType::NumberList);
  EXPECT_EQ(info.params[3].type, ParamType::String);
  EXPECT_EQ(info.params[4].type, ParamType::Spec);
  EXPECT_EQ(info.params[5].type, ParamType::Duration);
  EXPECT_TRUE(info.params[5].optional);
  EXPECT_EQ(info.params[6].type, ParamType::Integer);
  EXPECT_EQ(info.params[7].choices, (std::vector<std::string>{"square", "round"}));
  EXPECT_EQ(info.params[7].constraint_text(), "square|round");
  EXPECT_EQ(info.params[8].type, ParamType::OutputFile);
}

TEST(ParamBinding, SetsEveryFieldFromTheCheckedValuesThenConfigures) {
  const auto d = make_element<Declared>({{"cycles", 7}, {"weights", {0.5, 2}}, {"shift", "250ms"}, {"seed", 9},
                                         {"shape", "round"}, {"bands", json::array({json::array({4, 8})})}});
  EXPECT_EQ(d->cycles_, 7);
  EXPECT_DOUBLE_EQ(d->alpha_, 0.05);  // the default
  EXPECT_EQ(d->weights_, (std::vector<double>{0.5, 2}));
  EXPECT_EQ(d->label_, "x");
  EXPECT_EQ(d->bands_, (Ranges{{4, 8}}));
  ASSERT_TRUE(d->shift_);
  EXPECT_TRUE(d->shift_->seconds);
  EXPECT_DOUBLE_EQ(d->shift_->value, 0.25);
  EXPECT_EQ(d->nested_.seed, 9);
  EXPECT_EQ(d->shape_, Outline::Round);
  EXPECT_EQ(d->path_, "out.npy");
  EXPECT_TRUE(d->configured_);

  const auto unset = make_element<Declared>();
  EXPECT_FALSE(unset->shift_);
  EXPECT_FALSE(unset->nested_.seed);
  EXPECT_EQ(unset->bands_, (Ranges{{2, 20}}));  // the default, read as a given value is
  EXPECT_EQ(unset->shape_, Outline::Square);
}

TEST(ParamBinding, TheEngineChecksRangesAndChoicesNamingTheParameter) {
  EXPECT_EQ(message_of({{"cycles", 0}}), "cycles: must be from 1 to 1000, got 0");
  EXPECT_EQ(message_of({{"cycles", 1001}}), "cycles: must be from 1 to 1000, got 1001");
  EXPECT_EQ(message_of({{"cycles", 1000}}), "no error");
  EXPECT_EQ(message_of({{"alpha", 0}}), "alpha: must be from 0 to 1 (both excluded), got 0");
  EXPECT_EQ(message_of({{"alpha", 1}}), "alpha: must be from 0 to 1 (both excluded), got 1");
  EXPECT_EQ(message_of({{"weights", {1, -0.5}}}), "weights: must be at least 0, got -0.5");
  EXPECT_EQ(message_of({{"shape", "rund"}}), "shape: must be one of square, round, got \"rund\"; did you mean \"round\"?");
  EXPECT_EQ(message_of({{"shape", 3}}), "shape: expected a string, got 3");
  // A bound that depends on another parameter: the element's configured().
  EXPECT_EQ(message_of({{"shape", "round"}, {"cycles", 11}}), "cycles: a round shape takes at most 10 cycles");
}

TEST(ParamBinding, AnIntegerFieldNarrowerThanTheParameterRefusesWhatItCannotHold) {
  struct Narrow final : Stage {
    static void declare(ParamBinder<Narrow>& p) { p.add(&Narrow::n_, "n", 1, "a count"); }
    void plan(PlanContext&) override {}
    void process(Batch&) override {}
    int n_ = 0;
  };
  EXPECT_EQ(make_element<Narrow>({{"n", 2147483647}})->n_, 2147483647);
  try {
    make_element<Narrow>({{"n", 2147483648LL}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "n");
    EXPECT_EQ(e.bare_message(), "must be from -2147483648 to 2147483647, got 2147483648");
  }
}

// A spec read into a typed field when the element is made: "lo:hi" into a pair of numbers here, as
// bandpass reads pha= into bands (stages/kernels/filters/bands.hpp).
std::array<double, 2> read_range(const std::string& name, const json& value) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw ParamError(name, "expected lo:hi");
  return {std::stod(text.substr(0, colon)), std::stod(text.substr(colon + 1))};
}

TEST(ParamBinding, AParsedSpecIsReadIntoItsTypeWhenTheElementIsMade) {
  struct Parsed final : Stage {
    static void declare(ParamBinder<Parsed>& p) {
      p.parsed(&Parsed::range_, "range", "1:2", read_range, "a range").unit("Hz");
      p.parsed(&Parsed::needed_, "needed", json(), read_range, "a range the user gives");
      p.parsed_optional(&Parsed::extra_, "extra", read_range, "a range that may stay unset");
    }
    void plan(PlanContext&) override {}
    void process(Batch&) override {}
    std::array<double, 2> range_{}, needed_{}, extra_{-1, -1};
  };
  const ElementInfo info = element_info<Parsed>("parsed", "a test stage");
  ASSERT_EQ(info.params.size(), 3u);
  EXPECT_EQ(info.params[0].type, ParamType::Spec);  // listed as written, with its default and unit
  EXPECT_EQ(info.params[0].default_value, "1:2");
  EXPECT_EQ(info.params[0].unit, "Hz");
  EXPECT_TRUE(info.params[1].default_value.is_null());
  EXPECT_FALSE(info.params[1].optional);
  EXPECT_TRUE(info.params[2].optional);

  const auto d = make_element<Parsed>({{"needed", "4:8"}});
  EXPECT_EQ(d->range_, (std::array<double, 2>{1, 2}));  // the default, read
  EXPECT_EQ(d->needed_, (std::array<double, 2>{4, 8}));
  EXPECT_EQ(d->extra_, (std::array<double, 2>{-1, -1}));  // unset: the field's own value
  EXPECT_EQ(make_element<Parsed>({{"needed", "4:8"}, {"extra", "0:1"}})->extra_, (std::array<double, 2>{0, 1}));
  try {
    make_element<Parsed>({{"needed", "4:8"}, {"range", "12"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "range");
    EXPECT_EQ(e.bare_message(), "expected lo:hi");
  }
  EXPECT_THROW(make_element<Parsed>(), ParamError);  // needed= missing
}

TEST(PlacementParams, AreOneGroupTheEngineOwnsNotAStagesOwn) {
  testing::TestRegistry t;
  const ElementInfo* stage = t.registry.find(ElementKind::Stage, "double");
  ASSERT_NE(stage, nullptr);
  for (const auto& p : stage->params) EXPECT_FALSE(is_placement_param(p.name)) << p.name;
  std::vector<std::string> names;
  for (const auto& p : placement_params()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"on", "ring", "batch", "overflow", "fallback", "vram"}));

  // A stage may not declare one of them.
  Registry registry;
  ElementInfo bad = element_info<Declared>("bad", "declares on=");
  bad.params.push_back({"on", ParamType::Device, nullptr, "", "", true});
  EXPECT_THROW(registry.add(bad), std::logic_error);

  // Every stage takes them, and a near miss is answered from both groups.
  const json plan = Pipeline(t.registry).source("count").stage("double", {{"on", "cpu:0"}, {"ring", 2}}).sink("record").validate().to_json();
  EXPECT_EQ(plan["pipeline"][1]["params"]["on"], "cpu:0");
  EXPECT_EQ(plan["pipeline"][1]["params"]["ring"], 2);
  try {
    Pipeline(t.registry).source("count").stage("double", {{"vrm", "1GB"}}).sink("record").validate();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter \"vrm\"; did you mean \"vram\"?"), std::string::npos)
        << e.what();
  }
  // A source takes none of them.
  EXPECT_THROW(Pipeline(t.registry).source("count", {{"on", "cpu"}}).stage("double").sink("record").validate(),
               InputError);
}

}  // namespace
}  // namespace pacflow
