#include "pipelines/app/job_spec.hpp"

#include <fmt/format.h>

#include "engine/devices/sim/sim_model_file.hpp"
#include "engine/plan/memory_estimate.hpp"

namespace pacflow::app {

void build_pipeline(const JobSpec& spec, Pipeline& pipeline) {
  if (!spec.pipe_file.empty()) load_pipe_file(spec.pipe_file.string(), pipeline);
  if (pipeline.elements().empty())
    throw InputError(spec.pipe_file.empty()
                         ? std::string("the pipeline has no elements; start it with .source(...)")
                         : spec.pipe_file.string() + ": no pipeline elements; expected lines such as \"source synthetic\"");
  for (const auto& text : spec.sets) {
    const SetOverride o = parse_set_override(text);
    pipeline.set(o.element, o.key, o.value, SourceLocation{"--set", 0, 0});
  }
  for (const auto& o : spec.typed_sets) pipeline.set(o.element, o.key, o.value, SourceLocation{"set", 0, 0});
  if (!spec.out_dir.empty()) pipeline.redirect_outputs(spec.out_dir);
  // A CPU pool given with the job makes a CPU-only run, whatever the file says.
  if (!spec.devices.empty()) pipeline.devices(spec.devices, true);
  if (!spec.fallback.empty()) pipeline.fallback(spec.fallback);
  if (!spec.vram.empty()) pipeline.vram(spec.vram);
}

Pipeline load_pipeline(const JobSpec& spec, const Registry& registry) {
  Pipeline pipeline(registry);
  build_pipeline(spec, pipeline);
  return pipeline;
}

RunOptions run_options(const JobSpec& spec, OptionSpelling spelling) {
  RunOptions options;
  options.batch_size = spec.batch;
  options.max_in_flight = spec.in_flight;
  options.checkpoint = spec.checkpoint;
  options.clean = spec.clean;
  options.trace_file = spec.trace;
  if (!spec.max_memory.empty()) {
    const char* name = spelling == OptionSpelling::Cli ? "--max-memory" : "max_memory";
    try {
      options.max_memory = parse_memory_budget("max-memory", spec.max_memory, /*require_unit=*/true);
    } catch (const ParamError& e) {
      throw InputError(fmt::format("{}: {}", name, e.bare_message()));
    }
  }
  if (!spec.sim_model.empty()) options.sim_model = options.rates.accelerator = read_sim_model(spec.sim_model);
  return options;
}

json job_record(const JobSpec& spec) {
  json record = {{"pipe_file", spec.pipe_file.string()}, {"sets", spec.sets}, {"devices", spec.devices},
                 {"fallback", spec.fallback},            {"vram", spec.vram}, {"batch", spec.batch}};
  // Typed overrides (Python's set={...}) only when there are some: a CLI shard's record stays as it was.
  if (!spec.typed_sets.empty()) {
    json& typed = record["typed_sets"] = json::array();
    for (const auto& o : spec.typed_sets) typed.push_back({o.element, o.key, o.value});
  }
  return record;
}

JobSpec job_from_record(const json& record) {
  JobSpec spec;
  spec.pipe_file = record.at("pipe_file").get<std::string>();
  spec.sets = record.at("sets").get<std::vector<std::string>>();
  spec.devices = record.at("devices").get<std::string>();
  spec.fallback = record.at("fallback").get<std::string>();
  spec.vram = record.at("vram").get<std::string>();
  spec.batch = record.at("batch").get<std::int64_t>();
  if (const auto typed = record.find("typed_sets"); typed != record.end())
    for (const json& o : *typed) spec.typed_sets.push_back({o.at(0).get<std::string>(), o.at(1).get<std::string>(), o.at(2)});
  return spec;
}

}  // namespace pacflow::app
