#include "pipelines/group/group_summary.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace pacflow::group {

namespace {

constexpr double kAlpha = 0.05;

std::int64_t product(const std::vector<std::size_t>& shape, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= static_cast<std::int64_t>(shape[i]);
  return p;
}

std::int64_t significant(const std::vector<double>& p) {
  std::int64_t n = 0;
  for (double v : p) n += v <= kAlpha;
  return n;
}

// One test's arrays, named `prefix`_…, and its report.
void add_test(GroupOutcome& out, const std::string& prefix, const std::string& what, const Result& r,
              const std::vector<std::size_t>& shape, const std::vector<std::string>& dims, const Settings& s) {
  const auto add = [&](const std::string& name, const std::string& doc, std::vector<double> values) {
    out.arrays.push_back({prefix + name, shape, dims, doc, std::move(values)});
  };
  add("_t", "t of the subjects' values (mean / (sd / sqrt(subjects)))", r.t);
  add("_dz", "Cohen's d_z: mean / sd of the subjects' values", r.dz);
  add("_dz_low", fmt::format("d_z's {:g} % confidence interval, low end (noncentral t)", 100 * s.confidence), r.dz_low);
  add("_dz_high", fmt::format("d_z's {:g} % confidence interval, high end (noncentral t)", 100 * s.confidence),
      r.dz_high);
  add("_pvalues", "max-T over the family's cells, against sign flips of whole subjects", r.p_maxt);
  add("_cluster_pvalues", "p of the cell's cluster (cluster mass against sign flips); 1 outside clusters",
      r.p_cluster);
  std::vector<double> ids(r.cluster_of.begin(), r.cluster_of.end());
  add("_clusters", "the cell's cluster (an index into the report's clusters), -1 outside clusters", std::move(ids));
  out.report.tests.push_back({prefix, what, s.tail, r.subjects, r.flips, r.exact, r.p_floor, r.threshold, s.cluster_p,
                              r.clusters, significant(r.p_maxt), significant(r.p_cluster), r.left_out_cells});
  if (r.p_floor > kAlpha) {
    std::int64_t enough = r.subjects;  // the fewest subjects whose flips reach alpha
    while ((s.tail == Tail::TwoSided ? 2.0 : 1.0) / std::ldexp(1.0, static_cast<int>(enough)) > kAlpha) ++enough;
    out.warnings.push_back(fmt::format(
        "group: {} subjects have {} sign flips, so no {} p-value is below {:.3g}; {} subjects or more can reach {:g}",
        r.subjects, r.flips, prefix, r.p_floor, enough, kAlpha));
  }
  if (r.left_out_cells > 0)
    out.warnings.push_back(fmt::format("group: {} of {} cells left out of {}: a subject has no value there (NaN)",
                                       r.left_out_cells, r.t.size(), prefix));
}

}  // namespace

double TestReport::best_cluster_p() const {
  double best = 1;
  for (const Cluster& c : clusters) best = std::min(best, c.p);
  return best;
}

nlohmann::json to_json(const GroupReport& report) {
  if (report.skipped) return {{"skipped", *report.skipped}};
  const Settings& s = report.settings;
  nlohmann::json out = {{"statistic", report.statistic},
                        {"settings", {{"group_n", s.flips}, {"group_seed", s.seed}, {"group_cluster_p", s.cluster_p}}}};
  for (const TestReport& t : report.tests) {
    nlohmann::json clusters = nlohmann::json::array();
    for (const Cluster& c : t.clusters) clusters.push_back({{"map", c.map}, {"cells", c.cells}, {"mass", c.mass}, {"p", c.p}});
    out[t.prefix] = {{"test", t.test},
                     {"tail", t.tail == Tail::Greater ? "greater" : "two-sided"},
                     {"subjects", t.subjects},
                     {"flips", t.flips},
                     {"exact", t.exact},
                     {"p_floor", t.p_floor},
                     {"cluster_threshold_t", t.cluster_threshold_t},
                     {"cluster_p", t.cluster_p},
                     {"clusters", std::move(clusters)},
                     {"significant_cells_maxstat", t.significant_cells_maxstat},
                     {"significant_cells_cluster", t.significant_cells_cluster},
                     {"left_out_cells", t.left_out_cells}};
  }
  return out;
}

GroupOutcome group_tests(const std::vector<double>& values, std::int64_t subjects, const std::vector<std::size_t>& shape,
                         const std::vector<std::string>& dims, const Settings& settings, const std::string& statistic) {
  // The cells of a map: phase x amplitude bands, and ERPAC's time samples after them.
  const std::size_t cell_axes = !dims.empty() && dims.back() == "times" ? 3 : 2;
  if (shape.size() < cell_axes || dims.size() != shape.size())
    throw std::invalid_argument("group: the statistic needs phase and amplitude band axes");
  GroupOutcome out;
  out.report.settings = settings;
  out.report.statistic = statistic;
  const std::size_t axes = shape.size(), first_cell_axis = axes - cell_axes;
  const Layout all{product(shape, 0, first_cell_axis), static_cast<std::int64_t>(shape[first_cell_axis]),
                   static_cast<std::int64_t>(shape[first_cell_axis + 1]),
                   cell_axes == 3 ? static_cast<std::int64_t>(shape[axes - 1]) : 1};
  Settings one_sided = settings;
  one_sided.tail = Tail::Greater;
  add_test(out, "group",
           fmt::format("one-sample: the subjects' {} above 0 (coupling beyond each subject's own null)", statistic),
           sign_flip_test(values, subjects, all, one_sided), shape, dims, one_sided);
  // Two conditions: their paired difference, per channel and cell.
  if (dims.front() != "conditions" || shape.front() != 2) return out;
  const std::int64_t half = all.cells() / 2;
  std::vector<double> differences(static_cast<std::size_t>(subjects * half));
  for (std::int64_t s = 0; s < subjects; ++s)
    for (std::int64_t c = 0; c < half; ++c) {
      const double* subject = values.data() + s * all.cells();
      differences[static_cast<std::size_t>(s * half + c)] = subject[c] - subject[half + c];
    }
  Settings two_sided = settings;
  two_sided.tail = Tail::TwoSided;
  const std::vector<std::size_t> contrast_shape(shape.begin() + 1, shape.end());
  const std::vector<std::string> contrast_dims(dims.begin() + 1, dims.end());
  add_test(out, "group_contrast",
           fmt::format("paired: the first condition's {} minus the second's, two-sided", statistic),
           sign_flip_test(differences, subjects, {all.maps / 2, all.rows, all.cols, all.times}, two_sided), contrast_shape,
           contrast_dims, two_sided);
  return out;
}

}  // namespace pacflow::group
