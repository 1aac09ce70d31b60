#pragma once
// pipeline_cli's exit codes: 0 success, 1 the run failed, 2 bad input or usage, 128 + N the run was
// stopped by signal N (130 SIGINT, 143 SIGTERM; interrupts.hpp).
namespace pacflow::cli {

constexpr int kOk = 0;
constexpr int kRunFailed = 1;
constexpr int kBadInput = 2;

}  // namespace pacflow::cli
