// A dataset's recordings matched by channel name (channel_alignment.hpp): the order that puts a
// recording's channels in the first's, and every array's channel axis moved by it.
#include "pipelines/channel_alignment.hpp"

#include <gtest/gtest.h>

namespace pacflow {
namespace {

TEST(ChannelAlignment, TheSameNamesInAnotherOrderAreMatchedOthersAreNot) {
  const auto order = [](std::vector<std::string> names, const std::vector<std::string>& first,
                        const char* dim = "channels") {
    stages::ResultArrays r;
    r.facts.channel_names = std::move(names);
    r.arrays.push_back({"pac", {1}, {dim}, "", {0}});
    return channel_order(r, first);
  };
  EXPECT_EQ(order({"Cz", "Fz", "Pz"}, {"Fz", "Pz", "Cz"}), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(order({"Fz", "Cz"}, {"Fz", "Cz"}), (std::vector<std::size_t>{0, 1}));
  EXPECT_FALSE(order({"Fz", "Oz"}, {"Fz", "Cz"}));        // another electrode
  EXPECT_FALSE(order({"Fz", "Cz", "Pz"}, {"Fz", "Cz"}));  // another montage's size
  EXPECT_FALSE(order({}, {}));                            // unnamed: by position
  EXPECT_FALSE(order({"Fz", "Fz"}, {"Fz", "Fz"}));        // a name twice says nothing
  EXPECT_FALSE(order({"Cz", "Fz"}, {"Fz", "Cz"}, "pairs"));  // pairs name channels by index
}

TEST(ChannelAlignment, EveryArrayWithAChannelAxisIsReorderedTheRestCopied) {
  stages::ResultArrays r;
  // [epochs 2][channels 3][cells 2]: value = 100 e + 10 c + cell.
  stages::ResultArray per_epoch{"pac", {2, 3, 2}, {"epochs", "channels", "cells"}, "", {}};
  for (int e = 0; e < 2; ++e)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 2; ++k) per_epoch.values.push_back(static_cast<float>(100 * e + 10 * c + k));
  stages::ResultArray trailing{"z", {3}, {"channels"}, "", {0, 1, 2}};
  stages::ResultArray other{"times", {2}, {"times"}, "", {5, 6}};
  r.arrays = {per_epoch, trailing, other};
  r.facts.channel_names = {"Cz", "Fz", "Pz"};
  const stages::ResultArrays out = reordered_channels(r, {1, 2, 0});  // into Fz, Pz, Cz
  EXPECT_EQ(out.facts.channel_names, (std::vector<std::string>{"Fz", "Pz", "Cz"}));
  EXPECT_EQ(out.arrays[0].values,
            (std::vector<float>{10, 11, 20, 21, 0, 1, 110, 111, 120, 121, 100, 101}));
  EXPECT_EQ(out.arrays[1].values, (std::vector<float>{1, 2, 0}));
  EXPECT_EQ(out.arrays[2].values, (std::vector<float>{5, 6}));
}

}  // namespace
}  // namespace pacflow
