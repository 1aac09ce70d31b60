#pragma once
#include "engine/registry.hpp"

namespace pacflow::stages {

// Every built-in source, stage and sink. Built once, immutable afterwards.
const Registry& builtin_registry();

}  // namespace pacflow::stages
