#include "stages/kernels/surrogates/trial_statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <numeric>
#include <span>

#include "engine/api/errors.hpp"
#include "engine/io/atomic_file.hpp"
#include "stages/kernels/surrogates/family_test.hpp"
#include "stages/kernels/surrogates/parallel_chunks.hpp"
#include "stages/kernels/surrogates/row_add.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

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

const char* trial_family_name(TrialFamily family) {
  return family == TrialFamily::Channels ? "channels" : "cells";
}

namespace {

// Ordering number `index` of m items (0 <= index < m!, the identity 0), by its factorial-base
// digits (the Lehmer code): how the trial-level test enumerates every ordering of few epochs.
void nth_ordering(std::uint64_t index, std::int64_t m, std::int64_t* out) {
  std::vector<std::int64_t> left(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) left[static_cast<std::size_t>(i)] = i;
  std::uint64_t place = 1;  // (m - 1)!
  for (std::int64_t i = 2; i < m; ++i) place *= static_cast<std::uint64_t>(i);
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t digit = index / place;
    index -= digit * place;
    out[i] = left[static_cast<std::size_t>(digit)];
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(digit));
    if (m - 1 - i > 0) place /= static_cast<std::uint64_t>(m - 1 - i);
  }
}

double pairings_bytes(const TrialLayout& t) {
  return static_cast<double>(t.epochs * t.groups) * static_cast<double>(t.block) *
         static_cast<double>(element_count(t.cells)) * sizeof(double);
}

}  // namespace

double trial_sums_bytes(const TrialLayout& t) {
  return static_cast<double>(t.conditions * t.groups) * static_cast<double>(t.n_perm + 1) *
         static_cast<double>(element_count(t.cells)) * sizeof(double);
}

bool keeps_pairings(const TrialLayout& layout) {
  return trial_sums_bytes(layout) > layout.state_limit_bytes && pairings_bytes(layout) < trial_sums_bytes(layout);
}

double trial_state_bytes(const TrialLayout& layout) {
  return keeps_pairings(layout) ? pairings_bytes(layout) : trial_sums_bytes(layout);
}

// The finish's chunks of a family's values (the permutations' means or a contrast's statistics)
// hold at most the limit (or one arrangement's row of the family's values, where that alone is
// more), and never more than all n + 1 arrangements.
double trial_peak_bytes(const TrialLayout& layout) {
  const double family = layout.family == TrialFamily::Channels ? static_cast<double>(layout.groups) : 1.0;
  const double row = family * static_cast<double>(element_count(layout.cells)) * sizeof(double);
  const double all_rows = row * static_cast<double>(layout.n_perm + 1);
  const double chunks = keeps_pairings(layout) || layout.conditions == 2
                            ? std::min(all_rows, std::max(row, layout.state_limit_bytes))
                            : 0.0;
  return trial_state_bytes(layout) + chunks;
}

TrialStatistics::TrialStatistics(TrialLayout layout)
    : layout_(std::move(layout)),
      keeps_pairings_(keeps_pairings(layout_)),
      row_values_((layout_.n_perm + 1) * element_count(layout_.cells)),
      sums_(keeps_pairings_ ? 0 : static_cast<std::size_t>(layout_.conditions * layout_.groups * row_values_), 0.0),
      pairings_(keeps_pairings_ ? static_cast<std::size_t>(pairings_bytes(layout_) / sizeof(double)) : 0,
                std::numeric_limits<double>::quiet_NaN()),
      counts_(static_cast<std::size_t>(layout_.conditions * layout_.groups), 0),
      observed_(layout_.conditions == 2
                    ? static_cast<std::size_t>(layout_.epochs * layout_.groups * element_count(layout_.cells))
                    : 0,
                std::numeric_limits<double>::quiet_NaN()) {
  if (layout_.enumerate) {
    if (layout_.conditions != 1 || !layout_.excluded_series.empty())
      throw std::logic_error("the trial-level test enumerates orderings of one condition's complete blocks only");
    std::uint64_t before = 1;
    for (std::int64_t first = 0; first < layout_.epochs; first += layout_.block) {
      std::uint64_t orderings = 1, m = 0;
      for (std::int64_t e = first; e < std::min(first + layout_.block, layout_.epochs); ++e)
        if (!left_out(e)) orderings *= ++m;
      orderings_before_.push_back(before);
      block_orderings_.push_back(orderings);
      before *= orderings;
    }
    if (before != static_cast<std::uint64_t>(layout_.n_perm) + 1)
      throw std::logic_error("an enumerated trial-level test has n_perm + 1 = the orderings of its blocks");
  }
  for (auto s : layout_.excluded_series) excluded_groups_.push_back(s / layout_.rows.group);
  excluded_groups_.erase(std::unique(excluded_groups_.begin(), excluded_groups_.end()), excluded_groups_.end());
}

