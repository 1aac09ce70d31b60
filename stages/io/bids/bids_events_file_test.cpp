// The recording sources' events_file= (a BIDS events.tsv): its trial_types stand for the file's
// annotations, for events= and for reject_by_annotation, in EDF and BrainVision alike; a bad events
// file is refused naming it and its line.
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/io/brainvision/brainvision_source.hpp"
#include "stages/io/brainvision/brainvision_test_files.hpp"
#include "stages/io/edf/edf_source.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;

constexpr int kRate = 128;
constexpr int kSeconds = 10;

// A plain EDF+ file of two channels, with one annotation that events.tsv does not have.
fs::path write_edf(const fs::path& path) {
  std::vector<EdfSignalSpec> signals(2);
  signals[0].label = "Fz";
  signals[1].label = "Cz";
  for (auto& s : signals) s.sample_rate = kRate;
  EdfWriter writer(path.string(), false, signals);
  for (int r = 0; r < kSeconds; ++r)
    writer.write_record({std::vector<double>(kRate, 1.0), std::vector<double>(kRate, 2.0)});
  writer.annotate(5.0, "go");
  writer.close();
  return path;
}

constexpr const char* kEvents =
    "onset\tduration\ttrial_type\n"
    "2\t0\tgo\n"
    "3\t0\tnogo\n"
    "6\t0\tgo\n"
    "7\t0\tnogo\n"
    "6.5\t0.2\tBAD_blink\n";

StreamInfo open_edf(const fs::path& edf, const fs::path& events, json params = json::object()) {
  params["path"] = edf.string();
  params["events_file"] = events.string();
  return make_element<EdfSource>(params)->open({});
}

TEST(EventsFile, EpochsComeFromTheTrialTypesOfEventsTsvNotTheFilesAnnotations) {
  const testing::ScratchDir dir("events_file_edf");
  const auto edf = write_edf(dir / "sub-01_task-x_eeg.edf");
  const auto events = dir.write("sub-01_task-x_events.tsv", kEvents);
  const StreamInfo s = open_edf(edf, events, {{"events", {"go", "nogo"}}, {"window", "0s:0.5s"}});
  EXPECT_EQ(s.condition_names, (std::vector<std::string>{"go", "nogo"}));
  // go at 2 s and 6 s (not the file's own go at 5 s); nogo at 3 s (7 s overlaps nothing bad, 6 s's
  // window 6..6.5 s touches BAD_blink at 6.5 s only at its end: kept, by MNE's rule).
  EXPECT_EQ(s.description["epoching"]["onsets_s"], (json{2.0, 6.0, 3.0, 7.0}));
  EXPECT_EQ(s.description["events_file"]["path"], events.string());
  EXPECT_EQ(s.description["events_file"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_NE(std::find(s.input_files.begin(), s.input_files.end(), events.string()), s.input_files.end());
}

TEST(EventsFile, ItsBadRowsLeaveOutTheEpochsTheyOverlap) {
  const testing::ScratchDir dir("events_file_bad_rows");
  const auto edf = write_edf(dir / "sub-01_task-x_eeg.edf");
  const auto events = dir.write("sub-01_task-x_events.tsv", kEvents);
  const StreamInfo s = open_edf(edf, events, {{"epoch", "1s"}});
  EXPECT_EQ(s.leading_dims[0], kSeconds - 1);  // 6..7 s overlaps BAD_blink
  EXPECT_EQ(s.description["rejected_epochs"][0]["annotation"], "BAD_blink");
}

TEST(EventsFile, ATypeNotInEventsTsvOrAFileWithoutTrialTypeIsRefusedNamingIt) {
  const testing::ScratchDir dir("events_file_errors");
  const auto edf = write_edf(dir / "sub-01_task-x_eeg.edf");
  const auto events = dir.write("sub-01_task-x_events.tsv", kEvents);
  try {
    open_edf(edf, events, {{"events", "stop"}, {"window", "0s:0.5s"}});
    ADD_FAILURE() << "no error";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "events");
    EXPECT_NE(std::string(e.what()).find(events.string() + ": no event of trial_type \"stop\"; the file has"),
              std::string::npos)
        << e.what();
  }
  const auto untyped = dir.write("untyped_events.tsv", "onset\tduration\n2\t0\n");
  try {
    open_edf(edf, untyped, {{"events", "go"}, {"window", "0s:0.5s"}});
    ADD_FAILURE() << "no error";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "events_file");
    EXPECT_NE(std::string(e.what()).find(untyped.string() + ":1: no trial_type column"), std::string::npos) << e.what();
  }
}

TEST(EventsFile, BrainVisionMarkersGiveWayToEventsTsvToo) {
  const testing::ScratchDir dir("events_file_bv");
  bv_test::Recording r;
  r.channels = {{"Fz", 0.1, "µV"}};
  r.stored = {std::vector<double>(kRate * kSeconds, 10.0)};
  r.markers = {{"Stimulus", "S  1", 4 * kRate + 1, 1}};
  const auto vhdr = bv_test::write_recording(dir.path(), "sub-01_task-x_eeg", r);
  const auto events = dir.write("sub-01_task-x_events.tsv", kEvents);
  const StreamInfo s =
      make_element<BrainVisionSource>(
          {{"path", vhdr.string()}, {"events_file", events.string()}, {"events", "go"}, {"window", "0s:0.5s"}})
          ->open({});
  EXPECT_EQ(s.description["epoching"]["onsets_s"], (json{2.0, 6.0}));
}

}  // namespace
}  // namespace pacflow::stages
