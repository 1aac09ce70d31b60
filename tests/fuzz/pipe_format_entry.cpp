#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"
#include "engine/io/output_checks.hpp"
#include "pipelines/pipe_format.hpp"
#include "stages/builtin.hpp"
#include "tests/fuzz/entry_points.hpp"

namespace pacflow::fuzz {

Outcome pipe_format(Input data) {
  const std::string text(data.begin(), data.end());
  // The first line as a command line's --set NAME.key=value (its verdict is not the outcome).
  try {
    parse_set_override(text.substr(0, text.find('\n')));
  } catch (const InputError&) {
  }
  try {
    const PipeText parsed = parse_pipe_text(text, "fuzz.pipe");
    // Each element's parameters as the builder checks them: names, types, durations, defaults.
    const Registry& registry = stages::builtin_registry();
    std::vector<OutputPath> outputs;
    std::vector<std::filesystem::path> inputs;
    for (const auto& spec : parsed.elements) {
      const ElementInfo* info = registry.find(spec.kind, spec.name);
      if (!info) continue;
      const Params params(spec.params, info->params);
      // Output and input paths as the engine checks them before a run (stat only: nothing is written).
      for (const auto& p : info->params) {
        if (!params.has(p.name)) continue;
        if (p.type == ParamType::InputFile) inputs.emplace_back(params.string(p.name));
        if (p.type == ParamType::OutputFile || p.type == ParamType::OutputDir) {
          const std::filesystem::path path =
              p.type == ParamType::OutputDir ? std::filesystem::path(params.string(p.name)) / "pac.npy"
                                             : std::filesystem::path(params.string(p.name));
          check_output_target(path);
          outputs.push_back({path, spec.name});
        }
      }
    }
    if (const auto clash = find_output_clash(outputs, inputs)) return {false, clash->message};
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