bool TrialStatistics::left_out(std::int64_t epoch) const {
  return std::binary_search(layout_.left_out_epochs.begin(), layout_.left_out_epochs.end(), epoch);
}

// As the engine masks results (engine/run/excluded_rows.hpp): every row of a group holding a
// stand-in; and every row of a left-out epoch.
bool TrialStatistics::excluded_row(std::int64_t row) const {
  return std::binary_search(excluded_groups_.begin(), excluded_groups_.end(), row / layout_.rows.rows_per_group) ||
         left_out(row / layout_.groups);
}

std::int64_t TrialStatistics::condition_of(std::int64_t epoch) const {
  return layout_.epoch_conditions.empty() ? 0 : layout_.epoch_conditions[static_cast<std::size_t>(epoch)];
}

// The batch holds whole blocks of epochs (the stage aligns the batches), the last one perhaps short.
void TrialStatistics::add(const Batch& batch) {
  const auto pairings = batch.at(kTrialPairingsTensor).values<double>();
  if (!observed_.empty()) {  // each epoch's z against its own surrogates, for the contrast
    const auto z = batch.at(kEpochZ).values<float>();
    const std::int64_t first = layout_.rows.rows(batch.first_series) * element_count(layout_.cells);
    std::transform(z.begin(), z.end(), observed_.begin() + first, [](float v) { return static_cast<double>(v); });
  }
  const std::int64_t first_row = layout_.rows.rows(batch.first_series);
  const std::int64_t rows = layout_.rows.rows(batch.series_count);
  const std::int64_t block_rows = layout_.block * layout_.groups;
  if (first_row % block_rows != 0 || (rows % block_rows != 0 && first_row + rows != layout_.epochs * layout_.groups))
    throw std::logic_error("a trial-level batch must hold whole blocks of epochs");
  const std::int64_t row_values = layout_.block * element_count(layout_.cells);
  if (keeps_pairings_) std::copy(pairings.begin(), pairings.end(), pairings_.begin() + first_row * row_values);
  std::vector<std::int64_t> epochs;
  for (std::int64_t first = first_row / layout_.groups; first < (first_row + rows) / layout_.groups; first += layout_.block) {
    const std::int64_t last = std::min(first + layout_.block, layout_.epochs);
    for (std::int64_t g = 0; g < layout_.groups; ++g) {
      if (!keeps_pairings_) {
        add_block(pairings.data(), first_row, g, first, last, batch.stop);
        continue;
      }
      for (std::int64_t condition = 0; condition < layout_.conditions; ++condition) {  // summed at the finish
        block_epochs(first, last, condition, g, epochs);
        counts_[static_cast<std::size_t>(condition * layout_.groups + g)] += static_cast<std::int64_t>(epochs.size());
      }
    }
  }
  rows_seen_ = first_row + rows;
}

