// The same pipeline gives identical numbers whatever the batch size and in-flight limit.
#include <filesystem>
#include <gtest/gtest.h>

#include "engine/npy.hpp"
#include "engine/pipeline.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

Pipeline small_pipeline(const fs::path& out) {
  Pipeline p(stages::builtin_registry());
  p.source("npy", {{"path", (testing::data_dir() / "small" / "x.npy").string()}, {"fs", 256}})
      .stage("bandpass", {{"pha", "4:12:3"}, {"amp", "50:100:4"}})
      .stage("hilbert")
      .stage("mi")
      .stage("surrogates", {{"n", 30}, {"seed", 7}})
      .sink("npy", {{"dir", out.string()}});
  return p;
}

TEST(Invariance, ResultsAreIdenticalForAnyBatchSizeAndInFlightLimit) {
  const testing::ScratchDir dir("invariance");
  const char* outputs[] = {"pac", "pac_z", "surrogate_mean", "surrogate_std", "pvalues", "pvalues_maxstat"};
  small_pipeline(dir / "reference").run({6, 1, {}});
  for (std::int64_t batch : {1, 2, 4, 5}) {
    for (int in_flight : {1, 3, 16}) {
      const auto out = dir / ("b" + std::to_string(batch) + "_f" + std::to_string(in_flight));
      small_pipeline(out).run({batch, in_flight, {}});
      for (const char* name : outputs) {
        const Tensor a = read_npy(dir / "reference" / (std::string(name) + ".npy"));
        const Tensor b = read_npy(out / (std::string(name) + ".npy"));
        ASSERT_EQ(a.shape(), b.shape());
        const auto va = a.values<float>(), vb = b.values<float>();
        for (std::size_t i = 0; i < va.size(); ++i) {
          if (std::isnan(va[i])) {
            EXPECT_TRUE(std::isnan(vb[i]));
            continue;
          }
          ASSERT_EQ(va[i], vb[i]) << name << " batch " << batch << " in flight " << in_flight << " cell " << i;
        }
      }
    }
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
