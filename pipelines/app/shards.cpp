#include "pipelines/app/shards.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/run/batch_wire.hpp"

namespace pacflow::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "shard.json";
constexpr const char* kBatches = "batches.bin";
constexpr int kShardFormat = 2;  // 2: sealed by a checksum, with batches.bin's and every file's
// A record holds the plan (a dataset's every row) and the files' list: far below this.
constexpr std::size_t kMaxShardRecordBytes = std::size_t{256} << 20;
// Each batch in batches.bin: its length, then its bytes.
using BatchLength = std::uint64_t;

// What makes the shards' batches: the plan without its sinks, which only the merge runs (into its
// own folder).
json batch_plan(json plan) {
  json& elements = plan.at("pipeline");
  elements.erase(std::remove_if(elements.begin(), elements.end(),
                                [](const json& e) { return e.value("kind", "") == "sink"; }),
                 elements.end());
  return plan;
}

// A path a record may list: relative, inside the shard's folder, no hidden component (pacflow's
// own locks, journals and temporaries), not the shard's own files.
bool listable(const fs::path& path) {
  if (path.empty() || path.is_absolute() || path == kManifest || path == kBatches) return false;
  return std::none_of(path.begin(), path.end(), [](const fs::path& part) {
    const std::string name = part.string();
    return name.empty() || name.front() == '.';
  });
}

// An integer member of a record within [low, high]; throws `damaged` naming it otherwise.
template <typename Damaged>
std::int64_t bounded(const json& record, const char* key, std::int64_t low, std::int64_t high, const Damaged& damaged) {
  const json& value = record.contains(key) ? record[key] : json();
  if (!value.is_number_integer() || value.get<std::int64_t>() < low || value.get<std::int64_t>() > high)
    throw damaged(fmt::format("\"{}\" is {}, not an integer in [{}, {}]", key, value.dump(), low, high));
  return value.get<std::int64_t>();
}

template <typename Damaged>
std::string text_member(const json& record, const char* key, const Damaged& damaged) {
  if (!record.contains(key) || !record[key].is_string()) throw damaged(fmt::format("no \"{}\" text", key));
  return record[key].get<std::string>();
}

// Refuses a symbolic link (or anything but a folder) on the way from `dir` to `relative`'s file.
void require_plain_folders(const fs::path& dir, const fs::path& relative) {
  fs::path at = dir;
  for (const fs::path& part : relative.parent_path()) {
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw InputError(fmt::format("{}: is {}; a shard's folders are the ones pacflow made there", at.string(),
                                   S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder"));
  }
}

}  // namespace

ShardSpec ShardSpec::parse(const std::string& text) {
  ShardSpec spec;
  const std::size_t slash = text.find('/');
  const auto number = [&](std::string_view part, int& out) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), out);
    return error == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), spec.index) ||
      !number(std::string_view(text).substr(slash + 1), spec.count) || spec.count < 1 || spec.index < 0 ||
      spec.index >= spec.count)
    throw InputError(fmt::format("--shard \"{}\": expected i/N with 0 <= i < N, e.g. 0/4 (SLURM: "
                                 "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)",
                                 text));
  return spec;
}

ShardWriter::ShardWriter(ShardSpec spec, fs::path dir, ShardRecipe recipe)
    : spec_(spec), dir_(fs::absolute(dir).lexically_normal()), recipe_(std::move(recipe)) {
  for (const char* file : {kBatches, kManifest}) {
    try {
      check_output_target(dir_ / file);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--out {}: {}", dir.string(), e.bare_message()));
    }
  }
  folder_.hold({dir_});  // created, and locked: a second shard into this folder is refused
}

ShardWriter::~ShardWriter() {
  if (!temp_.empty()) {  // not handed over: the run failed or stopped
    batches_.reset();
    std::error_code ignored;
    fs::remove(temp_, ignored);
  }
}

std::int64_t ShardWriter::begin(const json& plan, std::int64_t resume_at) {
  plan_ = batch_plan(plan);
  // An earlier shard here stays whole (its batches.bin and shard.json) until this one replaces it.
  temp_ = temp_path_for(dir_ / kBatches);
  batches_ = UniqueFd(::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!batches_) {
    const int error = errno;
    temp_.clear();
    throw_output_error(dir_ / kBatches, error, "cannot create");
  }
  return resume_at;  // 0: a shard keeps no checkpoint
}

void ShardWriter::send(const Batch& batch) {
  const std::vector<std::byte> bytes = detail::encode_batch(batch);
  const auto length = static_cast<BatchLength>(bytes.size());
  const auto write_all = [&](const void* data, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(batches_.get(), static_cast<const char*>(data) + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw_output_error(dir_ / kBatches, n < 0 ? errno : ENOSPC, "cannot write");
      done += static_cast<std::size_t>(n);
    }
    checksum_.update(data, size);
    bytes_ += size;
  };
  write_all(&length, sizeof length);
  write_all(bytes.data(), bytes.size());
  ++sent_;
}