void TrialStatistics::block_epochs(std::int64_t first, std::int64_t last, std::int64_t condition, std::int64_t group,
                                   std::vector<std::int64_t>& out) const {
  out.clear();
  for (std::int64_t e = first; e < last; ++e)
    if (condition_of(e) == condition && !excluded_row(e * layout_.groups + group)) out.push_back(e);
}

void TrialStatistics::ordering(std::uint64_t key, std::int64_t first, std::int64_t k, std::int64_t m,
                               std::int64_t* out) const {
  if (layout_.enumerate) {  // ordering k of them all: 0, the observed one, is never asked for
    const auto b = static_cast<std::size_t>(first / layout_.block);
    nth_ordering(static_cast<std::uint64_t>(k) / orderings_before_[b] % block_orderings_[b], m, out);
  } else {
    trial_permutation(key, static_cast<std::uint64_t>(k - 1), m, out);
  }
}

void TrialStatistics::add_block(const double* pairings, std::int64_t first_row, std::int64_t group, std::int64_t first,
                                std::int64_t last, const std::stop_token& stop) {
  const std::int64_t cells = element_count(layout_.cells);
  // The pairing of epoch e's phase with epoch f's amplitude, both in this block.
  const auto pairing = [&](std::int64_t e, std::int64_t f) {
    return pairings + ((e * layout_.groups + group - first_row) * layout_.block + (f - first)) * cells;
  };
  const auto add = [cells](double* to, const double* from) { add_row(to, from, cells); };
  std::vector<std::int64_t> epochs;
  for (std::int64_t condition = 0; condition < layout_.conditions; ++condition) {
    block_epochs(first, last, condition, group, epochs);
    if (epochs.empty()) continue;
    const auto m = static_cast<std::int64_t>(epochs.size());
    const std::int64_t slot = condition * layout_.groups + group;
    double* sums = sums_.data() + slot * row_values_;
    counts_[static_cast<std::size_t>(slot)] += m;
    for (std::int64_t e : epochs) add(sums, pairing(e, e));
    const std::uint64_t key = rng::key(rng::key(layout_.seed, static_cast<std::uint64_t>(first / layout_.block)),
                                       static_cast<std::uint64_t>(condition));
    // The permutations in parallel: each adds into its own row of sums, its epochs in their order,
    // so the sums are the same bits on any number of threads.
    in_parallel(layout_.n_perm, m * cells, stop, [&](std::int64_t begin, std::int64_t end) {
      std::vector<std::int64_t> perm(epochs.size());
      for (std::int64_t k = begin; k < end; ++k) {
        ordering(key, first, k + 1, m, perm.data());
        for (std::int64_t i = 0; i < m; ++i)
          add(sums + (k + 1) * cells, pairing(epochs[static_cast<std::size_t>(i)],
                                              epochs[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])]));
      }
    });
  }
}

// The same additions as add_block's, in the same order (block by block, each block's epochs in
// turn), for the arrangements [first, last) only: a chunk of rows in parallel, each block's pairings
// read once for all of the chunk's rows.
void TrialStatistics::permuted_means(std::int64_t slot, std::int64_t first, std::int64_t last, double* out,
                                     const std::stop_token& stop) const {
  // Rows per task: each task reads every block's pairings once for all of its rows.
  constexpr std::int64_t kRowsWork = (1 << 20) / 32;
  const std::int64_t cells = element_count(layout_.cells);
  const std::int64_t condition = slot / layout_.groups, group = slot % layout_.groups;
  const auto count = static_cast<double>(counts_[static_cast<std::size_t>(slot)]);
  in_parallel(last - first, kRowsWork, stop, [&](std::int64_t begin, std::int64_t end) {
    std::fill(out + begin * cells, out + end * cells, 0.0);
    std::vector<std::int64_t> epochs, perm;
    for (std::int64_t block = 0; block < layout_.epochs; block += layout_.block) {
      block_epochs(block, std::min(block + layout_.block, layout_.epochs), condition, group, epochs);
      const auto m = static_cast<std::int64_t>(epochs.size());
      perm.resize(epochs.size());
      const std::uint64_t key = rng::key(rng::key(layout_.seed, static_cast<std::uint64_t>(block / layout_.block)),
                                         static_cast<std::uint64_t>(condition));
      const auto pairing = [&](std::int64_t e, std::int64_t f) {  // epoch e's phase, epoch f's amplitude
        return pairings_.data() + ((e * layout_.groups + group) * layout_.block + (f - block)) * cells;
      };
      for (std::int64_t k = first + begin; k < first + end; ++k) {
        double* sums = out + (k - first) * cells;
        if (k == 0) {
          std::iota(perm.begin(), perm.end(), 0);
        } else {
          ordering(key, block, k, m, perm.data());
        }
        for (std::int64_t i = 0; i < m; ++i) {
          const double* from = pairing(epochs[static_cast<std::size_t>(i)],
                                       epochs[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])]);
          add_row(sums, from, cells);
        }
      }
    }
    if (count > 0)
      for (double& v : std::span(out + begin * cells, static_cast<std::size_t>((end - begin) * cells))) v /= count;
  });
}

