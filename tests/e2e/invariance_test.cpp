// The same pipeline gives identical numbers whatever the batch size, in-flight limit, placement and
// ring settings, for every PAC method, surrogate method, channel pairing, segmented input and erpac.
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/io/npy.hpp"
#include "engine/placement/devices.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

// One pipeline to check: its source and stages (each with parameters), bandpass first.
struct Variant {
  std::string name;
  json source;  // {"name": …, "params": {…}}
  std::vector<std::pair<std::string, json>> stages;
};

json small_source(const fs::path& file = testing::data_dir() / "small" / "x.npy") {
  return {{"name", "npy"}, {"params", {{"path", file.string()}, {"fs", 256}}}};
}

std::pair<std::string, json> bandpass() { return {"bandpass", {{"pha", "4:12:3"}, {"amp", "50:100:4"}}}; }

// The small fixture reshaped to [2][3][2][512]: two segments per series.
fs::path segmented_input(const fs::path& dir) {
  Shape shape;
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy", &shape);
  const fs::path path = dir / "segmented.npy";
  NpyWriter writer(path, {shape[0], shape[1], 2, shape[2] / 2});
  writer.append(x.data(), static_cast<std::int64_t>(x.size()));
  writer.commit();
  return path;
}

std::vector<Variant> variants(const fs::path& scratch) {
  const json hilbert = json::object();
  return {
      {"tort, timeshift", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", json::object()}, {"surrogates", {{"n", 30}, {"seed", 7}}}}},
      {"mvl, timelag, norm both", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"method", "mvl"}}}, {"surrogates", {{"n", 12}, {"method", "timelag"}, {"norm", "both"}}}}},
      {"ndpac, timeshift, distributions", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"method", "ndpac"}, {"outputs", "distributions,preferred_phase"}}},
        {"surrogates", {{"n", 12}}}}},
      {"plv, timeshift", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"envelope_phase", json::object()}, {"mi", {{"method", "plv"}}},
        {"surrogates", {{"n", 12}}}}},
      {"hr, swap_trials", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"method", "hr"}}}, {"surrogates", {{"n", 6}, {"method", "swap_trials"}}}}},
      {"gc, all pairs, norm subtract", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"method", "gc"}, {"pairs", "all"}}},
        {"surrogates", {{"n", 8}, {"norm", "subtract"}}}}},
      {"tort, listed pairs, swap_trials", small_source(),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"pairs", {{0, 1}, {2, 0}}}}},
        {"surrogates", {{"n", 6}, {"method", "swap_trials"}, {"norm", "divide"}}}}},
      {"segments, pairs", small_source(segmented_input(scratch)),
       {bandpass(), {"hilbert", hilbert}, {"mi", {{"pairs", {{1, 0}}}}}, {"surrogates", {{"n", 6}}}}},
      {"erpac", {{"name", "synthetic"}, {"params", {{"epochs", 5}, {"channels", 2}, {"n_times", 512}, {"fs", 256}}}},
       {bandpass(), {"hilbert", hilbert}, {"erpac", json::object()}, {"mi", {{"method", "mvl"}}},
        {"surrogates", {{"n", 6}}}}},
  };
}

// `on[i % on.size()]` places stage i (none when empty or "").
Pipeline build(const Variant& v, const fs::path& out, const std::vector<std::string>& on = {}) {
  Pipeline p(stages::builtin_registry());
  p.source(v.source["name"].get<std::string>(), v.source["params"]);
  for (std::size_t i = 0; i < v.stages.size(); ++i) {
    json params = v.stages[i].second;
    if (!on.empty() && !on[i % on.size()].empty()) params["on"] = on[i % on.size()];
    p.stage(v.stages[i].first, params);
  }
  p.sink("npy", {{"dir", out.string()}});
  return p;
}

