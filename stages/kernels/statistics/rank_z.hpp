#pragma once
// A subject-level value for group tests (pipelines/group/): the observed value's mid-rank among all
// n + 1 arrangements of its own epochs (the observed one and n permutations), as a standard-normal
// quantile, -Phi^-1((#{k: v_k > v_0} + (#{k: v_k = v_0} + 1) / 2) / (n + 1)). With no coupling the
// observed arrangement is one of n + 1 exchangeable ones, so this takes the n + 1 values symmetric
// around 0 alike, which sign flips of whole subjects assume (docs/methods.md, "Group level").
// Shared by the trial-level test (trial_rank_z) and ERPAC (erpac_rank_z).
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <cstdint>

namespace pacflow::statistics {

// `above`, `tied`: how many of the n permutations' values exceed, and equal, the observed one.
inline double rank_z(double above, double tied, std::int64_t n) {
  const double mid = (above + (tied + 1) / 2) / static_cast<double>(n + 1);
  return std::sqrt(2.0) * boost::math::erfc_inv(2 * mid);
}

}  // namespace pacflow::statistics
