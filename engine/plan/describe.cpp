// The plan's report: what validate() returns and what run()'s report starts from
// (engine/plan/built_pipeline.hpp).
#include <algorithm>
#include <fmt/format.h>
#include <oneapi/tbb/info.h>

#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/memory_estimate.hpp"

namespace pacflow::detail {

json describe_segments(const BuiltPipeline& built, const std::vector<Segment>& planned) {
  json segments = json::array();
  for (const Segment& seg : planned) {
    json stages = json::array();
    for (std::size_t s = seg.first_stage; s < seg.end_stage; ++s) stages.push_back(built.stages[s].name);
    json entry = {{"stages", stages}, {"batch_series", seg.batch_series}, {"batches", seg.batch_count}};
    if (seg.gpu_bytes_per_batch > 0) entry["gpu_bytes_per_batch"] = seg.gpu_bytes_per_batch;
    if (!seg.ring) {
      entry["max_in_flight"] = seg.slots;
    } else {
      const BuiltStage& into = built.stages[seg.first_stage];
      std::vector<SlotTensor> layout = into.crossing;
      json tensors = json::array();
      for (const auto& t : layout) tensors.push_back(t.name);
      entry["ring"] = {{"from", seg.first_stage ? built.stages[seg.first_stage - 1].name : built.source_name},
                       {"into", into.name},
                       {"capacity", seg.slots},
                       {"overflow", overflow_name(seg.overflow)},
                       {"slot_bytes", lay_out_slot(layout, seg.batch_series)},
                       {"tensors", tensors}};
    }
    segments.push_back(entry);
  }
  return segments;
}

json describe(const BuiltPipeline& built, std::int64_t batch_option, int in_flight_option) {
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());
  return describe(built, plan_segments(built, batch_option, in_flight_option, threads), threads);
}

json describe(const BuiltPipeline& built, const std::vector<Segment>& segments, int threads) {
  json report;
  report["version"] = engine_version();
  report["input"] = built.stream.description;
  report["input"]["shape"] = built.stream.leading_dims;
  report["input"]["shape"].push_back(built.stream.series_length);
  report["input"]["dims"] = built.stream.leading_names;
  report["input"]["dims"].push_back("time");
  report["input"]["sample_rate_hz"] = built.stream.sample_rate;
  // Facts published by the stages (band edges, …) sit at the top level.
  for (const auto& [key, value] : built.attributes.items()) report[key] = value;
  json elements = json::array();
  elements.push_back({{"kind", "source"},
                      {"name", built.source_name},
                      {"params", built.source_resolved},
                      {"writes", built.source_writes}});
  for (const auto& p : built.preprocessing)
    elements.push_back({{"kind", "stage"}, {"name", p.name}, {"device", "cpu, as the source reads"}, {"params", p.resolved}});
  for (std::size_t i = 0; i < built.stages.size(); ++i) {
    const BuiltStage& s = built.stages[i];
    json entry = {{"kind", "stage"}, {"name", s.name},     {"device", s.device},
                  {"params", s.resolved}, {"reads", s.reads}, {"writes", s.writes}};
    // It runs beside the other stages of its group on each batch.
    if (const auto group = group_containing(built.branches, i)) entry["branch_group"] = *group;
    elements.push_back(std::move(entry));
  }
  json branches = json::array();
  for (const BranchGroup& group : built.branches) {
    json names = json::array();
    for (std::size_t m = group.first; m < group.end; ++m) names.push_back(built.stages[m].name);
    branches.push_back(std::move(names));
  }
  for (const auto& s : built.sinks)
    elements.push_back({{"kind", "sink"}, {"name", s.name}, {"params", s.resolved}, {"reads", s.reads}});
  report["pipeline"] = elements;
  report["branches"] = branches;
  report["tensors"] = built.tensors;
  report["warnings"] = built.warnings;
  // Every device the stages use, in first use order.
  json devices = json::array();
  for (const auto& s : built.stages)
    for (const auto& d : s.devices)
      if (std::find(devices.begin(), devices.end(), d.name()) == devices.end()) devices.push_back(d.name());
  report["devices"] = devices;
  const std::map<int, std::size_t> budgets = gpu_budgets(built);
  if (!budgets.empty()) {
    json gpu = json::object();
    for (const auto& s : built.stages)
      if (s.in_device_memory())
        for (const auto& d : s.devices) gpu[d.name()] = budgets.at(d.index);
    report["gpu_memory_budget_bytes"] = gpu;
  }
  report["segments"] = describe_segments(built, segments);
  report["host_memory_estimate"] = estimate_host_memory(built, segments, threads).to_json();
  if (built.batch_multiple > 1)
    report["batch_multiple"] = {{"series", built.batch_multiple}, {"required_by", built.batch_multiple_by}};
  return report;
}

std::map<int, std::size_t> gpu_budgets(const BuiltPipeline& built) {
  std::map<int, std::size_t> budgets;
  std::map<int, std::size_t> device_bytes;
  for (const auto& stage : built.stages) {
    if (!stage.in_device_memory()) continue;
    for (const auto& d : stage.devices) {
      device_bytes[d.index] = stage.backend().memory_bytes(d.index);
      const auto [it, first] = budgets.try_emplace(d.index, 0);
      if (!stage.vram.given()) continue;
      const std::size_t mine = stage.vram.on_device(device_bytes[d.index]);
      it->second = it->second == 0 ? mine : std::min(it->second, mine);
    }
  }
  for (auto& [index, bytes] : budgets)
    if (bytes == 0)
      bytes = built.vram.given() ? built.vram.on_device(device_bytes[index])
                                 : static_cast<std::size_t>(0.9 * static_cast<double>(device_bytes[index]));
  return budgets;
}

}  // namespace pacflow::detail
