// The same pipeline gives identical numbers whatever the batch size, in-flight limit and placement.
#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/devices.hpp"
#include "engine/npy.hpp"
#include "engine/pipeline.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

// Per stage (bandpass, hilbert, mi, surrogates): its `on=` devices, empty for the default.
using Placement = std::array<std::string, 4>;

Pipeline small_pipeline(const fs::path& out, const Placement& on = {}) {
  const auto with_device = [&](json params, std::size_t stage) {
    if (!on[stage].empty()) params["on"] = on[stage];
    return params;
  };
  Pipeline p(stages::builtin_registry());
  p.source("npy", {{"path", (testing::data_dir() / "small" / "x.npy").string()}, {"fs", 256}})
      .stage("bandpass", with_device({{"pha", "4:12:3"}, {"amp", "50:100:4"}}, 0))
      .stage("hilbert", with_device(json::object(), 1))
      .stage("mi", with_device(json::object(), 2))
      .stage("surrogates", with_device({{"n", 30}, {"seed", 7}}, 3))
      .sink("npy", {{"dir", out.string()}});
  return p;
}

// Every output of `out` equals the reference's bit for bit (NaN where the reference has NaN).
void expect_same_outputs(const fs::path& reference, const fs::path& out, const std::string& what) {
  for (const char* name : {"pac", "pac_z", "surrogate_mean", "surrogate_std", "pvalues", "pvalues_maxstat"}) {
    const Tensor a = read_npy(reference / (std::string(name) + ".npy"));
    const Tensor b = read_npy(out / (std::string(name) + ".npy"));
    ASSERT_EQ(a.shape(), b.shape());
    const auto va = a.values<float>(), vb = b.values<float>();
    for (std::size_t i = 0; i < va.size(); ++i) {
      if (std::isnan(va[i])) {
        EXPECT_TRUE(std::isnan(vb[i]));
        continue;
      }
      ASSERT_EQ(va[i], vb[i]) << name << ", " << what << ", cell " << i;
    }
  }
}

TEST(Invariance, ResultsAreIdenticalForAnyBatchSizeAndInFlightLimit) {
  const testing::ScratchDir dir("invariance");
  small_pipeline(dir / "reference").run({6, 1, {}});
  for (std::int64_t batch : {1, 2, 4, 5}) {
    for (int in_flight : {1, 3, 16}) {
      const auto out = dir / ("b" + std::to_string(batch) + "_f" + std::to_string(in_flight));
      small_pipeline(out).run({batch, in_flight, {}});
      expect_same_outputs(dir / "reference", out, "batch " + std::to_string(batch) + " in flight " + std::to_string(in_flight));
    }
  }
}

// The same numbers on every placement: all on the machine, each stage pinned to its own CPU device
// (pipeline parallelism), surrogates replicated, everything replicated through the device pool.
TEST(Invariance, ResultsAreIdenticalOnEveryPlacement) {
  const testing::ScratchDir dir("placement");
  small_pipeline(dir / "reference").run({2, 4, {}});
  const int last = cpu_device_count() - 1;
  const std::string a = "cpu:0", b = "cpu:" + std::to_string(last);
  const std::vector<std::pair<std::string, Placement>> placements = {
      {"pinned", {a, b, a, b}},
      {"surrogates replicated", {"", "", "", "cpu:*"}},
      {"all on one device", {a, a, a, a}},
  };
  int i = 0;
  for (const auto& [what, on] : placements) {
    for (std::int64_t batch : {1, 3}) {
      const auto out = dir / ("p" + std::to_string(i++));
      small_pipeline(out, on).run({batch, 4, {}});
      expect_same_outputs(dir / "reference", out, what + ", batch " + std::to_string(batch));
    }
  }
  const auto pooled = dir / "pooled";
  small_pipeline(pooled).devices("cpu:*").run({1, 4, {}});
  expect_same_outputs(dir / "reference", pooled, "device pool cpu:*");
}

// Rings between devices re-cut batches and bound them; neither may change a number.
TEST(Invariance, ResultsAreIdenticalForAnyRingCapacityAndEdgeBatchSize) {
  const testing::ScratchDir dir("rings");
  small_pipeline(dir / "reference").run({6, 1, {}});
  const int last = cpu_device_count() - 1;
  const std::string a = "cpu:0", b = "cpu:" + std::to_string(last);
  struct Edges {
    int ring;
    int hilbert_batch, surrogates_batch;
    const char* overflow;
  };
  int i = 0;
  for (const Edges& e : {Edges{1, 1, 7, "block"}, Edges{2, 3, 2, "block"}, Edges{5, 7, 3, "block"},
                         Edges{1, 4, 1, "grow"}}) {
    Pipeline p = small_pipeline(dir / ("r" + std::to_string(i)), {a, b, a, b});
    p.set("hilbert", "ring", e.ring).set("hilbert", "batch", e.hilbert_batch).set("hilbert", "overflow", e.overflow);
    p.set("surrogates", "ring", e.ring).set("surrogates", "batch", e.surrogates_batch);
    const json report = p.run({2, 3, {}});
    ASSERT_EQ(report["run"]["rings"].size(), 3u);  // every stage on another device than the one before
    for (const auto& ring : report["run"]["rings"])
      if (ring["overflow"] == "block") {
        EXPECT_LE(ring["slots_high_water"].get<int>(), ring["capacity"].get<int>()) << ring;
      }
    expect_same_outputs(dir / "reference", dir / ("r" + std::to_string(i++)),
                        fmt::format("ring {}, batches {}/{}, overflow {}", e.ring, e.hilbert_batch, e.surrogates_batch,
                                    e.overflow));
  }
}

TEST(Invariance, SyntheticSourceGivesIdenticalDataForAnyBatching) {
  const testing::ScratchDir dir("invariance");
  auto run = [&](std::int64_t batch, const std::string& name) {
    Pipeline p(stages::builtin_registry());
    p.source("synthetic", {{"epochs", 2}, {"channels", 3}, {"n_times", 1024}})
        .stage("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}})
        .stage("hilbert")
        .stage("mi")
        .sink("npy", {{"dir", (dir / name).string()}});
    p.run({batch, 2, {}});
    return read_npy(dir / name / "pac.npy");
  };
  const Tensor a = run(1, "one"), b = run(6, "all");
  ASSERT_EQ(a.shape(), b.shape());
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.size()); ++i) ASSERT_EQ(a.values<float>()[i], b.values<float>()[i]);
}

}  // namespace
}  // namespace pacflow
