// Seeded simulations of the trial-level inference (issue 36): datasets with no coupling in the
// designs the sources produce, run through whole pipelines, and the share of families with a
// p-value at or below 0.05 (the family-wise error), which must be the nominal 5 %. CI runs
// PACFLOW_SIMULATION_DATASETS datasets per design (default 40, a minute or two; the measure is
// PACFLOW_SIMULATION_METHOD's, default tort) and checks a
// binomial 99.9 % range around 5 %; docs/methods.md records a run of 500 and its figures against
// [3.5 %, 6.5 %]. Every design is an EDF recording cut into epochs by the edf source:
//   white, pink      8 epochs of 4 s, eight channels of noise (pink: 1/f, Kellet's filter)
//   6 and 4 epochs   white; four epochs have 24 orderings, which the test enumerates exactly
//   overlap          epochs of 4 s every 2 s or 1 s: the test permutes only the epochs that do
//                    not overlap (every second, every fourth)
//   power            two conditions, the second with a steady, unmodulated 70 Hz rhythm: the
//                    contrast of the epochs' z (each against its own surrogates)
//   evoked           a response after every event whose size varies across trials (sd 100 %),
//                    removed by stage evoked before filtering
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <numbers>
#include <random>
#include <string>

#include "engine/api/pipeline.hpp"
#include "pipelines/dataset_run.hpp"
#include "stages/builtin.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/sanitizers.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

constexpr int kSimulationRate = 256, kSimulationChannels = 8, kSimulationEpochSeconds = 4;
constexpr double kAlpha = 0.05;

std::int64_t datasets() {
  const char* given = std::getenv("PACFLOW_SIMULATION_DATASETS");
  return given ? std::max(1L, std::strtol(given, nullptr, 10)) : 40;
}

// The PAC measure tested (the mi stage's method=): PACFLOW_SIMULATION_METHOD, default tort.
std::string method() {
  const char* given = std::getenv("PACFLOW_SIMULATION_METHOD");
  return given ? given : "tort";
}

// Sample i of channel c at time t (seconds): what a design adds to the noise.
using Signal = std::function<double(int c, double t)>;

// Pink (1/f) noise: Paul Kellet's economy filter of white noise, unit scale.
class PinkNoise {
 public:
  double operator()(double white) {
    b0_ = 0.99765 * b0_ + white * 0.0990460;
    b1_ = 0.96300 * b1_ + white * 0.2965164;
    b2_ = 0.57000 * b2_ + white * 1.0526913;
    return (b0_ + b1_ + b2_ + white * 0.1848) / 2;
  }

 private:
  double b0_ = 0, b1_ = 0, b2_ = 0;
};

// `seconds` of noise on eight channels at 256 Hz (plus `added`), annotated every 4 s from 0 s with
// "a" and "b" in turn (the conditions of the power design).
fs::path simulation_recording(const fs::path& path, std::uint64_t seed, int seconds, bool pink, const Signal& added = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> white(0.0, 10.0);
  std::vector<stages::EdfSignalSpec> signals(kSimulationChannels);
  for (int c = 0; c < kSimulationChannels; ++c) signals[static_cast<std::size_t>(c)].label = "Ch" + std::to_string(c + 1);
  std::vector<PinkNoise> filters(kSimulationChannels);
  stages::EdfWriter writer(path.string(), false, signals);
  for (int r = 0; r < seconds; ++r) {
    std::vector<std::vector<double>> record(kSimulationChannels);
    for (int i = 0; i < kSimulationRate; ++i) {
      const double t = r + static_cast<double>(i) / kSimulationRate;
      for (int c = 0; c < kSimulationChannels; ++c) {
        const double noise = white(rng);
        record[static_cast<std::size_t>(c)].push_back((pink ? filters[static_cast<std::size_t>(c)](noise) : noise) +
                                                      (added ? added(c, t) : 0.0));
      }
    }
    writer.write_record(record);
  }
  for (int k = 0; k * kSimulationEpochSeconds < seconds; ++k) writer.annotate(kSimulationEpochSeconds * k, k % 2 == 0 ? "a" : "b", -1);
  writer.close();
  return path;
}

