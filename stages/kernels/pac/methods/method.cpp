#include "stages/kernels/pac/methods/method.hpp"

#include <array>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numbers>
#include <oneapi/tbb/parallel_for.h>
#include <stdexcept>

#include "engine/api/errors.hpp"

namespace pacflow::mi {

namespace {

struct MethodInfo {
  MethodKind kind;
  const char* name;
  const char* title;
  const char* measure;
};

constexpr std::array<MethodInfo, 6> kMethods = {{
    {MethodKind::Tort, "tort", "Tort modulation index", "MI"},
    {MethodKind::Mvl, "mvl", "mean vector length", "MVL"},
    {MethodKind::Ndpac, "ndpac", "normalised direct PAC", "ndPAC"},
    {MethodKind::Plv, "plv", "phase-locking value", "PLV"},
    {MethodKind::Hr, "hr", "heights ratio", "HR"},
    {MethodKind::Gc, "gc", "Gaussian-copula PAC", "GC (bits)"},
}};

const MethodInfo& info_of(MethodKind kind) {
  for (const auto& m : kMethods)
    if (m.kind == kind) return m;
  throw std::logic_error("unknown method kind");
}

}  // namespace

const std::vector<std::string>& method_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& m : kMethods) out.emplace_back(m.name);
    return out;
  }();
  return names;
}

MethodKind parse_method(const std::string& name) {
  for (const auto& m : kMethods)
    if (name == m.name) return m.kind;
  const std::string hint = suggest(name, method_names());
  throw ParamError("method", fmt::format("unknown method \"{}\"; valid: {}{}", name, fmt::join(method_names(), ", "),
                                         hint.empty() ? "" : " (" + hint + ")"));
}

std::string method_name(MethodKind kind) { return info_of(kind).name; }
std::string method_title(MethodKind kind) { return info_of(kind).title; }
std::string method_measure(MethodKind kind) { return info_of(kind).measure; }
bool needs_envelope_phase(MethodKind kind) { return kind == MethodKind::Plv; }

json MethodSettings::to_json() const {
  return {{"method", method_name(kind)}, {"bins", bins}, {"ndpac_p", ndpac_p}, {"gc_unbiased", gc_unbiased}};
}

MethodSettings MethodSettings::from_json(const json& j) {
  MethodSettings s;
  s.kind = parse_method(j.at("method").get<std::string>());
  s.bins = j.at("bins").get<int>();
  s.ndpac_p = j.at("ndpac_p").get<double>();
  s.gc_unbiased = j.at("gc_unbiased").get<bool>();
  return s;
}

double ndpac_threshold(double p, std::int64_t length) {
  const double e = boost::math::erf_inv(1.0 - p);
  return 2.0 * static_cast<double>(length) * e * e;
}

void Method::evaluate_many(std::span<const PairView> phases, std::span<const AmplitudeJob> jobs,
                           const std::stop_token& stop) const {
  for (const AmplitudeJob& job : jobs)
    if (job.phase >= phases.size()) throw std::invalid_argument("evaluate_many: a job names a phase the call lacks");
  oneapi::tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t j) {
    PairView pair = phases[jobs[j].phase];
    pair.amplitude = jobs[j].amplitude;
    pair.envelope_phase = jobs[j].envelope_phase;
    evaluate(pair, jobs[j].shifts, jobs[j].out, stop);
  });
  // A job that saw the stop may have thrown into an already cancelled task group, which drops it.
  if (stop.stop_requested()) throw RunCancelled(-1);
}

std::unique_ptr<Method> make_method(const MethodSettings& settings, std::int64_t length) {
  switch (settings.kind) {
    case MethodKind::Tort: return detail::make_tort(settings.bins);
    case MethodKind::Hr: return detail::make_heights_ratio(settings.bins);
    case MethodKind::Mvl: return detail::make_mean_vector_length();
    case MethodKind::Ndpac: {
      const double p = settings.ndpac_p;
      if (!(p > 0 && p <= 1)) throw ParamError("ndpac_p", fmt::format("must be in (0, 1], got {}", p));
      return detail::make_normalised_direct_pac(ndpac_threshold(p, length));
    }
    case MethodKind::Plv: return detail::make_phase_locking_value();
    case MethodKind::Gc: {
      if (length < 4) throw InputError("gc needs series of at least 4 samples");
      // Bias of the Gaussian entropy estimates (Ince et al. 2017, TensorPAC's nd_mi_gg with
      // MI_BIASCORRECT): for 2 + 1 variables it sums to ψ((T − 3)/2)/2 − ψ((T − 1)/2)/2 nats.
      const auto n = static_cast<double>(length);
      const double bias = settings.gc_unbiased
                              ? (boost::math::digamma((n - 3.0) / 2.0) - boost::math::digamma((n - 1.0) / 2.0)) /
                                    (2.0 * std::numbers::ln2)
                              : 0.0;
      return detail::make_gaussian_copula(length, bias);
    }
  }
  throw std::logic_error("unknown method kind");
}

}  // namespace pacflow::mi
