#pragma once
// The run's progress on stderr, once it has taken more than a second: one line rewritten in place
// on a terminal, a line a second otherwise.
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

#include "engine/api/pipeline.hpp"

namespace pacflow::cli {

class ProgressLine {
 public:
  void operator()(const Progress& p) {
    if (p.elapsed_s < 1.0) return;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    const bool last = p.batches_done == p.batches_total && p.recording + 1 == p.recordings;
    if (!tty && p.elapsed_s - last_printed_ < 1.0 && !last) return;
    last_printed_ = p.elapsed_s;
    const double done = p.fraction();
    const double eta = done > 0 ? p.elapsed_s * (1.0 - done) / done : 0.0;
    // A dataset: which recording, and the share of the whole dataset (its time left from that).
    const std::string recording =
        p.recordings > 1 ? fmt::format("recording {}/{}, ", p.recording + 1, p.recordings) : std::string();
    fmt::print(stderr, "{}pacflow: {}batch {}/{} ({:.0f}%{}), {:.1f} s elapsed, ~{:.1f} s left{}", tty ? "\r" : "",
               recording, p.batches_done, p.batches_total, 100.0 * done, p.recordings > 1 ? " of the dataset" : "",
               p.elapsed_s, eta, tty ? "" : "\n");
    open_line_ = tty;
    std::fflush(stderr);
  }
  // Ends the line on a terminal: once the run is over, or before another line is printed.
  void done() {
    if (open_line_) fmt::print(stderr, "\n");
    open_line_ = false;
  }

 private:
  double last_printed_ = 0;
  bool open_line_ = false;  // a line rewritten in place, not ended yet
};

}  // namespace pacflow::cli
