#include "pipelines/bids/bids_tree.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::bids {

namespace {

namespace fs = std::filesystem;

// The sub-folders of `dir` named PREFIX-<label>, sorted naturally.
std::vector<fs::path> labelled_folders(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.size() > prefix.size() && entry.is_directory(ec))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    return natural_less(a.filename().string(), b.filename().string());
  });
  return found;
}

// The files of `dir` (a datatype folder) whose suffix is `datatype`: those of `task` into `tree`.
void scan_datatype_folder(const fs::path& dir, const std::string& datatype, const std::string& task,
                          const std::string& subject, const std::string& session, BidsTree& tree) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = parse_bids_name(entry.path().filename().string());
    if (!name || name->suffix != datatype) continue;
    const auto file_task = name->entity("task");
    if (file_task) tree.tasks.insert(*file_task);
    if (file_task != task) continue;
    const std::string expected = session.empty() ? "" : session.substr(4);
    if (name->entity("sub") != subject.substr(4) || name->entity("ses").value_or("") != expected)
      throw InputError(fmt::format(
          "{}: its name says sub-{}{} but it lies in {}; BIDS files name the subject and "
          "session of their folders",
          entry.path().string(), name->entity("sub").value_or(""),
          name->entity("ses") ? "_ses-" + *name->entity("ses") : "", (fs::path(subject) / session).string()));
    tree.files.push_back({entry.path(), *name});
  }
}

}  // namespace

BidsTree scan_bids(const fs::path& root, const std::string& datatype, const std::string& task) {
  BidsTree tree;
  for (const fs::path& subject : labelled_folders(root, "sub-")) {
    const std::string sub = subject.filename().string();
    tree.subjects.push_back(sub.substr(4));
    std::vector<std::pair<fs::path, std::string>> folders{{subject / datatype, ""}};
    for (const fs::path& session : labelled_folders(subject, "ses-"))
      folders.emplace_back(session / datatype, session.filename().string());
    for (const auto& [folder, session] : folders)
      if (fs::is_directory(folder)) scan_datatype_folder(folder, datatype, task, sub, session, tree);
  }
  std::stable_sort(tree.files.begin(), tree.files.end(), [](const BidsFile& a, const BidsFile& b) {
    return natural_less(a.name.stem, b.name.stem) ||
           (a.name.stem == b.name.stem && a.name.extension < b.name.extension);
  });
  return tree;
}

}  // namespace pacflow::bids
