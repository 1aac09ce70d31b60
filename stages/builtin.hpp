#pragma once
#include "engine/api/registry.hpp"

namespace pacflow::stages {

// Every built-in source, stage and sink. Built once, immutable afterwards.
const Registry& builtin_registry();

}  // namespace pacflow::stages
