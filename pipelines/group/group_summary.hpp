#pragma once
// A dataset's group-level test (issue 38; docs/methods.md, "Group level"): every recording a subject,
// the rank of its mean coupling over epochs among its own epoch permutations, as a normal quantile
// (trial_rank_z, symmetric around 0 without coupling, as sign flips need), the
// subject's value per channel and cell, tested across subjects by sign flips (sign_flips.hpp):
//   coupling  one-sample, one-sided: is coupling above each subject's own null, anywhere (every
//             condition's and channel's cells one family);
//   contrast  with two conditions, paired and two-sided: the difference of the conditions' trial_rank_z
//             (each against its own null, so a power difference alone makes none).
// Written into the stacked file (group_* and group_contrast_* arrays, dims as trial_rank_z's) and the
// dataset's report (`group`).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipelines/group/sign_flips.hpp"

namespace pacflow::group {

// One group array: its values (C order), shape and axis names.
struct GroupArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<std::string> dims;
  std::string doc;
  std::vector<double> values;
};

// One test's account: what it tests, its flips, clusters and counts of significant cells.
struct TestReport {
  std::string prefix;  // its arrays' prefix and its key in the report: "group", "group_contrast"
  std::string test;    // what it tests, in words
  Tail tail = Tail::Greater;
  std::int64_t subjects = 0;
  std::int64_t flips = 0;
  bool exact = false;
  double p_floor = 1;
  double cluster_threshold_t = 0;
  double cluster_p = 0.05;
  std::vector<Cluster> clusters;
  std::int64_t significant_cells_maxstat = 0;  // p <= 0.05
  std::int64_t significant_cells_cluster = 0;
  std::int64_t left_out_cells = 0;
  // The smallest cluster p (1 without clusters).
  double best_cluster_p() const;
};

// The dataset's group-level tests, or why none was made.
struct GroupReport {
  std::optional<std::string> skipped;  // set: no test was made, and why
  Settings settings;
  std::string statistic = "trial_rank_z";  // the subjects' values tested (kGroupStatistics)
  std::vector<TestReport> tests;  // "group", then "group_contrast" with two conditions
};
// As the dataset's report (result.json's `group`) and Python show it.
nlohmann::json to_json(const GroupReport& report);

struct GroupOutcome {
  std::vector<GroupArray> arrays;
  GroupReport report;
  std::vector<std::string> warnings;  // e.g. too few subjects for any p below 0.05
};

// The subjects' values: `values` [subjects][cells] of one array whose axes are `dims` (the subject's
// own, without `recordings`; the last two the phase and amplitude bands) and `shape`.
// `statistic`: their name, in the report's words.
GroupOutcome group_tests(const std::vector<double>& values, std::int64_t subjects, const std::vector<std::size_t>& shape,
                         const std::vector<std::string>& dims, const Settings& settings,
                         const std::string& statistic = "trial_rank_z");

// The statistics a dataset tests across subjects, the first its recordings have: the trial-level
// test's (surrogates) or ERPAC's (erpac n=), each a rank among the subject's own epoch permutations
// as a normal quantile. ERPAC's has a time axis last: its clusters run over time too.
inline constexpr std::array<const char*, 2> kGroupStatistics{"trial_rank_z", "erpac_rank_z"};

}  // namespace pacflow::group
