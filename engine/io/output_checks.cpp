#include "engine/io/output_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <sys/stat.h>

#include "engine/api/errors.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow {

namespace fs = std::filesystem;

namespace {

// The same file: the same path once symbolic links and `..` are resolved, or the same device and
// inode where the file exists.
struct Identity {
  fs::path path;
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;

  explicit Identity(const fs::path& p) {
    std::error_code ec;
    path = fs::weakly_canonical(fs::absolute(p), ec);
    if (ec) path = fs::absolute(p).lexically_normal();
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      exists = true;
      device = st.st_dev;
      inode = st.st_ino;
    }
  }
  bool same_file(const Identity& other) const {
    return path == other.path || (exists && other.exists && device == other.device && inode == other.inode);
  }
  // `other` lies inside this path, as if this were a folder.
  bool contains(const Identity& other) const {
    const auto [mine, theirs] = std::mismatch(path.begin(), path.end(), other.path.begin(), other.path.end());
    return mine == path.end() && theirs != other.path.end();
  }
};

}  // namespace

fs::path resolved_output(const fs::path& path) {
  const fs::path absolute = fs::absolute(path);
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(absolute, ec))) return absolute;
  const fs::path target = fs::canonical(absolute, ec);
  return ec ? absolute : target;  // a dangling or looping link: check_output_target refuses it
}

namespace {

// The nearest of `path`'s folders that exists must be a directory; `name` is what is being checked.
void check_folders_on_the_way(const fs::path& path, const std::string& name) {
  for (fs::path folder = path; !folder.empty(); folder = folder.parent_path()) {
    struct stat up {};
    if (::stat(folder.c_str(), &up) == 0) {
      if (!S_ISDIR(up.st_mode))
        throw InputError(fmt::format("{}: cannot be written, {} is {}, not a folder", name, folder.string(),
                                     special_file_kind(up.st_mode).empty() ? "a file" : special_file_kind(up.st_mode)));
      return;
    }
    if (errno != ENOENT && errno != ENOTDIR)
      throw InputError(fmt::format("{}: cannot be used as an output: {}: {}", name, folder.string(),
                                   file_error_reason(errno)));
    if (folder == folder.parent_path()) return;
  }
}

}  // namespace

bool reserved_name(std::string_view file_name) {
  return file_name == kOutputLock || file_name == kCommitJournal || temp_file_writer(std::string(file_name)) > 0;
}

void check_output_folder(const fs::path& folder) { check_folders_on_the_way(folder, folder.string()); }

bool lies_inside(const fs::path& path, const fs::path& folder) {
  return Identity(folder).contains(Identity(resolved_output(path)));
}

void check_output_target(const fs::path& path) {
  const std::string name = path.string();
  if (reserved_name(path.filename().string()))
    throw InputError(fmt::format("{}: is a name pacflow keeps for its own bookkeeping (a folder's lock, a commit "
                                 "journal, a temporary); choose another",
                                 name));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      throw InputError(fmt::format("{}: cannot be used as an output: {}", name, file_error_reason(errno)));
    check_folders_on_the_way(path.parent_path(), name);  // absent: its folders must be folders (or absent)
    return;
  }
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ELOOP) throw InputError(fmt::format("{}: too many levels of symbolic links", name));
      throw InputError(fmt::format("{}: is a symbolic link to {}, which {}; pacflow follows links to existing files "
                                   "only",
                                   name, target.string(), errno == ENOENT ? "does not exist" : file_error_reason(errno)));
    }
  }
  if (S_ISREG(st.st_mode)) return;
  if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: is a directory; give the output a file name", name));
  throw InputError(fmt::format("{}: is {}; outputs are written to a temporary file renamed over the old one, which "
                               "would replace it with a regular file, so pacflow writes only regular files",
                               name, special_file_kind(st.st_mode)));
}

std::optional<OutputClash> find_output_clash(const std::vector<OutputPath>& outputs,
                                             const std::vector<fs::path>& inputs) {
  std::vector<Identity> read;
  for (const auto& p : inputs) read.emplace_back(p);
  std::vector<Identity> written;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Identity out(resolved_output(outputs[i].path));
    const std::string name = outputs[i].path.string();
    for (std::size_t k = 0; k < read.size(); ++k)
      if (out.same_file(read[k]))
        return OutputClash{i, fmt::format("{} would replace the input file {}; write the outputs elsewhere", name,
                                          inputs[k].string())};
    for (std::size_t k = 0; k < written.size(); ++k) {
      const std::string other = outputs[k].path.string();
      if (out.same_file(written[k]))
        return OutputClash{i, fmt::format("{} is also written by {} ({}); give each output its own path", name,
                                          outputs[k].writer, other)};
      if (out.contains(written[k]) || written[k].contains(out))
        return OutputClash{i, fmt::format("{} and {}'s output {} need the same path as a file and as a folder", name,
                                          outputs[k].writer, other)};
    }
    written.push_back(out);
  }
  return std::nullopt;
}

}  // namespace pacflow
