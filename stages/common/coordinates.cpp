#include "stages/common/coordinates.hpp"

namespace pacflow::stages {

namespace {
constexpr const char* kCoordinates = "coordinates";
}

void publish_coordinate(PlanContext& ctx, const std::string& name, double start, double step, std::int64_t count,
                        const std::string& unit, const std::string& doc) {
  ctx.attributes()[kCoordinates][name] = {
      {"start", start}, {"step", step}, {"count", count}, {"unit", unit}, {"doc", doc}};
}

std::vector<Coordinate> coordinates_of(const PlanContext& ctx) {
  std::vector<Coordinate> out;
  const json& attrs = ctx.attributes();
  if (!attrs.contains(kCoordinates)) return out;
  for (const auto& [name, c] : attrs[kCoordinates].items()) {
    Coordinate coordinate{name, {}, c.value("unit", ""), c.value("doc", "")};
    const double start = c.at("start").get<double>(), step = c.at("step").get<double>();
    const auto count = c.at("count").get<std::int64_t>();
    // start + k step for each k (not a running sum, which would gather rounding errors).
    for (std::int64_t k = 0; k < count; ++k) coordinate.values.push_back(start + static_cast<double>(k) * step);
    out.push_back(std::move(coordinate));
  }
  return out;
}

}  // namespace pacflow::stages
