#include <string>

#include "engine/errors.hpp"
#include "engine/params.hpp"
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
    for (const auto& spec : parsed.elements)
      if (const ElementInfo* info = registry.find(spec.kind, spec.name)) Params(spec.params, info->params);
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
