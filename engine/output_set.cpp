#include "engine/output_set.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "engine/atomic_file.hpp"
#include "engine/errors.hpp"
#include "engine/input_file.hpp"
#include "engine/json_text.hpp"
#include "engine/output_checks.hpp"
#include "engine/output_folders.hpp"

namespace pacflow {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kJournalFormat = 1;

void remove_quietly(const fs::path& path) noexcept {
  std::error_code ec;
  fs::remove(path, ec);
}

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(fs::absolute(a).parent_path(), fs::absolute(b).parent_path(), ec);
}

// Copies `from` into a new file `to`, keeping the system's reason for a failure (std::filesystem's
// copy_file reports a full disk as "Input/output error"). Throws via throw_output_error.
void copy_contents(const fs::path& from, const fs::path& to, const fs::path& target) {
  const InputFile in(from);
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) throw_output_error(target, errno, "cannot create the file");
  std::vector<char> chunk(std::size_t{1} << 20);
  for (std::uint64_t offset = 0; offset < in.size();) {
    const std::size_t got = in.read_at(offset, chunk.data(), chunk.size());
    if (got == 0) break;
    for (std::size_t done = 0; done < got;) {
      const ssize_t wrote = ::write(out, chunk.data() + done, got - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) {
        const int error = wrote < 0 ? errno : ENOSPC;
        ::close(out);
        throw_output_error(target, error, "cannot copy the finished file beside it");
      }
      done += static_cast<std::size_t>(wrote);
    }
    offset += got;
  }
  if (::close(out) != 0) throw_output_error(target, errno, "cannot copy the finished file beside it");
}

// A move a journal may hold: a temporary named for its target (temp_path_for), in the target's folder.
bool plausible_move(const fs::path& from, const fs::path& to) {
  return from.is_absolute() && to.is_absolute() && from.parent_path() == to.parent_path() && to.has_filename() &&
         temp_file_writer(from.filename().string()) > 0 &&
         from.filename().string().rfind("." + to.filename().string() + ".tmp-", 0) == 0;
}

}  // namespace

OutputSet::~OutputSet() {
  if (!committed_) remove_temporaries();
}

void OutputSet::remove_temporaries() noexcept {
  for (const Entry& e : entries_) {
    if (!e.keep) remove_quietly(e.file);
    if (!e.placed.empty() && e.placed != e.file) remove_quietly(e.placed);
  }
  for (const fs::path& journal : journals_) remove_quietly(journal);
  journals_.clear();
}

void OutputSet::add(fs::path file, const fs::path& target, bool keep) {
  entries_.push_back({std::move(file), resolved_output(target), keep, {}});
}

void OutputSet::add_content(const fs::path& target, std::string_view content) {
  const fs::path resolved = resolved_output(target);
  const fs::path temp = temp_path_for(resolved);
  entries_.push_back({temp, resolved, false, {}});  // owned from here: removed if anything below fails
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  if (!out) throw_output_error(target, errno, "cannot create the file");
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw_output_error(target, errno, "write failed");
}

void OutputSet::place(Entry& e) {
  if (!e.keep && same_folder(e.file, e.target)) {
    e.placed = e.file;
    return;
  }
  e.placed = temp_path_for(e.target);
  try {
    copy_contents(e.file, e.placed, e.target);
  } catch (...) {
    remove_quietly(e.placed);
    e.placed.clear();
    throw;
  }
}

void OutputSet::commit() {
  if (committed_) throw std::logic_error("OutputSet committed twice");
  for (Entry& e : entries_) place(e);

  json moves = json::array();
  std::set<fs::path> folders;
  for (const Entry& e : entries_) {
    moves.push_back({{"from", fs::absolute(e.placed).string()}, {"to", e.target.string()}});
    folders.insert(e.target.parent_path());
  }
  const std::string journal =
      json_text({{"pacflow_commit", kJournalFormat}, {"pid", static_cast<long>(::getpid())}, {"moves", moves}}, 1) + "\n";
  for (const fs::path& folder : folders) {
    write_file_atomically(folder / kCommitJournal, journal);  // on failure the destructor removes the others
    journals_.push_back(folder / kCommitJournal);
  }

  // From here a kill leaves the journals, and the next run into these folders finishes the moves.
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
    if (!e.keep && e.placed != e.file) remove_quietly(e.file);  // copied from another folder
  for (const fs::path& path : journals_) remove_quietly(path);
  journals_.clear();
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
  json journal;
  try {
    journal = parse_json_record(InputFile(path).read_all(std::size_t{16} << 20, "a commit journal"));
    if (journal.value("pacflow_commit", 0) != kJournalFormat || !journal.at("moves").is_array())
      throw damaged("not a pacflow commit journal of format " + std::to_string(kJournalFormat));
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw damaged(e.what());
  }
  std::size_t moved = 0;
  std::set<fs::path> folders{folder};
  for (const json& move : journal["moves"]) {
    if (!move.is_object() || !move.value("from", json()).is_string() || !move.value("to", json()).is_string())
      throw damaged("a move without \"from\" and \"to\"");
    const fs::path from = move["from"].get<std::string>();
    const fs::path to = move["to"].get<std::string>();
    if (!plausible_move(from, to)) throw damaged(fmt::format("{} is not a temporary of {}", from.string(), to.string()));
    folders.insert(to.parent_path());
    struct stat file {};
    if (::lstat(from.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) continue;  // moved before the kill
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)  // another run completing the same journal took it
      throw InputError(fmt::format("{}: cannot complete the interrupted commit ({} to {}: {}); remove the journal to "
                                   "give up on it",
                                   path.string(), from.string(), to.string(), ec.message()));
    moved += ec ? 0 : 1;
  }
  for (const fs::path& f : folders) remove_quietly(f / kCommitJournal);
  return moved;
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
