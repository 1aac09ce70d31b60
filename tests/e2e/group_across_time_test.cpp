// The group test of event-related PAC (issue 38): a dataset whose recordings run erpac with n=
// epoch permutations is tested across subjects on their erpac_rank_z, with clusters that join
// adjacent time samples; a subject whose montage lists the same channels in another order is matched
// by name, and one with other channels gets no group test, with the reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "pipelines/dataset_run.hpp"
#include "stages/builtin.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

constexpr int kGroupRate = 256, kGroupEpochs = 16, kEpochSeconds = 2, kSubjects = 6;

// kEpochs epochs of 2 s, each opened by a "stim" annotation: on every channel a 6 Hz rhythm whose
// phase differs from epoch to epoch and noise; on Cz, a 60 Hz amplitude that follows the rhythm's
// phase from 0.75 s to 1.25 s of each epoch (so across epochs, phase and amplitude correlate there).
void write_subject(const fs::path& path, std::uint64_t seed, const std::vector<std::string>& labels) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 3.0);
  std::uniform_real_distribution<double> offset(0.0, 2 * std::numbers::pi);
  std::vector<stages::EdfSignalSpec> signals(labels.size());
  for (std::size_t c = 0; c < labels.size(); ++c) signals[c] = {labels[c], kGroupRate};
  stages::EdfWriter writer(path.string(), false, signals);
  for (int e = 0; e < kGroupEpochs; ++e) {
    const double theta = offset(rng);
    for (int r = 0; r < kEpochSeconds; ++r) {
      std::vector<std::vector<double>> record(labels.size());
      for (int i = 0; i < kGroupRate; ++i) {
        const double t = r + static_cast<double>(i) / kGroupRate;  // within the epoch
        const double phase = 2 * std::numbers::pi * 6 * t + theta;
        const bool window = t >= 0.75 && t < 1.25;
        for (std::size_t c = 0; c < labels.size(); ++c) {
          const double amplitude = labels[c] == "Cz" && window ? 1 + 0.9 * std::cos(phase) : 1.0;
          record[c].push_back(20 * std::sin(phase) + 8 * amplitude * std::sin(2 * std::numbers::pi * 60 * t) +
                              noise(rng));
        }
      }
      writer.write_record(record);
    }
    writer.annotate(e * kEpochSeconds, "stim", -1);
  }
  writer.close();
}

json run_study(const testing::ScratchDir& dir, const std::vector<std::vector<std::string>>& montages) {
  std::string table = "id\tpath\tevents\twindow\n";
  for (int s = 0; s < kSubjects; ++s) {
    const std::string id = fmt::format("sub-{:02}", s + 1);
    write_subject(dir / (id + ".edf"), 500 + static_cast<std::uint64_t>(s), montages[static_cast<std::size_t>(s)]);
    table += fmt::format("{}\t{}.edf\tstim\t0s:2s\n", id, id);
  }
  dir.write("subjects.tsv", table);
  Pipeline p(stages::builtin_registry());
  p.source("manifest", {{"path", (dir / "subjects.tsv").string()}});
  p.stage("bandpass", {{"pha", json::parse("[[5,7]]")}, {"amp", json::parse("[[50,70]]")}});
  p.stage("hilbert");
  p.stage("erpac", {{"n", 99}, {"seed", 3}});
  p.sink("npy", {{"dir", (dir / "out").string()}});
  p.sink("png", {{"path", (dir / "out" / "pac.png").string()}});
  return run_dataset(p, RunOptions{}).to_json();
}

TEST(GroupAcrossTime, ErpacSubjectsAreTestedWithClustersOverTimeChannelsMatchedByName) {
  const testing::ScratchDir dir("group_across_time");
  std::vector<std::vector<std::string>> montages(kSubjects, {"Fz", "Cz"});
  montages[2] = {"Cz", "Fz"};  // the same electrodes, listed the other way round
  const json report = run_study(dir, montages);
  EXPECT_EQ(report["warnings"].dump().find("are not"), std::string::npos) << report["warnings"].dump();
  const json& group = report.at("group");
  EXPECT_EQ(group.at("statistic"), "erpac_rank_z");
  const json& test = group.at("group");
  ASSERT_TRUE(test.at("exact").get<bool>());
  // The coupled window is one cluster on Cz (map 1: the first recording's order), spanning time
  // samples, at the floor of 2^6 flips; Fz has none below 0.05.
  bool found = false;
  for (const json& c : test.at("clusters")) {
    if (c.at("p").get<double>() > 0.05) {
      continue;
    }
    EXPECT_EQ(c.at("map"), 1) << c.dump();
    EXPECT_GE(c.at("cells").get<std::int64_t>(), 10) << "a cluster over time: " << c.dump();
    EXPECT_LE(c.at("p").get<double>(), 1.0 / 64 + 1e-12);
    found = true;
  }
  EXPECT_TRUE(found) << test.dump();
  // Drawn as erpac.png is: a panel per channel and phase band, time on x.
  EXPECT_GT(fs::file_size(dir / "out" / "group_t.png"), 1000u);
}

TEST(GroupAcrossTime, AnotherMontageGetsNoGroupTestAndSaysWhy) {
  const testing::ScratchDir dir("group_other_montage");
  std::vector<std::vector<std::string>> montages(kSubjects, {"Fz", "Cz"});
  montages[4] = {"Oz", "Cz"};
  const json report = run_study(dir, montages);
  const std::string skipped = report.at("group").at("skipped").get<std::string>();
  EXPECT_NE(skipped.find("recording sub-05's channels are not sub-01's by name"), std::string::npos) << skipped;
  EXPECT_NE(report["warnings"].dump().find("holds them by position"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out" / "group_t.png"));
}

}  // namespace
}  // namespace pacflow
