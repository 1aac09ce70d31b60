#include "engine/api/params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"

namespace pacflow {

std::string param_type_name(ParamType type) {
  switch (type) {
    case ParamType::Integer: return "integer";
    case ParamType::Number: return "number";
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Duration: return "duration";
    case ParamType::Spec: return "spec";
    case ParamType::NumberList: return "number list";
    case ParamType::OutputDir: return "output directory";
    case ParamType::OutputFile: return "output file";
    case ParamType::InputFile: return "input file";
    case ParamType::Device: return "device";
  }
  return "?";
}

bool ParamRange::contains(double v) const {
  if (min && (min_open ? !(v > *min) : !(v >= *min))) return false;
  if (max && (max_open ? !(v < *max) : !(v <= *max))) return false;
  return true;
}

std::string ParamRange::text() const {
  if (min && max) {
    std::string text = fmt::format("from {:g} to {:g}", *min, *max);
    if (min_open && max_open) return text + " (both excluded)";
    if (min_open) return text + fmt::format(" ({:g} excluded)", *min);
    if (max_open) return text + fmt::format(" ({:g} excluded)", *max);
    return text;
  }
  if (min) return fmt::format("{} {:g}", min_open ? "greater than" : "at least", *min);
  if (max) return fmt::format("{} {:g}", max_open ? "less than" : "at most", *max);
  return "";
}

std::string ParamSpec::constraint_text() const {
  if (!choices.empty()) return fmt::format("{}", fmt::join(choices, "|"));
  if (range.empty()) return "";
  const auto bound = [](double v, bool open, const char* open_sign, const char* closed_sign) {
    return fmt::format("{}{:g}", open ? open_sign : closed_sign, v);
  };
  if (range.min && range.max && !range.min_open && !range.max_open) return fmt::format("{:g} to {:g}", *range.min, *range.max);
  // fmt rather than string +: g++ 12's -Wrestrict misfires on the inlined concatenation at -O3.
  const std::string low = range.min ? bound(*range.min, range.min_open, ">", ">=") : "";
  const std::string high = range.max ? bound(*range.max, range.max_open, "<", "<=") : "";
  return fmt::format("{}{}{}", low, low.empty() || high.empty() ? "" : " ", high);
}

std::int64_t Duration::samples(double sample_rate) const {
  return static_cast<std::int64_t>(std::llround(samples_exact(sample_rate)));
}

Duration parse_duration(const std::string& param, const json& value) {
  constexpr const char* kForms = "a duration with its unit: 1s, 250ms, or 64smp (samples)";
  // A bare number could be samples or seconds (pactools' minimum_shift=1.0 is a second, an old
  // pacflow min_shift=1 a sample): refused, suggesting what was most likely meant.
  const auto bare = [&](const std::string& number) -> Duration {
    throw ParamError(param, fmt::format("{} has no unit; write {} ({}s?)", number, kForms, number));
  };
  if (value.is_number()) return bare(json_text(value));
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    std::string unit = text.substr(used);
    unit.erase(0, unit.find_first_not_of(' '));
    // std::stod also reads hexadecimal floats (0x1p3): only decimal numbers are durations.
    if (used > 0 && v >= 0 && std::isfinite(v) && text.substr(0, used).find_first_of("xXpP") == std::string::npos) {
      if (unit == "s") return {v, true};
      if (unit == "ms") return {v / 1000.0, true};
      if (unit == "smp" || unit == "samples") {
        if (v != std::floor(v))
          throw ParamError(param, fmt::format("a duration in samples must be a whole number, got {}", text));
        return {v, false};
      }
      if (unit.empty()) return bare(text);
    }
  }
  throw ParamError(param, fmt::format("expected {}, got {}", kForms, json_text(value)));
}

namespace {

// A whole number that fits in int64 exactly (floats only up to 2^53, where they stop being exact).
bool is_whole(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX);
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::abs(d) <= 9007199254740992.0;
}

