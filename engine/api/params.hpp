#pragma once
// Parameter schemas and validated parameter values.
// A value is JSON-shaped (number, string, boolean, list), as written in a `.pipe` file or in the DSL.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pacflow {

using json = nlohmann::json;

enum class ParamType {
  Integer,     // 12
  Number,      // 1.5
  Boolean,     // true | false
  String,      // "text" or a bare word
  Duration,    // a time ("1s", "250ms") or samples ("64smp"); a bare number is refused
  Spec,        // a string or a list, interpreted by the element (e.g. "2:20:10" or [[4,8]])
  NumberList,  // [1, 2, 3]
  OutputDir,   // a directory the element writes into (moved by `run --out DIR`)
  OutputFile,  // a file the element writes (moved into DIR by `run --out DIR`)
  InputFile,   // a file the element reads
  Device,      // cpu, cpu:0, …
};

std::string param_type_name(ParamType type);

// The values a number (an integer, a number, each item of a number list) may take.
struct ParamRange {
  std::optional<double> min;
  std::optional<double> max;
  bool min_open = false;  // min itself is refused
  bool max_open = false;
  bool empty() const { return !min && !max; }
  bool contains(double v) const;
  // "from 1 to 1000", "at least 1", "greater than 0", "from 0 to 1 (1 excluded)", …
  std::string text() const;
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::String;
  json default_value;  // null: no default (required unless `optional`)
  std::string unit;
  std::string doc;
  bool optional = false;  // may stay unset without a default
  ParamRange range = {};                // numbers: checked by Params
  std::vector<std::string> choices = {};  // strings: the only values accepted, checked by Params
  // What the range or the choices allow, for listings ("1 to 1000", "reject|zero|skip"); empty if
  // anything of the type goes.
  std::string constraint_text() const;
};

// A duration as written: a number of samples or a time in seconds.
struct Duration {
  double value = 0;
  bool seconds = false;
  // In samples; callers check the range first with samples_exact().
  std::int64_t samples(double sample_rate) const;
  double samples_exact(double sample_rate) const { return seconds ? value * sample_rate : value; }
};

// Parameter values checked against a schema: every key known, every type right, defaults filled.
class Params {
 public:
  Params() = default;
  // Throws ParamError naming the parameter: an unknown name (with a suggestion), a value of the
  // wrong type, out of its range or not one of its choices, a required one missing.
  Params(const json& given, const std::vector<ParamSpec>& schema);

  bool has(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  bool boolean(const std::string& name) const;
  std::string string(const std::string& name) const;
  Duration duration(const std::string& name) const;
  std::vector<double> number_list(const std::string& name) const;
  const json& raw(const std::string& name) const;
  // Every parameter with its (default-filled) value.
  const json& all() const { return values_; }

 private:
  json values_ = json::object();
};

// Parses "1s", "250ms", "2.5 s", "64smp" or "64 samples". Throws ParamError on anything else, a bare
// number included (with a hint: "1 has no unit; … (1s?)").
Duration parse_duration(const std::string& param, const json& value);

}  // namespace pacflow
