#include "stages/io/npy/npy_sink.hpp"

#include <filesystem>
#include <fmt/format.h>

#include "engine/errors.hpp"
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
  leading_ = ctx.stream().leading_dims;
  leading_names_ = ctx.stream().leading_names;
  outputs_.clear();
  for (const auto& decl : results_to_write(ctx)) outputs_.push_back({decl, nullptr});
}

// The stream's leading dims (or the tensor's own, for one with rows per group), then its per-row shape.
Shape NpySink::shape_of(const TensorDecl& decl) const {
  Shape shape = decl.rows.leading.empty() ? leading_ : decl.rows.leading;
  shape.insert(shape.end(), decl.per_series.begin(), decl.per_series.end());
  return shape;
}

void NpySink::consume(const Batch& batch) {
  if (batch.index == 0) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw InputError(fmt::format("{}: cannot create output directory: {}", dir_, ec.message()));
    for (auto& out : outputs_) out.writer = std::make_unique<NpyWriter>(fs::path(dir_) / (out.decl.name + ".npy"), shape_of(out.decl));
  }
  for (auto& out : outputs_) {
    const Tensor& t = batch.at(out.decl.name);
    out.writer->append(t.values<float>().data(), t.size());
  }
}

void NpySink::finish(const json& report) {
  for (auto& out : outputs_) out.writer->commit();
  json result = report;
  result["outputs"] = json::object();
  for (const auto& out : outputs_) {
    const RowLayout& rows = out.decl.rows;
    result["outputs"][out.decl.name + ".npy"] = {
        {"shape", shape_of(out.decl)}, {"leading_dims", rows.leading.empty() ? leading_names_ : rows.leading_names},
        {"dtype", "float32"}, {"doc", out.decl.doc}};
  }
  write_file_atomically(fs::path(dir_) / "result.json", result.dump(2) + "\n");
}

void NpySink::abort() noexcept {
  for (auto& out : outputs_)
    if (out.writer) out.writer->abort();
}

}  // namespace pacflow::stages
