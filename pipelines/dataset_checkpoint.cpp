#include "pipelines/dataset_checkpoint.hpp"

#include <fmt/format.h>
#include <system_error>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/checksum.hpp"
#include "engine/io/input_file.hpp"
#include "engine/run/batch_wire.hpp"
#include "engine/run/checkpoint.hpp"
#include "pipelines/recording_codec.hpp"

namespace pacflow {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kCheckpointFormat = 1;
constexpr const char* kDatasetRecord = "dataset.json";
constexpr const char* kRecordingRecord = "recording.json";
constexpr const char* kArrays = "arrays.bin";
// Records hold a plan or a recording's report: far below this.
constexpr std::size_t kMaxRecordBytes = std::size_t{256} << 20;

// A sealed record of ours at `path`, or null when it is absent, damaged or not ours.
json read_record(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return nullptr;
  try {
    json record = parse_json_record(InputFile(path, InputFile::NoFollow::leaf).read_all(kMaxRecordBytes, "a record"));
    if (!record.is_object() || record.value("pacflow_dataset_checkpoint", 0) != kCheckpointFormat ||
        !seal_intact(record))
      return nullptr;
    return record;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// Whether `path` is a plain file of `bytes` bytes with `checksum`.
bool intact(const fs::path& path, const json& entry) {
  try {
    const InputFile file(path, InputFile::NoFollow::leaf);
    return file.size() == entry.at("bytes").get<std::uint64_t>() &&
           checksum_of_fd(file.fd(), file.size()) == entry.at("checksum").get<std::string>();
  } catch (const std::exception&) {
    return false;
  }
}

json file_entry(const fs::path& stored, const std::string& name) {
  const InputFile file(stored, InputFile::NoFollow::leaf);
  return {{"stored", name}, {"bytes", file.size()}, {"checksum", checksum_of_fd(file.fd(), file.size())}};
}

}  // namespace

DatasetCheckpoint::DatasetCheckpoint(fs::path dir, json plan)
    : dir_(std::move(dir)),
      lock_(created_checkpoint_root(dir_), ".lock",
            "using this checkpoint; wait for it to end, or choose another --checkpoint folder"),
      plan_(json::parse(json_text(plan))) {
  remove_stale_temporaries(dir_);
  const fs::path record_path = dir_ / kDatasetRecord;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(record_path, ec))) {
    const json record = read_record(record_path);
    if (record.is_null())
      throw InputError(fmt::format("{}: not a pacflow dataset checkpoint of format {}, or damaged; remove the folder "
                                   "to start afresh",
                                   record_path.string(), kCheckpointFormat));
    if (const std::string diff = first_plan_difference(record.at("plan"), plan_); !diff.empty())
      throw InputError(fmt::format("--checkpoint {}: it was made by another dataset or pipeline ({}); remove the "
                                   "folder, or choose another, to start afresh",
                                   dir_.string(), diff));
    return;
  }
  write_file_atomically(record_path,
                        sealed({{"pacflow_dataset_checkpoint", kCheckpointFormat}, {"plan", plan_}}).dump() + "\n");
}

std::optional<DatasetCheckpoint::Recording> DatasetCheckpoint::find(const std::string& id,
                                                                    const std::string& input_checksum) const {
  const fs::path dir = recording_dir(id);
  if (!made_by_checkpoint(dir)) return std::nullopt;
  const json record = read_record(dir / kRecordingRecord);
  if (record.is_null() || record.value("id", "") != id || record.value("input_checksum", "") != input_checksum)
    return std::nullopt;
  try {
    if (!intact(dir / kArrays, record.at("arrays"))) return std::nullopt;
    Recording kept;
    for (const json& f : record.at("files")) {
      if (!intact(dir / f.at("stored").get<std::string>(), f)) return std::nullopt;
      kept.files.emplace_back(dir / f.at("stored").get<std::string>(), fs::path(f.at("target").get<std::string>()));
    }
    const std::string bytes = InputFile(dir / kArrays, InputFile::NoFollow::leaf).read_all(~std::size_t{0}, "arrays");
    kept.results = decode_recording(detail::decode_batch(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
    kept.report = record.at("report");
    return kept;
  } catch (const std::exception&) {  // damaged, or kept by a build with another codec: the recording runs again
    return std::nullopt;
  }
}

void DatasetCheckpoint::keep(const std::string& id, const std::string& input_checksum, const json& report,
                             const stages::ResultArrays& results, const std::vector<std::pair<fs::path, fs::path>>& files) {
  const fs::path dir = recording_dir(id);
  std::error_code ec;
  if (made_by_checkpoint(dir)) fs::remove_all(dir, ec);  // an earlier, unfinished keep
  make_checkpoint_folder(dir, dir_);
  json entries = json::array();
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::string name = fmt::format("file-{}", k);
    fs::copy_file(files[k].first, dir / name, ec);
    if (ec) throw_output_error(dir / name, ec.value(), "--checkpoint: cannot keep a recording's file");
    json entry = file_entry(dir / name, name);
    entry["target"] = files[k].second.string();
    entries.push_back(std::move(entry));
  }
  const std::vector<std::byte> bytes = detail::encode_batch(encode_recording(0, results));
  write_whole_file(dir / kArrays, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                   dir / kArrays);
  const json record = sealed({{"pacflow_dataset_checkpoint", kCheckpointFormat},
                              {"id", id},
                              {"input_checksum", input_checksum},
                              {"arrays", file_entry(dir / kArrays, kArrays)},
                              {"files", entries},
                              {"report", report}});
  write_file_atomically(dir / kRecordingRecord, record.dump() + "\n");  // last: the recording is kept
}

void DatasetCheckpoint::discard() noexcept {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (entry.path().filename().string().starts_with("recording-") && made_by_checkpoint(entry.path()))
      fs::remove_all(entry.path(), ec);
  fs::remove(dir_ / kDatasetRecord, ec);
  fs::remove(dir_ / ".lock", ec);
  fs::remove(dir_, ec);  // only when empty: the folder may hold the user's other files
}

}  // namespace pacflow
