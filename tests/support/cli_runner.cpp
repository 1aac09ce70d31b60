#include "tests/support/cli_runner.hpp"

#include <fmt/format.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace pacflow::testing {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CliResult run_cli(const std::string& args, const std::filesystem::path& cwd) { return run_program(PACFLOW_CLI, args, cwd); }

CliResult run_program(const std::string& program, const std::string& args, const std::filesystem::path& cwd) {
  const ScratchDir capture("cli_capture");
  const auto out = capture / "stdout";
  const auto err = capture / "stderr";
  const std::string command =
      fmt::format("cd '{}' && '{}' {} > '{}' 2> '{}' < /dev/null", cwd.string(), program, args, out.string(), err.string());
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

ScratchDir::ScratchDir(const std::string& name) {
  std::random_device random;
  path_ = std::filesystem::temp_directory_path() /
          fmt::format("pacflow_{}_{}_{:08x}", name, static_cast<long>(::getpid()), random());
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path ScratchDir::write(const std::string& name, const std::string& content) const {
  const auto p = path_ / name;
  std::ofstream(p) << content;
  return p;
}

}  // namespace pacflow::testing
