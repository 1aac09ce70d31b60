#include "stages/io/common/output_paths.hpp"

#include <fmt/format.h>

#include "engine/errors.hpp"

namespace pacflow::stages {

std::vector<TensorDecl> results_to_write(const PlanContext& ctx) {
  std::vector<TensorDecl> results = ctx.results();
  if (results.empty()) throw InputError("no stage before this sink produces a result to write");
  return results;
}

void create_parent_directories(const std::filesystem::path& file) {
  if (!file.has_parent_path()) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) throw InputError(fmt::format("{}: cannot create directory: {}", file.parent_path().string(), ec.message()));
}

}  // namespace pacflow::stages
