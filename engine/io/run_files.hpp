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
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/params.hpp"  // json
#include "engine/io/unique_fd.hpp"

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

// Files of an earlier run in one output folder that this run does not write. The folder is opened
// when they are found (a handle, not a path) and each file is named relative to it with its identity
// then: removing them later goes through that handle, never follows a symbolic link on the way, and
// skips a file that is no longer the one found (a link swapped in during the run cannot redirect it).
struct StaleFiles {
  struct File {
    std::string name;  // as the earlier report lists it, relative to the folder
    std::uint64_t device = 0, inode = 0;
  };
  std::filesystem::path folder;  // as the outputs name it ("out/pac")
  std::shared_ptr<const UniqueFd> handle;  // the folder, opened when found
  std::vector<File> files;
  std::vector<std::string> names() const;
};

// For each folder of `outputs` (this run's files) holding a report (kRunReport) whose `files` names
// files inside the folder that still exist as files and are none of `outputs` and none of `inputs`
// (a recording, the .pipe file: the run's own inputs are never stale, whatever an earlier report
// says). Reports that are not pacflow's (unreadable, no `files` list) are ignored.
std::vector<StaleFiles> find_stale_files(const std::vector<std::filesystem::path>& outputs,
                                         const std::vector<std::filesystem::path>& inputs = {});
// "out/pac: 3 files of an earlier run that this run does not write: erpac.npy, …; remove them or run with --clean"
std::string stale_warning(const StaleFiles& stale, bool clean);
// Removes the stale files through their folder's handle (each still a plain file or a symbolic link
// with the identity it had when found, reached without following a link); returns a warning for each
// that could not be removed or was no longer the file found.
std::vector<std::string> remove_stale_files(const std::vector<StaleFiles>& stale);

}  // namespace pacflow
