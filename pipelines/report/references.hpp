#pragma once
// The works a methods paragraph may cite (docs/methods.md, "References"), and a list that records
// which ones a paragraph cited, so its reference list holds exactly those.
#include <string>
#include <vector>

namespace pacflow::report {

enum class Work {
  Tort2010,               // modulation index; swap-trials surrogates
  Canolty2006,            // mean vector length; time-shifted surrogates and z-scores
  Ozkurt2012,             // normalised direct PAC
  Penny2008,              // phase-locking value of the envelope's phase
  Lachaux1999,            // phase-locking value
  Lakatos2005,            // heights ratio
  Ince2017,               // Gaussian-copula mutual information
  Voytek2013,             // event-related PAC
  Combrisson2020,         // TensorPAC: band and filter definitions
  NicholsHolmes2002,      // maximum statistic (max-T) permutation tests
  PhipsonSmyth2010,       // permutation p-values never zero
  BenjaminiHochberg1995,  // false discovery rate
  Janssen1997,            // studentised permutation tests
  ChungRomano2013,        // permutation tests robust to unequal variances
  Aru2015,                // evoked responses and induced coupling
};

// "Tort et al. 2010": the name the text cites a work by.
std::string in_text(Work work);
// "Tort ABL, Komorowski R, Eichenbaum H, Kopell N (2010) Measuring … J Neurophysiol 104:1195–1210."
std::string full_reference(Work work);

// The works a text cites, each once.
class Citations {
 public:
  // The work's in-text name, recorded as cited.
  std::string cite(Work work);
  // "Tort et al. 2010; Nichols and Holmes 2002", each recorded.
  std::string cite(const std::vector<Work>& works);
  // Full references of the cited works, in alphabetical order (author-year style).
  std::vector<std::string> list() const;
  bool cited(Work work) const;

 private:
  std::vector<Work> cited_;
};

}  // namespace pacflow::report
