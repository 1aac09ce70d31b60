#include "stages/surrogates/trial_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>

#include "engine/atomic_file.hpp"
#include "engine/errors.hpp"
#include "stages/erpac/multiple_comparisons.hpp"
#include "stages/surrogates/surrogate_stats_cpu.hpp"

namespace pacflow::surrogates {

TrialTest parse_trial_test(const std::string& name) {
  if (name == "none") return TrialTest::None;
  if (name == "uncorrected") return TrialTest::Uncorrected;
  if (name == "maxstat") return TrialTest::Maxstat;
  if (name == "maxstat_raw") return TrialTest::MaxstatRaw;
  if (name == "fdr") return TrialTest::Fdr;
  if (name == "bonferroni") return TrialTest::Bonferroni;
  throw ParamError("trials", fmt::format("unknown test \"{}\"; valid: auto, maxstat, maxstat_raw, fdr, bonferroni, uncorrected, none",
                                         name));
}

const char* trial_test_name(TrialTest test) {
  switch (test) {
    case TrialTest::None: return "none";
    case TrialTest::Uncorrected: return "uncorrected";
    case TrialTest::Maxstat: return "maxstat";
    case TrialTest::MaxstatRaw: return "maxstat_raw";
    case TrialTest::Fdr: return "fdr";
    case TrialTest::Bonferroni: return "bonferroni";
  }
  return "";
}

namespace {

// Max-T: z_k(c) = (m_k(c) - mu(c)) / sd(c) for the observed mean (k = 0) and every surrogate's,
// mu and sd the population mean and std of the surrogate means of cell c (two passes, in double);
// p(c) = (1 + #{k >= 1: max over cells of z_k >= z_0(c)}) / (n + 1). A cell without spread has no z:
// it stays out of the maxima and its p is NaN.
void max_t_pvalues(const double* means, std::int64_t n, std::int64_t cells, float* p) {
  std::vector<double> mu(static_cast<std::size_t>(cells), 0.0), sd(mu.size(), 0.0);
  for (std::int64_t k = 1; k <= n; ++k)
    for (std::int64_t c = 0; c < cells; ++c) mu[static_cast<std::size_t>(c)] += means[k * cells + c];
  for (auto& m : mu) m /= static_cast<double>(n);
  for (std::int64_t k = 1; k <= n; ++k)
    for (std::int64_t c = 0; c < cells; ++c) {
      const double d = means[k * cells + c] - mu[static_cast<std::size_t>(c)];
      sd[static_cast<std::size_t>(c)] += d * d;
    }
  for (auto& s : sd) s = std::sqrt(s / static_cast<double>(n));
  const auto z = [&](std::int64_t k, std::int64_t c) {
    return (means[k * cells + c] - mu[static_cast<std::size_t>(c)]) / sd[static_cast<std::size_t>(c)];
  };
  std::vector<double> max_z(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
  for (std::int64_t k = 1; k <= n; ++k)
    for (std::int64_t c = 0; c < cells; ++c)
      if (sd[static_cast<std::size_t>(c)] > 0) max_z[static_cast<std::size_t>(k - 1)] = std::max(max_z[static_cast<std::size_t>(k - 1)], z(k, c));
  for (std::int64_t c = 0; c < cells; ++c) {
    if (!(sd[static_cast<std::size_t>(c)] > 0)) {
      p[c] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const double observed = z(0, c);
    const auto above = std::count_if(max_z.begin(), max_z.end(), [&](double m) { return m >= observed; });
    p[c] = static_cast<float>((1.0 + static_cast<double>(above)) / static_cast<double>(n + 1));
  }
}

}  // namespace

TrialStatistics::TrialStatistics(TrialLayout layout)
    : layout_(std::move(layout)),
      row_values_((layout_.n_perm + 1) * element_count(layout_.cells)),
      sums_(static_cast<std::size_t>(layout_.groups * row_values_), 0.0),
      counts_(static_cast<std::size_t>(layout_.groups), 0) {
  for (auto s : layout_.excluded_series) excluded_groups_.push_back(s / layout_.rows.group);
  excluded_groups_.erase(std::unique(excluded_groups_.begin(), excluded_groups_.end()), excluded_groups_.end());
}

// As the engine masks results (engine/excluded_rows.hpp): every row of a group holding a stand-in.
bool TrialStatistics::excluded_row(std::int64_t row) const {
  return std::binary_search(excluded_groups_.begin(), excluded_groups_.end(), row / layout_.rows.rows_per_group);
}

void TrialStatistics::add(const Batch& batch) {
  const auto values = batch.at(kTrialValuesTensor).values<double>();
  const std::int64_t first_row = layout_.rows.rows(batch.first_series);
  const std::int64_t rows = layout_.rows.rows(batch.series_count);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t row = first_row + r;
    if (excluded_row(row)) continue;
    const std::int64_t group = row % layout_.groups;
    const double* from = values.data() + r * row_values_;
    double* to = sums_.data() + group * row_values_;
    for (std::int64_t v = 0; v < row_values_; ++v) to[v] += from[v];
    ++counts_[static_cast<std::size_t>(group)];
  }
  rows_seen_ = first_row + rows;
}

void TrialStatistics::finish(Batch& out) {
  const std::int64_t cells = element_count(layout_.cells);
  float* pac = out.emplace_rows(kTrialPac, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  float* z = out.emplace_rows(kTrialZ, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  float* p = out.emplace_rows(kTrialPvalues, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  std::vector<double> means(static_cast<std::size_t>(row_values_));
  std::vector<float> mean(static_cast<std::size_t>(cells)), spread(mean.size()), raw(mean.size()), maxstat(mean.size());
  std::vector<double> family(mean.size());
  for (std::int64_t g = 0; g < layout_.groups; ++g) {
    const std::int64_t n = counts_[static_cast<std::size_t>(g)];
    if (n == 0) {  // every epoch of the group was left out by the source
      for (float* result : {pac, z, p}) std::fill_n(result + g * cells, cells, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    const double* sum = sums_.data() + g * row_values_;
    for (std::int64_t v = 0; v < row_values_; ++v) means[static_cast<std::size_t>(v)] = sum[v] / static_cast<double>(n);
    float* const statistics[5] = {z + g * cells, mean.data(), spread.data(), raw.data(), maxstat.data()};
    surrogate_stats_on_cpu(means.data(), layout_.n_perm, cells, std::span<float* const, 5>(statistics), nullptr, Norm::Z, 0);
    float* p_out = p + g * cells;
    for (std::int64_t c = 0; c < cells; ++c) pac[g * cells + c] = static_cast<float>(means[static_cast<std::size_t>(c)]);
    switch (layout_.test) {
      case TrialTest::Maxstat: max_t_pvalues(means.data(), layout_.n_perm, cells, p_out); break;
      case TrialTest::MaxstatRaw: std::copy(maxstat.begin(), maxstat.end(), p_out); break;
      case TrialTest::Fdr:
      case TrialTest::Bonferroni:
        std::copy(raw.begin(), raw.end(), family.begin());
        erpac::correct(family, layout_.test == TrialTest::Fdr ? erpac::Correction::Fdr : erpac::Correction::Bonferroni);
        std::transform(family.begin(), family.end(), p_out, [](double v) { return static_cast<float>(v); });
        break;
      case TrialTest::Uncorrected:
      case TrialTest::None: std::copy(raw.begin(), raw.end(), p_out); break;
    }
  }
}

// A checkpoint's state names the file holding the sums of the rows it records. Two files are
// written in turn, so a kill between this write and the record leaves the recorded one intact.
json TrialStatistics::checkpoint() {
  const int file = 1 - last_file_;
  std::string content(sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * sums_.size(), '\0');
  char* at = content.data();
  std::memcpy(at, &rows_seen_, sizeof rows_seen_);
  at += sizeof rows_seen_;
  std::memcpy(at, counts_.data(), sizeof(std::int64_t) * counts_.size());
  at += sizeof(std::int64_t) * counts_.size();
  std::memcpy(at, sums_.data(), sizeof(double) * sums_.size());
  write_file_atomically(dir_ / fmt::format("sums-{}.bin", file), content);
  last_file_ = file;
  return {{"file", file}, {"rows", rows_seen_}};
}

void TrialStatistics::resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) {
  dir_ = dir;
  const std::int64_t rows = layout_.rows.rows(series_done);
  if (state.is_null()) {
    if (series_done != 0)
      throw InputError("--checkpoint: it has no record of the trial-level sums; remove it to start afresh");
    return;
  }
  const int file = state.at("file").get<int>();
  const std::filesystem::path path = dir / fmt::format("sums-{}.bin", file);
  std::ifstream in(path, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t expected = sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * sums_.size();
  std::int64_t recorded = -1;
  if (content.size() == expected) std::memcpy(&recorded, content.data(), sizeof recorded);
  if ((file != 0 && file != 1) || recorded != rows || state.at("rows").get<std::int64_t>() != rows)
    throw InputError(fmt::format("--checkpoint: {} does not hold the trial-level sums of the {} series it records "
                                 "done; remove the checkpoint to start afresh",
                                 path.string(), series_done));
  const char* at = content.data() + sizeof recorded;
  std::memcpy(counts_.data(), at, sizeof(std::int64_t) * counts_.size());
  std::memcpy(sums_.data(), at + sizeof(std::int64_t) * counts_.size(), sizeof(double) * sums_.size());
  rows_seen_ = rows;
  last_file_ = file;
}

}  // namespace pacflow::surrogates
