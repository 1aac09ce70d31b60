// `source bids` as a user meets it: a small BIDS tree the test writes (EDF and BrainVision, runs and
// sessions, channels.tsv with a bad channel, events.tsv with go/nogo trials, participants.tsv) run
// through pipeline_cli as a dataset: the recordings found and named, the bad channel left out, the
// epochs from events.tsv, the stacked file and the group test; the filters; and one clear message
// with exit code 2 for each thing that is wrong.
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>
#include <random>

#include "stages/io/brainvision/brainvision_test_files.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

using nlohmann::json;
using testing::contains;
using testing::CliResult;
using testing::run_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;

constexpr int kBidsRate = 512;
constexpr int kBidsSeconds = 30;

// Channel c's signal (uV): noise, and a 6 Hz phase driving 80 Hz amplitude.
std::vector<std::vector<double>> bids_signals(std::size_t channels, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, 20);
  std::vector<std::vector<double>> x(channels, std::vector<double>(kBidsRate * kBidsSeconds));
  for (auto& channel : x)
    for (std::size_t t = 0; t < channel.size(); ++t) {
      const double s = static_cast<double>(t) / kBidsRate;
      channel[t] = noise(random) + 50 * (1 + std::sin(2 * M_PI * 6 * s)) * std::sin(2 * M_PI * 80 * s);
    }
  return x;
}

// An EDF+ recording, with a "go" annotation of its own that events.tsv does not have.
void bids_write_edf(const fs::path& path, const std::vector<std::string>& labels, unsigned seed) {
  std::vector<stages::EdfSignalSpec> specs(labels.size());
  for (std::size_t c = 0; c < labels.size(); ++c) specs[c].label = labels[c], specs[c].sample_rate = kBidsRate;
  const auto x = bids_signals(labels.size(), seed);
  stages::EdfWriter writer(path.string(), false, specs);
  for (int r = 0; r < kBidsSeconds; ++r) {
    std::vector<std::vector<double>> record;
    for (const auto& channel : x) record.emplace_back(channel.begin() + r * kBidsRate, channel.begin() + (r + 1) * kBidsRate);
    writer.write_record(record);
  }
  writer.annotate(27.0, "go");
  writer.close();
}

void write_brainvision(const fs::path& dir, const std::string& base, const std::vector<std::string>& labels,
                       unsigned seed) {
  stages::bv_test::Recording r;
  r.sampling_interval = "1953.125";  // µs: 512 Hz
  for (const auto& label : labels) r.channels.push_back({label, 0.1, "µV"});
  for (const auto& channel : bids_signals(labels.size(), seed)) {
    r.stored.emplace_back();
    for (const double v : channel) r.stored.back().push_back(std::round(v / 0.1));
  }
  stages::bv_test::write_recording(dir, base, r);
}

// Ten trials, go and nogo in turn, every 2.5 s from 1 s (the first `left_out` not listed); a row
// without a trial type.
std::string events_tsv(int left_out = 0) {
  std::string text = "onset\tduration\ttrial_type\tvalue\n";
  for (int k = left_out; k < 10; ++k)
    text += fmt::format("{}\t0.1\t{}\t{}\n", 1 + 2.5 * k, k % 2 ? "nogo" : "go", k % 2);
  return text + "28\tn/a\tn/a\t9\n";
}

std::string channels_tsv(const std::vector<std::string>& labels, const std::string& bad = "") {
  std::string text = "name\ttype\tunits\tstatus\n";
  for (const auto& l : labels) text += fmt::format("{}\tEEG\tuV\t{}\n", l, l == bad ? "bad" : "good");
  return text;
}

