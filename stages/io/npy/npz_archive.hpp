#pragma once
// NumPy's .npz archives (np.savez, np.savez_compressed): a zip file holding one .npy member per
// array. A stored member (np.savez) is memory-mapped where it lies in the archive and read exactly
// like an .npy file; a deflated one (np.savez_compressed) is inflated as it is read, forward only.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/npy.hpp"

namespace pacflow::stages {

struct NpzMember {
  std::string key;      // np.savez's keyword: "x" for the member x.npy
  std::string where;    // "archive.npz:x.npy", for messages
  bool compressed = false;
  // The array's values. A compressed member reads forward: a read before the last one inflates the
  // member again from its start.
  std::unique_ptr<NpyValues> values;
};

// True when the file starts as a zip archive does (an .npz), false for anything else (an .npy).
// Throws InputError when it cannot be read (InputFile's messages).
bool is_zip_archive(const std::filesystem::path& path);

// Opens the member `key` ("x" or "x.npy") of the .npz archive at `path`, or its only member when
// `key` is not given. Throws ParamError("key", …) listing the archive's keys when `key` is not
// there (or not given and there are several), and InputError naming the archive and member when it
// is damaged, encrypted or compressed by anything but deflate.
NpzMember open_npz_member(const std::filesystem::path& path, const std::optional<std::string>& key);

// The keys of an .npz archive's .npy members, in the archive's order.
std::vector<std::string> npz_keys(const std::filesystem::path& path);

}  // namespace pacflow::stages
