#pragma once
// SIGINT and SIGTERM turned into a stop request for the run (RunOptions::stop).
//
// Constructed before any other thread starts, it blocks both signals in the calling thread, so every
// thread started afterwards (oneTBB's workers included) inherits the block, and one thread of its
// own takes them with sigtimedwait: no code ever runs in a signal handler. The first signal requests
// the stop (the run cancels its graph, the sinks discard their temporaries, and the CLI exits with
// 128 + the signal number); a second one ends the process at once with the same code. A signal the
// process inherited as ignored (a job a shell started in the background) stays ignored.
#include <atomic>
#include <csignal>
#include <stop_token>
#include <thread>

namespace pacflow::cli {

class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  std::stop_token token() const { return stop_.get_token(); }
  // The first signal received (SIGINT or SIGTERM), or 0.
  int signal() const { return signal_.load(); }

 private:
  void watch(const std::stop_token& done);

  sigset_t signals_{};
  sigset_t previous_{};
  std::stop_source stop_;
  std::atomic<int> signal_{0};
  std::jthread thread_;  // last: started once the rest is ready, joined first
};

// The exit code for a run stopped by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM).
constexpr int interrupted_exit_code(int signal) { return 128 + signal; }
constexpr const char* signal_name(int signal) { return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal"; }

}  // namespace pacflow::cli
