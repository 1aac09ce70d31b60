#include "stages/surrogates/trial_statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "engine/io/atomic_file.hpp"
#include "engine/api/errors.hpp"
#include "stages/erpac/multiple_comparisons.hpp"
#include "stages/surrogates/surrogate_math.hpp"

namespace pacflow::surrogates {

const char* trial_test_name(TrialTest test) {
  switch (test) {
    case TrialTest::None:
      return "none";
    case TrialTest::Uncorrected:
      return "uncorrected";
    case TrialTest::Maxstat:
      return "maxstat";
    case TrialTest::MaxstatRaw:
      return "maxstat_raw";
    case TrialTest::Fdr:
      return "fdr";
    case TrialTest::Bonferroni:
      return "bonferroni";
  }
  return "";
}

namespace {

// Mean and population std per cell of values[first..n][c] (two passes, in double).
void cell_moments(const double* values, std::int64_t first, std::int64_t n, std::int64_t cells, std::vector<double>& mu,
                  std::vector<double>& sd) {
  const auto count = static_cast<double>(n - first + 1);
  mu.assign(static_cast<std::size_t>(cells), 0.0);
  sd.assign(mu.size(), 0.0);
  for (std::int64_t k = first; k <= n; ++k)
    for (std::int64_t c = 0; c < cells; ++c) mu[static_cast<std::size_t>(c)] += values[k * cells + c];
  for (auto& m : mu) m /= count;
  for (std::int64_t k = first; k <= n; ++k)
    for (std::int64_t c = 0; c < cells; ++c) {
      const double d = values[k * cells + c] - mu[static_cast<std::size_t>(c)];
      sd[static_cast<std::size_t>(c)] += d * d;
    }
  for (auto& s : sd) s = std::sqrt(s / count);
}

// The p-values of the observed values[0][c] against values[1..n][c] (spec §6.4), written to p, and
// z = (observed - mean) / population std of values[1..n] to z when not null. One-sided (a mean over
// epochs: large is coupled) or two-sided (a difference of conditions: compares magnitudes). Max-T
// standardises every arrangement, the observed one included, by the mean and std over all n + 1,
// so the observed maximum is exchangeable with the others and the family-wise error is the nominal
// one (standardising by the surrogates alone makes each surrogate's own z a little smaller than an
// outsider's, which the maximum over many cells turns into excess rejections). A cell with no
// spread has z NaN; max-T leaves it out of the maxima and gives it p NaN.
void test_cells(const double* values, std::int64_t n, std::int64_t cells, TrialTest test, bool two_sided, float* p,
                float* z) {
  const auto at = [&](std::int64_t k, std::int64_t c) { return values[k * cells + c]; };
  const auto size = [](double v, bool both) { return both ? std::abs(v) : v; };
  std::vector<double> mu, sd, all_mu, all_sd, raw(static_cast<std::size_t>(cells));
  cell_moments(values, 1, n, cells, mu, sd);
  cell_moments(values, 0, n, cells, all_mu, all_sd);
  const auto standardised = [&](std::int64_t k, std::int64_t c) {
    const auto i = static_cast<std::size_t>(c);
    return all_sd[i] > 0 ? (at(k, c) - all_mu[i]) / all_sd[i] : std::numeric_limits<double>::quiet_NaN();
  };
  // The largest statistic of each surrogate over the cells: raw values, or standardised (max-T).
  std::vector<double> largest(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
  for (std::int64_t k = 1; k <= n; ++k) {
    double& most = largest[static_cast<std::size_t>(k - 1)];
    for (std::int64_t c = 0; c < cells; ++c) {
      const double v = test == TrialTest::Maxstat ? standardised(k, c) : at(k, c);
      if (!std::isnan(v)) most = std::max(most, size(v, two_sided));
    }
  }
  const auto above_largest = [&](double observed) {
    return [&largest, observed](std::int64_t k) { return largest[static_cast<std::size_t>(k - 1)] >= observed; };
  };
  const auto share = [&](auto&& beats) {
    std::int64_t count = 0;
    for (std::int64_t k = 1; k <= n; ++k) count += beats(k) ? 1 : 0;
    return (1.0 + static_cast<double>(count)) / static_cast<double>(n + 1);
  };
  for (std::int64_t c = 0; c < cells; ++c) {
    const auto i = static_cast<std::size_t>(c);
    const double observed = size(at(0, c), two_sided);
    if (z) z[c] = static_cast<float>(sd[i] > 0 ? (at(0, c) - mu[i]) / sd[i] : std::numeric_limits<double>::quiet_NaN());
    raw[i] = share([&](std::int64_t k) { return size(at(k, c), two_sided) >= observed; });
    if (test == TrialTest::MaxstatRaw) p[c] = static_cast<float>(share(above_largest(observed)));
    if (test == TrialTest::Maxstat) {
      const double t = size(standardised(0, c), two_sided);
      p[c] = std::isnan(t) ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(share(above_largest(t)));
    }
  }
  if (test == TrialTest::Fdr || test == TrialTest::Bonferroni)
    erpac::correct(raw, test == TrialTest::Fdr ? erpac::Correction::Fdr : erpac::Correction::Bonferroni);
  if (test != TrialTest::Maxstat && test != TrialTest::MaxstatRaw)
    std::transform(raw.begin(), raw.end(), p, [](double v) { return static_cast<float>(v); });
}

}  // namespace

TrialStatistics::TrialStatistics(TrialLayout layout)
    : layout_(std::move(layout)),
      row_values_((layout_.n_perm + 1) * element_count(layout_.cells)),
      sums_(static_cast<std::size_t>(layout_.conditions * layout_.groups * row_values_), 0.0),
      counts_(static_cast<std::size_t>(layout_.conditions * layout_.groups), 0),
      observed_(layout_.conditions == 2
                    ? static_cast<std::size_t>(layout_.epochs * layout_.groups * element_count(layout_.cells))
                    : 0,
                std::numeric_limits<double>::quiet_NaN()) {
  for (auto s : layout_.excluded_series) excluded_groups_.push_back(s / layout_.rows.group);
  excluded_groups_.erase(std::unique(excluded_groups_.begin(), excluded_groups_.end()), excluded_groups_.end());
}

// As the engine masks results (engine/run/excluded_rows.hpp): every row of a group holding a stand-in.
bool TrialStatistics::excluded_row(std::int64_t row) const {
  return std::binary_search(excluded_groups_.begin(), excluded_groups_.end(), row / layout_.rows.rows_per_group);
}

std::int64_t TrialStatistics::condition_of(std::int64_t epoch) const {
  return layout_.epoch_conditions.empty() ? 0 : layout_.epoch_conditions[static_cast<std::size_t>(epoch)];
}

// The batch holds whole blocks of epochs (the stage aligns the batches), the last one perhaps short.
void TrialStatistics::add(const Batch& batch) {
  const auto pairings = batch.at(kTrialPairingsTensor).values<double>();
  const std::int64_t first_row = layout_.rows.rows(batch.first_series);
  const std::int64_t rows = layout_.rows.rows(batch.series_count);
  const std::int64_t block_rows = layout_.block * layout_.groups;
  if (first_row % block_rows != 0 || (rows % block_rows != 0 && first_row + rows != layout_.epochs * layout_.groups))
    throw std::logic_error("a trial-level batch must hold whole blocks of epochs");
  for (std::int64_t first = first_row / layout_.groups; first < (first_row + rows) / layout_.groups; first += layout_.block) {
    const std::int64_t last = std::min(first + layout_.block, layout_.epochs);
    for (std::int64_t g = 0; g < layout_.groups; ++g) add_block(pairings.data(), first_row, g, first, last, batch.stop);
  }
  rows_seen_ = first_row + rows;
}

void TrialStatistics::add_block(const double* pairings, std::int64_t first_row, std::int64_t group, std::int64_t first,
                                std::int64_t last, const std::stop_token& stop) {
  const std::int64_t cells = element_count(layout_.cells);
  // The pairing of epoch e's phase with epoch f's amplitude, both in this block.
  const auto pairing = [&](std::int64_t e, std::int64_t f) {
    return pairings + ((e * layout_.groups + group - first_row) * layout_.block + (f - first)) * cells;
  };
  const auto add = [cells](double* to, const double* from) {
    for (std::int64_t c = 0; c < cells; ++c) to[c] += from[c];
  };
  std::vector<std::int64_t> epochs, perm;
  for (std::int64_t condition = 0; condition < layout_.conditions; ++condition) {
    epochs.clear();
    for (std::int64_t e = first; e < last; ++e)
      if (condition_of(e) == condition && !excluded_row(e * layout_.groups + group)) epochs.push_back(e);
    if (epochs.empty()) continue;
    const auto m = static_cast<std::int64_t>(epochs.size());
    const std::int64_t slot = condition * layout_.groups + group;
    double* sums = sums_.data() + slot * row_values_;
    counts_[static_cast<std::size_t>(slot)] += m;
    for (std::int64_t e : epochs) {
      add(sums, pairing(e, e));
      if (!observed_.empty())
        std::copy_n(pairing(e, e), cells, observed_.begin() + (e * layout_.groups + group) * cells);
    }
    perm.resize(epochs.size());
    const std::uint64_t key = rng::key(rng::key(layout_.seed, static_cast<std::uint64_t>(first / layout_.block)),
                                       static_cast<std::uint64_t>(condition));
    for (std::int64_t k = 0; k < layout_.n_perm; ++k) {
      // A million permutations of every group take seconds, serially: the stop is checked between them.
      if (k % 1024 == 0 && stop.stop_requested()) throw RunCancelled(-1);
      trial_permutation(key, static_cast<std::uint64_t>(k), m, perm.data());
      for (std::int64_t i = 0; i < m; ++i)
        add(sums + (k + 1) * cells, pairing(epochs[static_cast<std::size_t>(i)],
                                            epochs[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])]));
    }
  }
}

