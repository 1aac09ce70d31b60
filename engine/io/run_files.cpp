#include "engine/io/run_files.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/api/json_text.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/output_checks.hpp"

namespace pacflow {

namespace fs = std::filesystem;

namespace {

fs::path normal(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path).lexically_normal();
  const fs::path canonical = fs::weakly_canonical(absolute, ec);
  return ec ? absolute : canonical;
}

// A relative path that stays inside its folder: no "..", not absolute, not empty.
bool stays_inside(const fs::path& path) {
  if (path.empty() || path.is_absolute() || path.has_root_name()) return false;
  return std::none_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; });
}

// The `files` paths of the report in `folder`, or none when there is no report of ours there.
std::vector<std::string> listed_files(const fs::path& folder) {
  const fs::path report = folder / kRunReport;
  struct stat st {};
  if (::lstat(report.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  json j;
  try {
    j = parse_json_record(InputFile(report).read_all(std::size_t{64} << 20, "a run's report"));
  } catch (const std::exception&) {
    return {};  // not ours, or damaged: it proves nothing about the folder's files
  }
  std::vector<std::string> names;
  if (!j.is_object() || !j.contains("files") || !j["files"].is_array()) return {};
  for (const json& f : j["files"])
    if (f.is_object() && f.contains("path") && f["path"].is_string()) names.push_back(f["path"].get<std::string>());
  return names;
}

// A plain file or a symbolic link (removing a link removes the link only); never a folder.
bool removable(mode_t mode) { return S_ISREG(mode) || S_ISLNK(mode); }

// The folder `relative` beneath the open folder `dir`, each step opened without following a symbolic
// link (a link on the way fails with ELOOP or ENOTDIR); an invalid handle when it cannot be reached.
UniqueFd open_beneath(int dir, const fs::path& relative) {
  UniqueFd at(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  for (const fs::path& part : relative) {
    if (!at || part == ".") continue;
    at = UniqueFd(::openat(at.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  return at;
}

using FileIdentity = std::pair<std::uint64_t, std::uint64_t>;

FileIdentity identity_of(const struct stat& st) { return {st.st_dev, st.st_ino}; }

// The identities of the run's inputs (after following links): files the run reads are never stale.
std::vector<FileIdentity> input_identities(const std::vector<fs::path>& inputs) {
  std::vector<FileIdentity> ids;
  for (const fs::path& input : inputs) {
    struct stat st {};
    if (::stat(input.c_str(), &st) == 0) ids.push_back(identity_of(st));
  }
  return ids;
}

// The listed `name` in the folder `handle`, as it is now: its parent opened beneath the folder and
// its own status (not following a link at it). Empty parent when it cannot be reached that way.
struct Listed {
  UniqueFd parent;
  struct stat st {};
  int error = 0;  // why it cannot be reached (errno)
};
Listed look_up(int handle, const fs::path& name) {
  Listed found{open_beneath(handle, name.parent_path()), {}, 0};
  if (!found.parent) {
    found.error = errno;
  } else if (::fstatat(found.parent.get(), name.filename().c_str(), &found.st, AT_SYMLINK_NOFOLLOW) != 0) {
    found.error = errno;
    found.parent.reset();
  }
  return found;
}

}  // namespace

std::vector<std::string> StaleFiles::names() const {
  std::vector<std::string> out;
  for (const File& f : files) out.push_back(f.name);
  return out;
}

json files_json(const std::vector<RunFile>& files) {
  json out = json::array();
  for (const RunFile& f : files) out.push_back({{"path", f.path.string()}, {"sink", f.writer}, {"what", f.what}});
  return out;
}

json files_relative_to(const json& files, const fs::path& folder) {
  const fs::path base = fs::absolute(folder.empty() ? fs::path(".") : folder).lexically_normal();
  json out = files;
  for (json& f : out) {
    const fs::path absolute = fs::absolute(f.at("path").get<std::string>()).lexically_normal();
    const fs::path relative = absolute.lexically_relative(base);
    f["path"] = stays_inside(relative) ? relative.string() : absolute.string();
  }
  return out;
}

std::vector<StaleFiles> find_stale_files(const std::vector<fs::path>& outputs, const std::vector<fs::path>& inputs) {
  std::vector<fs::path> written;
  for (const fs::path& o : outputs) {
    written.push_back(normal(o));
    written.push_back(normal(resolved_output(o)));
  }
  const std::vector<FileIdentity> read = input_identities(inputs);
  const auto is_input = [&](const FileIdentity& id) { return std::find(read.begin(), read.end(), id) != read.end(); };
  std::vector<StaleFiles> found;
  std::vector<fs::path> folders_seen;
  for (const fs::path& output : outputs) {
    const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
    const fs::path identity = normal(folder);
    if (std::find(folders_seen.begin(), folders_seen.end(), identity) != folders_seen.end()) continue;
    folders_seen.push_back(identity);
    const std::vector<std::string> listed_names = listed_files(folder);
    if (listed_names.empty()) continue;
    auto handle = std::make_shared<const UniqueFd>(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!*handle) continue;
    StaleFiles stale{folder, handle, {}};
    std::vector<FileIdentity> seen;
    for (const std::string& name : listed_names) {
      const fs::path listed = fs::path(name).lexically_normal();
      if (!stays_inside(listed) || reserved_name(listed.filename().string())) continue;
      // Reached beneath the folder without following a link: a listed sub/x whose sub now links
      // elsewhere is not ours to touch.
      const Listed now = look_up(handle->get(), listed);
      if (!now.parent || !removable(now.st.st_mode)) continue;
      const fs::path file = fs::absolute(folder / listed).lexically_normal();
      if (std::find(written.begin(), written.end(), normal(file)) != written.end() ||
          std::find(written.begin(), written.end(), file) != written.end())
        continue;
      struct stat target {};  // a link to an input is the user's way to it: kept too
      if (is_input(identity_of(now.st)) ||
          (::fstatat(now.parent.get(), listed.filename().c_str(), &target, 0) == 0 && is_input(identity_of(target))))
        continue;
      if (std::find(seen.begin(), seen.end(), identity_of(now.st)) != seen.end()) continue;
      seen.push_back(identity_of(now.st));
      stale.files.push_back({listed.string(), now.st.st_dev, now.st.st_ino});
    }
    if (!stale.files.empty()) found.push_back(std::move(stale));
  }
  return found;
}

std::string stale_warning(const StaleFiles& stale, bool clean) {
  const std::size_t n = stale.files.size();
  const std::string what = fmt::format("{}: {} file{} of an earlier run that this run does not write", stale.folder.string(),
                                       n, n == 1 ? "" : "s");
  if (clean) return fmt::format("{}, removed by --clean once this run's outputs are in place: {}", what,
                                fmt::join(stale.names(), ", "));
  return fmt::format("{}: {}; remove {} or run with --clean", what, fmt::join(stale.names(), ", "), n == 1 ? "it" : "them");
}

std::vector<std::string> remove_stale_files(const std::vector<StaleFiles>& stale) {
  std::vector<std::string> failures;
  for (const StaleFiles& s : stale)
    for (const StaleFiles::File& f : s.files) {
      const fs::path name(f.name);
      const Listed now = look_up(s.handle->get(), name);
      if (!now.parent && now.error == ENOENT) continue;  // gone meanwhile
      if (!now.parent || !removable(now.st.st_mode) || now.st.st_dev != f.device || now.st.st_ino != f.inode) {
        failures.push_back(fmt::format("{}: --clean left it: it is no longer the file found when the run started",
                                       (s.folder / name).string()));
        continue;
      }
      if (::unlinkat(now.parent.get(), name.filename().c_str(), 0) != 0 && errno != ENOENT)
        failures.push_back(
            fmt::format("{}: --clean could not remove it: {}", (s.folder / name).string(), system_reason(errno)));
    }
  return failures;
}

}  // namespace pacflow
