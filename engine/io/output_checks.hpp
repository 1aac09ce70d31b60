#pragma once
// Output paths, checked before a run writes anything.
//
// Every output is written whole under a temporary name and renamed over its target, so a target
// that exists must be a regular file: renaming over /dev/null, a FIFO or a socket would replace it
// with a regular file. A symbolic link at a target is followed: the file it points to is replaced
// and the link stays (a link that dangles or loops is refused). A target must not be a file the run
// reads, nor a file another output writes: both are compared after resolving symbolic links and
// `..`, and by device and inode where they exist (a hard link or a bind mount is the same file).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pacflow {

// The path writes to `path` go to: absolute, with a symbolic link at its end followed (fully: a
// link to a link) when it points to an existing file. Parent folders are not resolved (renaming
// through a folder's symbolic link works).
std::filesystem::path resolved_output(const std::filesystem::path& path);

// Throws InputError with a message about `path` alone (no location prefix) when it cannot be an
// output file: it exists and is not a regular file ("/dev/null is a character device; …"), it is a
// symbolic link that dangles or loops, a folder on its way exists and is not a directory, or its
// name is one pacflow keeps for itself (a folder's lock, a commit journal, a temporary).
void check_output_target(const std::filesystem::path& path);

// Throws InputError when `folder` cannot be an output folder: it, or a folder on its way, exists and
// is not a directory (a symbolic link to one is fine).
void check_output_folder(const std::filesystem::path& folder);

// Whether `path` lies inside `folder` (symbolic links and `..` resolved).
bool lies_inside(const std::filesystem::path& path, const std::filesystem::path& folder);

// One output and who writes it, for messages ("sink \"npy\"", "--trace").
struct OutputPath {
  std::filesystem::path path;
  std::string writer;
};

// The first output that clashes: it is one of `inputs`, the same file as an earlier output, or a
// file where an earlier output needs a folder (or the other way round). `message` names both.
struct OutputClash {
  std::size_t output = 0;  // index into the outputs
  std::string message;
};
std::optional<OutputClash> find_output_clash(const std::vector<OutputPath>& outputs,
                                             const std::vector<std::filesystem::path>& inputs);

}  // namespace pacflow