// root/: sub-01 (two runs, EDF), sub-02 (a session, EDF, T7 marked bad), sub-03 (BrainVision); a rest
// recording of sub-01, sidecars; participants.tsv listing sub-09 (no data) and not sub-08 (a folder).
void write_bids(const ScratchDir& dir) {
  const std::vector<std::string> three{"Fz", "Cz", "Pz"}, four{"Fz", "Cz", "T7", "Pz"};
  const fs::path root = dir / "bids";
  for (const auto* folder : {"sub-01/eeg", "sub-02/ses-1/eeg", "sub-03/eeg", "sub-08/eeg"})
    fs::create_directories(root / folder);
  dir.write("bids/dataset_description.json", R"({"Name": "test", "BIDSVersion": "1.8.0"})");
  dir.write("bids/participants.tsv", "participant_id\tage\nsub-01\t30\nsub-02\tn/a\nsub-03\t25\nsub-09\t40\n");
  for (int run = 1; run <= 2; ++run) {
    const std::string base = fmt::format("sub-01/eeg/sub-01_task-gonogo_run-{}", run);
    bids_write_edf(root / (base + "_eeg.edf"), three, static_cast<unsigned>(run));
    dir.write("bids/" + base + "_eeg.json", R"({"SamplingFrequency": 512})");
    dir.write("bids/" + base + "_channels.tsv", channels_tsv(three));
    dir.write("bids/" + base + "_events.tsv", events_tsv());
  }
  bids_write_edf(root / "sub-01/eeg/sub-01_task-rest_eeg.edf", three, 7);
  const std::string ses = "sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo";
  bids_write_edf(root / (ses + "_eeg.edf"), four, 3);
  dir.write("bids/" + ses + "_channels.tsv", channels_tsv(four, "T7"));
  dir.write("bids/" + ses + "_events.tsv", events_tsv());
  write_brainvision(root / "sub-03/eeg", "sub-03_task-gonogo_eeg", three, 4);
  dir.write("bids/sub-03/eeg/sub-03_task-gonogo_channels.tsv", channels_tsv(three));
  dir.write("bids/sub-03/eeg/sub-03_task-gonogo_events.tsv", events_tsv());
}

constexpr const char* kStages =
    "stage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\nstage surrogates n=20 seed=3\n";

void write_pipe(const ScratchDir& dir, const std::string& source_extra, const std::string& name = "bids.pipe") {
  dir.write(name, "source bids root=bids task=gonogo events=[go, nogo] window=0s:2s" + source_extra + "\n" + kStages +
                      "sink npy dir=out\n");
}

json result_of(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// The first dimension of a dataset of the stacked file, or -1 when it has none by that name.
long long first_dim(const fs::path& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  long long n = -1;
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) {
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dget_space(d);
    hsize_t dims[8] = {};
    if (H5Sget_simple_extent_dims(s, dims, nullptr) > 0) n = static_cast<long long>(dims[0]);
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return n;
}

const std::vector<std::string> kIds{"sub-01_task-gonogo_run-1", "sub-01_task-gonogo_run-2", "sub-02_ses-1_task-gonogo",
                                    "sub-03_task-gonogo"};

TEST(Bids, EveryRecordingOfTheTaskRunsNamedByItsFileWithBadChannelsLeftOutAndEpochsFromEventsTsv) {
  const ScratchDir dir("bids_dataset");
  write_bids(dir);
  write_pipe(dir, "");
  const CliResult r = run_cli("run bids.pipe", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& id : kIds) {
    EXPECT_TRUE(contains(r.out, "recording " + id + ":")) << r.out;
    const json result = result_of(dir / "out" / id / "result.json");
    const json& input = result.at("input");
    EXPECT_EQ(input.at("channel_labels"), (json{"Fz", "Cz", "Pz"})) << id;  // sub-02's T7 is bad
    EXPECT_EQ(input.at("conditions")[0].at("name"), "go") << id;
    EXPECT_EQ(input.at("conditions")[1].at("name"), "nogo") << id;
    EXPECT_EQ(input.at("epoching").at("epochs"), 10) << id << ": the file's own go at 27 s is not an epoch";
    EXPECT_EQ(input.at("source"), id == "sub-03_task-gonogo" ? "brainvision" : "edf");
    EXPECT_TRUE(contains(input.at("events_file").at("path").get<std::string>(), id + "_events.tsv"));
  }
  EXPECT_FALSE(fs::exists(dir / "out" / "sub-01_task-rest")) << "another task";
  const fs::path stacked = dir / "out" / "recordings.h5";
  EXPECT_EQ(first_dim(stacked, "/pac"), 4);
  EXPECT_GT(first_dim(stacked, "/group_t"), 0) << "the group test";
  EXPECT_GT(first_dim(stacked, "/group_contrast_t"), 0) << "go against nogo";
  EXPECT_TRUE(contains(r.out, "group test")) << r.out;
  EXPECT_TRUE(contains(r.err, "participants.tsv lists sub-09")) << r.err;
  EXPECT_TRUE(contains(r.err, "sub-08 not listed")) << r.err;
  const CliResult methods = run_cli("methods out/sub-03_task-gonogo", dir.path());
  EXPECT_TRUE(contains(methods.out, "from the BrainVision recording sub-03_task-gonogo_eeg.vhdr")) << methods.out;
  const CliResult checked = run_cli("validate bids.pipe", dir.path());
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_TRUE(
      contains(checked.out, "sub-02_ses-1_task-gonogo (bids/sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo_eeg.edf)"))
      << checked.out;
}

TEST(Bids, SubjectsAndRunsKeepOnlyTheirRecordings) {
  const ScratchDir dir("bids_filters");
  write_bids(dir);
  write_pipe(dir, " subjects=[01, sub-03] stacked=none", "subjects.pipe");
  CliResult r = run_cli("run subjects.pipe -q", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / kIds[0]) && fs::exists(dir / "out" / kIds[1]) &&
              fs::exists(dir / "out" / kIds[3]));
  EXPECT_FALSE(fs::exists(dir / "out" / kIds[2]));
  write_pipe(dir, " runs=2 stacked=none", "runs.pipe");
  r = run_cli("run runs.pipe -q --out only_run_2", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir / "only_run_2")) found.push_back(e.path().filename().string());
  EXPECT_NE(std::find(found.begin(), found.end(), kIds[1]), found.end());
  EXPECT_EQ(std::count_if(found.begin(), found.end(), [](const std::string& f) { return f.starts_with("sub-"); }), 1);
}

