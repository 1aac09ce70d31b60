#include "engine/api/pipeline.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <oneapi/tbb/info.h>

#include "engine/api/memory_budget.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/placement/backends.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/graph_dot.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/plan/run_time_estimate.hpp"
#include "engine/plan/transformed_source.hpp"

#ifndef PACFLOW_VERSION
#define PACFLOW_VERSION "0.0.0"
#endif

namespace pacflow {

std::string engine_version() { return PACFLOW_VERSION; }

Pipeline& Pipeline::source(const std::string& name, json params) {
  return add({ElementKind::Source, name, std::move(params), {}, {}});
}
Pipeline& Pipeline::stage(const std::string& name, json params) {
  return add({ElementKind::Stage, name, std::move(params), {}, {}});
}
Pipeline& Pipeline::sink(const std::string& name, json params) {
  return add({ElementKind::Sink, name, std::move(params), {}, {}});
}

Pipeline& Pipeline::add(ElementSpec spec) {
  if (spec.params.is_null()) spec.params = json::object();
  if (!spec.params.is_object())
    throw InputError(fmt::format("{} \"{}\": parameters must be key=value pairs",
                                 kind_name(spec.kind), spec.name),
                     spec.where);
  if (!registry_->find(spec.kind, spec.name)) {
    const std::string hint = suggest(spec.name, registry_->names(spec.kind));
    throw InputError(fmt::format("unknown {} \"{}\"{}", kind_name(spec.kind), spec.name,
                                 hint.empty() ? "" : "; " + hint),
                     spec.where);
  }
  elements_.push_back(std::move(spec));
  return *this;
}

Pipeline& Pipeline::set(const std::string& element, const std::string& key, json value,
                        SourceLocation where) {
  std::vector<ElementSpec*> matches;
  for (auto& e : elements_) {
    const bool by_kind = (element == "source" && e.kind == ElementKind::Source) ||
                         (element == "sink" && e.kind == ElementKind::Sink);
    if (by_kind || e.name == element) matches.push_back(&e);
  }
  if (matches.empty()) {
    std::vector<std::string> names{"source", "sink"};
    for (const auto& e : elements_) names.push_back(e.name);
    const std::string hint = suggest(element, names);
    throw InputError(fmt::format("cannot set {}.{}: no element \"{}\" in this pipeline{}", element, key,
                                 element, hint.empty() ? "" : "; " + hint),
                     where);
  }
  if (matches.size() > 1)
    throw InputError(fmt::format("cannot set {}.{}: \"{}\" names {} elements; use an element's own name",
                                 element, key, element, matches.size()),
                     where);
  matches.front()->params[key] = std::move(value);
  matches.front()->param_where[key] = where;
  return *this;
}

Pipeline& Pipeline::redirect_outputs(const std::string& dir) {
  for (auto& e : elements_) {
    if (e.kind != ElementKind::Sink) continue;
    const ElementInfo* info = registry_->find(e.kind, e.name);
    for (const auto& spec : info->params) {
      if (spec.type == ParamType::OutputDir) {
        e.params[spec.name] = dir;
      } else if (spec.type == ParamType::OutputFile) {
        const json current = e.params.contains(spec.name) ? e.params[spec.name] : spec.default_value;
        if (current.is_string())
          e.params[spec.name] =
              (std::filesystem::path(dir) /
               std::filesystem::path(current.get<std::string>()).filename()).string();
      }
    }
  }
  return *this;
}

Pipeline& Pipeline::devices(std::string pool, bool override_accelerators) {
  device_pool_ = std::move(pool);
  force_pool_ = override_accelerators && device_pool_.rfind("cpu", 0) == 0;
  return *this;
}

Pipeline& Pipeline::fallback(std::string policy) {
  fallback_ = std::move(policy);
  return *this;
}

Pipeline& Pipeline::vram(json budget) {
  vram_ = std::move(budget);
  return *this;
}

Pipeline::Pipeline(const Registry& registry) : registry_(&registry), backends_(&builtin_device_backends()) {}

Pipeline& Pipeline::device_backends(const DeviceBackends& backends) {
  backends_ = &backends;
  return *this;
}

Pipeline& Pipeline::add_input_file(std::filesystem::path file) {
  input_files_.push_back(std::move(file));
  return *this;
}

std::vector<std::filesystem::path> Pipeline::input_files() const {
  std::vector<std::filesystem::path> files = input_files_;
  for (const auto& e : elements_) {
    const ElementInfo* info = registry_->find(e.kind, e.name);
    for (const auto& spec : info->params)
      if (spec.type == ParamType::InputFile && e.params.contains(spec.name) && e.params[spec.name].is_string())
        files.emplace_back(e.params[spec.name].get<std::string>());
  }
  return files;
}

std::vector<std::filesystem::path> Pipeline::output_folders() const {
  return detail::named_output_folders(*registry_, elements_, {});
}

Pipeline Pipeline::variant(const Registry& registry, std::vector<ElementSpec> elements) const {
  Pipeline out = *this;
  out.registry_ = &registry;
  out.elements_.clear();
  for (auto& e : elements) out.add(std::move(e));
  return out;
}

detail::Placement Pipeline::placement() const { return {device_pool_, force_pool_, fallback_, vram_, backends_, {}}; }

Plan Pipeline::validate(const RunOptions& options) const {
  const detail::BuiltPipeline built = detail::build(*registry_, elements_, placement(), options.stop);
  detail::check_outputs(built, *registry_, elements_, options.trace_file, input_files(), options.checkpoint);
  Plan plan = detail::describe(built, options.batch_size, options.max_in_flight);
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());
  plan.run_time = detail::estimate_run_time(built, threads, options.rates);
  return plan;
}

std::string Pipeline::graph(const RunOptions& options) const {
  const detail::BuiltPipeline built = detail::build(*registry_, elements_, placement(), options.stop);
  detail::check_outputs(built, *registry_, elements_, options.trace_file, input_files(), options.checkpoint);
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());
  return detail::pipeline_dot(built, detail::plan_segments(built, options.batch_size, options.max_in_flight, threads));
}

}  // namespace pacflow
