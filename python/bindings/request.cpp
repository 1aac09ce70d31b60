#include "python/bindings/request.hpp"

#include <fmt/format.h>

#include "pipelines/pipe_format.hpp"
#include "stages/builtin.hpp"
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
  Registry registry = stages::builtin_registry();
  if (input) registry.add(stages::MemorySource::info(std::move(input)));
  registry.add(stages::MemorySink::info(std::move(results)));
  return registry;
}

Pipeline request_pipeline(const json& request, const Registry& registry) {
  Pipeline pipeline(registry);
  const std::string pipe = text_or_empty(request, "pipe");
  if (!pipe.empty()) load_pipe_file(pipe, pipeline);
  for (const json& e : request.value("elements", json::array()))
    pipeline.add({kind_of(e.at("kind").get<std::string>()), e.at("name").get<std::string>(),
                  e.value("params", json::object()), {}, {}});
  if (pipeline.elements().empty())
    throw InputError(pipe.empty() ? "the pipeline has no elements; start it with .source(...)"
                                  : pipe + ": no pipeline elements; expected lines such as \"source synthetic\"");
  for (const json& s : request.value("set", json::array()))
    pipeline.set(s.at(0).get<std::string>(), s.at(1).get<std::string>(), s.at(2), SourceLocation{"set", 0, 0});
  // As the CLI's --out: the file's sinks write into this folder instead.
  if (const std::string out = text_or_empty(request, "out"); !out.empty()) pipeline.redirect_outputs(out);
  if (request.value("arrays", true)) pipeline.sink("arrays");
  if (const std::string devices = text_or_empty(request, "devices"); !devices.empty()) pipeline.devices(devices, true);
  if (const std::string fallback = text_or_empty(request, "fallback"); !fallback.empty()) pipeline.fallback(fallback);
  if (const std::string vram = text_or_empty(request, "vram"); !vram.empty()) pipeline.vram(vram);
  return pipeline;
}

RunOptions request_options(const json& request) {
  RunOptions options;
  options.batch_size = request.value("batch_size", std::int64_t{0});
  options.max_in_flight = request.value("in_flight", 0);
  options.checkpoint = text_or_empty(request, "checkpoint");
  options.clean = request.value("clean", false);
  if (const std::string max_memory = text_or_empty(request, "max_memory"); !max_memory.empty()) {
    try {
      options.max_memory = parse_memory_budget("max_memory", max_memory, /*require_unit=*/true);
    } catch (const ParamError& e) {
      throw InputError(fmt::format("max_memory: {}", e.bare_message()));
    }
  }
  options.trace_file = text_or_empty(request, "trace");
  return options;
}

}  // namespace pacflow::python