Batch ShardWriter::receive(std::int64_t, int, const std::stop_token&) {
  throw std::logic_error("a shard receives no batch");
}

void ShardWriter::add_to(OutputSet& outputs) {
  if (batches_.reset() != 0) throw_output_error(dir_ / kBatches, errno, "cannot write");
  // The other files of the set in this folder: a dataset's recordings', checked by the merge.
  json files = json::array();
  for (const auto& [file, target] : outputs.files()) {
    const fs::path relative = target.lexically_relative(dir_);
    if (!listable(relative)) continue;
    const InputFile written(file);
    files.push_back({{"path", relative.string()}, {"bytes", written.size()},
                     {"checksum", checksum_of_fd(written.fd(), written.size())}});
  }
  outputs.add(temp_, dir_ / kBatches);
  temp_.clear();  // the set's now
  const json record = sealed({{"format", kShardFormat},
                              {"shard", spec_.index},
                              {"shards", spec_.count},
                              {"batches", sent_},
                              {"batches_bytes", bytes_},
                              {"batches_checksum", checksum_.hex()},
                              {"files", files},
                              {"recipe", job_record(recipe_)},
                              {"plan", plan_}});
  outputs.add_content(dir_ / kManifest, record.dump(2) + "\n");
}

void ShardWriter::commit() {
  OutputSet outputs;
  add_to(outputs);
  outputs.commit();
}

ShardReader::ShardReader(const std::vector<fs::path>& dirs, const std::stop_token& stop) {
  if (dirs.empty()) throw InputError("merge: name the shards' folders");
  std::vector<Shard> given;
  for (const fs::path& dir : dirs) {
    const fs::path path = dir / kManifest;
    const auto damaged = [&](const std::string& why) {
      return InputError(fmt::format("{}: a damaged or edited shard record ({}); run the shard again", path.string(), why));
    };
    json record;
    try {
      record = parse_json_record(
          InputFile(path, InputFile::NoFollow::leaf).read_all(kMaxShardRecordBytes, "a shard's record"));
    } catch (const InputError& e) {
      throw InputError(fmt::format("merge: {} holds no finished shard ({})", dir.string(), e.bare_message()));
    } catch (const std::exception& e) {  // not JSON, or nested absurdly deep
      throw damaged(e.what());
    }
    if (!record.is_object() || record.value("format", json()) != kShardFormat)
      throw InputError(fmt::format("{}: a shard of another pacflow version (format {}); run it again with this one",
                                   path.string(), record.is_object() ? record.value("format", json()).dump() : "none"));
    if (!seal_intact(record)) throw damaged("its checksum does not match its contents");
    Shard shard{dir, record, {}, nullptr, 0};
    const std::int64_t count = bounded(record, "shards", 1, std::numeric_limits<int>::max(), damaged);
    bounded(record, "shard", 0, count - 1, damaged);
    bounded(record, "batches", 0, std::numeric_limits<std::int64_t>::max(), damaged);
    bounded(record, "batches_bytes", 0, std::numeric_limits<std::int64_t>::max(), damaged);
    text_member(record, "batches_checksum", damaged);
    if (!record.contains("files") || !record["files"].is_array()) throw damaged("no \"files\" list");
    for (const json& f : record["files"]) {
      if (!f.is_object()) throw damaged("a file that is not an object");
      const std::string file = text_member(f, "path", damaged);
      if (!listable(fs::path(file).lexically_normal()) || fs::path(file).lexically_normal().string() != file)
        throw damaged(fmt::format("\"{}\" is not a file inside the shard's folder", file));
      shard.files.push_back({file, static_cast<std::uint64_t>(bounded(f, "bytes", 0, std::numeric_limits<std::int64_t>::max(), damaged)),
                             text_member(f, "checksum", damaged)});
    }
    if (!record.contains("recipe") || !record["recipe"].is_object() || !record.contains("plan"))
      throw damaged("no recipe or plan");
    try {
      job_from_record(record["recipe"]);
    } catch (const json::exception& e) {
      throw damaged(e.what());
    }
    given.push_back(std::move(shard));
  }
  // Checked against the folders given before anything is sized by what a record claims.
  const json& first = given.front().record;
  const fs::path first_dir = given.front().dir;
  const int count = first["shards"].get<int>();
  std::map<int, std::size_t> by_index;
  for (std::size_t k = 0; k < given.size(); ++k) {
    const json& r = given[k].record;
    if (r["shards"] != count || r["plan"] != first["plan"] || r["recipe"] != first["recipe"])
      throw InputError(fmt::format("merge: {} and {} are shards of different runs (pipeline, input, parameters or "
                                   "shard count)",
                                   first_dir.string(), given[k].dir.string()));
    const int index = r["shard"].get<int>();
    if (const auto [it, fresh] = by_index.emplace(index, k); !fresh)
      throw InputError(fmt::format("merge: shard {}/{} is given twice ({} and {})", index, count,
                                   given[it->second].dir.string(), given[k].dir.string()));
  }
  for (int i = 0; i < count; ++i)
    if (!by_index.contains(i))
      throw InputError(fmt::format("merge: shard {}/{} is missing (run it with --shard {}/{})", i, count, i, count));
  for (const auto& [index, k] : by_index) shards_.push_back(std::move(given[k]));  // count of them, in order
  for (Shard& shard : shards_) {
    const fs::path path = shard.dir / kBatches;
    try {
      shard.batches = std::make_unique<InputFile>(path, InputFile::NoFollow::leaf);  // never a FIFO or a device
    } catch (const InputError& e) {
      throw InputError(fmt::format("merge: {} holds no finished shard ({})", shard.dir.string(), e.bare_message()));
    }
    if (shard.batches->size() != shard.record["batches_bytes"].get<std::uint64_t>() ||
        checksum_of_fd(shard.batches->fd(), shard.batches->size(), stop) != shard.record["batches_checksum"])
      throw InputError(fmt::format("{}: damaged: its size or checksum is not what {} records; run the shard again",
                                   path.string(), (shard.dir / kManifest).string()));
  }
  recipe_ = job_from_record(shards_.front().record["recipe"]);  // `first` was moved with its shard
}

