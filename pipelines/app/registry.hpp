#pragma once
// Every element a user can name: the stages' built-in sources, stages and sinks, and the
// application layer's own (the report sink, which writes the methods paragraph of pipelines/report).
#include "engine/api/registry.hpp"

namespace pacflow::app {

// Built once, immutable afterwards.
const Registry& registry();

}  // namespace pacflow::app