// The contrast of one group's two conditions per cell: Welch's t of the mean over each condition's
// epochs of their z (each epoch's measure against its own surrogates), observed and under n
// permutations of the epochs' condition labels (the same permutations for every group), in
// statistics [n_perm + 1][cells], and the observed difference of the mean z in difference [cells].
// z, not the measure: a condition with more amplitude power has another null level and spread of
// the measure, which a difference of measures would report as a contrast (issue 36: 100 % of
// channels); Welch's t, since the conditions' z may still differ in spread, and a permutation test
// of a studentised difference stays valid then (Janssen 1997; Chung & Romano 2013).
// The labels are permuted among the group's epochs that take part (not left out, not stand-ins),
// so each condition keeps its number of epochs in every permutation; with left-out epochs alone
// (the same for every group) every group gets the same permutations.
void TrialStatistics::contrast(std::int64_t group, std::int64_t first, std::int64_t last, double* statistics,
                               double* difference, const std::stop_token& stop) const {
  const std::int64_t cells = element_count(layout_.cells);
  std::vector<std::int64_t> kept, labels;  // the epochs taking part, and their conditions
  for (std::int64_t e = 0; e < layout_.epochs; ++e)
    if (!excluded_row(e * layout_.groups + group)) {
      kept.push_back(e);
      labels.push_back(condition_of(e));
    }
  // The permutations in parallel, each into its own row of statistics (the same bits on any threads).
  in_parallel(last - first, static_cast<std::int64_t>(kept.size()) * cells, stop, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> perm(kept.size());
    std::vector<double> sum(static_cast<std::size_t>(2 * cells)), squares(sum.size());
    for (std::int64_t k = first + begin; k < first + end; ++k) {
      if (k > 0)
        condition_permutation(layout_.seed, static_cast<std::uint64_t>(k - 1), static_cast<std::int64_t>(kept.size()),
                              perm.data());
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(squares.begin(), squares.end(), 0.0);
      double count[2] = {0, 0};
      for (std::size_t i = 0; i < kept.size(); ++i) {
        const double* net = observed_.data() + (kept[i] * layout_.groups + group) * cells;  // the epoch's z
        const std::int64_t label = labels[k > 0 ? static_cast<std::size_t>(perm[i]) : i];
        ++count[label];
        for (std::int64_t c = 0; c < cells; ++c) {
          sum[static_cast<std::size_t>(label * cells + c)] += net[c];
          squares[static_cast<std::size_t>(label * cells + c)] += net[c] * net[c];
        }
      }
      for (std::int64_t c = 0; c < cells; ++c) {
        double mean[2], variance[2];  // of each condition's z (sample variance)
        for (int l = 0; l < 2; ++l) {
          const auto i = static_cast<std::size_t>(l * cells + c);
          mean[l] = sum[i] / count[l];
          variance[l] = count[l] > 1 ? std::max(0.0, (squares[i] - count[l] * mean[l] * mean[l]) / (count[l] - 1)) : 0.0;
        }
        const double se = std::sqrt(variance[0] / count[0] + variance[1] / count[1]);
        statistics[(k - first) * cells + c] = se > 0 ? (mean[0] - mean[1]) / se : std::numeric_limits<double>::quiet_NaN();
        if (k == 0) difference[c] = mean[0] - mean[1];
      }
    }
  });
}

