#include "engine/api/memory_budget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"

namespace pacflow {

std::size_t MemoryBudget::on_device(std::size_t device_bytes) const {
  const double want = fraction > 0 ? fraction * static_cast<double>(device_bytes) : bytes;
  return static_cast<std::size_t>(std::min(want, static_cast<double>(device_bytes)));
}

std::string MemoryBudget::text() const {
  if (fraction > 0) return fmt::format("{:g}% of the device", 100 * fraction);
  return fmt::format("{:.1f} MiB", bytes / 0x1p20);
}

MemoryBudget parse_memory_budget(const std::string& param, const json& value, bool require_unit) {
  const auto bad = [&](const std::string& why) -> MemoryBudget {
    throw ParamError(param, fmt::format("{}; write {}", why,
                                        require_unit ? "an amount with its unit, such as 8GB, 40GiB or 512MB, or a "
                                                       "share with a percent sign, such as 50%"
                                                     : "an amount such as 40GB, 40GiB, 512MB or 2e9 (bytes), or a "
                                                       "share of the device such as 0.5 or 80%"));
  };
  const auto from_number = [&](double v) {
    if (!(v > 0) || !std::isfinite(v)) return bad(fmt::format("{:g} is not a positive amount", v));
    if (v <= 1) return MemoryBudget{0, v};
    if (v < 1 << 20) return bad(fmt::format("{:g} bytes is less than 1 MiB", v));
    return MemoryBudget{v, 0};
  };
  const auto unitless = [&](const std::string& text) { return bad(fmt::format("\"{}\" has no unit", text)); };
  if (value.is_number()) return require_unit ? unitless(json_text(value)) : from_number(value.get<double>());
  if (!value.is_string()) return bad(fmt::format("{} is not a memory amount", json_text(value)));
  const std::string text = value.get<std::string>();
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    return bad(fmt::format("\"{}\" is not a memory amount", text));
  }
  if (!std::isfinite(number)) return bad(fmt::format("\"{}\" is not a finite amount", text));
  std::string unit = text.substr(used);
  unit.erase(std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }), unit.end());
  if (unit.empty()) return require_unit ? unitless(text) : from_number(number);
  if (unit == "%") {
    if (!(number > 0 && number <= 100))
      return bad(fmt::format("\"{}\" is not a share above 0% and at most 100%", text));
    return MemoryBudget{0, number / 100};
  }
  struct Unit {
    const char* name;
    double scale;
  };
  for (const Unit u : {Unit{"B", 1}, Unit{"KB", 1e3}, Unit{"MB", 1e6}, Unit{"GB", 1e9}, Unit{"TB", 1e12},
                       Unit{"KiB", 0x1p10}, Unit{"MiB", 0x1p20}, Unit{"GiB", 0x1p30}, Unit{"TiB", 0x1p40}})
    if (unit == u.name) {
      const double bytes = number * u.scale;
      if (!std::isfinite(bytes)) return bad(fmt::format("\"{}\" is beyond any machine's memory", text));
      if (!(bytes >= 0x1p20)) return bad(fmt::format("\"{}\" is less than 1 MiB", text));
      return MemoryBudget{bytes, 0};
    }
  return bad(fmt::format("unknown unit \"{}\" in \"{}\"", unit, text));
}

}  // namespace pacflow