json simulation_run(const fs::path& edf, const json& source, const json& surrogates, const fs::path& out,
         bool remove_evoked = false) {
  Pipeline p(stages::builtin_registry());
  json params = source;
  params["path"] = edf.string();
  p.source("edf", params);
  if (remove_evoked) p.stage("evoked");
  p.stage("bandpass", {{"pha", "4:12:3"}, {"amp", "50:90:3"}});
  p.stage("hilbert");
  p.stage("mi", {{"method", method()}});
  json s = {{"n", 200}, {"min_shift", "0.5s"}};
  s.update(surrogates);
  p.stage("surrogates", s);
  p.sink("npy", {{"dir", out.string()}});
  return p.run().to_json();
}

// Families with a p-value at or below alpha, over the families of one run's p array
// ([groups][cells] flattened, `family` values each).
std::int64_t rejected(const std::vector<float>& p, std::size_t family) {
  std::int64_t count = 0;
  for (std::size_t first = 0; first < p.size(); first += family) {
    bool any = false;
    for (std::size_t i = first; i < first + family; ++i) any = any || p[i] <= kAlpha;
    count += any;
  }
  return count;
}

// The binomial 99.9 % range of rejections among `families` at the nominal level.
void expect_nominal(std::int64_t hits, std::int64_t families, const std::string& design) {
  const double n = static_cast<double>(families), mean = kAlpha * n, sd = std::sqrt(n * kAlpha * (1 - kAlpha));
  ::testing::Test::RecordProperty(design, fmt::format("{}/{} = {:.1f} %", hits, families, 100.0 * static_cast<double>(hits) / n));
  std::printf("%s: family-wise error %lld/%lld = %.1f %%\n", design.c_str(), static_cast<long long>(hits),
              static_cast<long long>(families), 100.0 * static_cast<double>(hits) / n);
  EXPECT_GE(static_cast<double>(hits), mean - 3.3 * sd) << design << ": too few rejections for a 5 % test";
  EXPECT_LE(static_cast<double>(hits), mean + 3.3 * sd) << design << ": too many rejections for a 5 % test";
}

class InferenceSimulation : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(PACFLOW_UNDER_ASAN) || defined(PACFLOW_UNDER_TSAN)
    GTEST_SKIP() << "simulations: the statistics do not depend on a sanitizer, which only makes them slower";
#endif
  }
  const testing::ScratchDir dir_{"inference_simulation"};

  // Per design: `epochs` epochs of 4 s, one family per channel (trial_family=cells), or one per
  // dataset (channels). Returns the share rejected.
  void null_error(const std::string& design, int epochs, bool pink, const std::string& family) {
    std::int64_t hits = 0, families = 0;
    // One family per dataset with every channel's: five times the datasets, for a check that can fail.
    const std::int64_t count = family == "cells" ? datasets() : 5 * datasets();
    for (std::int64_t d = 0; d < count; ++d) {
      const fs::path edf = simulation_recording(dir_ / "x.edf", 1000 + static_cast<std::uint64_t>(d), epochs * kSimulationEpochSeconds, pink);
      simulation_run(edf, {{"epoch", "4s"}}, {{"seed", d}, {"trial_family", family}}, dir_ / "out");
      const auto p = testing::load_floats(dir_ / "out" / "trial_pvalues.npy");
      const std::size_t size = family == "cells" ? p.size() / kSimulationChannels : p.size();
      hits += rejected(p, size);
      families += static_cast<std::int64_t>(p.size() / size);
    }
    expect_nominal(hits, families, design);
  }
  // 4 s epochs every `step` of 32 s recordings, the trial-level test asked for; `said`: the warning.
  void overlap_error(const std::string& design, const std::string& step, std::uint64_t seed, const std::string& said) {
    std::int64_t hits = 0, families = 0;
    for (std::int64_t d = 0; d < datasets(); ++d) {
      const fs::path edf = simulation_recording(dir_ / "x.edf", seed + static_cast<std::uint64_t>(d), 32, false);
      const json report = simulation_run(edf, {{"epoch", "4s"}, {"step", step}},
                              {{"seed", d}, {"trial_family", "cells"}, {"trials", "maxstat"}}, dir_ / "out");
      if (d == 0) {
        EXPECT_NE(report["warnings"].dump().find(said), std::string::npos) << report["warnings"].dump();
      }
      const auto p = testing::load_floats(dir_ / "out" / "trial_pvalues.npy");
      hits += rejected(p, p.size() / kSimulationChannels);
      families += kSimulationChannels;
    }
    expect_nominal(hits, families, design);
  }
};


