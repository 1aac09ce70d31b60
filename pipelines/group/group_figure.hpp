#pragma once
// The group tests drawn (issue 38), as the png sink draws a recording: for each test (group_t,
// coupling above each subject's own null; group_contrast_t, the first condition against the second)
// a grid of comodulograms of t, one panel per channel (and condition), with the cells of the clusters
// whose p is under alpha outlined. ERPAC's (erpac_rank_z, a time axis last) is drawn as the png sink
// draws erpac: a panel per channel and phase band, time on x, amplitude frequency on y. Written beside the dataset's figure when the pipeline has a png
// sink; the same bytes whichever process writes them.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "pipelines/group/group_summary.hpp"
#include "stages/io/png/canvas.hpp"

namespace pacflow::group {

// What the panels and axes are labelled with: the stacked file's facts.
struct FigureAxes {
  std::vector<double> pha_centres_hz, amp_centres_hz;
  std::vector<std::string> channel_names, condition_names;
  std::vector<double> times_s;  // ERPAC's time of each sample (erpac_times), for a statistic with a times axis
};

struct Figure {
  std::filesystem::path file;  // folder / "group_t.png", folder / "group_contrast_t.svg", …
  std::string bytes;           // the file's bytes, in the format its extension names
};

// The names of the figures group_figures may write in `formats` ("group_t.png", "group_contrast_t.png").
std::vector<std::string> group_figure_names(const std::vector<plot::FigureFormat>& formats);

// Each test's figure in every one of `formats` (the png sink's formats=).
std::vector<Figure> group_figures(const GroupOutcome& outcome, const FigureAxes& axes, std::int64_t subjects,
                                  double alpha, const std::filesystem::path& folder,
                                  const std::vector<plot::FigureFormat>& formats);

}  // namespace pacflow::group
