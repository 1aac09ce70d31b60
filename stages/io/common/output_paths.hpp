#pragma once
// What every sink does before it writes: find the results to write and make the output's folder.
#include <filesystem>
#include <vector>

#include "engine/stage.hpp"

namespace pacflow::stages {

// The results the elements before a sink declared; throws InputError when there are none.
std::vector<TensorDecl> results_to_write(const PlanContext& ctx);

// Creates the folders above `file` (if any); throws InputError naming the folder on failure.
void create_parent_directories(const std::filesystem::path& file);

}  // namespace pacflow::stages