void check_type(const ParamSpec& spec, const json& v) {
  auto fail = [&](const std::string& expected) {
    throw ParamError(spec.name, fmt::format("expected {}, got {}", expected, json_text(v)));
  };
  switch (spec.type) {
    case ParamType::Integer:
      if (!is_whole(v)) fail("an integer (at most 2^63 - 1, or 2^53 when written as a decimal)");
      break;
    case ParamType::Number:
      if (!v.is_number() || !std::isfinite(v.get<double>())) fail("a finite number");
      break;
    case ParamType::Boolean:
      if (!v.is_boolean()) fail("true or false");
      break;
    case ParamType::String:
    case ParamType::OutputDir:
    case ParamType::OutputFile:
    case ParamType::InputFile:
    case ParamType::Device:
      if (!v.is_string()) fail("a string");
      if (v.get<std::string>().empty()) fail("a non-empty string");
      break;
    case ParamType::Duration:
      parse_duration(spec.name, v);
      break;
    case ParamType::Spec:
      if (!v.is_string() && !v.is_array() && !v.is_number()) fail("a string or a list");
      break;
    case ParamType::NumberList:
      if (!v.is_array()) fail("a list of numbers such as [1, 2]");
      for (const auto& item : v)
        if (!item.is_number()) fail("a list of numbers such as [1, 2]");
      break;
  }
}

// The declared range of a number (each item of a number list) and the choices of a string.
void check_constraints(const ParamSpec& spec, const json& v) {
  const auto check_number = [&](const json& item) {
    if (!spec.range.contains(item.get<double>()))
      throw ParamError(spec.name, fmt::format("must be {}, got {}", spec.range.text(), json_text(item)));
  };
  if (!spec.range.empty()) {
    if (v.is_number()) check_number(v);
    if (spec.type == ParamType::NumberList)
      for (const auto& item : v) check_number(item);
  }
  if (!spec.choices.empty() && v.is_string() &&
      std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>()) == spec.choices.end()) {
    const std::string hint = suggest(v.get<std::string>(), spec.choices);
    throw ParamError(spec.name, fmt::format("must be one of {}, got \"{}\"{}", fmt::join(spec.choices, ", "),
                                            v.get<std::string>(), hint.empty() ? "" : "; " + hint));
  }
}

}  // namespace

Params::Params(const json& given, const std::vector<ParamSpec>& schema) {
  if (!given.is_null() && !given.is_object())
    throw ParamError("", "parameters must be key=value pairs");
  std::vector<std::string> names;
  for (const auto& spec : schema) names.push_back(spec.name);
  if (given.is_object()) {
    for (const auto& item : given.items()) {
      const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture those
      const json& value = item.value();
      const auto it = std::find_if(schema.begin(), schema.end(),
                                   [&](const ParamSpec& s) { return s.name == key; });
      if (it == schema.end()) {
        const std::string hint = suggest(key, names);
        throw ParamError(key, fmt::format("unknown parameter \"{}\"{}", key,
                                          hint.empty() ? "" : "; " + hint));
      }
      check_type(*it, value);
      check_constraints(*it, value);
      values_[key] = value;
    }
  }
  for (const auto& spec : schema) {
    if (values_.contains(spec.name)) continue;
    if (!spec.default_value.is_null())
      values_[spec.name] = spec.default_value;
    else if (!spec.optional)
      throw ParamError(spec.name, fmt::format("missing required parameter \"{}\" ({})", spec.name,
                                              spec.doc));
  }
}

bool Params::has(const std::string& name) const { return values_.contains(name); }

const json& Params::raw(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw ParamError(name, fmt::format("parameter \"{}\" is not set", name));
  return *it;
}

std::int64_t Params::integer(const std::string& name) const {
  const json& v = raw(name);
  return v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
}
double Params::number(const std::string& name) const { return raw(name).get<double>(); }
bool Params::boolean(const std::string& name) const { return raw(name).get<bool>(); }
std::string Params::string(const std::string& name) const { return raw(name).get<std::string>(); }
Duration Params::duration(const std::string& name) const { return parse_duration(name, raw(name)); }
std::vector<double> Params::number_list(const std::string& name) const {
  return raw(name).get<std::vector<double>>();
}

}  // namespace pacflow
