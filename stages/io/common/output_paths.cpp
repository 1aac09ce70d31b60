#include "stages/io/common/output_paths.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

std::vector<TensorDecl> results_to_write(const PlanContext& ctx) {
  std::vector<TensorDecl> results = ctx.results();
  if (results.empty()) throw InputError("no stage before this sink produces a result to write");
  return results;
}

ResultLeading result_leading(const TensorDecl& decl, const StreamInfo& stream) {
  if (decl.rows.leading.empty() && !decl.summary) return {stream.leading_dims, stream.leading_names};
  return {decl.rows.leading, decl.rows.leading_names};
}

void create_directories_or_throw(const std::filesystem::path& dir, std::string_view what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create {}: {}", dir.string(), what, ec.message()));
}

}  // namespace pacflow::stages
