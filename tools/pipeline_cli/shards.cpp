#include "tools/pipeline_cli/shards.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/input_file.hpp"
#include "engine/run/batch_wire.hpp"

namespace pacflow::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "shard.json";
constexpr const char* kBatches = "batches.bin";
constexpr int kShardFormat = 1;

json recipe_json(const ShardRecipe& r) {
  return {{"pipe_file", r.pipe_file.string()}, {"sets", r.sets}, {"devices", r.devices},
          {"fallback", r.fallback},          {"vram", r.vram}, {"batch", r.batch}};
}

ShardRecipe recipe_of(const json& j) {
  ShardRecipe r;
  r.pipe_file = j.at("pipe_file").get<std::string>();
  r.sets = j.at("sets").get<std::vector<std::string>>();
  r.devices = j.at("devices").get<std::string>();
  r.fallback = j.at("fallback").get<std::string>();
  r.vram = j.at("vram").get<std::string>();
  r.batch = j.at("batch").get<std::int64_t>();
  return r;
}

// What makes the shards' batches: the plan without its sinks, which only the merge runs (into its
// own folder).
json batch_plan(json plan) {
  json& elements = plan.at("pipeline");
  elements.erase(std::remove_if(elements.begin(), elements.end(),
                                [](const json& e) { return e.value("kind", "") == "sink"; }),
                 elements.end());
  return plan;
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
    : spec_(spec), dir_(std::move(dir)), recipe_(std::move(recipe)) {}

ShardWriter::~ShardWriter() {
  if (!temp_.empty()) {  // not committed: the run failed or stopped
    batches_.close();
    std::error_code ignored;
    fs::remove(temp_, ignored);
  }
}

std::int64_t ShardWriter::begin(const json& plan, std::int64_t resume_at) {
  plan_ = batch_plan(plan);
  std::error_code error;
  fs::create_directories(dir_, error);
  if (error) throw InputError(fmt::format("{}: cannot create the shard's folder: {}", dir_.string(), error.message()));
  fs::remove(dir_ / kManifest, error);  // an earlier shard here is replaced only when this one is done
  temp_ = temp_path_for(dir_ / kBatches);
  batches_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!batches_) throw_output_error(temp_, errno, "cannot create");
  return resume_at;  // 0: a shard keeps no checkpoint
}

void ShardWriter::send(const Batch& batch) {
  const std::vector<std::byte> bytes = detail::encode_batch(batch);
  const auto size = static_cast<std::uint64_t>(bytes.size());
  batches_.write(reinterpret_cast<const char*>(&size), sizeof size);
  batches_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!batches_) throw_output_error(dir_ / kBatches, errno, "cannot write");
  ++sent_;
}

Batch ShardWriter::receive(std::int64_t, int, const std::stop_token&) {
  throw std::logic_error("a shard receives no batch");
}

void ShardWriter::commit() {
  batches_.close();
  if (!batches_) throw_output_error(dir_ / kBatches, errno, "cannot write");
  fs::rename(temp_, dir_ / kBatches);
  temp_.clear();
  const json manifest{{"format", kShardFormat}, {"shard", spec_.index}, {"shards", spec_.count}, {"batches", sent_},
                      {"recipe", recipe_json(recipe_)},  {"plan", plan_}};
  write_file_atomically(dir_ / kManifest, json_text(manifest, 2) + "\n");  // last: the shard is complete
}

ShardReader::ShardReader(const std::vector<fs::path>& dirs) {
  if (dirs.empty()) throw InputError("merge: name the shards' folders");
  std::vector<Shard> given;
  for (const fs::path& dir : dirs) {
    json manifest;
    try {
      manifest = json::parse(InputFile(dir / kManifest).read_all(std::size_t{1} << 30, "a shard's record"));
    } catch (const json::exception& e) {
      throw InputError(fmt::format("{}: not a shard's record ({})", (dir / kManifest).string(), e.what()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("merge: {} holds no finished shard ({})", dir.string(), e.bare_message()));
    }
    if (manifest.value("format", 0) != kShardFormat)
      throw InputError(fmt::format("{}: a shard of another pacflow version", (dir / kManifest).string()));
    given.push_back({dir, std::move(manifest), {}});
  }
  const json first = given.front().manifest;  // a copy: the shards move below
  const fs::path first_dir = given.front().dir;
  const int count = first.at("shards").get<int>();
  shards_.resize(static_cast<std::size_t>(count));
  for (Shard& shard : given) {
    const json& m = shard.manifest;
    if (m.at("shards") != count || m.at("plan") != first.at("plan") || m.at("recipe") != first.at("recipe"))
      throw InputError(fmt::format("merge: {} and {} are shards of different runs (pipeline, input, parameters or "
                                   "shard count)",
                                   first_dir.string(), shard.dir.string()));
    const int index = m.at("shard").get<int>();
    if (index < 0 || index >= count || !shards_[static_cast<std::size_t>(index)].dir.empty())
      throw InputError(fmt::format("merge: shard {}/{} is given twice ({} and {})", index, count,
                                   shards_[static_cast<std::size_t>(index)].dir.string(), shard.dir.string()));
    shards_[static_cast<std::size_t>(index)] = std::move(shard);
  }
  for (int i = 0; i < count; ++i)
    if (shards_[static_cast<std::size_t>(i)].dir.empty())
      throw InputError(fmt::format("merge: shard {}/{} is missing (run it with --shard {}/{})", i, count, i, count));
  for (Shard& shard : shards_) {
    shard.batches.open(shard.dir / kBatches, std::ios::binary);
    if (!shard.batches) throw InputError(fmt::format("{}: cannot be read", (shard.dir / kBatches).string()));
  }
  recipe_ = recipe_of(first.at("recipe"));
}

ShardReader::~ShardReader() = default;

std::int64_t ShardReader::begin(const json& plan, std::int64_t resume_at) {
  if (batch_plan(plan) != shards_.front().manifest.at("plan"))
    throw InputError(fmt::format("merge: the shards in {} … were made from another pipeline or input than {} now "
                                 "gives (a file changed?): run the shards again",
                                 shards_.front().dir.string(), recipe_.pipe_file.string()));
  return resume_at;  // 0: a merge keeps no checkpoint
}

void ShardReader::send(const Batch&) { throw std::logic_error("a merge sends no batch"); }

Batch ShardReader::receive(std::int64_t index, int from, const std::stop_token& stop) {
  if (stop.stop_requested()) throw RunCancelled(index);
  Shard& shard = shards_.at(static_cast<std::size_t>(from));
  std::uint64_t size = 0;
  shard.batches.read(reinterpret_cast<char*>(&size), sizeof size);
  if (shard.batches && size > (std::uint64_t{1} << 40))
    throw InputError(fmt::format("{}: damaged (a batch of {} bytes)", (shard.dir / kBatches).string(), size));
  std::vector<std::byte> bytes(shard.batches ? size : 0);
  if (shard.batches) shard.batches.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (!shard.batches)
    throw InputError(fmt::format("{}: ends before batch {}; run the shard again", (shard.dir / kBatches).string(), index));
  Batch batch = detail::decode_batch(bytes.data(), bytes.size());
  if (batch.index != index)
    throw InputError(fmt::format("{}: holds batch {} where batch {} was due", (shard.dir / kBatches).string(),
                                 batch.index, index));
  return batch;
}

}  // namespace pacflow::cli