std::vector<std::vector<std::int64_t>> TrialStatistics::families() const {
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t g = 0; g < layout_.groups; ++g) {
    if (layout_.family == TrialFamily::Cells || out.empty()) out.emplace_back();
    out.back().push_back(g);
  }
  return out;
}

std::int64_t TrialStatistics::rows_per_chunk(std::size_t groups) const {
  const double row = static_cast<double>(groups) * static_cast<double>(element_count(layout_.cells)) * sizeof(double);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(layout_.state_limit_bytes / row), 1, layout_.n_perm + 1);
}

// The means (sums_ divided by the epochs summed, in place: finish is the sums' last reader; or
// with the pairings kept, computed a chunk at a time) of every condition and family, tested; then,
// with two conditions, their contrast.
void TrialStatistics::finish(Batch& out) {
  const std::int64_t cells = element_count(layout_.cells);
  const std::int64_t slots = layout_.conditions * layout_.groups;
  const auto emplace = [&](const char* name, std::int64_t rows) {
    float* v = out.emplace_rows(name, rows, layout_.cells, DType::Float32).values<float>().data();
    std::fill_n(v, rows * cells, std::numeric_limits<float>::quiet_NaN());  // groups with no epoch stay NaN
    return v;
  };
  float* pac = emplace(kTrialPac, slots);
  float* z = emplace(kTrialZ, slots);
  float* p = emplace(kTrialPvalues, slots);
  float* ranked = emplace(kTrialRankZ, slots);
  if (!keeps_pairings_)
    in_parallel(slots, row_values_, out.stop, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t slot = begin; slot < end; ++slot)
        if (const auto count = static_cast<double>(counts_[static_cast<std::size_t>(slot)]); count > 0)
          for (double& v : std::span(sums_.data() + slot * row_values_, static_cast<std::size_t>(row_values_))) v /= count;
    });
  // Writes a family's results into the [slot][cells] arrays, slot = tested[i].
  const auto put = [cells](const std::vector<std::int64_t>& tested, const auto& from, float* to) {
    for (std::size_t i = 0; i < tested.size(); ++i)
      std::transform(from.begin() + static_cast<std::ptrdiff_t>(i) * cells,
                     from.begin() + static_cast<std::ptrdiff_t>(i + 1) * cells, to + tested[i] * cells,
                     [](auto v) { return static_cast<float>(v); });
  };
  std::vector<double> chunk;  // a family's values of a chunk of arrangements: [tested][rows][cells]
  // A family of the tested slots' values, all in memory (sums_) or made a chunk at a time by
  // `make(i, first, last, rows)`.
  const auto family_of = [&](const std::vector<std::int64_t>& tested, bool in_sums, auto make) {
    FamilyChunks family{static_cast<std::int64_t>(tested.size()), cells,
                        in_sums ? layout_.n_perm + 1 : rows_per_chunk(tested.size()), {}};
    family.rows = [&, tested, in_sums, make](std::int64_t first, std::int64_t last) {
      FamilyValues values{{}, cells, first};
      const std::int64_t rows = last - first;
      if (!in_sums) chunk.resize(tested.size() * static_cast<std::size_t>(rows * cells));
      for (std::size_t i = 0; i < tested.size(); ++i) {
        double* to = in_sums ? sums_.data() + tested[i] * row_values_ + first * cells
                             : chunk.data() + static_cast<std::int64_t>(i) * rows * cells;
        if (!in_sums) make(i, first, last, to);
        values.groups.push_back(to);
      }
      return values;
    };
    return family;
  };
  std::vector<std::int64_t> tested;
  for (std::int64_t condition = 0; condition < layout_.conditions; ++condition)
    for (const auto& groups : families()) {
      tested.clear();
      for (std::int64_t g : groups)  // a group every epoch of which the source left out has no test
        if (const std::int64_t slot = condition * layout_.groups + g; counts_[static_cast<std::size_t>(slot)] > 0)
          tested.push_back(slot);
      if (tested.empty()) continue;
      const FamilyChunks family =
          family_of(tested, !keeps_pairings_, [&](std::size_t i, std::int64_t first, std::int64_t last, double* to) {
            permuted_means(tested[i], first, last, to, out.stop);
          });
      const FamilyTest result = test_family(family, layout_.n_perm, layout_.test, false, true, out.stop);
      put(tested, result.observed, pac);
      put(tested, result.p, p);
      put(tested, result.z, z);
      put(tested, result.rank_z, ranked);
    }
  if (observed_.empty()) return;
  float* d = emplace(kContrastPac, layout_.groups);
  float* dz = emplace(kContrastZ, layout_.groups);
  float* dp = emplace(kContrastPvalues, layout_.groups);
  std::vector<double> differences;  // [tested group][cells]
  for (const auto& groups : families()) {
    tested.clear();
    for (std::int64_t g : groups)
      if (counts_[static_cast<std::size_t>(g)] > 0 && counts_[static_cast<std::size_t>(layout_.groups + g)] > 0)
        tested.push_back(g);
    if (tested.empty()) continue;
    differences.assign(tested.size() * static_cast<std::size_t>(cells), 0.0);
    const FamilyChunks family =
        family_of(tested, false, [&](std::size_t i, std::int64_t first, std::int64_t last, double* to) {
          contrast(tested[i], first, last, to, differences.data() + static_cast<std::int64_t>(i) * cells, out.stop);
        });
    const FamilyTest result = test_family(family, layout_.n_perm, layout_.test, true, false, out.stop);
    put(tested, differences, d);
    put(tested, result.p, dp);
    put(tested, result.z, dz);
  }
}

