#pragma once
// pipeline_cli started in the background, for tests that signal or kill a running CLI, or run it
// with a file-size limit (a full disk, as far as the CLI can tell).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "tests/support/cli_runner.hpp"

namespace pacflow::testing {

struct ProcessLimits {
  // RLIMIT_FSIZE in bytes: a write past it fails with EFBIG (SIGXFSZ is ignored in the child).
  std::optional<std::size_t> max_file_bytes;
};

class CliProcess {
 public:
  // Starts `program` (PACFLOW_CLI by default) with `args` (no shell) in `cwd`; stdout and stderr go to
  // files read by wait().
  CliProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd, ProcessLimits limits = {},
             const std::string& program = PACFLOW_CLI);
  // Kills (SIGKILL) and reaps the process if it is still running.
  ~CliProcess();
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  pid_t pid() const { return pid_; }
  void send(int signal) const;
  // True once the process has exited (reaping it); false while it runs.
  bool finished();
  // Waits for the process to end; nullopt if it is still running after `timeout` (then it keeps running).
  std::optional<CliResult> wait_for(std::chrono::milliseconds timeout);
  // The signal that killed it (once finished), or 0 when it exited.
  int killed_by() const { return killed_by_; }
  // Its peak resident memory (once finished), in KiB.
  long peak_rss_kib() const { return peak_rss_kib_; }
  // The standard error written so far.
  std::string err_so_far() const;

 private:
  CliResult collect() const;

  ScratchDir capture_{"cli_process"};
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  int killed_by_ = 0;
  long peak_rss_kib_ = 0;
};

// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace pacflow::testing
