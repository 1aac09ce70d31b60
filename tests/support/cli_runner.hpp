#pragma once
// Runs pipeline_cli (and the other tools) as a user would and captures its exit code, stdout and stderr.
#include <filesystem>
#include <string>
#include <string_view>

namespace pacflow::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the CLI path verbatim (shell syntax); runs in `cwd`.
CliResult run_cli(const std::string& args, const std::filesystem::path& cwd);
// The same for another program built with the project (e.g. PACFLOW_MAKE_EXAMPLE_INPUTS).
CliResult run_program(const std::string& program, const std::string& args, const std::filesystem::path& cwd);

// A whole file's bytes ("" when it cannot be read).
std::string read_file(const std::filesystem::path& path);

// Whether `part` occurs in `text` (an output, a message, a file's bytes).
inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// A fresh, empty scratch directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& child) const { return path_ / child; }
  // Writes a text file inside the directory and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace pacflow::testing
