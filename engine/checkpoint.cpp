#include "engine/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

#include "engine/atomic_file.hpp"
#include "engine/errors.hpp"
#include "engine/json_text.hpp"

namespace pacflow {

namespace fs = std::filesystem;

namespace {

constexpr int kFormat = 1;

// "at /pipeline/3/params/n: 200 in the checkpoint, 100 now": the first place the plans differ.
std::string first_difference(const json& recorded, const json& now) {
  const json patch = json::diff(recorded, now);
  if (patch.empty()) return "";
  const json::json_pointer at(patch[0].at("path").get<std::string>());
  const auto value = [&at](const json& plan) { return plan.contains(at) ? json_text(plan.at(at)) : "absent"; };
  return fmt::format("at {}: {} in the checkpoint, {} now", at.to_string(), value(recorded), value(now));
}

json read_manifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open for reading", path.string()));
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not a pacflow checkpoint ({}); remove it to start afresh", path.string(),
                                 e.what()));
  }
}

}  // namespace

Checkpoint::Checkpoint(fs::path dir, json plan, std::int64_t series, const std::vector<std::string>& sinks)
    : dir_(std::move(dir)), plan_(json::parse(json_text(plan))), series_(series), sink_states_(sinks.size()) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw InputError(fmt::format("--checkpoint {}: cannot create the folder: {}", dir_.string(), ec.message()));
  const fs::path lock = dir_ / ".lock";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw InputError(fmt::format("--checkpoint {}: cannot create {}", dir_.string(), lock.string()));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw InputError(fmt::format("--checkpoint {}: another run is using this checkpoint", dir_.string()));
  }
  for (std::size_t k = 0; k < sinks.size(); ++k) sink_dirs_.push_back(dir_ / fmt::format("sink-{}-{}", k, sinks[k]));

  if (fs::exists(manifest_path(), ec)) {
    const json manifest = read_manifest(manifest_path());
    const auto where = manifest_path().string();
    if (manifest.value("pacflow_checkpoint", 0) != kFormat || !manifest.contains("plan") ||
        !manifest.contains("series_done") || !manifest.contains("sinks"))
      throw InputError(fmt::format("{}: not a pacflow checkpoint of format {}; remove it to start afresh", where,
                                   kFormat));
    if (const std::string diff = first_difference(manifest["plan"], plan_); !diff.empty())
      throw InputError(fmt::format("--checkpoint {}: it was made by another pipeline or input ({}); remove the "
                                   "folder, or choose another, to start afresh",
                                   dir_.string(), diff));
    series_done_ = manifest["series_done"].get<std::int64_t>();
    const json& states = manifest["sinks"];
    if (series_done_ < 0 || series_done_ > series_ || !states.is_array() || states.size() != sinks.size())
      throw InputError(fmt::format("{}: inconsistent checkpoint ({} of {} series done, {} sink states for {} sinks); "
                                   "remove it to start afresh",
                                   where, series_done_, series_, states.size(), sinks.size()));
    for (std::size_t k = 0; k < sinks.size(); ++k) sink_states_[k] = states[k];
  }
  for (const auto& d : sink_dirs_) {
    fs::create_directories(d, ec);
    if (ec) throw InputError(fmt::format("--checkpoint {}: cannot create {}: {}", dir_.string(), d.string(), ec.message()));
  }
}

Checkpoint::~Checkpoint() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void Checkpoint::record(std::int64_t series_done, std::vector<json> sink_states) {
  series_done_ = series_done;
  sink_states_ = std::move(sink_states);
  const json manifest = {{"pacflow_checkpoint", kFormat},
                         {"series_total", series_},
                         {"series_done", series_done_},
                         {"sinks", sink_states_},
                         {"plan", plan_}};
  write_file_atomically(manifest_path(), json_text(manifest) + "\n");
}

void Checkpoint::discard() noexcept {
  std::error_code ec;
  fs::remove(manifest_path(), ec);
  for (const auto& d : sink_dirs_) fs::remove_all(d, ec);
  fs::remove(dir_ / ".lock", ec);
  fs::remove(dir_, ec);  // only when empty: the folder may hold the user's other files
}

}  // namespace pacflow
