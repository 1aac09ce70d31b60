// BIDS file names taken apart, stems ordered as people count, and the subjects=/sessions=/runs=
// filters' labels (numbers as a .pipe file reads them, prefixes).
#include "pipelines/bids/bids_names.hpp"

#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "pipelines/bids/bids_filters.hpp"

namespace pacflow::bids {
namespace {

TEST(BidsNames, EntitiesSuffixAndExtensionOfAName) {
  const auto name = parse_bids_name("sub-01_ses-1_task-oddball_acq-hd_run-10_eeg.VHDR");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->entity("sub"), "01");
  EXPECT_EQ(name->entity("ses"), "1");
  EXPECT_EQ(name->entity("task"), "oddball");
  EXPECT_EQ(name->entity("run"), "10");
  EXPECT_FALSE(name->entity("rec"));
  EXPECT_EQ(name->suffix, "eeg");
  EXPECT_EQ(name->extension, ".vhdr");
  EXPECT_EQ(name->stem, "sub-01_ses-1_task-oddball_acq-hd_run-10");
  EXPECT_EQ(parse_bids_name("sub-01_task-x_ieeg.nii.gz")->extension, ".nii.gz");
  EXPECT_EQ(parse_bids_name("sub-01_eeg")->stem, "sub-01");  // no task: the tree leaves it out
  for (const char* not_bids : {"participants.tsv", "task-x_eeg.edf", "sub-01", "sub-01_task_eeg.edf",
                               "sub-01_task-x_eeg-1.edf", "README", "sub-0 1_task-x_eeg.edf"})
    EXPECT_FALSE(parse_bids_name(not_bids)) << not_bids;
}

TEST(BidsNames, StemsAreOrderedAsPeopleCount) {
  EXPECT_TRUE(natural_less("sub-01_task-x_run-2", "sub-01_task-x_run-10"));
  EXPECT_FALSE(natural_less("sub-01_task-x_run-10", "sub-01_task-x_run-2"));
  EXPECT_TRUE(natural_less("sub-2", "sub-10"));
  EXPECT_TRUE(natural_less("sub-01", "sub-01_ses-1"));
  EXPECT_TRUE(natural_less("sub-01_task-a", "sub-01_task-b"));
  EXPECT_FALSE(natural_less("sub-01", "sub-01"));
  EXPECT_NE(natural_less("sub-01", "sub-1"), natural_less("sub-1", "sub-01"));  // one order, always
}

TEST(BidsFilters, LabelsAsGivenNumbersByValueAndPrefixesAllowed) {
  LabelFilter subjects(json{1, "sub-03", "p7"}, "subjects", "sub");
  EXPECT_TRUE(subjects.keeps("01"));
  EXPECT_TRUE(subjects.keeps("1"));
  EXPECT_TRUE(subjects.keeps("03"));
  EXPECT_FALSE(subjects.keeps("3"));  // a label, as written
  EXPECT_FALSE(subjects.keeps("02"));
  EXPECT_FALSE(subjects.keeps(std::nullopt));
  try {
    subjects.check_all_used({"01", "02", "03"});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "subjects");
    EXPECT_EQ(e.bare_message(), "no recording of the task has sub-p7; its recordings have sub-01, sub-02, sub-03");
  }
  LabelFilter all(std::nullopt, "runs", "run");
  EXPECT_TRUE(all.keeps(std::nullopt));
  EXPECT_THROW(LabelFilter(json::array(), "runs", "run"), ParamError);
  EXPECT_THROW(LabelFilter(json{1.5}, "runs", "run"), ParamError);
}

// Files that apply to several recordings need no subject, and may have no entity at all.
TEST(BidsNames, InheritedFilesNeedNoSubject) {
  const auto task = parse_entity_name("task-oddball_events.tsv");
  ASSERT_TRUE(task);
  EXPECT_EQ(task->entities, (std::vector<std::pair<std::string, std::string>>{{"task", "oddball"}}));
  EXPECT_EQ(task->suffix, "events");
  EXPECT_EQ(task->extension, ".tsv");
  EXPECT_FALSE(parse_bids_name("task-oddball_events.tsv")) << "a recording's name starts with sub-";
  const auto bare = parse_entity_name("channels.tsv");
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->entities.empty());
  EXPECT_EQ(bare->suffix, "channels");
  EXPECT_FALSE(parse_entity_name("task_events.tsv")) << "an entity without its label";
  EXPECT_FALSE(parse_entity_name(".tsv"));
}

}  // namespace
}  // namespace pacflow::bids
