#include "tests/support/cli_process.hpp"

#include <csignal>
#include <fcntl.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace pacflow::testing {

CliProcess::CliProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd, ProcessLimits limits,
                       const std::string& program) {
  // Everything the child needs is prepared before fork: between fork and exec it may only make
  // async-signal-safe calls.
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string out = (capture_.path() / "stdout").string();
  const std::string err = (capture_.path() / "stderr").string();
  const std::string dir = cwd.string();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int in_fd = ::open("/dev/null", O_RDONLY);
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0 || ::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 ||
        ::dup2(err_fd, 2) < 0 || ::chdir(dir.c_str()) != 0)
      ::_exit(127);
    if (limits.max_file_bytes) {
      const rlimit limit{*limits.max_file_bytes, *limits.max_file_bytes};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(127);
      ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of killing
    }
    // As from an interactive shell: a CLI started in the background of a script would otherwise
    // inherit SIGINT ignored, and rightly keep ignoring it.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
}

CliProcess::~CliProcess() {
  if (pid_ > 0 && !finished()) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
}

void CliProcess::send(int signal) const { ::kill(pid_, signal); }

bool CliProcess::finished() {
  if (reaped_) return true;
  rusage usage{};
  const pid_t got = ::wait4(pid_, &status_, WNOHANG, &usage);
  if (got != pid_) return false;
  reaped_ = true;
  peak_rss_kib_ = usage.ru_maxrss;
  killed_by_ = WIFSIGNALED(status_) ? WTERMSIG(status_) : 0;
  return true;
}

std::optional<CliResult> CliProcess::wait_for(std::chrono::milliseconds timeout) {
  if (!eventually([this] { return finished(); }, timeout)) return std::nullopt;
  return collect();
}

CliResult CliProcess::collect() const {
  CliResult r;
  r.exit_code = WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  r.out = read_file(capture_.path() / "stdout");
  r.err = read_file(capture_.path() / "stderr");
  return r;
}

std::string CliProcess::err_so_far() const { return read_file(capture_.path() / "stderr"); }

}  // namespace pacflow::testing
