#pragma once
// The files a run writes, as result.json lists them (`files`), and the files an earlier run listed
// there that this run does not write.
//
// An output folder may hold files of an earlier run that this run does not produce (a stage taken
// out, a sink's grid turned off): left alone, they would sit beside the new results as if they were
// part of them. The earlier run's result.json in the folder names every file it wrote; those it
// names that still lie in the folder (never a folder, never a file it does not name) and that this
// run does not write are stale: named in a warning, or removed with RunOptions::clean once this
// run's outputs are in place.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/params.hpp"  // json

namespace pacflow {

// The name of the report a sink may write into an output folder, whose `files` lists the run's files.
inline constexpr const char* kRunReport = "result.json";

// One file a run writes: its path as given (after --out), its writer ("npy", "--trace") and what it holds.
struct RunFile {
  std::filesystem::path path;
  std::string writer;
  std::string what;
};

// result.json's `files`: [{"path", "sink", "what"}], in the order given.
json files_json(const std::vector<RunFile>& files);
// `files` (as files_json) with every path relative to `folder` when the file lies inside it, else
// absolute: what a report written into `folder` lists, readable wherever the folder is moved.
json files_relative_to(const json& files, const std::filesystem::path& folder);

// Files of an earlier run in one output folder that this run does not write.
struct StaleFiles {
  std::filesystem::path folder;             // as the outputs name it ("out/pac")
  std::vector<std::string> names;           // as the earlier report lists them, relative to the folder
  std::vector<std::filesystem::path> files;  // the same, absolute
};

// For each folder of `outputs` (this run's files) holding a report (kRunReport) whose `files` names
// files inside the folder that still exist as files and are none of `outputs`. Reports that are not
// pacflow's (unreadable, no `files` list) are ignored.
std::vector<StaleFiles> find_stale_files(const std::vector<std::filesystem::path>& outputs);
// "out/pac: 3 files of an earlier run that this run does not write: erpac.npy, …; remove them or run with --clean"
std::string stale_warning(const StaleFiles& stale, bool clean);
// Removes the stale files (each checked again: a regular file or a symbolic link, never a folder);
// returns a warning for each that could not be removed.
std::vector<std::string> remove_stale_files(const std::vector<StaleFiles>& stale);

namespace detail {
struct BuiltPipeline;
// Every file the run writes: each sink's output_files() (with its describe_output()), then the trace.
std::vector<RunFile> run_files(const BuiltPipeline& built, const std::filesystem::path& trace_file);
}  // namespace detail

}  // namespace pacflow
