// The files a planned pipeline will write, checked before anything runs, and listed for its report
// (engine/plan/built_pipeline.hpp).
#include <filesystem>
#include <fmt/format.h>

#include "engine/io/output_checks.hpp"
#include "engine/io/run_files.hpp"
#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

namespace {

// The output parameter (dir=, path=) of a sink element, or "" when its schema has none.
std::string output_param(const Registry& registry, const ElementSpec& spec) {
  for (const auto& p : registry.find(spec.kind, spec.name)->params)
    if (p.type == ParamType::OutputDir || p.type == ParamType::OutputFile) return p.name;
  return "";
}

// Whether the checkpoint in `dir` owns `path`: its record or lock, or anything in a sink's folder
// there (Checkpoint::discard removes them). Other files may share the folder.
bool checkpoint_owns(const std::filesystem::path& path, const std::filesystem::path& dir) {
  if (!lies_inside(path, dir)) return false;
  const std::filesystem::path file = resolved_output(path);
  namespace fs = std::filesystem;
  if (fs::weakly_canonical(file.parent_path()) != fs::weakly_canonical(fs::absolute(dir))) return true;  // a sink's folder
  return file.filename() == "checkpoint.json" || file.filename() == ".lock";
}

// `message` about the sink `spec`'s output, located at its output parameter (or "--trace: …").
[[noreturn]] void refuse_output(const Registry& registry, const ElementSpec* spec, const std::string& message) {
  if (!spec) throw InputError("--trace: " + message);
  try {
    throw ParamError(output_param(registry, *spec), message);
  } catch (...) {
    rethrow_located(*spec);
  }
}

}  // namespace

std::vector<std::filesystem::path> check_outputs(const BuiltPipeline& built, const Registry& registry,
                                                 const std::vector<ElementSpec>& elements,
                                                 const std::filesystem::path& trace_file,
                                                 std::vector<std::filesystem::path> inputs,
                                                 const std::filesystem::path& checkpoint_dir) {
  std::vector<OutputPath> outputs;
  std::vector<const ElementSpec*> owner;  // the sink element writing each output; null for the trace
  for (const auto& sink : built.sinks)
    for (auto& file : sink.sink->output_files()) {
      outputs.push_back({std::move(file), fmt::format("sink \"{}\"", sink.name)});
      owner.push_back(&elements.at(sink.element));
    }
  if (!trace_file.empty()) {
    outputs.push_back({trace_file, "--trace"});
    owner.push_back(nullptr);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    try {
      check_output_target(outputs[i].path);
    } catch (const InputError& e) {
      refuse_output(registry, owner[i], e.bare_message());
    }
    if (!checkpoint_dir.empty() && checkpoint_owns(outputs[i].path, checkpoint_dir))
      refuse_output(registry, owner[i],
                    fmt::format("{} is a file of the checkpoint in {}, which the run removes when it ends",
                                outputs[i].path.string(), checkpoint_dir.string()));
  }
  inputs.insert(inputs.end(), built.stream.input_files.begin(), built.stream.input_files.end());
  if (const auto clash = find_output_clash(outputs, inputs)) refuse_output(registry, owner[clash->output], clash->message);
  std::vector<std::filesystem::path> paths;
  for (auto& o : outputs) paths.push_back(std::move(o.path));
  return paths;
}

std::vector<std::filesystem::path> named_output_folders(const Registry& registry,
                                                        const std::vector<ElementSpec>& elements,
                                                        const std::filesystem::path& trace_file) {
  std::vector<std::filesystem::path> folders;
  const auto named = [&](const ElementSpec* spec, const std::filesystem::path& path, bool folder) {
    try {
      if (folder) {
        check_output_folder(path);
        folders.push_back(path);
      } else {
        check_output_target(path);
        folders.push_back(resolved_output(path).parent_path());
      }
    } catch (const InputError& e) {
      refuse_output(registry, spec, e.bare_message());
    }
  };
  for_each_output(elements, registry, [&](const ElementSpec& e, const ParamSpec& p, const std::string& value) {
    if (!value.empty()) named(&e, value, p.type == ParamType::OutputDir);
  });
  if (!trace_file.empty()) named(nullptr, trace_file, false);
  return folders;
}

// Every file the run writes: each sink's output_files() (with its describe_output()), then the trace.
std::vector<RunFile> run_files(const BuiltPipeline& built, const std::filesystem::path& trace_file) {
  std::vector<RunFile> files;
  for (const auto& sink : built.sinks)
    for (const std::filesystem::path& file : sink.sink->output_files())
      files.push_back({file, sink.name, sink.sink->describe_output(file)});
  if (!trace_file.empty()) files.push_back({trace_file, "--trace", "Chrome trace of the run (one span per element and batch)"});
  return files;
}

}  // namespace pacflow::detail
