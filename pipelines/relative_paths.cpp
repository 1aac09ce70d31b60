#include "pipelines/relative_paths.hpp"

namespace pacflow {

namespace {

namespace fs = std::filesystem;

bool is_path_param(ParamType type) {
  return type == ParamType::InputFile || type == ParamType::OutputFile || type == ParamType::OutputDir;
}

// `folder / value`, written as short as it can be while naming the same file: `..` is folded
// lexically only where that agrees with the file system (a symbolic link before a `..` does not).
fs::path joined(const fs::path& folder, const fs::path& value) {
  const fs::path path = folder / value;
  const fs::path folded = path.lexically_normal();
  if (folded == path) return path;
  std::error_code ec1, ec2;
  const fs::path real = fs::weakly_canonical(fs::absolute(path), ec1);
  const fs::path real_folded = fs::weakly_canonical(fs::absolute(folded), ec2);
  return !ec1 && !ec2 && real == real_folded ? folded : path;
}

}  // namespace

void resolve_relative_paths(std::vector<ElementSpec>& elements, const Registry& registry, const fs::path& folder) {
  if (folder.empty()) return;  // the file is in the working directory
  for (auto& e : elements) {
    const ElementInfo* info = registry.find(e.kind, e.name);
    if (!info) continue;
    for (const auto& spec : info->params) {
      if (!is_path_param(spec.type) || !e.params.contains(spec.name) || !e.params[spec.name].is_string()) continue;
      const std::string value = e.params[spec.name].get<std::string>();
      if (value.empty() || fs::path(value).is_absolute()) continue;
      e.params[spec.name] = joined(folder, value).string();
    }
  }
}

}  // namespace pacflow
