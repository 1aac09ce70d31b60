#pragma once
#include "engine/api/registry.hpp"

namespace pacflow::stages {

// Every built-in source, stage and sink. Built once, immutable afterwards.
const Registry& builtin_registry();

// Adds every element the stage folders declare (their stage.cmake; generated at build time into
// builtin_elements.cpp by cmake/PacflowStageFolders.cmake), in their ORDER.
void add_builtin_elements(Registry& registry);

}  // namespace pacflow::stages