// Every .npy of `reference` is in `out` with the same shape and bits (NaN where it has NaN).
void expect_same_outputs(const fs::path& reference, const fs::path& out, const std::string& what) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(reference)) {
    if (entry.path().extension() != ".npy") continue;
    ++files;
    const Tensor a = read_npy(entry.path());
    const Tensor b = read_npy(out / entry.path().filename());
    ASSERT_EQ(a.shape(), b.shape()) << entry.path().filename() << ", " << what;
    ASSERT_EQ(a.dtype(), b.dtype()) << entry.path().filename() << ", " << what;
    const auto same = [&](const auto va, const auto vb) {
      for (std::size_t i = 0; i < va.size(); ++i) {
        if (std::isnan(va[i])) {
          ASSERT_TRUE(std::isnan(vb[i])) << entry.path().filename() << ", " << what << ", cell " << i;
          continue;
        }
        ASSERT_EQ(va[i], vb[i]) << entry.path().filename() << ", " << what << ", cell " << i;
      }
    };
    if (a.dtype() == DType::Float64)  // a coordinate (erpac_times)
      same(a.values<double>(), b.values<double>());
    else
      same(a.values<float>(), b.values<float>());
  }
  ASSERT_GE(files, 1) << what;
}

class Invariance : public ::testing::TestWithParam<std::size_t> {
 protected:
  void SetUp() override {
    variant_ = variants(scratch_.path()).at(GetParam());
    build(variant_, scratch_ / "reference").run({60, 1, {}});
  }
  fs::path reference() const { return scratch_ / "reference"; }
  std::string what(const std::string& how) const { return variant_.name + ", " + how; }

  testing::ScratchDir scratch_{"invariance"};
  Variant variant_;
};

TEST_P(Invariance, ResultsAreIdenticalForAnyBatchSizeAndInFlightLimit) {
  for (std::int64_t batch : {1, 2, 4, 5}) {
    for (int in_flight : {1, 3}) {
      const auto out = scratch_ / fmt::format("b{}_f{}", batch, in_flight);
      build(variant_, out).run({batch, in_flight, {}});
      expect_same_outputs(reference(), out, what(fmt::format("batch {} in flight {}", batch, in_flight)));
    }
  }
}

// The same numbers on every placement: each stage pinned to alternating CPU devices (pipeline
// parallelism through rings), the last stage replicated, everything on one device, and every
// stage replicated through the device pool.
TEST_P(Invariance, ResultsAreIdenticalOnEveryPlacement) {
  const int last = cpu_device_count() - 1;
  const std::string a = "cpu:0", b = "cpu:" + std::to_string(last);
  std::vector<std::string> replicated_last(variant_.stages.size(), "");
  replicated_last.back() = "cpu:*";
  const std::vector<std::pair<std::string, std::vector<std::string>>> placements = {
      {"pinned", {a, b}},
      {"last stage replicated", replicated_last},
      {"all on one device", {a}},
  };
  int i = 0;
  for (const auto& [how, on] : placements) {
    for (std::int64_t batch : {1, 3}) {
      const auto out = scratch_ / fmt::format("p{}", i++);
      build(variant_, out, on).run({batch, 4, {}});
      expect_same_outputs(reference(), out, what(fmt::format("{}, batch {}", how, batch)));
    }
  }
  const auto pooled = scratch_ / "pooled";
  build(variant_, pooled).devices("cpu:*").run({1, 4, {}});
  expect_same_outputs(reference(), pooled, what("device pool cpu:*"));
}

// Rings re-cut batches (to whole groups where a stage needs them) and bound them; neither may
// change a number.
TEST_P(Invariance, ResultsAreIdenticalForAnyRingCapacityAndEdgeBatchSize) {
  const int last = cpu_device_count() - 1;
  const std::vector<std::string> on = {"cpu:0", "cpu:" + std::to_string(last)};
  int i = 0;
  for (const auto& [ring, edge_batch] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{3, 7}}) {
    Pipeline p = build(variant_, scratch_ / ("r" + std::to_string(i)), on);
    for (std::size_t s = 1; s < variant_.stages.size(); ++s) {
      p.set(variant_.stages[s].first, "ring", ring);
      p.set(variant_.stages[s].first, "batch", edge_batch + static_cast<int>(s % 2));
    }
    const json report = p.run({2, 3, {}}).to_json();
    for (const auto& r : report["run"]["rings"]) EXPECT_LE(r["slots_high_water"].get<int>(), r["capacity"].get<int>()) << r;
    expect_same_outputs(reference(), scratch_ / ("r" + std::to_string(i++)),
                        what(fmt::format("ring {}, edge batch {}", ring, edge_batch)));
  }
}