// The difference of the two conditions' means of one group, D = mean_0 - mean_1 per cell, against
// n permutations of the epochs' condition labels (the same permutations for every group).
void TrialStatistics::contrast(std::int64_t group, std::vector<double>& differences, float* d, float* z,
                               float* p) const {
  const std::int64_t cells = element_count(layout_.cells), n = layout_.n_perm;
  std::vector<std::int64_t> labels(static_cast<std::size_t>(layout_.epochs)), perm(labels.size());
  for (std::int64_t e = 0; e < layout_.epochs; ++e) labels[static_cast<std::size_t>(e)] = condition_of(e);
  std::vector<double> sum(static_cast<std::size_t>(2 * cells));
  for (std::int64_t k = 0; k <= n; ++k) {
    if (k > 0) condition_permutation(layout_.seed, static_cast<std::uint64_t>(k - 1), layout_.epochs, perm.data());
    std::fill(sum.begin(), sum.end(), 0.0);
    std::int64_t count[2] = {0, 0};
    for (std::int64_t e = 0; e < layout_.epochs; ++e) {
      const std::int64_t row = e * layout_.groups + group;
      if (excluded_row(row)) continue;
      const std::int64_t label = labels[static_cast<std::size_t>(k > 0 ? perm[static_cast<std::size_t>(e)] : e)];
      ++count[label];
      for (std::int64_t c = 0; c < cells; ++c)
        sum[static_cast<std::size_t>(label * cells + c)] += observed_[static_cast<std::size_t>(row * cells + c)];
    }
    for (std::int64_t c = 0; c < cells; ++c)
      differences[static_cast<std::size_t>(k * cells + c)] =
          sum[static_cast<std::size_t>(c)] / static_cast<double>(count[0]) -
          sum[static_cast<std::size_t>(cells + c)] / static_cast<double>(count[1]);
  }
  for (std::int64_t c = 0; c < cells; ++c) d[c] = static_cast<float>(differences[static_cast<std::size_t>(c)]);
  test_cells(differences.data(), n, cells, layout_.test, true, p, z);
}

