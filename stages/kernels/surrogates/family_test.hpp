#pragma once
// The test of one family of cells against their permutations (spec §6.4): the observed value of
// each column (a cell of one of the family's groups) against its n permutations', corrected over
// the family's columns. Every pass reads the values row by row (permutation by permutation), in
// parallel over columns or permutations, so a family of 40 000 cells and 10 000 permutations
// (3.2 GB) streams from memory a few times instead of once per cell, and can be given a chunk of
// permutations at a time.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

#include "stages/kernels/surrogates/trial_statistics.hpp"

namespace pacflow::surrogates {

// values(k, column) for k in [first, first + rows) of [0, n] (0: the observed arrangement): column
// i · cells + c is cell c of the family's group i, whose rows [rows][cells] start at groups[i].
struct FamilyValues {
  std::vector<const double*> groups;
  std::int64_t cells = 0;
  std::int64_t first = 0;  // the k of each group's first row

  std::int64_t columns() const { return static_cast<std::int64_t>(groups.size()) * cells; }
  double at(std::int64_t k, std::int64_t column) const {
    return groups[static_cast<std::size_t>(column / cells)][(k - first) * cells + column % cells];
  }
  // f(first_column, values, count) for each run of contiguous columns of [begin, end) in row k.
  template <class F>
  void row(std::int64_t k, std::int64_t begin, std::int64_t end, F&& f) const {
    for (std::int64_t column = begin; column < end;) {
      const std::int64_t c = column % cells, count = std::min(end - column, cells - c);
      f(column, groups[static_cast<std::size_t>(column / cells)] + (k - first) * cells + c, count);
      column += count;
    }
  }
};

// A family's values a chunk of arrangements at a time: rows(first, last) gives k in [first, last),
// valid until the next call. Every pass reads the chunks in k order, so a family whose values are
// computed chunk by chunk (the trial test with its memory bounded) gets the bits of one whose
// values are all in memory (one chunk of n + 1 rows).
struct FamilyChunks {
  std::int64_t groups = 0, cells = 0;
  std::int64_t rows_per_chunk = 1;
  std::function<FamilyValues(std::int64_t first, std::int64_t last)> rows;

  std::int64_t columns() const { return groups * cells; }
};

// Per column: p (corrected as `test` says over the family), z = (observed - mean) / population std
// of the n permutations, and, when asked, the observed value's mid-rank as a normal quantile
// (stages/kernels/statistics/rank_z.hpp). One-sided (a mean over epochs: large is coupled) or
// two-sided (a difference of conditions: compares magnitudes).
struct FamilyTest {
  std::vector<float> p, z, rank_z;
  std::vector<double> observed;  // each column's observed value (k = 0)
};
FamilyTest test_family(const FamilyChunks& family, std::int64_t n, TrialTest test, bool two_sided, bool with_rank_z,
                       const std::stop_token& stop);

}  // namespace pacflow::surrogates
