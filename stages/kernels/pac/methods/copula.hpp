#pragma once
// Copula normalisation (Ince et al. 2017, TensorPAC's copnorm): each value is replaced by the
// standard normal quantile of its rank, Φ⁻¹(r / (T + 1)) for ranks r = 1 … T. Equal values share
// the mean of the quantiles of the ranks they span, so the result depends on the values only: the
// normalised circular shift of a series is the circular shift of the normalised series, and
// surrogates need no new ranking. (TensorPAC ranks ties in argsort's arbitrary order.)
#include <cstdint>
#include <vector>

namespace pacflow::mi {

class CopulaNormaliser {
 public:
  explicit CopulaNormaliser(std::int64_t length);  // tabulates the T quantiles once
  // out[t] = Φ⁻¹(rank of x[t] / (T + 1)), ties averaged; x must hold no NaN.
  void apply(const double* x, double* out) const;
  void apply(const float* x, double* out) const;  // the same ranks, sorted by 4-byte keys
  // The same for sin φ and cos φ (in double, of each float φ): one sort of the angles, merged into
  // the orders of the sines and of the cosines.
  void apply_sin_cos(const float* phase, double* sines, double* cosines) const;

 private:
  // out[order[r]] = quantile r, ties (equal x) averaged; order sorts x ascending.
  template <typename Value>
  void assign(const Value* x, const std::uint32_t* order, double* out) const;

  std::vector<double> quantiles_;  // [r − 1]
};

}  // namespace pacflow::mi
