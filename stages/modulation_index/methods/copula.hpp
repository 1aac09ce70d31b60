#pragma once
// Copula normalisation (Ince et al. 2017, TensorPAC's copnorm): each value is replaced by the
// standard normal quantile of its rank, Φ⁻¹(r / (T + 1)) for ranks r = 1 … T. Ties are ranked in
// time order (TensorPAC's argsort is not stable, so exact ties may rank differently there).
#include <cstdint>
#include <vector>

namespace pacflow::mi {

class CopulaNormaliser {
 public:
  explicit CopulaNormaliser(std::int64_t length);  // tabulates the T quantiles once
  // out[t] = Φ⁻¹(rank of x[t] / (T + 1)); x must hold no NaN.
  void apply(const double* x, double* out) const;

 private:
  std::vector<double> quantiles_;  // [r − 1]
};

}  // namespace pacflow::mi