ShardReader::~ShardReader() = default;

std::vector<ShardFile> ShardReader::files_of(int index) const { return shards_.at(static_cast<std::size_t>(index)).files; }

std::int64_t ShardReader::begin(const json& plan, std::int64_t resume_at) {
  if (batch_plan(plan) != shards_.front().record.at("plan"))
    throw InputError(fmt::format("merge: the shards in {} … were made from another pipeline or input than {} now "
                                 "gives (a file changed?): run the shards again",
                                 shards_.front().dir.string(), recipe_.pipe_file.string()));
  return resume_at;  // 0: a merge keeps no checkpoint
}

void ShardReader::send(const Batch&) { throw std::logic_error("a merge sends no batch"); }

Batch ShardReader::receive(std::int64_t index, int from, const std::stop_token& stop) {
  if (stop.stop_requested()) throw RunCancelled(index);
  Shard& shard = shards_.at(static_cast<std::size_t>(from));
  const fs::path path = shard.dir / kBatches;
  const InputFile& file = *shard.batches;
  BatchLength length = 0;
  // Bounded by what the file holds (its checksum matched): a length it claims beyond is refused
  // before anything is allocated for it.
  if (file.size() - shard.offset < sizeof length ||
      file.read_at(shard.offset, &length, sizeof length) != sizeof length ||
      length > file.size() - shard.offset - sizeof length)
    throw InputError(fmt::format("{}: ends before batch {}; run the shard again", path.string(), index));
  std::vector<std::byte> bytes(length);
  if (file.read_at(shard.offset + sizeof length, bytes.data(), bytes.size()) != bytes.size())
    throw InputError(fmt::format("{}: ends before batch {}; run the shard again", path.string(), index));
  shard.offset += sizeof length + length;
  Batch batch;
  try {
    batch = detail::decode_batch(bytes.data(), bytes.size());
  } catch (const std::runtime_error& e) {
    throw InputError(fmt::format("{}: batch {} cannot be read ({}); run the shard again", path.string(), index, e.what()));
  }
  if (batch.index != index)
    throw InputError(fmt::format("{}: holds batch {} where batch {} was due", path.string(), batch.index, index));
  return batch;
}

void add_checked_copies(const ShardReader& shards, int index, const fs::path& to, OutputSet& outputs,
                        const std::stop_token& stop) {
  const fs::path& dir = shards.dir_of(index);
  for (const ShardFile& listed : shards.files_of(index)) {
    const fs::path path = dir / listed.path;
    const auto differs = [&](const std::string& what) {
      return InputError(fmt::format("merge: {}: {} is not what {} records; run shard {} again", path.string(), what,
                                    (dir / kManifest).string(), index));
    };
    require_plain_folders(dir, listed.path);
    std::unique_ptr<InputFile> file;
    try {
      file = std::make_unique<InputFile>(path, InputFile::NoFollow::leaf);
    } catch (const InputError& e) {
      throw InputError(fmt::format("merge: a file shard {} lists cannot be read: {}; run the shard again", index,
                                   e.bare_message()));
    }
    if (file->size() != listed.bytes) throw differs(fmt::format("its size ({} bytes)", file->size()));
    if (checksum_of_fd(file->fd(), file->size(), stop) != listed.checksum) throw differs("its checksum");
    outputs.add(path, to / listed.path, /*keep=*/true);
  }
}

}  // namespace pacflow::app
