#pragma once
// Frequency band specifications (spec §2): "lo:hi:n", "log:lo:hi:n", "start:stop:width:step",
// presets (lres … hulk) and explicit lists [[4,8],[8,12]].
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow::bands {

struct Band {
  double lo = 0;
  double hi = 0;
  double nominal = 0;  // the centre a centred spec asked for (edges may be clamped); 0: none
  double centre() const { return nominal > 0 ? nominal : (lo + hi) / 2; }
};

enum class Role { Phase, Amplitude };

// A band parameter read: its bands as specified and, for a centred form (lo:hi:n, log:lo:hi:n, a
// preset), the range [lo, hi] its centres span.
struct BandSpec {
  std::vector<Band> bands;
  std::optional<std::array<double, 2>> centred_range = std::nullopt;
  // The bands; with `clamp`, a centred form's edges limited to [max(lo, 0.5), hi] (gPAC's rule).
  std::vector<Band> resolved(bool clamp) const;
};

// Reads a specification. `param` names the parameter in errors (ParamError). Centred forms use
// half-width c/4 (phase) or c/8 (amplitude).
BandSpec parse(const std::string& param, const json& spec, Role role);
// parse for a role, as a parameter binding takes it (ParamBinder::parsed).
inline auto parser(Role role) {
  return [role](const std::string& param, const json& spec) { return parse(param, spec, role); };
}
// parse(param, spec, role).resolved(clamp).
std::vector<Band> resolve(const std::string& param, const json& spec, Role role, bool clamp);

// Rejects any band breaking 0 < lo < hi < fs/2, naming the band and the rule. Throws ParamError.
void check_against_nyquist(const std::string& param, const std::vector<Band>& bands, double fs);

// [lo, hi] of each band, and each band's centre.
std::vector<std::array<double, 2>> edges(const std::vector<Band>& bands);
std::vector<double> centres(const std::vector<Band>& bands);

}  // namespace pacflow::bands
