#pragma once
// The run's progress on stderr, once it has taken more than a second: one line rewritten in place
// on a terminal, a line a second otherwise.
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

#include "engine/api/pipeline.hpp"

namespace pacflow::cli {

class ProgressLine {
 public:
  void operator()(const Progress& p) {
    if (p.elapsed_s < 1.0) return;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    if (!tty && p.elapsed_s - last_printed_ < 1.0 && p.batches_done != p.batches_total) return;
    last_printed_ = p.elapsed_s;
    const double eta = p.batches_done ? p.elapsed_s * static_cast<double>(p.batches_total - p.batches_done) /
                                            static_cast<double>(p.batches_done)
                                      : 0.0;
    fmt::print(stderr, "{}pacflow: batch {}/{} ({:.0f}%), {:.1f} s elapsed, ~{:.1f} s left{}", tty ? "\r" : "",
               p.batches_done, p.batches_total,
               100.0 * static_cast<double>(p.batches_done) / static_cast<double>(p.batches_total), p.elapsed_s, eta,
               tty ? "" : "\n");
    printed_ = true;
    std::fflush(stderr);
  }
  // Ends the line on a terminal once the run is over.
  void done() const {
    if (printed_ && ::isatty(STDERR_FILENO)) fmt::print(stderr, "\n");
  }

 private:
  double last_printed_ = 0;
  bool printed_ = false;
};

}  // namespace pacflow::cli