TEST(Bids, ACheckpointRunsAgainTheRecordingsWhoseEventsTsvChanged) {
  const ScratchDir dir("bids_checkpoint");
  write_bids(dir);
  write_pipe(dir, "");
  const fs::path data = dir / "bids/sub-03/eeg/sub-03_task-gonogo_eeg.eeg";
  fs::rename(data, dir / "kept.eeg");  // sub-03, the last, fails: the three before it are kept
  CliResult r = run_cli("run bids.pipe -q --checkpoint ck", dir.path());
  ASSERT_NE(r.exit_code, 0) << r.err;
  fs::rename(dir / "kept.eeg", data);
  dir.write("bids/sub-01/eeg/sub-01_task-gonogo_run-1_events.tsv", events_tsv(1));  // its first go trial gone
  r = run_cli("run bids.pipe --checkpoint ck", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 recordings taken from the checkpoint")) << r.out;
  EXPECT_EQ(result_of(dir / "out" / kIds[0] / "result.json").at("input").at("epoching").at("epochs"), 9);
  EXPECT_TRUE(fs::exists(dir / "out" / kIds[1] / (kIds[1] + "_pac.json"))) << "a kept recording keeps its sidecar";
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The results folder is a BIDS derivative dataset: its dataset_description.json, and a sidecar per
// recording naming the raw files it came from; the same bytes from one process as from two shards
// and their merge. The raw dataset itself is never a results folder.
TEST(Bids, ResultsAreABidsDerivativeWithSidecarsNamingTheirSources) {
  const ScratchDir dir("bids_derivative");
  write_bids(dir);
  write_pipe(dir, "");
  ASSERT_EQ(run_cli("run bids.pipe -q", dir.path()).exit_code, 0);
  const json description = result_of(dir / "out" / "dataset_description.json");
  EXPECT_EQ(description.at("DatasetType"), "derivative");
  EXPECT_EQ(description.at("BIDSVersion"), "1.10.0");
  EXPECT_EQ(description.at("Name"), "Phase-amplitude coupling of test");
  EXPECT_EQ(description.at("GeneratedBy")[0].at("Name"), "pacflow");
  EXPECT_FALSE(description.at("GeneratedBy")[0].at("Version").get<std::string>().empty());
  const std::string raw_url = "file://" + fs::weakly_canonical(dir / "bids").generic_string();
  EXPECT_EQ(description.at("SourceDatasets")[0].at("URL"), raw_url);
  EXPECT_EQ(description.at("DatasetLinks").at("raw"), raw_url);
  json stages = json::array();
  for (const auto& s : description.at("PipelineDescription").at("Stages")) stages.push_back(s.at("Name"));
  EXPECT_EQ(stages, (json{"bandpass", "hilbert", "mi", "surrogates"}));

  const json run1 = result_of(dir / "out" / kIds[0] / (kIds[0] + "_pac.json"));
  EXPECT_EQ(run1.at("Sources"), (json{"bids:raw:sub-01/eeg/sub-01_task-gonogo_run-1_eeg.edf",
                                      "bids:raw:sub-01/eeg/sub-01_task-gonogo_run-1_events.tsv",
                                      "bids:raw:sub-01/eeg/sub-01_task-gonogo_run-1_channels.tsv",
                                      "bids:raw:sub-01/eeg/sub-01_task-gonogo_run-1_eeg.json"}));
  EXPECT_EQ(run1.at("SourceMetadata"), (json{{"SamplingFrequency", 512}}));
  EXPECT_EQ(run1.at("Reader").at("Name"), "edf");
  EXPECT_EQ(run1.at("Reader").at("Parameters").at("events"), (json{"go", "nogo"}));
  EXPECT_EQ(run1.at("Stages")[3].at("Parameters").at("n"), 20);
  const json sub03 = result_of(dir / "out" / kIds[3] / (kIds[3] + "_pac.json"));
  EXPECT_EQ(sub03.at("Sources")[0], "bids:raw:sub-03/eeg/sub-03_task-gonogo_eeg.vhdr");
  EXPECT_EQ(sub03.at("Reader").at("Name"), "brainvision");

  // Two shards and their merge write the same bytes.
  for (const char* shard : {"0/2", "1/2"})
    ASSERT_EQ(run_cli(fmt::format("run bids.pipe -q --shard {} --out s{}", shard, shard[0]), dir.path()).exit_code, 0);
  const CliResult merged = run_cli("merge merged s0 s1", dir.path());
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(file_text(dir / "merged" / "dataset_description.json"), file_text(dir / "out" / "dataset_description.json"));
  for (const auto& id : kIds)
    EXPECT_EQ(file_text(dir / "merged" / id / (id + "_pac.json")), file_text(dir / "out" / id / (id + "_pac.json")))
        << id;

  const std::string raw_description = file_text(dir / "bids" / "dataset_description.json");
  dir.write("into_raw.pipe", "source bids root=bids task=gonogo events=[go, nogo] window=0s:2s\n" + std::string(kStages) +
                                 "sink npy dir=bids\n");
  const CliResult refused = run_cli("run into_raw.pipe -q", dir.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(contains(refused.err, "is the BIDS dataset itself")) << refused.err;
  EXPECT_EQ(file_text(dir / "bids" / "dataset_description.json"), raw_description);
  // A symbolic link by a name pacflow writes, into the raw dataset: refused, never followed.
  fs::create_directories(dir / "linked");
  fs::create_symlink("../bids/dataset_description.json", dir / "linked" / "dataset_description.json");
  const std::string participants = file_text(dir / "bids" / "participants.tsv");
  fs::create_directories(dir / "linked_sidecar" / kIds[3]);
  fs::create_symlink("../../bids/participants.tsv", dir / "linked_sidecar" / kIds[3] / (kIds[3] + "_pac.json"));
  for (const char* out : {"linked", "linked_sidecar"}) {
    const CliResult linked = run_cli(fmt::format("run bids.pipe -q --out {}", out), dir.path());
    EXPECT_EQ(linked.exit_code, 2) << out << ": " << linked.err;
    EXPECT_TRUE(contains(linked.err, "leads into the BIDS dataset")) << linked.err;
  }
  EXPECT_EQ(file_text(dir / "bids" / "dataset_description.json"), raw_description);
  EXPECT_EQ(file_text(dir / "bids" / "participants.tsv"), participants);
  // The .pipe file itself where the description or a group figure would go: refused, kept.
  const std::string self = "source bids root=../bids task=gonogo events=[go, nogo] window=0s:2s\n" +
                           std::string(kStages) + "sink npy dir=.\nsink png path=comodulogram.png\n";
  fs::create_directories(dir / "self");
  for (const std::string name : {"dataset_description.json", "group_t.png"}) {
    dir.write("self/" + name, self);
    const CliResult r = run_cli("run self/" + name + " -q", dir.path());
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "would replace the input file")) << r.err;
    EXPECT_EQ(file_text(dir / "self" / name), self);
    fs::remove(dir / "self" / name);
  }
  // The derivatives folder inside the raw dataset, where BIDS keeps derivatives, is a results folder.
  const CliResult inside = run_cli("run bids.pipe -q --out bids/derivatives/pacflow", dir.path());
  ASSERT_EQ(inside.exit_code, 0) << inside.err;
  EXPECT_EQ(result_of(dir / "bids/derivatives/pacflow/dataset_description.json").at("DatasetType"), "derivative");
  EXPECT_TRUE(fs::exists(dir / "bids/derivatives/pacflow" / kIds[0] / (kIds[0] + "_pac.json")));
  EXPECT_EQ(file_text(dir / "bids" / "dataset_description.json"), raw_description);
}

// _events.tsv and _channels.tsv higher in the tree apply to every recording whose entities they
// carry (BIDS' inheritance principle); the deepest one wins; two in one folder are refused.
TEST(Bids, CompanionsHigherInTheTreeApplyByTheInheritancePrinciple) {
  const ScratchDir dir("bids_inheritance");
  write_bids(dir);
  for (int run = 1; run <= 2; ++run) fs::remove(dir / fmt::format("bids/sub-01/eeg/sub-01_task-gonogo_run-{}_events.tsv", run));
  fs::remove(dir / "bids/sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo_events.tsv");
  dir.write("bids/task-gonogo_events.tsv", events_tsv(2));  // 8 trials, for every recording without its own
  fs::rename(dir / "bids/sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo_channels.tsv",
             dir / "bids/sub-02/sub-02_task-gonogo_channels.tsv");  // T7 bad, for every session of sub-02
  write_pipe(dir, "");
  const CliResult r = run_cli("run bids.pipe -q", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& id : kIds) {
    const json input = result_of(dir / "out" / id / "result.json").at("input");
    EXPECT_EQ(input.at("epoching").at("epochs"), id == "sub-03_task-gonogo" ? 10 : 8) << id << ": its own file wins";
    EXPECT_EQ(input.at("channel_labels"), (json{"Fz", "Cz", "Pz"})) << id;
  }
  EXPECT_EQ(result_of(dir / "out" / kIds[2] / (kIds[2] + "_pac.json")).at("Sources"),
            (json{"bids:raw:sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo_eeg.edf", "bids:raw:task-gonogo_events.tsv",
                  "bids:raw:sub-02/sub-02_task-gonogo_channels.tsv"}));

  dir.write("bids/sub-03/eeg/sub-03_events.tsv", events_tsv());  // applies too, beside sub-03's own
  const CliResult refused = run_cli("run bids.pipe -q --out again", dir.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(contains(refused.err, "sub-03_events.tsv and ")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "both apply to recording sub-03_task-gonogo")) << refused.err;
  EXPECT_FALSE(fs::exists(dir / "again"));
}

// _eeg.json sidecars are merged from the root down (a deeper file's keys win), travel into the
// derivative's sidecars, and are checked: a SamplingFrequency other than the file's is said, a
// sidecar that is not a JSON object stops the dataset naming it.
TEST(Bids, EegJsonSidecarsAreInheritedMergedAndChecked) {
  const ScratchDir dir("bids_eeg_json");
  write_bids(dir);
  dir.write("bids/task-gonogo_eeg.json", R"({"PowerLineFrequency": 50, "EEGReference": "Cz", "SamplingFrequency": 512})");
  dir.write("bids/sub-02/sub-02_task-gonogo_eeg.json", R"({"EEGReference": "average"})");
  write_pipe(dir, "");
  const CliResult r = run_cli("run bids.pipe -q", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sub02 = result_of(dir / "out" / kIds[2] / (kIds[2] + "_pac.json"));
  EXPECT_EQ(sub02.at("SourceMetadata"),
            (json{{"PowerLineFrequency", 50}, {"EEGReference", "average"}, {"SamplingFrequency", 512}}));
  EXPECT_EQ(sub02.at("Sources")[3], "bids:raw:task-gonogo_eeg.json");
  EXPECT_EQ(sub02.at("Sources")[4], "bids:raw:sub-02/sub-02_task-gonogo_eeg.json");
  EXPECT_FALSE(contains(r.err, "SamplingFrequency")) << r.err;

  dir.write("bids/sub-03/eeg/sub-03_task-gonogo_eeg.json", R"({"SamplingFrequency": 256})");
  const CliResult mismatch = run_cli("run bids.pipe --out other", dir.path());
  ASSERT_EQ(mismatch.exit_code, 0) << mismatch.err;
  EXPECT_TRUE(contains(mismatch.err, "recording sub-03_task-gonogo: its sidecar's SamplingFrequency is 256 Hz, but "
                                     "the file is read at 512 Hz"))
      << mismatch.err;

  dir.write("bids/sub-03/eeg/sub-03_task-gonogo_eeg.json", "[1, 2]");
  const CliResult refused = run_cli("run bids.pipe -q --out again", dir.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(contains(refused.err, "sub-03_task-gonogo_eeg.json: a BIDS sidecar is one JSON object, not array"))
      << refused.err;
  EXPECT_FALSE(fs::exists(dir / "again"));
}

// The run is refused with exit code 2 and one error line containing `message`; nothing is written.
void expect_refused(const ScratchDir& dir, const std::string& pipe, const std::string& message) {
  const CliResult r = run_cli("run " + pipe + " -q", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, message)) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / kIds[0] / "result.json"));
}