TEST_F(InferenceSimulation, WhiteNoiseEachChannelsFamily) { null_error("white, 8 epochs, cells", 8, false, "cells"); }
TEST_F(InferenceSimulation, WhiteNoiseEveryChannelTogether) {
  null_error("white, 8 epochs, channels", 8, false, "channels");
}
TEST_F(InferenceSimulation, PinkNoise) { null_error("pink, 8 epochs, cells", 8, true, "cells"); }
TEST_F(InferenceSimulation, SixEpochs) { null_error("white, 6 epochs, cells", 6, false, "cells"); }
TEST_F(InferenceSimulation, FourEpochsEnumeratedExactly) { null_error("white, 4 epochs, cells", 4, false, "cells"); }

// Overlapping epochs of one recording are not exchangeable: permuting them all gave 13-15 % false
// positives at 50 % overlap, 41-43 % at 75 % (issue 36). The test permutes only the epochs that do
// not overlap (every second, every fourth: eight of them here), with a warning saying so.
TEST_F(InferenceSimulation, HalfOverlappingEpochs) {
  overlap_error("50 % overlapping epochs, cells", "2s", 4000, "uses the 8 of 15 epochs that do not overlap");
}

TEST_F(InferenceSimulation, ThreeQuartersOverlappingEpochs) {
  overlap_error("75 % overlapping epochs, cells", "1s", 5000, "uses the 8 of 29 epochs that do not overlap");
}

// Condition b adds a steady 70 Hz rhythm, unmodulated, to every channel: its amplitude has more
// power, so its measure's null level is lower; the contrast of the epochs' z stays at 5 % (a
// difference of raw means was "significant" in every channel).
TEST_F(InferenceSimulation, PowerDifferenceAloneMakesNoContrast) {
  std::int64_t hits = 0, families = 0;
  const Signal steady = [](int, double t) {
    const bool in_b = static_cast<int>(t / kSimulationEpochSeconds) % 2 == 1;
    return in_b ? 20.0 * std::sin(2 * std::numbers::pi * 70 * t) : 0.0;
  };
  for (std::int64_t d = 0; d < datasets(); ++d) {
    const fs::path edf = simulation_recording(dir_ / "x.edf", 3000 + static_cast<std::uint64_t>(d), 64, false, steady);
    simulation_run(edf, {{"events", {"a", "b"}}, {"window", "0s:4s"}}, {{"seed", d}, {"trial_family", "cells"}}, dir_ / "out");
    const auto p = testing::load_floats(dir_ / "out" / "contrast_pvalues.npy");
    hits += rejected(p, p.size() / kSimulationChannels);
    families += kSimulationChannels;
  }
  expect_nominal(hits, families, "power-only condition difference, contrast, cells");
}

// Power: channel 0 of two weakly coupled (a 60 Hz rhythm modulated by the phase of a 6 Hz one, too
// weakly for most single epochs), 8 epochs; how often its coupling is found with each family. The
// family of every channel is twice the size, so it costs some power on the coupled channel; both
// are recorded (docs/methods.md).
TEST_F(InferenceSimulation, WeakCouplingIsFoundWithEitherFamily) {
  std::int64_t found[2] = {0, 0};  // channels, cells
  const testing::ScratchDir dir("inference_power");
  for (std::int64_t d = 0; d < datasets(); ++d)
    for (const char* family : {"channels", "cells"}) {
      Pipeline p(stages::builtin_registry());
      p.source("synthetic", {{"fs", 256}, {"epochs", 8}, {"channels", 2}, {"seconds", 4}, {"f_pha", 6}, {"f_amp", 60},
                             {"chi", 0.7}, {"noise", 1.0}, {"pha_bw", 0.5}, {"seed", 100 + d}, {"coupled", {0}}});
      p.stage("bandpass", {{"pha", "4:8:3"}, {"amp", "50:70:3"}});
      p.stage("hilbert");
      p.stage("mi");
      p.stage("surrogates", {{"n", 200}, {"min_shift", "0.5s"}, {"seed", d}, {"trial_family", family}});
      p.sink("npy", {{"dir", (dir / "out").string()}});
      p.run();
      const auto pv = testing::load_floats(dir / "out" / "trial_pvalues.npy");  // [channels][cells]
      found[std::string(family) == "cells"] += std::any_of(pv.begin(), pv.begin() + static_cast<std::ptrdiff_t>(pv.size() / 2),
                                                           [](float x) { return x <= kAlpha; });
    }
  const auto share = [](std::int64_t k) { return 100.0 * static_cast<double>(k) / static_cast<double>(datasets()); };
  std::printf("weak coupling found: family of every channel %.1f %%, of each channel's cells %.1f %%\n",
              share(found[0]), share(found[1]));
  RecordProperty("power_channels", fmt::format("{:.1f} %", share(found[0])));
  RecordProperty("power_cells", fmt::format("{:.1f} %", share(found[1])));
  EXPECT_GE(2 * found[1], datasets()) << "max-T over a channel's cells finds it in half the datasets or more";
  EXPECT_GE(10 * found[0], 6 * found[1]) << "the family of every channel keeps most of that power";
}

