// The group tests' figures: one per test present, named after it, the cells of significant clusters
// outlined, the same bytes every time.
#include <gtest/gtest.h>

#include "pipelines/group/group_figure.hpp"

namespace pacflow::group {
namespace {

// t over [conditions 2][channels 3][2 phase][2 amplitude] bands, cluster p 1 except `significant`.
GroupOutcome outcome(std::size_t significant = 24) {
  GroupOutcome o;
  std::vector<double> t(24), p(24, 1.0), contrast(12);
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = static_cast<double>(k % 7) - 3;
  for (std::size_t k = 0; k < contrast.size(); ++k) contrast[k] = static_cast<double>(k) / 4;
  if (significant < p.size()) p[significant] = 0.01;
  const std::vector<std::string> dims{"conditions", "channels", "phase_bands", "amplitude_bands"};
  o.arrays.push_back({"group_t", {2, 3, 2, 2}, dims, "", t});
  o.arrays.push_back({"group_cluster_pvalues", {2, 3, 2, 2}, dims, "", p});
  o.arrays.push_back({"group_contrast_t", {3, 2, 2}, {dims.begin() + 1, dims.end()}, "", contrast});
  return o;
}

const std::vector<plot::FigureFormat> kPng{plot::FigureFormat::kPng};
const FigureAxes kAxes{{4, 8}, {60, 80}, {"Fz", "Cz", "Pz"}, {"go", "nogo"}, {}};

TEST(GroupFigure, OneFigurePerTestWithSignificantClustersOutlinedAndTheSameBytesEveryTime) {
  const std::vector<Figure> figures = group_figures(outcome(5), kAxes, 12, 0.05, "out", kPng);
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].file, std::filesystem::path("out/group_t.png"));
  EXPECT_EQ(figures[1].file, std::filesystem::path("out/group_contrast_t.png"));
  for (const Figure& f : figures) EXPECT_EQ(f.bytes.substr(0, 8), "\x89PNG\r\n\x1a\n") << f.file;
  // (Compared as bools: a failure would print kilobytes of PNG.)
  EXPECT_TRUE(group_figures(outcome(5), kAxes, 12, 0.05, "out", kPng)[0].bytes == figures[0].bytes);
  EXPECT_FALSE(group_figures(outcome(), kAxes, 12, 0.05, "out", kPng)[0].bytes == figures[0].bytes)
      << "cell 5's cluster (p 0.01) is outlined";
  EXPECT_TRUE(group_figures(outcome(5), kAxes, 12, 0.005, "out", kPng)[0].bytes ==
              group_figures(outcome(), kAxes, 12, 0.005, "out", kPng)[0].bytes)
      << "not at alpha 0.005";
}

// Every format the png sink names, each the same bytes every time (ranks write them apart).
TEST(GroupFigure, EachFormatAskedForTheSameBytesEveryTime) {
  const std::vector<plot::FigureFormat> all{plot::FigureFormat::kPng, plot::FigureFormat::kSvg,
                                            plot::FigureFormat::kPdf};
  const std::vector<Figure> figures = group_figures(outcome(5), kAxes, 12, 0.05, "out", all);
  ASSERT_EQ(figures.size(), 6u);
  EXPECT_EQ(figures[1].file, std::filesystem::path("out/group_t.svg"));
  EXPECT_EQ(figures[5].file, std::filesystem::path("out/group_contrast_t.pdf"));
  EXPECT_NE(figures[1].bytes.find("<svg"), std::string::npos);
  EXPECT_EQ(figures[2].bytes.substr(0, 5), "%PDF-");
  const std::vector<Figure> again = group_figures(outcome(5), kAxes, 12, 0.05, "out", all);
  for (std::size_t k = 0; k < figures.size(); ++k) EXPECT_TRUE(again[k].bytes == figures[k].bytes) << figures[k].file;
  EXPECT_EQ(group_figure_names(all).size(), 6u);
}

TEST(GroupFigure, NoTestNoFigure) {
  EXPECT_TRUE(group_figures(GroupOutcome{}, kAxes, 12, 0.05, "out", kPng).empty());
}

}  // namespace
}  // namespace pacflow::group