TEST(Bids, WhatIsWrongIsRefusedInOneClearMessageWithExitCode2) {
  const ScratchDir dir("bids_errors");
  write_bids(dir);
  dir.write("missing.pipe", std::string("source bids root=nowhere task=gonogo\n") + kStages + "sink npy dir=out\n");
  expect_refused(dir, "missing.pipe", "nowhere: no such folder");
  dir.write("task.pipe", std::string("source bids root=bids task=stroop\n") + kStages + "sink npy dir=out\n");
  expect_refused(dir, "task.pipe", "no eeg recording of task stroop (");
  expect_refused(dir, "task.pipe", "its eeg tasks: gonogo, rest");
  write_pipe(dir, " subjects=[05]", "sub05.pipe");
  // 05 is the number 5 in a .pipe file: it matches a label of that value (05, 5).
  expect_refused(dir, "sub05.pipe",
                 "sub05.pipe:1:66: source \"bids\", parameter \"subjects\": no recording of the task "
                 "has sub-5; its recordings have sub-01, sub-02, sub-03");
  write_pipe(dir, " channels=[Fz, T7]", "bad_channel.pipe");
  expect_refused(dir, "bad_channel.pipe",
                 "recording sub-02_ses-1_task-gonogo: channels= selects T7, which "
                 "bids/sub-02/ses-1/eeg/sub-02_ses-1_task-gonogo_channels.tsv marks bad");
  write_pipe(dir, "");
  fs::create_directories(dir / "bids/sub-04/eeg");
  dir.write("bids/sub-04/eeg/sub-04_task-gonogo_eeg.set", "EEGLAB");
  expect_refused(dir, "bids.pipe", "sub-04_task-gonogo_eeg.set: EEGLAB .set files are not read");
  fs::remove_all(dir / "bids/sub-04");
  write_pipe(dir, " datatype=ieeg", "ieeg.pipe");
  expect_refused(dir, "ieeg.pipe", "bids: no ieeg recording of task gonogo (sub-*/[ses-*/]ieeg/");
  fs::rename(dir / "bids/sub-03/eeg/sub-03_task-gonogo_events.tsv", dir / "events.tsv");
  expect_refused(dir, "bids.pipe",
                 "recording sub-03_task-gonogo: events= takes its epochs from "
                 "bids/sub-03/eeg/sub-03_task-gonogo_events.tsv, which is missing");
  dir.write("bids/sub-03/eeg/sub-03_task-gonogo_events.tsv", "onset\tduration\n1\t0\n");
  expect_refused(dir, "bids.pipe", "bids/sub-03/eeg/sub-03_task-gonogo_events.tsv:1: no trial_type column");
}

}  // namespace
}  // namespace pacflow
