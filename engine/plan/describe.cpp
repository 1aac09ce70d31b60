// The plan's report: what validate() returns and what run()'s report starts from
// (engine/plan/built_pipeline.hpp).
#include <algorithm>
#include <fmt/format.h>
#include <oneapi/tbb/info.h>

#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/api/plan_report.hpp"

namespace pacflow::detail {

std::vector<PlannedSegment> describe_segments(const BuiltPipeline& built, const std::vector<Segment>& planned) {
  std::vector<PlannedSegment> segments;
  for (const Segment& seg : planned) {
    PlannedSegment entry;
    entry.batch_series = seg.batch_series;
    entry.batches = seg.batch_count;
    entry.gpu_bytes_per_batch = seg.gpu_bytes_per_batch;
    for (std::size_t s = seg.first_stage; s < seg.end_stage; ++s) entry.stages.push_back(built.stages[s].name);
    if (!seg.ring) {
      entry.max_in_flight = seg.slots;
    } else {
      const BuiltStage& into = built.stages[seg.first_stage];
      std::vector<SlotTensor> layout = into.crossing;
      PlannedRing ring{seg.first_stage ? built.stages[seg.first_stage - 1].name : built.source_name, into.name,
                       seg.slots, overflow_name(seg.overflow), lay_out_slot(layout, seg.batch_series), {}};
      for (const auto& t : layout) ring.tensors.push_back(t.name);
      entry.ring = std::move(ring);
    }
    segments.push_back(std::move(entry));
  }
  return segments;
}

Plan describe(const BuiltPipeline& built, std::int64_t batch_option, int in_flight_option) {
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());
  return describe(built, plan_segments(built, batch_option, in_flight_option, threads), threads);
}

namespace {

std::vector<PlannedElement> describe_elements(const BuiltPipeline& built) {
  std::vector<PlannedElement> elements;
  elements.push_back({ElementKind::Source, built.source_name, "", built.source_resolved, std::nullopt,
                      built.source_writes, std::nullopt});
  for (const auto& p : built.preprocessing)
    elements.push_back({ElementKind::Stage, p.name, "cpu, as the source reads", p.resolved, std::nullopt, std::nullopt,
                        std::nullopt});
  // A stage in a branch group runs beside the other stages of its group on each batch.
  for (std::size_t i = 0; i < built.stages.size(); ++i) {
    const BuiltStage& s = built.stages[i];
    elements.push_back({ElementKind::Stage, s.name, s.device, s.resolved, s.reads, s.writes,
                        group_containing(built.branches, i)});
  }
  for (const auto& s : built.sinks)
    elements.push_back({ElementKind::Sink, s.name, "", s.resolved, s.reads, std::nullopt, std::nullopt});
  return elements;
}

}  // namespace

Plan describe(const BuiltPipeline& built, const std::vector<Segment>& segments, int threads) {
  Plan plan;
  plan.version = engine_version();
  plan.input = {built.stream.description, built.stream.leading_dims, built.stream.leading_names,
                built.stream.sample_rate};
  plan.input.shape.push_back(built.stream.series_length);
  plan.input.dims.push_back("time");
  plan.facts = built.attributes;
  plan.elements = describe_elements(built);
  for (const BranchGroup& group : built.branches) {
    std::vector<std::string> names;
    for (std::size_t m = group.first; m < group.end; ++m) names.push_back(built.stages[m].name);
    plan.branches.push_back(std::move(names));
  }
  plan.tensors = built.tensors;
  plan.warnings = built.warnings;
  for (const auto& s : built.stages)
    for (const auto& d : s.devices)
      if (std::find(plan.devices.begin(), plan.devices.end(), d.name()) == plan.devices.end())
        plan.devices.push_back(d.name());
  const std::map<int, std::size_t> budgets = gpu_budgets(built);
  for (const auto& s : built.stages)
    if (s.in_device_memory())
      for (const auto& d : s.devices) plan.gpu_memory_budget_bytes[d.name()] = budgets.at(d.index);
  plan.segments = describe_segments(built, segments);
  plan.host_memory = estimate_host_memory(built, segments, threads);
  plan.batch_multiple = built.batch_multiple;
  plan.batch_multiple_by = built.batch_multiple_by;
  return plan;
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
