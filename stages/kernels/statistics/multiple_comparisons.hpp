#pragma once
// Corrections of a family of p-values for multiple comparisons, as MNE-Python's (which TensorPAC's
// EventRelatedPac calls): Benjamini–Hochberg FDR (fdr_correction, method "indep") and Bonferroni.
// NaN p-values stay NaN and are not counted in the family.
#include <span>

namespace pacflow::erpac {

enum class Correction { None, Fdr, Bonferroni };

// FDR: p_(i) · m / i in ascending order, then the running minimum from the largest down, capped at 1.
// Bonferroni: min(p · m, 1).
void correct(std::span<double> p, Correction correction);

}  // namespace pacflow::erpac
