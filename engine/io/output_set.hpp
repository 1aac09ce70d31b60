#pragma once
// The files a run writes, moved into place together once every one of them is complete.
//
// Sinks (and the trace) write each output in full under a temporary name and add it here; nothing
// replaces an existing output before commit(). commit() then
//   1. puts every file beside its target: a file written elsewhere (a checkpoint's partial output,
//      perhaps on another file system) is copied there. This is the step a full disk can fail; it
//      leaves every earlier output, and the checkpoint, as they were;
//   2. writes a journal listing every move into each folder involved (kCommitJournal);
//   3. renames every file into place, then removes the journals.
// Renaming several files is not one atomic step. A process killed between the first and the last
// rename (microseconds per file) leaves the journal, and the next run into any of those folders
// completes the moves (repair_half_committed, called by OutputFolders) before it does anything
// else: a folder never keeps a mix of two runs' files. This protects against the process dying
// (a kill, a crash, the OOM killer), not against the machine losing power: nothing is fsync'ed.
#include <filesystem>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/api/reserved_names.hpp"  // kCommitJournal: the journal's name in each folder
#include "engine/io/run_files.hpp"            // StaleFiles

namespace pacflow {

class OutputSet {
 public:
  OutputSet() = default;
  // Not committed: removes every temporary it owns (and the copies it made), leaving the targets.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // `file` holds the complete content for `target` (a symbolic link at target is followed: the file
  // it points to is replaced, the link stays). The set owns `file` and moves it, unless `keep`: then
  // it is copied and left where it is (a checkpoint's partial output stays until the checkpoint is
  // discarded, so a run killed during the commit still resumes).
  void add(std::filesystem::path file, const std::filesystem::path& target, bool keep = false);
  // Writes `content` to a temporary file beside `target` and adds it. Throws, naming `target` and the
  // system's reason, when it cannot be written (a full disk).
  void add_content(const std::filesystem::path& target, std::string_view content);
  // Steps 1 and 2: every file beside its target, the targets checked again, the journals written.
  // Throws when a file cannot be copied beside its target or a journal cannot be written, leaving
  // every target as it was; throws RunCancelled when `stop` is requested meanwhile (copying large
  // files takes time). A prepared set that is destroyed removes its journals and files again; a
  // process killed here leaves them, and the next run settles them.
  void prepare(const std::stop_token& stop = {});
  // Moves every file into place: prepare() if not done yet, then step 3; then removes the files
  // given to remove_after_commit (failures to do so are warnings(), not errors).
  void commit(const std::stop_token& stop = {});
  std::size_t size() const { return entries_.size(); }
  // Each file added, with the target it goes to (resolved), in the order added: what a shard's
  // record lists and checks.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files() const;

  // Files of earlier runs to remove once this set is in place (--clean), never before: a set that is
  // not committed removes nothing.
  void remove_after_commit(std::vector<StaleFiles> stale);
  // What commit() could not remove of them, one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Entry {
    std::filesystem::path file;    // as added
    std::filesystem::path target;  // resolved (resolved_output)
    bool keep = false;
    std::filesystem::path placed;  // beside the target: `file`, or the copy made of it
  };
  void place(Entry& entry, const std::stop_token& stop);
  void remove_temporaries() noexcept;

  std::vector<Entry> entries_;
  std::vector<std::filesystem::path> journals_;  // written by prepare(), removed once commit() is done
  std::vector<StaleFiles> stale_;               // removed once committed
  std::vector<std::string> warnings_;
  bool prepared_ = false;
  bool committed_ = false;
};

// Completes a commit that a killed process left half done in `folder` (its journal is there):
// moves each file the journal lists that is still under its temporary name, then removes the
// journal from every folder it was written to. Returns the number of files moved (0 when there was
// no journal). Throws InputError naming the journal when it is damaged or a move fails.
std::size_t repair_half_committed(const std::filesystem::path& folder);

// Writes small files (`target`, `content`) as a run writes its outputs: each target checked
// (check_output_target, find_output_clash against `inputs`), its folder created and locked
// (OutputFolders), and all moved into place together. For `pipeline_cli graph -o`.
void write_outputs(const std::vector<std::pair<std::filesystem::path, std::string>>& files,
                   const std::vector<std::filesystem::path>& inputs);

}  // namespace pacflow
