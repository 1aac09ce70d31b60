// conditions= and condition_names= of the array sources: each epoch's condition into the stream, as
// the edf source's events= puts them, and every malformed list refused naming the parameter.
#include "stages/io/common/array_conditions.hpp"

#include <gtest/gtest.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {
namespace {

StreamInfo epochs_of(std::int64_t epochs) {
  StreamInfo info;
  info.leading_dims = {epochs, 2};
  info.leading_names = {"epochs", "channels"};
  info.series_length = 100;
  info.sample_rate = 100;
  return info;
}

// conditions= and condition_names= as the source's parameters give them: read when the element is
// made, applied when it is opened.
void describe(const std::optional<json>& labels, const std::optional<json>& names, StreamInfo& info) {
  ConditionLabels read_labels, read_names;
  if (labels) read_labels = parse_condition_labels("conditions", *labels);
  if (names) read_names = parse_condition_names("condition_names", *names);
  describe_array_conditions(read_labels, read_names, info);
}

std::string refusal(const std::optional<json>& labels, const std::optional<json>& names, StreamInfo info,
                    const std::string& param) {
  try {
    describe(labels, names, info);
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), param);
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(ArrayConditions, LabelsBecomeTheStreamsConditionsInTheOrderFirstSeenOrGiven) {
  StreamInfo info = epochs_of(5);
  describe(json{"nogo", "go", "go", "nogo", "go"}, std::nullopt, info);
  EXPECT_EQ(info.condition_names, (std::vector<std::string>{"nogo", "go"}));
  EXPECT_EQ(info.epoch_conditions, (std::vector<std::int64_t>{0, 1, 1, 0, 1}));
  EXPECT_EQ(info.description["conditions"][1], (json{{"name", "go"}, {"epochs", 3}, {"first_epoch", 1}}));

  StreamInfo ordered = epochs_of(4);
  describe(json{1, 2, 2, 1}, json{2, 1}, ordered);  // MNE's event codes, in a given order
  EXPECT_EQ(ordered.condition_names, (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(ordered.epoch_conditions, (std::vector<std::int64_t>{1, 0, 0, 1}));

  StreamInfo one = epochs_of(3);  // one condition: as without labels
  describe(json{"go", "go", "go"}, std::nullopt, one);
  EXPECT_TRUE(one.condition_names.empty() && one.epoch_conditions.empty());
  EXPECT_EQ(one.description["conditions"].size(), 1u);
}

TEST(ArrayConditions, MalformedListsAreRefusedNamingTheParameter) {
  EXPECT_NE(refusal(json{"a", "b"}, std::nullopt, epochs_of(3), "conditions").find("2 labels for 3 epochs"),
            std::string::npos);
  EXPECT_NE(refusal(json{"a", 1.5, "b"}, std::nullopt, epochs_of(3), "conditions").find("item 1 is 1.5"),
            std::string::npos);
  EXPECT_NE(refusal(json{"a", "b", "c"}, json{"a", "b"}, epochs_of(3), "conditions").find("\"c\" is not among"),
            std::string::npos);
  EXPECT_NE(refusal(json{"a", "a", "b"}, json{"a", "b", "x"}, epochs_of(3), "condition_names")
                .find("no epoch is in condition \"x\""),
            std::string::npos);
  EXPECT_NE(refusal(json{"a", "a"}, json{"a", "a"}, epochs_of(2), "condition_names").find("named twice"),
            std::string::npos);
  EXPECT_NE(refusal(std::nullopt, json{"a"}, epochs_of(2), "condition_names").find("give conditions= too"),
            std::string::npos);
  StreamInfo continuous;
  continuous.leading_dims = {4};
  continuous.leading_names = {"channels"};
  EXPECT_NE(refusal(json{"a", "b", "a", "b"}, std::nullopt, continuous, "conditions").find("no epochs axis"),
            std::string::npos);
  EXPECT_NE(refusal(json("go"), std::nullopt, epochs_of(1), "conditions").find("give a list"), std::string::npos);
}

}  // namespace
}  // namespace pacflow::stages
