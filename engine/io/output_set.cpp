#include "engine/io/output_set.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <fmt/format.h>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/unique_fd.hpp"

namespace pacflow {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kJournalFormat = 1;

void remove_quietly(const fs::path& path) noexcept {
  std::error_code ec;
  fs::remove(path, ec);
}

// Copies `from` into a new file `to` (the kernel copies, or clones where the file system can),
// keeping the system's reason for a failure: std::filesystem's copy_file reports a full disk as
// "Input/output error". Throws via throw_output_error, or RunCancelled when `stop` is requested.
void copy_contents(const fs::path& from, const fs::path& to, const fs::path& target, const std::stop_token& stop) {
  const InputFile in(from);
  const UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!out) throw_output_error(target, errno, "cannot create the file");
  const auto failed = [&](int error) { throw_output_error(target, error, "cannot copy the finished file beside it"); };
  constexpr std::size_t kChunk = std::size_t{1} << 26;  // 64 MiB between looks at `stop`
  std::vector<char> buffer;                              // for file systems copy_file_range cannot serve
  for (std::uint64_t done = 0; done < in.size();) {
    if (stop.stop_requested()) throw RunCancelled(0);
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, in.size() - done));
    if (buffer.empty()) {
      auto offset = static_cast<off_t>(done);
      const ssize_t copied = ::copy_file_range(in.fd(), &offset, out.get(), nullptr, want, 0);
      if (copied > 0) {
        done += static_cast<std::uint64_t>(copied);
        continue;
      }
      if (copied == 0) break;  // the source shrank
      if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) failed(errno);
      buffer.resize(std::size_t{1} << 20);
    }
    std::size_t got = 0;
    try {
      got = in.read_at(done, buffer.data(), std::min(want, buffer.size()));
    } catch (const InputError& e) {  // a file this run wrote: failing to read it back is no bad input
      throw std::runtime_error(e.what());
    }
    if (got == 0) break;
    for (std::size_t written = 0; written < got;) {
      const ssize_t n = ::pwrite(out.get(), buffer.data() + written, got - written, static_cast<off_t>(done + written));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) failed(n < 0 ? errno : ENOSPC);
      written += static_cast<std::size_t>(n);
    }
    done += got;
  }
}

// A move a journal may hold: a temporary named for its target (temp_path_for), in the target's folder.
bool plausible_move(const fs::path& from, const fs::path& to) {
  return from.is_absolute() && to.is_absolute() && from.parent_path() == to.parent_path() && to.has_filename() &&
         temp_file_writer(from.filename().string()) > 0 &&
         from.filename().string().rfind(fmt::format(".{}.", to.filename().string()), 0) == 0;
}

// A commit's journal as read back: its id, every folder it was written to, and every move.
struct Journal {
  std::string id;
  std::vector<fs::path> folders;
  std::vector<std::pair<fs::path, fs::path>> moves;  // temporary, target
};

// The journal at `path`; throws `damaged(why)` when it cannot be one of ours.
template <typename Damaged>
Journal read_journal(const fs::path& path, const Damaged& damaged) {
  json j;
  try {
    j = parse_json_record(InputFile(path).read_all(std::size_t{16} << 20, "a commit journal"));
    if (j.value("pacflow_commit", 0) != kJournalFormat || !j.value("id", json()).is_string() ||
        !j.value("folders", json()).is_array() || !j.value("moves", json()).is_array())
      throw damaged("not a pacflow commit journal of format " + std::to_string(kJournalFormat));
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw damaged(e.what());
  }
  Journal journal{j["id"].get<std::string>(), {}, {}};
  for (const json& f : j["folders"]) {
    if (!f.is_string() || !fs::path(f.get<std::string>()).is_absolute()) throw damaged("a folder that is not a path");
    journal.folders.emplace_back(f.get<std::string>());
  }
  for (const json& move : j["moves"]) {
    if (!move.is_object() || !move.value("from", json()).is_string() || !move.value("to", json()).is_string())
      throw damaged("a move without \"from\" and \"to\"");
    const fs::path from = move["from"].get<std::string>(), to = move["to"].get<std::string>();
    if (!plausible_move(from, to)) throw damaged(fmt::format("{} is not a temporary of {}", from.string(), to.string()));
    if (std::find(journal.folders.begin(), journal.folders.end(), to.parent_path()) == journal.folders.end())
      throw damaged(fmt::format("{} lies in a folder the journal does not list", to.string()));
    journal.moves.emplace_back(from, to);
  }
  return journal;
}

