#pragma once
// Gaussian-copula ERPAC (Ince et al. 2017; TensorPAC's EventRelatedPac.fit(method="gc")): at each
// time t, the mutual information in bits between (copnorm(sin φ), copnorm(cos φ)) and copnorm(A),
// each copula-normalised across the epochs at t (mi::CopulaNormaliser), under a Gaussian model
// (mi::gaussian_copula_mi: not demeaned, no bias correction, as TensorPAC's defaults). With
// smooth = s, MI_k pools the epochs' samples at times k − s … k + s, for k = s … T − s − 1, and time
// t takes the mean of the MI_k whose window holds it (NaN where none does), as TensorPAC's ergcpac.
#include <cstdint>
#include <optional>
#include <vector>

#include "stages/kernels/pac/methods/copula.hpp"

namespace pacflow::erpac {

// One variable's copula-normalised values across epochs, [epoch][time], with its own products
// summed over the epochs at each time (what a permutation of the other variable leaves alone).
struct Normalised {
  std::vector<double> a, b;      // b: sin φ's partner cos φ (phases), empty for an amplitude
  std::vector<double> aa, bb, ab;  // per time: Σ_e a², Σ_e b², Σ_e a b
};

class GaussianCopulaErpac {
 public:
  GaussianCopulaErpac(std::int64_t epochs, std::int64_t length, std::optional<std::int64_t> smooth);

  // Phases (sin and cos) or amplitudes of one band: epoch e's series at rows + e * stride.
  Normalised phases(const float* rows, std::int64_t stride) const;
  Normalised amplitudes(const float* rows, std::int64_t stride) const;
  // MI per time, into out[T], with epoch e's phase paired with epoch pairing[e]'s amplitude
  // (nullptr: its own).
  void information(const Normalised& phase, const Normalised& amplitude, const std::int64_t* pairing,
                   double* out) const;

 private:
  Normalised normalised(const float* rows, std::int64_t stride, bool phase) const;

  std::int64_t epochs_, length_;
  std::optional<std::int64_t> smooth_;
  mi::CopulaNormaliser copula_;
};

}  // namespace pacflow::erpac
