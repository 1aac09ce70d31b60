#pragma once
// A finished run's report read back from its outputs: the npy sink's result.json (given as the file
// or its folder) or the hdf5 sink's file (its result_json attribute holds the same report).
#include <filesystem>
#include <nlohmann/json.hpp>

namespace pacflow::report {

// Throws MissingFileError when `target` does not exist or a folder holds no result.json, and
// InputError naming the file when it cannot be read or holds no JSON object.
nlohmann::json read_run_report(const std::filesystem::path& target);

}  // namespace pacflow::report
