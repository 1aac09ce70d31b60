#pragma once
// The parameter names TensorPAC, pactools and MNE-Python users type, and where their meaning lives
// in pacflow: an unknown parameter of one of these names gets that answer (Registry::add_foreign_name).
#include "engine/api/registry.hpp"

namespace pacflow::stages {

void add_field_vocabulary(Registry& registry);

}  // namespace pacflow::stages