// An evoked response 1 s into each epoch: an 8 Hz wave and, at its peak, a 70 Hz burst, whose size
// varies across trials (sd 100 % of its mean). `stage evoked` (mode=regress) removes it before
// filtering, and the trial-level test holds its level. Kept, the response did not raise the error
// of either test here (recorded, not checked): one burst per epoch concentrates the amplitude in
// one phase bin for the time-shifted and permuted pairings as much as for the observed one.
TEST_F(InferenceSimulation, EvokedResponseOfVariableSize) {
  std::int64_t hits[2] = {0, 0}, families = 0, series_hits[2] = {0, 0}, series = 0;
  for (std::int64_t d = 0; d < datasets(); ++d) {
    std::mt19937_64 rng(7000 + static_cast<std::uint64_t>(d));
    std::normal_distribution<double> gain(1.0, 1.0);
    std::vector<double> sizes(8);
    for (auto& g : sizes) g = gain(rng);
    const Signal evoked = [&sizes](int, double t) {
      const auto epoch = static_cast<std::size_t>(t / kSimulationEpochSeconds);
      const double since = t - static_cast<double>(epoch) * kSimulationEpochSeconds - 1.0;
      const auto bump = [since](double sd) { return std::exp(-since * since / (2 * sd * sd)); };
      return sizes[std::min<std::size_t>(epoch, 7)] * (6 * bump(0.15) * std::cos(2 * std::numbers::pi * 8 * since) +
                                                       30 * bump(0.02) * std::cos(2 * std::numbers::pi * 70 * since));
    };
    const fs::path edf = simulation_recording(dir_ / "x.edf", 6000 + static_cast<std::uint64_t>(d), 8 * kSimulationEpochSeconds, false, evoked);
    for (bool removed : {false, true}) {
      simulation_run(edf, {{"epoch", "4s"}}, {{"seed", d}, {"trial_family", "cells"}}, dir_ / "out", removed);
      const auto p = testing::load_floats(dir_ / "out" / "trial_pvalues.npy");
      hits[removed] += rejected(p, p.size() / kSimulationChannels);
      const auto per_series = testing::load_floats(dir_ / "out" / "pvalues_maxstat.npy");  // [8][channels][cells]
      series_hits[removed] += rejected(per_series, per_series.size() / (8 * kSimulationChannels));
    }
    families += kSimulationChannels;
    series += 8 * kSimulationChannels;
  }
  const auto share = [](std::int64_t k, std::int64_t n) { return 100.0 * static_cast<double>(k) / static_cast<double>(n); };
  std::printf("evoked response kept: trial test %.1f %%, per-series time-shift test %.1f %%; removed: per-series %.1f %%\n",
              share(hits[0], families), share(series_hits[0], series), share(series_hits[1], series));
  RecordProperty("kept_trial_fwer", fmt::format("{:.1f} %", share(hits[0], families)));
  RecordProperty("kept_series_fwer", fmt::format("{:.1f} %", share(series_hits[0], series)));
  RecordProperty("removed_series_fwer", fmt::format("{:.1f} %", share(series_hits[1], series)));
  expect_nominal(hits[1], families, "evoked response of variable size, removed by stage evoked, cells");
}

