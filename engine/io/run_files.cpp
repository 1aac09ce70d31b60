#include "engine/io/run_files.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include "engine/plan/built_pipeline.hpp"
#include "engine/io/input_file.hpp"
#include "engine/api/json_text.hpp"
#include "engine/plan/output_checks.hpp"
#include "engine/api/reserved_names.hpp"

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
bool removable(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
}

}  // namespace

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

std::vector<StaleFiles> find_stale_files(const std::vector<fs::path>& outputs) {
  std::vector<fs::path> written;
  for (const fs::path& o : outputs) {
    written.push_back(normal(o));
    written.push_back(normal(resolved_output(o)));
  }
  std::vector<StaleFiles> found;
  std::vector<fs::path> folders_seen, files_seen;
  for (const fs::path& output : outputs) {
    const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
    const fs::path identity = normal(folder);
    if (std::find(folders_seen.begin(), folders_seen.end(), identity) != folders_seen.end()) continue;
    folders_seen.push_back(identity);
    StaleFiles stale{folder, {}, {}};
    for (const std::string& name : listed_files(folder)) {
      const fs::path listed(name);
      if (!stays_inside(listed) || reserved_name(listed.filename().string())) continue;
      const fs::path file = fs::absolute(folder / listed).lexically_normal();
      // Still inside once links are resolved: a listed sub/x whose sub now links elsewhere is not ours to touch.
      if (!removable(file) || !lies_inside(file, folder)) continue;
      if (std::find(written.begin(), written.end(), normal(file)) != written.end() ||
          std::find(written.begin(), written.end(), file) != written.end())
        continue;
      if (std::find(files_seen.begin(), files_seen.end(), file) != files_seen.end()) continue;
      files_seen.push_back(file);
      stale.names.push_back(listed.lexically_normal().string());
      stale.files.push_back(file);
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
                                fmt::join(stale.names, ", "));
  return fmt::format("{}: {}; remove {} or run with --clean", what, fmt::join(stale.names, ", "), n == 1 ? "it" : "them");
}

std::vector<std::string> remove_stale_files(const std::vector<StaleFiles>& stale) {
  std::vector<std::string> failures;
  for (const StaleFiles& s : stale)
    for (const fs::path& file : s.files) {
      if (!removable(file)) continue;  // gone meanwhile, or no longer a file
      std::error_code ec;
      fs::remove(file, ec);
      if (ec) failures.push_back(fmt::format("{}: --clean could not remove it: {}", file.string(), ec.message()));
    }
  return failures;
}

namespace detail {

std::vector<RunFile> run_files(const BuiltPipeline& built, const fs::path& trace_file) {
  std::vector<RunFile> files;
  for (const auto& sink : built.sinks)
    for (const fs::path& file : sink.sink->output_files())
      files.push_back({file, sink.name, sink.sink->describe_output(file)});
  if (!trace_file.empty()) files.push_back({trace_file, "--trace", "Chrome trace of the run (one span per element and batch)"});
  return files;
}

}  // namespace detail
}  // namespace pacflow