std::string variant_name(const ::testing::TestParamInfo<std::size_t>& param) {
  static const char* const names[] = {"TortTimeshift", "MvlTimelagNormBoth", "NdpacDistributions",
                                      "PlvTimeshift",  "HrSwapTrials",       "GcAllPairs",
                                      "TortListedPairsSwapTrials", "SegmentsPairs", "Erpac"};
  return names[param.param];
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, Invariance, ::testing::Range<std::size_t>(0, 9), variant_name);

// erpac, mi and surrogates read only what hilbert wrote: by default they run as parallel branches of
// each batch, so every Invariance case of this variant compares those branches (the reference)
// with the same stages run one after another (pinned to alternating devices, or cut by rings).
TEST(Branches, ErpacMiAndSurrogatesRunAsBranchesOfEachBatch) {
  const testing::ScratchDir scratch("branches");
  const json plan = build(variants(scratch.path()).at(8), scratch / "out").validate().to_json();
  EXPECT_EQ(plan["branches"], json::parse(R"([["erpac", "mi", "surrogates"]])")) << plan["branches"];
  // A ring in front of mi starts a new segment: erpac stays alone, mi and surrogates run side by side.
  const json cut = build(variants(scratch.path()).at(8), scratch / "out", {"cpu:0"}).set("mi", "ring", 2).validate().to_json();
  EXPECT_EQ(cut["branches"], json::parse(R"([["mi", "surrogates"]])")) << cut["branches"];
}

TEST(InvarianceSynthetic, SyntheticSourceGivesIdenticalDataForAnyBatching) {
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

// A segmented input [E][C][S][T] gives PAC per segment: each segment's result is the PAC of that
// segment alone, computed from a [E][C][T/S] file of just those samples.
TEST(Segments, EachSegmentsPacIsThePacOfThatSegmentAlone) {
  const testing::ScratchDir dir("segments");
  Shape shape;
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy", &shape);
  const fs::path whole = segmented_input(dir.path());
  const auto run = [&](const fs::path& input, const std::string& name) {
    Pipeline p(stages::builtin_registry());
    p.source("npy", {{"path", input.string()}, {"fs", 256}})
        .stage("bandpass", {{"pha", "6:12:2"}, {"amp", "50:100:3"}})
        .stage("hilbert")
        .stage("mi")
        .sink("npy", {{"dir", (dir / name).string()}});
    p.run({2, 2, {}});
    return read_npy(dir / name / "pac.npy");
  };
  const Tensor segmented = run(whole, "whole");
  ASSERT_EQ(segmented.shape(), (Shape{2, 3, 2, 2, 3}));
  const std::int64_t half = shape[2] / 2;
  for (std::int64_t s = 0; s < 2; ++s) {
    std::vector<float> part;
    for (std::int64_t series = 0; series < shape[0] * shape[1]; ++series)
      part.insert(part.end(), x.begin() + series * shape[2] + s * half, x.begin() + series * shape[2] + (s + 1) * half);
    const fs::path file = dir / fmt::format("segment{}.npy", s);
    NpyWriter w(file, {shape[0], shape[1], half});
    w.append(part.data(), static_cast<std::int64_t>(part.size()));
    w.commit();
    const Tensor alone = run(file, fmt::format("alone{}", s));
    for (std::int64_t series = 0; series < shape[0] * shape[1]; ++series)
      for (std::int64_t cell = 0; cell < 6; ++cell)
        ASSERT_EQ(segmented.values<float>()[static_cast<std::size_t>((series * 2 + s) * 6 + cell)],
                  alone.values<float>()[static_cast<std::size_t>(series * 6 + cell)])
            << "segment " << s << " series " << series << " cell " << cell;
  }
}

}  // namespace
}  // namespace pacflow
