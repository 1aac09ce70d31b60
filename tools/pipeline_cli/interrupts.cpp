#include "tools/pipeline_cli/interrupts.hpp"

#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <pthread.h>

namespace pacflow::cli {

InterruptWatch::InterruptWatch() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  thread_ = std::jthread([this](const std::stop_token& done) { watch(done); });
}

InterruptWatch::~InterruptWatch() {
  thread_.request_stop();
  // Woken now rather than at its next tick, by a signal of its set sent to it alone, which it takes
  // as the end of its watch: every command otherwise waited up to a tick (50 ms) to exit, a sixth
  // of a W1 run.
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
  // A signal that came too late to matter stays pending: drop it rather than die of it on unblocking.
  const timespec now{0, 0};
  while (sigtimedwait(&signals_, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void InterruptWatch::watch(const std::stop_token& done) {
  const timespec tick{0, 50'000'000};  // how often it looks at `done`, should the wake-up be lost
  while (true) {
    const int got = sigtimedwait(&signals_, nullptr, &tick);
    // The destructor's wake-up, or a signal too late to matter: the run is over.
    if (done.stop_requested()) return;
    if (got <= 0) continue;  // timeout (EAGAIN) or EINTR
    int none = 0;
    if (signal_.compare_exchange_strong(none, got)) {
      fmt::print(stderr, "\npacflow: {} received: stopping (send it again to quit at once)\n", signal_name(got));
      stop_.request_stop();
      continue;
    }
    std::_Exit(interrupted_exit_code(signal_.load()));  // a second signal: no more waiting
  }
}

}  // namespace pacflow::cli
