// A BIDS events.tsv read as a recording's annotations: onsets, durations (n/a an instant) and
// trial_type (n/a rows skipped), and one clear error naming the file and line for each bad file.
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/events_tsv.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

std::string events_error_of(const testing::ScratchDir& dir, const std::string& text) {
  const auto path = dir.write("sub-01_task-x_events.tsv", text);
  try {
    read_events_tsv(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EventsTsv, ReadsOnsetsDurationsAndTrialTypesSkippingRowsWithoutAType) {
  const testing::ScratchDir dir("events_tsv");
  const auto path = dir.write("sub-01_task-x_events.tsv",
                              "\xEF\xBB\xBFonset\tduration\ttrial_type\tvalue\r\n"
                              "1.5\t0.5\tgo\t1\r\n"
                              "\n"
                              "2\tn/a\tnogo\tn/a\r\n"
                              "3.25\t0\tn/a\t7\r\n"
                              "4\t1e-1\tBAD_muscle\tn/a\r\n");
  const auto events = read_events_tsv(path);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_DOUBLE_EQ(events[0].onset_s, 1.5);
  EXPECT_DOUBLE_EQ(events[0].duration_s, 0.5);
  EXPECT_EQ(events[0].text, "go");
  EXPECT_DOUBLE_EQ(events[1].duration_s, 0);  // n/a: an instant
  EXPECT_EQ(events[1].text, "nogo");
  EXPECT_EQ(events[2].text, "BAD_muscle");
  EXPECT_DOUBLE_EQ(events[2].duration_s, 0.1);
}

TEST(EventsTsv, BadFilesAreRefusedNamingTheFileAndLine) {
  const testing::ScratchDir dir("events_tsv_bad");
  const std::string file = (dir / "sub-01_task-x_events.tsv").string();
  EXPECT_EQ(events_error_of(dir, "onset\tduration\n1\t0\n"),
            file +
                ":1: no trial_type column (the header names onset, duration); events= selects events by their "
                "trial_type; add the column, or cut fixed windows with epoch=");
  EXPECT_EQ(events_error_of(dir, "duration\ttrial_type\n1\tgo\n").rfind(file + ":1: no onset column", 0), 0u);
  EXPECT_EQ(events_error_of(dir, "onset\tduration\ttrial_type\n1\t0\tgo\nn/a\t0\tgo\n"),
            file + ":3: onset \"n/a\" is not a number of seconds");
  EXPECT_EQ(events_error_of(dir, "onset\tduration\ttrial_type\n1\t-1\tgo\n"),
            file + ":2: duration \"-1\" is not a number of seconds >= 0 (or n/a)");
  EXPECT_EQ(
      events_error_of(dir, "onset\tduration\ttrial_type\n1 0 go\n").rfind(file + ":2: 1 cells where the header names 3", 0),
      0u);
  EXPECT_EQ(events_error_of(dir, ""), file + ": empty; a BIDS events file starts with a header line naming its columns");
  EXPECT_THROW(read_events_tsv(dir / "missing_events.tsv"), MissingFileError);
}

}  // namespace
}  // namespace pacflow::stages
