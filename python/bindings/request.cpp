#include "python/bindings/request.hpp"

#include <fmt/format.h>

#include "pipelines/app/job_spec.hpp"
#include "pipelines/app/registry.hpp"
#include "stages/io/memory/memory_source.hpp"

namespace pacflow::python {

namespace {

ElementKind kind_of(const std::string& kind) {
  if (kind == "source") return ElementKind::Source;
  if (kind == "stage") return ElementKind::Stage;
  if (kind == "sink") return ElementKind::Sink;
  throw std::logic_error("request: element kind \"" + kind + "\"");
}

std::string text_or_empty(const json& request, const char* key) {
  const auto it = request.find(key);
  return it == request.end() || it->is_null() ? std::string() : it->get<std::string>();
}

}  // namespace

Registry request_registry(std::shared_ptr<const stages::HostArray> input,
                          std::shared_ptr<stages::ResultArrays> results) {
  Registry registry = app::registry();
  if (input) registry.add(stages::MemorySource::info(std::move(input)));
  registry.add(stages::MemorySink::info(std::move(results)));
  return registry;
}

app::JobSpec request_job(const json& request) {
  app::JobSpec spec;
  spec.pipe_file = text_or_empty(request, "pipe");
  for (const json& s : request.value("set", json::array()))
    spec.typed_sets.push_back({s.at(0).get<std::string>(), s.at(1).get<std::string>(), s.at(2)});
  spec.out_dir = text_or_empty(request, "out");
  spec.devices = text_or_empty(request, "devices");
  spec.fallback = text_or_empty(request, "fallback");
  spec.vram = text_or_empty(request, "vram");
  spec.batch = request.value("batch_size", std::int64_t{0});
  spec.in_flight = request.value("in_flight", 0);
  spec.checkpoint = text_or_empty(request, "checkpoint");
  spec.clean = request.value("clean", false);
  spec.max_memory = text_or_empty(request, "max_memory");
  spec.trace = text_or_empty(request, "trace");
  return spec;
}

Pipeline request_pipeline(const json& request, const Registry& registry) {
  Pipeline pipeline(registry);
  for (const json& e : request.value("elements", json::array()))
    pipeline.add({kind_of(e.at("kind").get<std::string>()), e.at("name").get<std::string>(),
                  e.value("params", json::object()), {}, {}});
  app::build_pipeline(request_job(request), pipeline);
  if (request.value("arrays", true)) pipeline.sink("arrays");
  return pipeline;
}

RunOptions request_options(const json& request) {
  return app::run_options(request_job(request), app::OptionSpelling::Python);
}

}  // namespace pacflow::python
