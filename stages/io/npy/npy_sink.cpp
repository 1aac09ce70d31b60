#include "stages/io/npy/npy_sink.hpp"

#include <filesystem>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/output_set.hpp"
#include "engine/io/run_files.hpp"
#include "stages/io/common/output_paths.hpp"

namespace pacflow::stages {

namespace fs = std::filesystem;

void NpySink::declare(ParamBinder<NpySink>& p) {
  p.add(&NpySink::dir_, "dir", "out/pac", "output directory (created if missing)").as(ParamType::OutputDir);
}

ElementInfo NpySink::info() {
  return element_info<NpySink>("npy", "result arrays as DIR/<name>.npy [E][C][...] float32 plus DIR/result.json (spec §8)");
}

void NpySink::plan(const PlanContext& ctx) {
  outputs_.clear();
  for (const auto& decl : results_to_write(ctx)) {
    ResultLeading leading = result_leading(decl, ctx.stream());
    Shape shape = std::move(leading.dims);
    shape.insert(shape.end(), decl.per_series.begin(), decl.per_series.end());
    outputs_.push_back({decl, std::move(shape), std::move(leading.names), nullptr});
  }
  coordinates_ = ctx.coordinates();
}

std::vector<fs::path> NpySink::output_files() const {
  std::vector<fs::path> files;
  for (const auto& out : outputs_) files.push_back(file_of(out));
  for (const auto& c : coordinates_) files.push_back(fs::path(dir_) / (c.name + ".npy"));
  files.push_back(fs::path(dir_) / kRunReport);
  return files;
}

std::string NpySink::describe_output(const fs::path& file) const {
  for (const auto& out : outputs_)
    if (file == file_of(out)) return out.decl.doc;
  for (const auto& c : coordinates_)
    if (file == fs::path(dir_) / (c.name + ".npy")) return fmt::format("{} (float64, {})", c.doc, c.unit);
  return file.filename() == kRunReport ? "the run's report: input, parameters, placement, timings, files" : "";
}

void NpySink::consume(const Batch& batch) {
  if (!started_) {
    for (auto& out : outputs_)
      if (!out.decl.summary) out.writer = std::make_unique<NpyWriter>(file_of(out), out.shape);
    started_ = true;
  }
  for (auto& out : outputs_) {
    if (out.decl.summary) continue;
    const Tensor& t = batch.at(out.decl.name);
    out.writer->append(t.values<float>().data(), t.size());
  }
}

// Summaries are written whole at the end, also in a checkpointed run (their state is the stage's).
void NpySink::consume_summary(const Batch& summary) {
  for (auto& out : outputs_) {
    if (!out.decl.summary) continue;
    const Tensor& t = summary.at(out.decl.name);
    out.writer = std::make_unique<NpyWriter>(file_of(out), out.shape);
    out.writer->append(t.values<float>().data(), t.size());
  }
}

// The state is the number of values each output holds and the checksum of its partial file's bytes
// (header and those values); the partial files are DIR/<name>.npy.
void NpySink::resume(const fs::path& dir, const json& state, std::int64_t series_done) {
  for (auto& out : outputs_) {
    if (out.decl.summary) continue;
    const std::int64_t per_row = element_count(out.decl.per_series);
    const std::int64_t expected = out.decl.rows.rows(series_done) * per_row;
    std::int64_t keep = 0;
    std::string keep_checksum;
    if (!state.is_null()) {
      const json& values = state.at("values");
      if (!values.contains(out.decl.name) || !values[out.decl.name].is_number_integer())
        throw InputError(fmt::format("--checkpoint: its npy record has no value count for {}; remove the checkpoint "
                                     "to start afresh",
                                     out.decl.name));
      keep = values[out.decl.name].get<std::int64_t>();
      const json& sums = state.value("checksums", json::object());
      if (!sums.is_object() || !sums.contains(out.decl.name) || !sums[out.decl.name].is_string())
        throw InputError(fmt::format("--checkpoint: its npy record has no checksum for {}; remove the checkpoint to "
                                     "start afresh",
                                     out.decl.name));
      keep_checksum = sums[out.decl.name].get<std::string>();
    }
    if (keep != expected)
      throw InputError(fmt::format("--checkpoint: its npy record holds {} values of {}, but the {} series it records "
                                   "done make {}; the checkpoint is inconsistent: remove it to start afresh",
                                   keep, out.decl.name, series_done, expected));
    out.writer = std::make_unique<NpyWriter>(file_of(out), out.shape, dir / (out.decl.name + ".npy"), keep,
                                              keep_checksum);
  }
  started_ = true;
}

json NpySink::checkpoint() {
  json values = json::object(), checksums = json::object();
  for (auto& out : outputs_) {
    if (out.decl.summary) continue;
    values[out.decl.name] = out.writer->flush();
    checksums[out.decl.name] = out.writer->checksum();
  }
  return {{"values", values}, {"checksums", checksums}};
}

void NpySink::finish(const json& report, OutputSet& set) {
  json result = report;
  result["outputs"] = json::object();
  for (const auto& out : outputs_)
    result["outputs"][out.decl.name + ".npy"] = {
        {"shape", out.shape}, {"leading_dims", out.leading_names}, {"dtype", "float32"}, {"doc", out.decl.doc}};
  for (const auto& c : coordinates_)
    result["outputs"][c.name + ".npy"] = {{"shape", json::array({c.values().size()})}, {"dtype", "float64"}, {"unit", c.unit}, {"doc", c.doc}};
  if (report.contains("files")) result["files"] = files_relative_to(report["files"], dir_);
  for (auto& out : outputs_) out.writer->hand_over(set);
  for (const auto& c : coordinates_) set.add_content(fs::path(dir_) / (c.name + ".npy"), npy_bytes(c.values()));
  set.add_content(fs::path(dir_) / kRunReport, json_text(result, 2) + "\n");
}

void NpySink::abort() noexcept {
  for (auto& out : outputs_)
    if (out.writer) out.writer->abort();
}

}  // namespace pacflow::stages
