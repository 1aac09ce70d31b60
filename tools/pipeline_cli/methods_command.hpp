#pragma once
// `pipeline_cli methods OUT [--out FILE]`: the methods paragraph of a finished run, with its
// references (pipelines/report/methods_text.hpp), from OUT: a run's output folder, its result.json
// or the hdf5 sink's file. Printed, or written to FILE atomically.
#include <string>

namespace pacflow::cli {

// Returns the exit code; throws InputError (exit 2) naming the file for a missing or malformed report.
int methods_command(const std::string& target, const std::string& out_file);

}  // namespace pacflow::cli
