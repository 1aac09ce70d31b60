#pragma once
// What every sink does before it writes: find the results to write and know their leading
// dimensions. (The engine checks, creates and locks the output folders: engine/io/output_folders.hpp.)
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

// The results the elements before a sink declared; throws InputError when there are none.
std::vector<TensorDecl> results_to_write(const PlanContext& ctx);

// The leading dimensions of a result's rows, with their names: the result's own where its rows are
// not one per series (cross-channel PAC: [epochs][pairs]…, erpac: [channels]…), else the stream's
// ([epochs][channels]…). A batch of series [s, s + n) holds rows [rows.rows(s), rows.rows(s + n)) of
// these dimensions, flattened in row-major order. A summary result (TensorDecl::summary) has its
// own, possibly none ([channels]…, or a single row).
struct ResultLeading {
  Shape dims;
  std::vector<std::string> names;
};
ResultLeading result_leading(const TensorDecl& decl, const StreamInfo& stream);

// Creates `dir` and the folders above it; throws InputError "DIR: cannot create WHAT: reason".
void create_directories_or_throw(const std::filesystem::path& dir, std::string_view what = "directory");

}  // namespace pacflow::stages
