#pragma once
// Coordinates: vectors that label an axis of the results (erpac's time of each sample), published by
// a stage as the attribute `coordinates` {name: {start, step, count, unit, doc}} (compact in
// result.json) and written by the npy and hdf5 sinks as float64 arrays <name>.npy and /<name>.
#include <string>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

struct Coordinate {
  std::string name;
  std::vector<double> values;  // start + k step, k < count
  std::string unit;
  std::string doc;
};

// Publishes a coordinate among `ctx`'s attributes.
void publish_coordinate(PlanContext& ctx, const std::string& name, double start, double step, std::int64_t count,
                        const std::string& unit, const std::string& doc);
// The coordinates published before a sink (none when there are none).
std::vector<Coordinate> coordinates_of(const PlanContext& ctx);

}  // namespace pacflow::stages