void TrialStatistics::finish(Batch& out) {
  const std::int64_t cells = element_count(layout_.cells);
  const std::int64_t slots = layout_.conditions * layout_.groups;
  float* pac = out.emplace_rows(kTrialPac, slots, layout_.cells, DType::Float32).values<float>().data();
  float* z = out.emplace_rows(kTrialZ, slots, layout_.cells, DType::Float32).values<float>().data();
  float* p = out.emplace_rows(kTrialPvalues, slots, layout_.cells, DType::Float32).values<float>().data();
  std::vector<double> means(static_cast<std::size_t>(row_values_));
  for (std::int64_t g = 0; g < slots; ++g) {
    const std::int64_t n = counts_[static_cast<std::size_t>(g)];
    if (n == 0) {  // every epoch of the group was left out by the source
      for (float* result : {pac, z, p}) std::fill_n(result + g * cells, cells, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    const double* sum = sums_.data() + g * row_values_;
    for (std::int64_t v = 0; v < row_values_; ++v) means[static_cast<std::size_t>(v)] = sum[v] / static_cast<double>(n);
    for (std::int64_t c = 0; c < cells; ++c)
      pac[g * cells + c] = static_cast<float>(means[static_cast<std::size_t>(c)]);
    test_cells(means.data(), layout_.n_perm, cells, layout_.test, false, p + g * cells, z + g * cells);
  }
  if (observed_.empty()) return;
  float* d = out.emplace_rows(kContrastPac, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  float* dz = out.emplace_rows(kContrastZ, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  float* dp = out.emplace_rows(kContrastPvalues, layout_.groups, layout_.cells, DType::Float32).values<float>().data();
  std::vector<double> differences(static_cast<std::size_t>(row_values_));
  for (std::int64_t g = 0; g < layout_.groups; ++g) {
    if (counts_[static_cast<std::size_t>(g)] == 0 || counts_[static_cast<std::size_t>(layout_.groups + g)] == 0) {
      for (float* result : {d, dz, dp}) std::fill_n(result + g * cells, cells, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    contrast(g, differences, d + g * cells, dz + g * cells, dp + g * cells);
  }
}

// A checkpoint's state names the file holding the sums of the rows it records. Two files are
// written in turn, so a kill between this write and the record leaves the recorded one intact.
json TrialStatistics::checkpoint() {
  const int file = 1 - last_file_;
  std::string content(sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * (sums_.size() + observed_.size()),
                      '\0');
  char* at = content.data();
  const auto put = [&at](const void* from, std::size_t bytes) {
    if (bytes > 0) std::memcpy(at, from, bytes);  // an empty vector's data() may be null
    at += bytes;
  };
  put(&rows_seen_, sizeof rows_seen_);
  put(counts_.data(), sizeof(std::int64_t) * counts_.size());
  put(sums_.data(), sizeof(double) * sums_.size());
  put(observed_.data(), sizeof(double) * observed_.size());
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
  const std::size_t expected =
      sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * (sums_.size() + observed_.size());
  std::int64_t recorded = -1;
  if (content.size() == expected) std::memcpy(&recorded, content.data(), sizeof recorded);
  if ((file != 0 && file != 1) || recorded != rows || state.at("rows").get<std::int64_t>() != rows)
    throw InputError(
        fmt::format("--checkpoint: {} does not hold the trial-level sums of the {} series it records "
                    "done; remove the checkpoint to start afresh",
                    path.string(), series_done));
  const char* at = content.data() + sizeof recorded;
  const auto take = [&at](void* to, std::size_t bytes) {
    if (bytes > 0) std::memcpy(to, at, bytes);
    at += bytes;
  };
  take(counts_.data(), sizeof(std::int64_t) * counts_.size());
  take(sums_.data(), sizeof(double) * sums_.size());
  take(observed_.data(), sizeof(double) * observed_.size());
  rows_seen_ = rows;
  last_file_ = file;
}

}  // namespace pacflow::surrogates
