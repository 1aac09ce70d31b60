#include "stages/kernels/filters/bands.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "engine/api/errors.hpp"

namespace pacflow::bands {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

double to_number(const std::string& param, const std::string& text, const std::string& spec) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v))
    throw ParamError(param, fmt::format("\"{}\" in band specification \"{}\" is not a number", text, spec));
  return v;
}

std::vector<double> linspace(double lo, double hi, long n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  if (n == 1) {
    out[0] = lo;
    return out;
  }
  const double step = (hi - lo) / static_cast<double>(n - 1);
  for (long i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = lo + static_cast<double>(i) * step;
  out.back() = hi;  // numpy.linspace ends exactly on `hi`
  return out;
}

// Bands centred on `centres` (half-width c/4 for phase, c/8 for amplitude) that span [lo, hi].
BandSpec from_centres(const std::vector<double>& centres, Role role, double lo, double hi) {
  const double half = role == Role::Phase ? 4.0 : 8.0;
  BandSpec out{{}, std::array<double, 2>{lo, hi}};
  for (double c : centres) out.bands.push_back({c - c / half, c + c / half, c});
  return out;
}

// numpy.arange(start, stop, step) for float64, value for value: its length is
// ceil((stop - start) / step), its second value start + step, and every later one start + i·delta
// with delta = (start + step) - start (NumPy's DOUBLE_fill), so 6 + 10·0.2 comes out as
// 8.000000000000002, as TensorPAC's band edges (and filter orders) have it.
std::vector<double> numpy_arange(double start, double stop, double step) {
  const double length = std::ceil((stop - start) / step);
  if (!(length > 0)) return {};
  std::vector<double> out(static_cast<std::size_t>(length));
  out[0] = start;
  if (out.size() > 1) out[1] = start + step;
  const double delta = (start + step) - start;
  for (std::size_t i = 2; i < out.size(); ++i) out[i] = start + static_cast<double>(i) * delta;
  return out;
}

long band_count(const std::string& param, double n, const std::string& spec) {
  if (n < 1 || n != std::floor(n) || n > 100000)
    throw ParamError(param, fmt::format("band count in \"{}\" must be a whole number from 1 to 100000", spec));
  return static_cast<long>(n);
}

BandSpec from_string(const std::string& param, const std::string& spec, Role role) {
  struct Preset { const char* name; long n; };
  static constexpr Preset presets[] = {{"lres", 10}, {"mres", 30}, {"hres", 50}, {"demon", 70}, {"hulk", 100}};
  for (const auto& p : presets) {
    if (spec == p.name) {
      const double lo = role == Role::Phase ? 2 : 60;
      const double hi = role == Role::Phase ? 20 : 160;
      return from_centres(linspace(lo, hi, p.n), role, lo, hi);
    }
  }
  std::vector<std::string> parts = split(spec, ':');
  const bool log = !parts.empty() && parts.front() == "log";
  if (log) parts.erase(parts.begin());
  std::vector<double> v;
  for (const auto& part : parts) v.push_back(to_number(param, part, spec));

  if (v.size() == 3) {
    const double lo = v[0], hi = v[1];
    const long n = band_count(param, v[2], spec);
    if (!(lo > 0) || !(hi >= lo))
      throw ParamError(param, fmt::format("\"{}\": need 0 < lo <= hi", spec));
    std::vector<double> centres;
    if (log) {
      for (double e : linspace(std::log10(lo), std::log10(hi), n)) centres.push_back(std::pow(10.0, e));
    } else {
      centres = linspace(lo, hi, n);
    }
    return from_centres(centres, role, lo, hi);
  }
  if (v.size() == 4 && !log) {
    // TensorPAC's (start, stop, width, step), as its _pair_vectors computes it:
    // lows = np.arange(start, stop - width, step), highs = np.arange(start + width, stop, step).
    const double start = v[0], stop = v[1], width = v[2], step = v[3];
    if (!(step > 0) || !(width > 0))
      throw ParamError(param, fmt::format("\"{}\": width and step must be > 0", spec));
    const double count = std::ceil((stop - width - start) / step);
    if (!(count >= 1)) throw ParamError(param, fmt::format("\"{}\" gives no band (start >= stop - width)", spec));
    band_count(param, count, spec);
    const std::vector<double> lows = numpy_arange(start, stop - width, step);
    const std::vector<double> highs = numpy_arange(start + width, stop, step);
    if (lows.size() != highs.size())
      throw ParamError(param, fmt::format("\"{}\" gives {} low edges but {} high edges in floating point (TensorPAC "
                                          "fails on it too); nudge stop or step",
                                          spec, lows.size(), highs.size()));
    BandSpec out;
    for (std::size_t i = 0; i < lows.size(); ++i) out.bands.push_back({lows[i], highs[i]});
    return out;
  }
  throw ParamError(param, fmt::format(
      "cannot read band specification \"{}\"; use lo:hi:n, log:lo:hi:n, start:stop:width:step, "
      "a preset (lres, mres, hres, demon, hulk) or a list such as [[4,8],[8,12]]", spec));
}

}  // namespace

std::vector<Band> BandSpec::resolved(bool clamp) const {
  if (!clamp || !centred_range) return bands;
  const auto [lo, hi] = *centred_range;
  std::vector<Band> out = bands;
  for (Band& b : out) {
    b.lo = std::max(b.lo, std::max(lo, 0.5));
    b.hi = std::min(b.hi, hi);
  }
  return out;
}

BandSpec parse(const std::string& param, const json& spec, Role role) {
  if (spec.is_string()) return from_string(param, spec.get<std::string>(), role);
  if (spec.is_array() && !spec.empty()) {
    BandSpec out;
    // A single pair [4, 8] is one band.
    if (spec.size() == 2 && spec[0].is_number() && spec[1].is_number())
      return {{{spec[0].get<double>(), spec[1].get<double>()}}};
    for (std::size_t i = 0; i < spec.size(); ++i) {
      const json& b = spec[i];
      if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number())
        throw ParamError(param, fmt::format("band {} is {}; each band is a pair [f_lo, f_hi] in Hz", i, b.dump()));
      out.bands.push_back({b[0].get<double>(), b[1].get<double>()});
    }
    return out;
  }
  throw ParamError(param, fmt::format("expected a band specification such as 2:20:10 or [[4,8],[8,12]], got {}",
                                      spec.dump()));
}

std::vector<Band> resolve(const std::string& param, const json& spec, Role role, bool clamp) {
  return parse(param, spec, role).resolved(clamp);
}

void check_against_nyquist(const std::string& param, const std::vector<Band>& list, double fs) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Band& b = list[i];
    const std::string which = fmt::format("band {} [{:g}, {:g}] Hz", i, b.lo, b.hi);
    if (!(b.lo > 0)) throw ParamError(param, fmt::format("{}: its low edge must be above 0 Hz", which));
    if (!(b.lo < b.hi)) throw ParamError(param, fmt::format("{}: its low edge must be below its high edge", which));
    if (!(b.hi < fs / 2))
      throw ParamError(param, fmt::format("{}: its high edge must be below Nyquist (fs/2 = {:g} Hz)", which, fs / 2));
  }
}

std::vector<double> centres(const std::vector<Band>& list) {
  std::vector<double> out;
  for (const auto& b : list) out.push_back(b.centre());
  return out;
}

std::vector<std::array<double, 2>> edges(const std::vector<Band>& list) {
  std::vector<std::array<double, 2>> out;
  for (const auto& b : list) out.push_back({b.lo, b.hi});
  return out;
}

}  // namespace pacflow::bands
