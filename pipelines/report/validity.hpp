#pragma once
// Validity diagnostics of a run's comodulogram, per band and per cell, from its report: what a
// reviewer asks before believing a cell. Each rule is stated with its source in docs/report.md:
//   - cycles: the phase band's centre frequency times the analysed window: fewer than kMinCycles
//     cycles sample its phase distribution poorly (Tort et al. 2010; Aru et al. 2015);
//   - bandwidth: an amplitude band narrower than twice the phase frequency cannot hold the sidebands
//     f_amp ± f_pha that coupling puts in its spectrum (Aru et al. 2015);
//   - edges: samples within one filter length of either end of the window (where filtfilt's padding,
//     not the data, shapes the filtered signal), net of the context read past the window;
//   - order: a filter order cut below cycles × floor(fs / f_lo) because the series is short (spec §3);
//   - waveform: the phase band's rhythm is not a sinusoid (waveform_shape.hpp), when stage waveform ran.
#include <cstdint>
#include <string>
#include <vector>

#include "pipelines/report/run_facts.hpp"

namespace pacflow::report {

inline constexpr double kMinCycles = 10;          // phase cycles in the analysed window
inline constexpr double kMaxEdgeFraction = 0.25;  // of the window within one filter length of an end

struct BandValidity {
  double lo_hz = 0, hi_hz = 0, centre_hz = 0;
  std::int64_t order = 0;        // the filter order used (0: bands given, no filter)
  std::int64_t order_asked = 0;  // cycles × floor(fs / lo): what the band's cycles ask for
  std::int64_t edge_samples = 0;  // of the window, within one filter length of either end
  double edge_fraction = 0;       // edge_samples / window samples
  double cycles = 0;              // centre × window length (phase bands)

  bool order_cut() const { return order > 0 && order < order_asked; }
  bool edges_dominate() const { return edge_fraction > kMaxEdgeFraction; }
};

struct Validity {
  std::int64_t samples = 0;  // the analysed window, per series
  double sample_rate_hz = 0;
  std::vector<BandValidity> phase, amplitude;
  std::vector<bool> non_sinusoidal;  // per phase band, where stage waveform measured it (else empty)

  bool few_cycles(std::size_t pha) const { return phase[pha].cycles < kMinCycles; }
  // Aru et al. (2015): the amplitude band must hold f_amp ± f_pha.
  bool narrow_amplitude(std::size_t pha, std::size_t amp) const {
    return amplitude[amp].hi_hz - amplitude[amp].lo_hz < 2 * phase[pha].centre_hz;
  }
  // Every rule a cell breaks, as the letters the report's legend explains (C, B, E, O, W), "" for none.
  std::string flags(std::size_t pha, std::size_t amp) const;
  // Cells that break `flag`'s rule.
  std::int64_t cells_flagged(char flag) const;
};

// No bands without a filter stage; given bands (given_bands) have no filter orders or edges.
Validity validity_of(const RunFacts& facts);

}  // namespace pacflow::report