// The id of the journal in `folder`, or "" when there is none (or it is unreadable).
std::string journal_id(const fs::path& folder) {
  try {
    return parse_json_record(InputFile(folder / kCommitJournal).read_all(std::size_t{16} << 20, "a commit journal"))
        .value("id", std::string());
  } catch (const std::exception&) {
    return "";
  }
}

// Removes the journal in `folder` if it is the commit `id`'s.
void remove_journal(const fs::path& folder, const std::string& id) {
  if (journal_id(folder) == id) remove_quietly(folder / kCommitJournal);
}

}  // namespace

OutputSet::~OutputSet() {
  if (!committed_) remove_temporaries();
}

void OutputSet::remove_temporaries() noexcept {
  for (const fs::path& journal : journals_) remove_quietly(journal);  // journals first: see repair
  journals_.clear();
  for (const Entry& e : entries_) {
    if (!e.keep) remove_quietly(e.file);
    if (!e.placed.empty() && e.placed != e.file) remove_quietly(e.placed);
  }
}

void OutputSet::add(fs::path file, const fs::path& target, bool keep) {
  entries_.push_back({std::move(file), resolved_output(target), keep, {}});
}

std::vector<std::pair<fs::path, fs::path>> OutputSet::files() const {
  std::vector<std::pair<fs::path, fs::path>> out;
  for (const Entry& e : entries_) out.emplace_back(e.file, e.target);
  return out;
}

void OutputSet::add_content(const fs::path& target, std::string_view content) {
  const fs::path resolved = resolved_output(target);
  const fs::path temp = temp_path_for(resolved);
  entries_.push_back({temp, resolved, false, {}});  // owned from here: removed if anything below fails
  write_whole_file(temp, content, target);
}

void OutputSet::place(Entry& e, const std::stop_token& stop) {
  if (!e.keep && fs::absolute(e.file).parent_path() == e.target.parent_path()) {
    e.placed = fs::absolute(e.file);
    return;
  }
  e.placed = temp_path_for(e.target);
  try {
    copy_contents(e.file, e.placed, e.target, stop);
  } catch (...) {
    remove_quietly(e.placed);
    e.placed.clear();
    throw;
  }
}

void OutputSet::prepare(const std::stop_token& stop) {
  if (prepared_) return;
  for (Entry& e : entries_) place(e, stop);
  // What could have changed under a target while the run ran (a folder made where a result goes)
  // would fail its rename after others were done: look again before anything moves.
  for (const Entry& e : entries_) check_output_target(e.target);
  if (stop.stop_requested()) throw RunCancelled(0);  // the last moment a stop leaves everything as it was

  // One journal per folder, each listing every folder and every move, under one id: the next run into
  // any of them can tell whether all were written (then renames may have begun) or not (then none has).
  std::set<fs::path> folders;
  for (const Entry& e : entries_) folders.insert(e.target.parent_path());
  json moves = json::array();
  for (const Entry& e : entries_) moves.push_back({{"from", e.placed.string()}, {"to", e.target.string()}});
  json folder_list = json::array();
  for (const fs::path& f : folders) folder_list.push_back(f.string());
  const std::string id = fmt::format("{}-{:016x}", static_cast<long>(::getpid()), std::random_device{}() * 0x100000001ULL);
  const std::string journal = json_text({{"pacflow_commit", kJournalFormat},
                                         {"id", id},
                                         {"folders", folder_list},
                                         {"moves", moves}},
                                        1) +
                              "\n";
  for (const fs::path& folder : folders) {
    write_file_atomically(folder / kCommitJournal, journal);  // on failure the destructor removes the others
    journals_.push_back(folder / kCommitJournal);
  }
  prepared_ = true;
}

