#include "engine/api/plan_report.hpp"

namespace pacflow {

json PlannedInput::to_json() const {
  json out = description;
  out["shape"] = shape;
  out["dims"] = dims;
  out["sample_rate_hz"] = sample_rate_hz;
  return out;
}

json PlannedElement::to_json() const {
  json out{{"kind", kind_name(kind)}, {"name", name}, {"params", params}};
  if (!device.empty()) out["device"] = device;
  if (reads) out["reads"] = *reads;
  if (writes) out["writes"] = *writes;
  if (branch_group) out["branch_group"] = *branch_group;
  return out;
}

json PlannedSegment::to_json() const {
  json out{{"stages", stages}, {"batch_series", batch_series}, {"batches", batches}};
  if (gpu_bytes_per_batch > 0) out["gpu_bytes_per_batch"] = gpu_bytes_per_batch;
  if (!ring) {
    out["max_in_flight"] = max_in_flight;
  } else {
    out["ring"] = {{"from", ring->from},         {"into", ring->into},
                   {"capacity", ring->capacity}, {"overflow", ring->overflow},
                   {"slot_bytes", ring->slot_bytes}, {"tensors", ring->tensors}};
  }
  return out;
}

json Plan::to_json() const {
  json out;
  out["version"] = version;
  out["input"] = input.to_json();
  // Facts published by the stages (band edges, …) sit at the top level.
  for (const auto& [key, value] : facts.items()) out[key] = value;
  json listed = json::array();
  for (const auto& e : elements) listed.push_back(e.to_json());
  out["pipeline"] = std::move(listed);
  out["branches"] = branches;
  out["tensors"] = tensors;
  out["warnings"] = warnings;
  out["devices"] = devices;
  if (!gpu_memory_budget_bytes.empty()) out["gpu_memory_budget_bytes"] = gpu_memory_budget_bytes;
  json planned = json::array();
  for (const auto& s : segments) planned.push_back(s.to_json());
  out["segments"] = std::move(planned);
  out["host_memory_estimate"] = host_memory.to_json();
  if (batch_multiple > 1) out["batch_multiple"] = {{"series", batch_multiple}, {"required_by", batch_multiple_by}};
  if (run_time) out["run_time_estimate"] = run_time->to_json();
  return out;
}

json run_identity(const Plan& plan) {
  json elements = json::array();
  for (PlannedElement e : plan.elements) {
    e.device.clear();
    if (e.params.is_object()) e.params.erase("on");
    elements.push_back(e.to_json());
  }
  return {{"version", plan.version}, {"input", plan.input.to_json()}, {"pipeline", std::move(elements)},
          {"tensors", plan.tensors}};
}

}  // namespace pacflow