// The group level (issue 38): studies of ten null subjects (each eight epochs of white noise on
// eight channels), run as a dataset; the group test of their trial_z (one-sided, every channel's cells
// one family: max-T, and cluster mass) must reject at 5 % of studies.
TEST_F(InferenceSimulation, GroupTestOfNullSubjects) {
  constexpr int kSubjects = 10;
  std::int64_t max_t_hits = 0, cluster_hits = 0;
  for (std::int64_t study = 0; study < datasets(); ++study) {
    std::string table = "id\tpath\tepoch\n";
    for (int s = 0; s < kSubjects; ++s) {
      const std::string id = fmt::format("sub-{:02}", s);
      simulation_recording(dir_ / (id + ".edf"), 9000 + static_cast<std::uint64_t>(study * kSubjects + s), 8 * kSimulationEpochSeconds,
                false);
      table += fmt::format("{}\t{}.edf\t4s\n", id, id);
    }
    dir_.write("subjects.tsv", table);
    Pipeline p(stages::builtin_registry());
    p.source("manifest", {{"path", (dir_ / "subjects.tsv").string()}, {"group_seed", study}});
    p.stage("bandpass", {{"pha", "4:12:3"}, {"amp", "50:90:3"}});
    p.stage("hilbert");
    p.stage("mi");
    p.stage("surrogates", {{"n", 100}, {"min_shift", "0.5s"}, {"seed", study}});
    p.sink("npy", {{"dir", (dir_ / "out").string()}});
    const json report = run_dataset(p, RunOptions{}).to_json();
    const json& group = report.at("group").at("group");
    ASSERT_TRUE(group.at("exact").get<bool>()) << "2^10 flips, every one";
    max_t_hits += group.at("significant_cells_maxstat").get<std::int64_t>() > 0;
    cluster_hits += group.at("significant_cells_cluster").get<std::int64_t>() > 0;
  }
  expect_nominal(max_t_hits, datasets(), "group: 10 null subjects, one-sided max-T over 8 channels x 9 cells");
  expect_nominal(cluster_hits, datasets(), "group: 10 null subjects, cluster mass over 8 channels x 9 cells");
}

// ERPAC at the group level: studies of ten null subjects (sixteen 1 s epochs of white noise, two
// channels), each subject's erpac_rank_z against 100 epoch permutations, tested across subjects with
// clusters over bands and time (2 channels x 2 x 2 bands x 256 samples, one family).
TEST_F(InferenceSimulation, GroupErpacOfNullSubjectsWithClustersOverTime) {
  constexpr int kSubjects = 10;
  std::int64_t max_t_hits = 0, cluster_hits = 0;
  for (std::int64_t study = 0; study < datasets(); ++study) {
    std::string table = "id\tpath\tepoch\tchannels\n";
    for (int s = 0; s < kSubjects; ++s) {
      const std::string id = fmt::format("sub-{:02}", s);
      simulation_recording(dir_ / (id + ".edf"), 70000 + static_cast<std::uint64_t>(study * kSubjects + s), 16, false);
      table += fmt::format("{}\t{}.edf\t1s\tCh1,Ch2\n", id, id);
    }
    dir_.write("subjects.tsv", table);
    Pipeline p(stages::builtin_registry());
    p.source("manifest", {{"path", (dir_ / "subjects.tsv").string()}, {"group_seed", study}});
    p.stage("bandpass", {{"pha", "6:12:2"}, {"amp", "50:90:2"}});
    p.stage("hilbert");
    p.stage("erpac", {{"n", 100}, {"seed", study}});
    p.sink("npy", {{"dir", (dir_ / "out").string()}});
    const json report = run_dataset(p, RunOptions{}).to_json();
    ASSERT_EQ(report.at("group").at("statistic"), "erpac_rank_z");
    const json& group = report.at("group").at("group");
    max_t_hits += group.at("significant_cells_maxstat").get<std::int64_t>() > 0;
    cluster_hits += group.at("significant_cells_cluster").get<std::int64_t>() > 0;
  }
  expect_nominal(max_t_hits, datasets(), "group erpac: 10 null subjects, one-sided max-T over 2 x 4 cells x 256 times");
  expect_nominal(cluster_hits, datasets(), "group erpac: 10 null subjects, cluster mass over cells and time");
}

}  // namespace
}  // namespace pacflow
