#include "engine/run/checkpoint.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/io/atomic_file.hpp"
#include "engine/io/checksum.hpp"
#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"
#include "engine/api/json_text.hpp"

namespace pacflow {

namespace fs = std::filesystem;

namespace {

constexpr int kFormat = 2;  // 2: sealed by a checksum (engine/io/checksum.hpp)
// A record holds the plan and each sink's small state (the png sink's sums): far below this.
constexpr std::size_t kMaxRecordBytes = std::size_t{256} << 20;

}  // namespace

std::string first_plan_difference(const json& recorded, const json& now) {
  const json patch = json::diff(recorded, now);
  if (patch.empty()) return "";
  const json::json_pointer at(patch[0].at("path").get<std::string>());
  const auto value = [&at](const json& plan) { return plan.contains(at) ? json_text(plan.at(at)) : "absent"; };
  return fmt::format("at {}: {} in the checkpoint, {} now", at.to_string(), value(recorded), value(now));
}

const fs::path& created_checkpoint_root(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw_output_error(dir, ec.value(), "--checkpoint: cannot create the folder");
  return dir;
}

// The marker in each sink folder a checkpoint made: only folders holding it are ever used or removed.
constexpr const char* kSinkMarker = ".pacflow-checkpoint";

bool made_by_checkpoint(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  return ::lstat((dir / kSinkMarker).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void make_checkpoint_folder(const fs::path& dir, const fs::path& checkpoint_dir) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir, ec)))
    throw InputError(fmt::format("--checkpoint {}: {} is not a folder this checkpoint made ({}); move it away, or "
                                 "choose another --checkpoint folder",
                                 checkpoint_dir.string(), dir.string(),
                                 fs::is_symlink(fs::symlink_status(dir, ec)) ? "a symbolic link"
                                                                            : "no " + std::string(kSinkMarker) + " in it"));
  if (::mkdir(dir.c_str(), 0755) != 0) throw_output_error(dir, errno, "--checkpoint: cannot create the folder");
  write_file_atomically(dir / kSinkMarker, "a pacflow checkpoint's folder: removed with the checkpoint\n");
}

Checkpoint::Checkpoint(fs::path dir, json plan, std::int64_t series, const std::vector<std::string>& sinks)
    : dir_(std::move(dir)),
      lock_(created_checkpoint_root(dir_), ".lock", "using this checkpoint; wait for it to end, or choose another --checkpoint folder"),
      plan_(json::parse(json_text(plan))), series_(series), sink_states_(sinks.size()) {
  for (std::size_t k = 0; k < sinks.size(); ++k) sink_dirs_.push_back(dir_ / fmt::format("sink-{}-{}", k, sinks[k]));
  remove_stale_temporaries(dir_);  // a record being replaced when the run was killed
  std::error_code ec;
  const bool resuming = fs::exists(fs::symlink_status(manifest_path(), ec));  // anything there, even a FIFO
  if (resuming) read_manifest(sinks.size());
  // A sink's folder is used only when this checkpoint made it: anything else there (a link, the
  // user's folder of the same name) is refused and left alone, never written through or removed.
  for (const auto& d : sink_dirs_) {
    if (made_by_checkpoint(d)) continue;
    if (resuming && series_done_ > 0 && !fs::exists(fs::symlink_status(d, ec)))
      throw InputError(fmt::format("--checkpoint {}: {} records {} series done, but {} is gone; remove the folder to "
                                   "start afresh",
                                   dir_.string(), manifest_path().string(), series_done_, d.string()));
    make_checkpoint_folder(d, dir_);
  }
}

void Checkpoint::read_manifest(std::size_t sinks) {
  const std::string where = manifest_path().string();
  const auto not_ours = [&](const std::string& why) {
    return InputError(fmt::format("{}: not a pacflow checkpoint of format {} ({}); remove it to start afresh", where,
                                  kFormat, why));
  };
  json manifest;
  try {
    // A regular file only (a FIFO here is refused, never waited on), small, and not nested absurdly deep.
    manifest = parse_json_record(InputFile(manifest_path()).read_all(kMaxRecordBytes, "a checkpoint record"));
    if (!manifest.is_object() || manifest.value("pacflow_checkpoint", 0) != kFormat) throw not_ours("another format");
    if (!seal_intact(manifest))
      throw InputError(fmt::format("{}: a damaged or edited checkpoint record (its checksum does not match its "
                                   "contents); remove the folder to start afresh",
                                   where));
    if (const std::string diff = first_plan_difference(manifest.at("plan"), plan_); !diff.empty())
      throw InputError(fmt::format("--checkpoint {}: it was made by another pipeline or input ({}); remove the "
                                   "folder, or choose another, to start afresh",
                                   dir_.string(), diff));
    series_done_ = manifest.at("series_done").get<std::int64_t>();
    const std::int64_t total = manifest.at("series_total").get<std::int64_t>();
    const json& states = manifest.at("sinks");
    if (series_done_ < 0 || series_done_ > series_ || total != series_ || !states.is_array() || states.size() != sinks)
      throw InputError(fmt::format("{}: inconsistent checkpoint ({} of {} series done, for an input of {} series; {} "
                                   "sink states for {} sinks); remove it to start afresh",
                                   where, series_done_, total, series_, states.is_array() ? states.size() : 0, sinks));
    for (std::size_t k = 0; k < sinks; ++k) sink_states_[k] = states[k];
  } catch (const json::exception& e) {
    throw not_ours(e.what());
  } catch (const std::invalid_argument& e) {  // nested too deep
    throw not_ours(e.what());
  }
}

void Checkpoint::record(std::int64_t series_done, std::vector<json> sink_states) {
  series_done_ = series_done;
  sink_states_ = std::move(sink_states);
  const json manifest = sealed({{"pacflow_checkpoint", kFormat},
                                {"series_total", series_},
                                {"series_done", series_done_},
                                {"sinks", sink_states_},
                                {"plan", plan_}});
  write_file_atomically(manifest_path(), manifest.dump() + "\n");  // dump(): what the seal was taken over
}

void Checkpoint::discard() noexcept {
  std::error_code ec;
  fs::remove(manifest_path(), ec);
  for (const auto& d : sink_dirs_)
    if (made_by_checkpoint(d)) fs::remove_all(d, ec);  // a real folder: remove_all follows no link inside
  fs::remove(dir_ / ".lock", ec);
  fs::remove(dir_, ec);  // only when empty: the folder may hold the user's other files
}

}  // namespace pacflow
