#pragma once
// What the output-safety tests build around the CLI: device nodes in a scratch folder (never the
// real /dev), named pipes, a small tmpfs (a disk that fills up) and read-only bind mounts (a folder
// no one may write, root included). Device nodes and mounts need root (CAP_MKNOD, CAP_SYS_ADMIN):
// each maker returns why it could not, for the test to skip with that message.
#include <filesystem>
#include <cstdint>
#include <optional>
#include <string>

namespace pacflow::testing {

// Makes a character device node at `path` (e.g. 1, 3: what /dev/null is). Returns "" when made,
// else why not.
std::string make_char_device(const std::filesystem::path& path, unsigned major, unsigned minor);

// Makes a named pipe at `path`; throws on failure (no privilege is needed).
void make_fifo(const std::filesystem::path& path);

// A float32 .npy of `shape` (NumPy's text, e.g. "(1024, 1048576)") holding `values` zeros, sparse on
// disk: as large as asked without taking the space.
void write_sparse_npy(const std::filesystem::path& path, const std::string& shape, std::uintmax_t values);

// A mount held for the scope: unmounted (lazily, so a busy file does not keep it) when destroyed.
class Mount {
 public:
  // A tmpfs of `bytes` at `dir` (created if missing): writes beyond it fail with ENOSPC.
  static std::optional<Mount> tmpfs(const std::filesystem::path& dir, std::size_t bytes, std::string& why_not);
  // `dir` bound onto itself read-only: every write into it fails with EROFS, for root too.
  static std::optional<Mount> read_only(const std::filesystem::path& dir, std::string& why_not);

  Mount(Mount&& other) noexcept;
  Mount& operator=(Mount&&) = delete;
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  ~Mount();

 private:
  explicit Mount(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

}  // namespace pacflow::testing
