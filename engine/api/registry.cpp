#include "engine/api/registry.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "engine/api/params.hpp"

namespace pacflow {

const char* kind_name(ElementKind kind) {
  switch (kind) {
    case ElementKind::Source: return "source";
    case ElementKind::Stage: return "stage";
    case ElementKind::Sink: return "sink";
  }
  return "?";
}

const std::vector<ParamSpec>& placement_params() {
  // Function-local and const: made once, on first use, thread-safely.
  static const std::vector<ParamSpec> params = {
      {"on", ParamType::Device, nullptr, "",
       "devices the stage runs on: cpu (all threads), cpu:K, cuda:K (a GPU), sim:K (modelled), or a list such as "
       "cpu:0,1, cuda:* or sim:0-7 to replicate it; unset: the run's device pool",
       true},
      // Settings of the edge into the stage; a ring is set up there when the stage runs on other
      // devices than the one before it, or when any of these is given.
      {"ring", ParamType::Integer, nullptr, "slots",
       "capacity of the ring buffer into this stage (pre-allocated, page-locked slots of one batch each); unset: "
       "enough to keep its devices busy",
       true, ParamRange{1.0, {}}},
      {"batch", ParamType::Integer, nullptr, "series",
       "series per batch from this stage on (the ring re-cuts batches); unset: the batch size before it", true,
       ParamRange{1.0, {}}},
      {"overflow", ParamType::String, nullptr, "",
       "when every slot of the ring into this stage is taken: block (wait, the default), fail (stop the run) or grow "
       "(lend an extra slot)",
       true, {}, {"block", "fail", "grow"}},
      {"fallback", ParamType::String, "none", "",
       "when the stage is placed on cuda but no GPU is visible (or the stage has no CUDA code): none (stop with an "
       "error) or cpu (run on the CPU, with a warning)",
       false, {}, {"none", "cpu"}},
      {"vram", ParamType::Spec, nullptr, "",
       "memory budget on each GPU this stage runs on, e.g. 40GB, 512MiB or 0.5 (of the device); batches are sized "
       "to stay within it; unset: the run's --vram, else 90% of the device",
       true},
  };
  return params;
}

bool is_placement_param(const std::string& name) {
  const auto& params = placement_params();
  return std::any_of(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == name; });
}

void Registry::add(ElementInfo info) {
  if (find(info.kind, info.name))
    throw std::logic_error(std::string(kind_name(info.kind)) + " \"" + info.name + "\" registered twice");
  for (const auto& p : info.params)
    if (info.kind == ElementKind::Stage && is_placement_param(p.name))
      throw std::logic_error(fmt::format("stage \"{}\" declares \"{}\", a placement parameter the engine owns",
                                         info.name, p.name));
  elements_.push_back(std::move(info));
}

const ElementInfo* Registry::find(ElementKind kind, const std::string& name) const {
  const auto it = std::find_if(elements_.begin(), elements_.end(), [&](const ElementInfo& e) {
    return e.kind == kind && e.name == name;
  });
  return it == elements_.end() ? nullptr : &*it;
}

void Registry::add_foreign_name(std::string name, std::string hint) {
  foreign_names_.emplace_back(std::move(name), std::move(hint));
}

const std::string* Registry::foreign_name_hint(const std::string& name) const {
  for (const auto& [foreign, hint] : foreign_names_)
    if (foreign == name) return &hint;
  return nullptr;
}

std::vector<std::string> Registry::names(ElementKind kind) const {
  std::vector<std::string> out;
  for (const auto& e : elements_)
    if (e.kind == kind) out.push_back(e.name);
  return out;
}

}  // namespace pacflow
