#pragma once
// Shift and permutation generation, per-cell surrogate statistics and normalisations (spec §6),
// shared by CPU and CUDA.
#include <cmath>
#include <cstdint>

#include "stages/common/counter_rng.hpp"
#include "stages/common/hd.hpp"

namespace pacflow::surrogates {

// Shift of permutation k: uniform on [min_shift, T − min_shift], a function of (seed, k) only.
PACFLOW_HD inline std::int64_t timeshift(std::uint64_t seed, std::uint64_t k, std::int64_t min_shift,
                                         std::int64_t length) {
  return rng::uniform_int(rng::key(seed, 0x7368696674ULL /* "shift" */), k, min_shift, length - min_shift);
}

// Permutation k of `epochs` epochs (swap_trials): out[e] is the epoch whose amplitude pairs with
// epoch e's phase. Fisher–Yates driven by the counter-based generator keyed by (seed, k), so it
// depends on nothing else. A permutation may leave an epoch in place (as TensorPAC's do).
// `salt` keeps the streams of different uses apart.
PACFLOW_HD inline void epoch_permutation(std::uint64_t seed, std::uint64_t k, std::int64_t epochs, std::int64_t* out,
                                         std::uint64_t salt = 0x73776170ULL /* "swap" */) {
  const std::uint64_t key = rng::key(rng::key(seed, salt), k);
  for (std::int64_t e = 0; e < epochs; ++e) out[e] = e;
  for (std::int64_t i = epochs - 1; i > 0; --i) {
    const std::int64_t j = rng::uniform_int(key, static_cast<std::uint64_t>(i), 0, i);
    const std::int64_t held = out[i];
    out[i] = out[j];
    out[j] = held;
  }
}

// Permutation k of the epochs' condition labels (the two-condition contrast, spec §6.4): epoch e
// takes the label of epoch out[e].
inline void condition_permutation(std::uint64_t seed, std::uint64_t k, std::int64_t epochs, std::int64_t* out) {
  epoch_permutation(seed, k, epochs, out, 0x636f6e64ULL /* "cond" */);
}

// Permutation k of the m epochs of one block and condition (the trial-level test, spec §6.4): the
// epoch at position i of the block takes the amplitude of the epoch at position out[i]. `key` is
// rng::key(rng::key(seed, block), condition).
inline void trial_permutation(std::uint64_t key, std::uint64_t k, std::int64_t m, std::int64_t* out) {
  epoch_permutation(key, k, m, out, 0x747269616cULL /* "trial" */);
}

struct CellStats {
  double mean = 0;
  double std = 0;  // population (ddof 0)
  double z = 0;    // NaN where std == 0
  double p = 0;    // (1 + #{k: MI_k >= MI}) / (n + 1)
};

// One step of Welford's update of a running mean and sum of squared deviations m2 by value number
// k (from 0), in double or a vector of doubles (one cell per lane, the same bits in each).
template <class Real>
PACFLOW_HD_INLINE void welford_step(Real value, std::int64_t k, Real& mean, Real& m2) {
  const Real delta = value - mean;
  mean += delta / static_cast<double>(k + 1);
  m2 += delta * (value - mean);
}

// A cell's statistics from Welford's mean and m2 over n surrogate values, `exceed` of which are >=
// the observed value.
PACFLOW_HD inline CellStats finish_cell_stats(double observed, double mean, double m2, std::int64_t exceed,
                                              std::int64_t n) {
  CellStats s;
  s.mean = mean;
  s.std = std::sqrt(m2 / static_cast<double>(n));
  s.z = s.std > 0 ? (observed - s.mean) / s.std : NAN;
  s.p = static_cast<double>(1 + exceed) / static_cast<double>(n + 1);
  return s;
}

// Mean and population std (Welford's update, in double) over n surrogate values (stride apart in
// memory), z and the per-cell p-value.
PACFLOW_HD inline CellStats cell_stats(double observed, const double* surrogate, std::int64_t n, std::int64_t stride) {
  double mean = 0, m2 = 0;
  std::int64_t exceed = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const double v = surrogate[k * stride];
    welford_step(v, k, mean, m2);
    exceed += v >= observed ? 1 : 0;
  }
  return finish_cell_stats(observed, mean, m2, exceed, n);
}

// How the observed value is corrected by its surrogates (TensorPAC's normalisations 1–4).
enum class Norm { Subtract, Divide, Both, Z };

// subtract: x − mean; divide: x / mean; both: (x − mean) / mean; z: (x − mean) / std. NaN where the
// divisor is 0.
PACFLOW_HD inline double normalised(double observed, const CellStats& s, Norm norm) {
  switch (norm) {
    case Norm::Subtract: return observed - s.mean;
    case Norm::Divide: return s.mean != 0 ? observed / s.mean : NAN;
    case Norm::Both: return s.mean != 0 ? (observed - s.mean) / s.mean : NAN;
    case Norm::Z: return s.z;
  }
  return NAN;
}

}  // namespace pacflow::surrogates
