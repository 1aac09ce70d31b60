#include "tools/pipeline_cli/methods_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "engine/io/output_set.hpp"
#include "pipelines/report/methods_text.hpp"
#include "pipelines/report/report_file.hpp"

namespace pacflow::cli {

int methods_command(const std::string& target, const std::string& out_file) {
  const std::string text = report::methods_text(report::read_run_report(target)).markdown();
  if (out_file.empty())
    fmt::print("{}", text);
  else  // as a run writes its outputs: complete or absent, never over the report it reads
    write_outputs({{out_file, text}},
                  {std::filesystem::is_directory(target) ? std::filesystem::path(target) / "result.json"
                                                         : std::filesystem::path(target)});
  return 0;
}

}  // namespace pacflow::cli