std::span<double> TrialStatistics::kept(std::int64_t rows) {
  if (!keeps_pairings_) return sums_;
  return std::span(pairings_.data(), static_cast<std::size_t>(rows * layout_.block * element_count(layout_.cells)));
}

// A checkpoint's state names the file holding the sums (or the pairings) of the rows it records.
// Two files are written in turn, so a kill between this write and the record leaves the recorded
// one intact.
json TrialStatistics::checkpoint() {
  const int file = 1 - last_file_;
  const std::span<double> state = kept(rows_seen_);
  std::string content(sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * (state.size() + observed_.size()),
                      '\0');
  char* at = content.data();
  const auto put = [&at](const void* from, std::size_t bytes) {
    if (bytes > 0) std::memcpy(at, from, bytes);  // an empty vector's data() may be null
    at += bytes;
  };
  put(&rows_seen_, sizeof rows_seen_);
  put(counts_.data(), sizeof(std::int64_t) * counts_.size());
  put(state.data(), sizeof(double) * state.size());
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
  if (rows > layout_.epochs * layout_.groups)
    throw InputError(fmt::format("--checkpoint: it records {} series done, more than the input's", series_done));
  const std::span<double> state_values = kept(rows);
  const std::size_t expected =
      sizeof(std::int64_t) * (1 + counts_.size()) + sizeof(double) * (state_values.size() + observed_.size());
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
  take(state_values.data(), sizeof(double) * state_values.size());
  take(observed_.data(), sizeof(double) * observed_.size());
  rows_seen_ = rows;
  last_file_ = file;
}

}  // namespace pacflow::surrogates
