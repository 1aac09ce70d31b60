#include "stages/io/npy/npy_sink.hpp"

#include <filesystem>
#include <fmt/format.h>

#include "engine/errors.hpp"
#include "engine/json_text.hpp"
#include "stages/io/common/output_paths.hpp"

namespace pacflow::stages {

namespace fs = std::filesystem;

ElementInfo NpySink::info() {
  ElementInfo info;
  info.kind = ElementKind::Sink;
  info.name = "npy";
  info.summary = "result arrays as DIR/<name>.npy [E][C][...] float32 plus DIR/result.json (spec §8)";
  info.params = {{"dir", ParamType::OutputDir, "out/pac", "", "output directory (created if missing)"}};
  info.make_sink = [](const Params& p) { return std::make_unique<NpySink>(p); };
  return info;
}

NpySink::NpySink(const Params& params) : dir_(params.string("dir")) {}

void NpySink::plan(const PlanContext& ctx) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw ParamError("dir", fmt::format("\"{}\" exists and is not a directory", dir_));
  outputs_.clear();
  for (const auto& decl : results_to_write(ctx)) {
    ResultLeading leading = result_leading(decl, ctx.stream());
    Shape shape = std::move(leading.dims);
    shape.insert(shape.end(), decl.per_series.begin(), decl.per_series.end());
    outputs_.push_back({decl, std::move(shape), std::move(leading.names), nullptr});
  }
}

void NpySink::create_output_dir() const { create_directories_or_throw(dir_, "output directory"); }

void NpySink::consume(const Batch& batch) {
  if (!started_) {
    create_output_dir();
    for (auto& out : outputs_) out.writer = std::make_unique<NpyWriter>(fs::path(dir_) / (out.decl.name + ".npy"), out.shape);
    started_ = true;
  }
  for (auto& out : outputs_) {
    const Tensor& t = batch.at(out.decl.name);
    out.writer->append(t.values<float>().data(), t.size());
  }
}

// The state is the number of values each output holds; the partial files are DIR/<name>.npy.
void NpySink::resume(const fs::path& dir, const json& state) {
  create_output_dir();
  for (auto& out : outputs_) {
    const std::int64_t keep = state.is_null() ? 0 : state.at("values").at(out.decl.name).get<std::int64_t>();
    out.writer = std::make_unique<NpyWriter>(fs::path(dir_) / (out.decl.name + ".npy"), out.shape,
                                             dir / (out.decl.name + ".npy"), keep);
  }
  started_ = true;
}

json NpySink::checkpoint() {
  json values = json::object();
  for (auto& out : outputs_) values[out.decl.name] = out.writer->flush();
  return {{"values", values}};
}

void NpySink::finish(const json& report) {
  json result = report;
  result["outputs"] = json::object();
  for (const auto& out : outputs_)
    result["outputs"][out.decl.name + ".npy"] = {
        {"shape", out.shape}, {"leading_dims", out.leading_names}, {"dtype", "float32"}, {"doc", out.decl.doc}};
  // Every file complete on disk before any is moved into place: a full disk leaves the directory as it was.
  for (auto& out : outputs_) out.writer->close();
  StagedFile json_file(fs::path(dir_) / "result.json", json_text(result, 2) + "\n");
  for (auto& out : outputs_) out.writer->commit();
  json_file.commit();
}

void NpySink::abort() noexcept {
  for (auto& out : outputs_)
    if (out.writer) out.writer->abort();
}

}  // namespace pacflow::stages