void OutputSet::commit(const std::stop_token& stop) {
  if (committed_) throw std::logic_error("OutputSet committed twice");
  prepare(stop);
  // From here a kill leaves every journal, and the next run into any of these folders finishes.
  std::size_t failed = 0;
  std::string first_failure;
  for (const Entry& e : entries_) {
    std::error_code ec;
    fs::rename(e.placed, e.target, ec);
    if (!ec) continue;
    if (failed++ == 0) first_failure = fmt::format("{}: {}", e.target.string(), ec.message());
  }
  committed_ = true;  // whatever happens now, the temporaries belong to the journal
  if (failed > 0)
    throw std::runtime_error(fmt::format("{} of {} outputs could not be moved into place ({}); the journal {} lists "
                                         "them, and the next run into that folder completes the moves",
                                         failed, entries_.size(), first_failure, journals_.front().string()));
  for (const Entry& e : entries_)
    if (!e.keep && e.placed != fs::absolute(e.file)) remove_quietly(e.file);  // copied from another folder
  for (const fs::path& path : journals_) remove_quietly(path);
  journals_.clear();
  warnings_ = remove_stale_files(stale_);
}

void OutputSet::remove_after_commit(std::vector<StaleFiles> stale) {
  for (StaleFiles& s : stale) stale_.push_back(std::move(s));
}

std::size_t repair_half_committed(const fs::path& folder) {
  const fs::path path = folder / kCommitJournal;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  const auto damaged = [&](const std::string& why) {
    return InputError(fmt::format("{}: a damaged commit journal ({}); remove it to give up on the outputs of the "
                                  "interrupted run it describes",
                                  path.string(), why));
  };
  const Journal journal = read_journal(path, damaged);
  // Every journal written: renames may have begun, so every one is finished (renaming a temporary
  // that is still there; one that is gone was moved). Journals are removed only after the renames,
  // and undoing removes one first, so "all present" never follows a partial undo.
  const bool all_written = std::all_of(journal.folders.begin(), journal.folders.end(),
                                       [&](const fs::path& f) { return journal_id(f) == journal.id; });
  std::size_t moved = 0;
  if (all_written) {
    for (const auto& [from, to] : journal.moves) {
      struct stat file {};
      if (::lstat(from.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) continue;
      std::error_code ec;
      fs::rename(from, to, ec);
      if (ec && ec != std::errc::no_such_file_or_directory)  // another run settling the same journal took it
        throw InputError(fmt::format("{}: cannot complete the interrupted commit ({} to {}: {}); remove the journal "
                                     "to give up on it",
                                     path.string(), from.string(), to.string(), ec.message()));
      moved += ec ? 0 : 1;
    }
    for (const fs::path& f : journal.folders) remove_journal(f, journal.id);
    return moved;
  }
  // Not every journal was written (or the commit was already finishing): no target was replaced
  // by this commit's renames that is not already in place. Drop its journals first, then its
  // temporaries, so that a kill in between never leaves "all journals" over a partial set.
  for (const fs::path& f : journal.folders) remove_journal(f, journal.id);
  for (const auto& [from, to] : journal.moves) remove_quietly(from);
  return 0;
}

void write_outputs(const std::vector<std::pair<fs::path, std::string>>& files, const std::vector<fs::path>& inputs) {
  std::vector<OutputPath> outputs;
  std::vector<fs::path> targets;
  for (const auto& [target, content] : files) {
    check_output_target(target);
    outputs.push_back({target, "this command"});
    targets.push_back(target);
  }
  if (const auto clash = find_output_clash(outputs, inputs)) throw InputError(clash->message);
  OutputFolders folders(targets);
  OutputSet set;
  for (const auto& [target, content] : files) set.add_content(target, content);
  set.commit();
  folders.keep_created();
}

}  // namespace pacflow
