#include "tools/pipeline_cli/methods_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "engine/io/output_set.hpp"
#include "pipelines/report/methods_text.hpp"
#include "pipelines/report/report_file.hpp"

namespace pacflow::cli {

int methods_command(const std::string& target, const std::string& out_file) {
  const json run = report::read_run_report(target);
  const std::string text = report::methods_text(run).markdown();
  if (out_file.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  // As a run writes its outputs: complete or absent, never over the report it reads nor over any
  // file of the run it describes (its result.json lists them, relative to its folder).
  namespace fs = std::filesystem;
  const fs::path report = fs::is_directory(target) ? fs::path(target) / "result.json" : fs::path(target);
  std::vector<fs::path> inputs{report};
  for (const auto& file : run.value("files", json::array()))
    if (file.is_object() && file.contains("path") && file["path"].is_string())
      inputs.push_back(report.parent_path() / file["path"].get<std::string>());
  write_outputs({{out_file, text}}, inputs);
  return 0;
}

}  // namespace pacflow::cli
