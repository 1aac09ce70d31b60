#pragma once
// Group-level inference across subjects (issue 38): one value per subject and cell (a subject's own
// coupling against its own null, e.g. its trial_rank_z, or the paired difference of two conditions' values),
// tested against sign flips of whole subjects (docs/methods.md, "Group level").
//
// Per cell c over the S subjects with a value: t_c = mean / (sd / sqrt(S)) (sd with S - 1 degrees of
// freedom), Cohen's d_z = mean / sd with its confidence interval from the noncentral t distribution
// (Cumming & Finch 2001). The null flips the sign of each subject's whole map at once (the same flip
// for every cell: the cells' dependence is kept): exact over all 2^S flips when they are not more
// than Settings::flips, else that many drawn by the counter-based generator keyed by (seed, k).
// Two family-wise corrections over every cell of every map:
//   max-T: p_c = share of flips whose largest t (|t| two-sided) reaches t_c (|t_c|);
//   clusters (Maris & Oostenveld 2007): cells whose t passes the cluster-forming threshold (the
//   (1 - cluster_p) quantile of Student's t with S - 1 degrees of freedom; two-sided cluster_p / 2 on
//   each side, positive and negative clusters apart) and touch along a row, a column or (ERPAC) a
//   time step of their map form clusters, whose mass is the sum of their t; a cluster's p is the share of flips whose
//   largest mass (|mass| two-sided) reaches its own, and each of its cells takes it (1 elsewhere).
// With every flip enumerated, p counts the observed one among them (as MNE's exact test); with
// drawn flips, p = (1 + count) / (flips + 1).
#include <cstdint>
#include <utility>
#include <vector>

namespace pacflow::group {

enum class Tail { Greater, TwoSided };

// The cells: `maps` maps (channels, conditions) of rows x cols x times cells (phase bands x
// amplitude bands x, for ERPAC, time samples; times last in memory), adjacent along rows, columns
// and times within a map only.
struct Layout {
  std::int64_t maps = 1, rows = 1, cols = 1, times = 1;
  std::int64_t per_map() const { return rows * cols * times; }
  std::int64_t cells() const { return maps * per_map(); }
};

struct Settings {
  std::int64_t flips = 10000;  // all 2^S when not more than this, else this many drawn
  std::uint64_t seed = 42;
  double cluster_p = 0.05;     // the cluster-forming threshold, as a p-value of t
  double confidence = 0.95;    // of d_z's interval
  Tail tail = Tail::Greater;
};

struct Cluster {
  std::int64_t map = 0;
  std::int64_t cells = 0;
  double mass = 0;  // the sum of its cells' t
  double p = 1;
};

struct Result {
  std::vector<double> t, dz, dz_low, dz_high, p_maxt, p_cluster;  // per cell (NaN where left out)
  std::vector<std::int32_t> cluster_of;                           // per cell: index into clusters, -1 none
  std::vector<Cluster> clusters;
  std::int64_t subjects = 0;
  std::int64_t flips = 0;  // in the null distribution (the observed one included when exact)
  bool exact = false;
  double p_floor = 1;      // the smallest p either correction can give
  double threshold = 0;    // the cluster-forming t
  std::int64_t left_out_cells = 0;  // a subject had no value (NaN) there: no t, in no family
};

// `values`: [subjects][layout.cells()]. Throws std::invalid_argument for fewer than 2 subjects or a
// size that is not subjects x cells.
Result sign_flip_test(const std::vector<double>& values, std::int64_t subjects, const Layout& layout,
                      const Settings& settings);

// The (1 - p) quantile of Student's t with `df` degrees of freedom.
double t_quantile(double p, double df);
// Cohen's d_z's `confidence` interval for a one-sample t of `n` subjects.
std::pair<double, double> dz_interval(double t, std::int64_t n, double confidence);

}  // namespace pacflow::group
