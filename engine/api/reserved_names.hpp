#pragma once
// The names pacflow keeps for its own bookkeeping in the folders it writes into: no output may take
// one (renaming a result over a lock or a journal would break the guarantees they give).
#include <string_view>

namespace pacflow {

// The lock of an output folder (engine/io/folder_lock.hpp, engine/io/output_folders.hpp).
inline constexpr const char* kOutputLock = ".pacflow.lock";
// The journal of a commit in progress (engine/io/output_set.hpp).
inline constexpr const char* kCommitJournal = ".pacflow-commit.json";
// True for a lock, a journal or a temporary's name (temp_path_for).
bool reserved_name(std::string_view file_name);

}  // namespace pacflow
