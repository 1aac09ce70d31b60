#include "pipelines/report/validity.hpp"

#include <algorithm>
#include <cmath>

namespace pacflow::report {

namespace {

std::vector<BandValidity> bands_of(const BandSet& set, const InputFacts& input, std::int64_t window) {
  std::vector<BandValidity> out;
  for (std::size_t k = 0; k < set.edges.size(); ++k) {
    BandValidity b;
    b.lo_hz = set.edges[k][0];
    b.hi_hz = set.edges[k][1];
    b.centre_hz = k < set.centres.size() ? set.centres[k] : (b.lo_hz + b.hi_hz) / 2;
    if (k < set.orders.size()) {
      b.order = set.orders[k];
      b.order_asked = static_cast<std::int64_t>(set.cycles * std::floor(input.sample_rate_hz / b.lo_hz));
      // The context read past each end of the window absorbs that much of the filter's reach.
      const std::int64_t reach = std::max<std::int64_t>(0, b.order - input.pad_samples);
      b.edge_samples = std::min(window, 2 * reach);
      b.edge_fraction = window > 0 ? static_cast<double>(b.edge_samples) / static_cast<double>(window) : 0;
    }
    b.cycles = b.centre_hz * static_cast<double>(window) / input.sample_rate_hz;
    out.push_back(b);
  }
  return out;
}

}  // namespace

std::string Validity::flags(std::size_t pha, std::size_t amp) const {
  std::string out;
  if (few_cycles(pha)) out += 'C';
  if (narrow_amplitude(pha, amp)) out += 'B';
  if (phase[pha].edges_dominate() || amplitude[amp].edges_dominate()) out += 'E';
  if (phase[pha].order_cut() || amplitude[amp].order_cut()) out += 'O';
  if (pha < non_sinusoidal.size() && non_sinusoidal[pha]) out += 'W';
  return out;
}

std::int64_t Validity::cells_flagged(char flag) const {
  std::int64_t n = 0;
  for (std::size_t p = 0; p < phase.size(); ++p)
    for (std::size_t a = 0; a < amplitude.size(); ++a) n += flags(p, a).find(flag) != std::string::npos ? 1 : 0;
  return n;
}

Validity validity_of(const RunFacts& facts) {
  Validity v;
  v.samples = facts.input.samples;
  v.sample_rate_hz = facts.input.sample_rate_hz;
  if (!facts.filters || v.sample_rate_hz <= 0) return v;
  v.phase = bands_of(facts.filters->phase, facts.input, v.samples);
  v.amplitude = bands_of(facts.filters->amplitude, facts.input, v.samples);
  return v;
}

}  // namespace pacflow::report
