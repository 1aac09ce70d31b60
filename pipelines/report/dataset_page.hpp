#pragma once
// A dataset's report page (sink `report` in a dataset's pipeline): the group result (its tests in
// words and numbers, its figures) and one row per recording linking to that recording's own page,
// beside which it is written. Self-contained as each recording's page is (report_html.hpp).
#include <optional>
#include <string>
#include <vector>

#include "pipelines/group/group_summary.hpp"
#include "pipelines/report/report_html.hpp"

namespace pacflow::report {

struct RecordingRow {
  std::string id;
  std::string page;  // its report page, relative to the dataset's page ("sub-01/report.html")
  std::string note;  // "ran on rank 1, 0.8 s", "from the checkpoint", …
};

struct DatasetPage {
  std::string dataset;  // the table, or the BIDS folder
  std::vector<RecordingRow> recordings;
  std::optional<group::GroupReport> group;  // unset: group=none
  std::vector<ReportFigure> group_figures;
  std::vector<std::string> warnings;
};

std::string dataset_page_html(const DatasetPage& page);

}  // namespace pacflow::report
