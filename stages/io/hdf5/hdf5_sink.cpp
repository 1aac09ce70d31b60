#include "stages/io/hdf5/hdf5_sink.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_set.hpp"
#include "engine/io/run_files.hpp"
#include "stages/io/common/epoch_runs.hpp"
#include "stages/io/common/output_paths.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_datasets.hpp"

namespace pacflow::stages {

namespace fs = std::filesystem;

void Hdf5Sink::declare(ParamBinder<Hdf5Sink>& p) {
  p.add(&Hdf5Sink::path_, "path", "out/pac/result.h5", "HDF5 file to write (replaced if it exists)")
      .as(ParamType::OutputFile);
}

ElementInfo Hdf5Sink::info() {
  return element_info<Hdf5Sink>("hdf5",
                                "result arrays /<name> [E][C][...] float32 in one HDF5 file, report and parameters as "
                                "attributes");
}

Hdf5Sink::~Hdf5Sink() { abort(); }

void Hdf5Sink::plan(const PlanContext& ctx) {
  outputs_.clear();
  for (const auto& decl : results_to_write(ctx)) outputs_.push_back({decl, result_leading(decl, ctx.stream()), {}});
  coordinates_ = ctx.coordinates();
}

void Hdf5Sink::create_file() {
  temp_ = temp_path_for(resolved_output(path_));
  file_ = hdf5::create_file(temp_);
  for (auto& out : outputs_) {
    Shape shape = out.leading.dims;
    shape.insert(shape.end(), out.decl.per_series.begin(), out.decl.per_series.end());
    const std::vector<hsize_t> dims(shape.begin(), shape.end());
    const std::string where = fmt::format("{}:/{}", path_.string(), out.decl.name);
    out.dataset = hdf5::create_dataset(file_.get(), out.decl.name, H5T_IEEE_F32LE, dims, where);
    hdf5::write_attribute(out.dataset.get(), "doc", out.decl.doc, where);
    hdf5::write_attribute(out.dataset.get(), "leading_dims", out.leading.names, where);
  }
}

// Rows [first_row, first_row + rows) of the dataset's leading dims, flattened in row-major order:
// written as runs along the last leading dim, each one hyperslab [1]…[1][n][per-row shape].
void Hdf5Sink::write_rows(Output& out, const float* values, std::int64_t first_row, std::int64_t rows) {
  const Shape& lead = out.leading.dims;
  const std::int64_t per_row = element_count(out.decl.per_series);
  const std::string where = fmt::format("{}:/{}", path_.string(), out.decl.name);
  const hdf5::Id file_space = hdf5::check(H5Dget_space(out.dataset.get()), H5Sclose, where, "cannot read the shape");
  const std::size_t rank = lead.size() + out.decl.per_series.size();
  std::vector<hsize_t> start(rank, 0), extent(rank, 1);
  for (std::size_t k = lead.size(); k < rank; ++k) extent[k] = static_cast<hsize_t>(out.decl.per_series[k - lead.size()]);
  for_each_epoch_run(first_row, rows, lead.back(), [&](std::int64_t outer, std::int64_t last, std::int64_t n,
                                                       std::int64_t offset) {
    for (std::size_t k = lead.size() - 1; k-- > 0;) {  // `outer` unravelled over the leading dims but the last
      start[k] = static_cast<hsize_t>(outer % lead[k]);
      outer /= lead[k];
    }
    start[lead.size() - 1] = static_cast<hsize_t>(last);
    extent[lead.size() - 1] = static_cast<hsize_t>(n);
    hdf5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr),
                where, "cannot select a hyperslab");
    const hdf5::Id memory_space = hdf5::check(H5Screate_simple(static_cast<int>(rank), extent.data(), nullptr),
                                              H5Sclose, where, "cannot make a dataspace");
    hdf5::check(H5Dwrite(out.dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT,
                         values + offset * per_row),
                where, "cannot write (disk full?)");
  });
}

namespace {
// The engine checked the folder writable before the run: a failure while writing (a full disk) is
// the run's, not the input's, so it leaves with exit 1 like every other sink's (hdf5::check throws
// InputError).
template <typename Body>
void writing(Body&& body) {
  try {
    body();
  } catch (const InputError& e) {
    throw std::runtime_error(e.what());
  }
}
}  // namespace

void Hdf5Sink::consume(const Batch& batch) {
  const hdf5::QuietErrors quiet;
  writing([&] {
    if (!file_) create_file();
    for (auto& out : outputs_) {
      if (out.decl.summary) continue;
      const Tensor& t = batch.at(out.decl.name);
      const std::int64_t per_row = element_count(out.decl.per_series);
      write_rows(out, t.values<float>().data(), out.decl.rows.rows(batch.first_series),
                 static_cast<std::int64_t>(t.size()) / per_row);
    }
  });
}

void Hdf5Sink::consume_summary(const Batch& summary) {
  const hdf5::QuietErrors quiet;
  writing([&] {
    if (!file_) create_file();
    for (auto& out : outputs_) {
      if (!out.decl.summary) continue;
      const float* values = summary.at(out.decl.name).values<float>().data();
      if (!out.leading.dims.empty()) {
        write_rows(out, values, 0, element_count(out.leading.dims));
        continue;
      }
      hdf5::check(H5Dwrite(out.dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values),
                  fmt::format("{}:/{}", path_.string(), out.decl.name), "cannot write (disk full?)");
    }
  });
}

void Hdf5Sink::finish(const json& report, OutputSet& set) {
  const hdf5::QuietErrors quiet;
  writing([&] { write_report(report); });
  set.add(temp_, path_);
  temp_.clear();  // the set's now
}

void Hdf5Sink::write_report(const json& given) {
  if (!file_) create_file();  // no batch arrived (cannot happen in a run, which has at least one)
  const std::string where = path_.string();
  for (auto& out : outputs_) out.dataset.reset();
  hdf5::write_coordinates(file_.get(), coordinates_, path_.string());
  json report = given;
  if (report.contains("files")) report["files"] = files_relative_to(report["files"], path_.parent_path());
  for (const auto& [key, value] : report.items()) {
    if (key == "pipeline") continue;
    if (value.is_object()) {
      const hdf5::Id group = hdf5::create_group(file_.get(), key, fmt::format("{}:/{}", where, key));
      hdf5::write_attributes(group.get(), value, fmt::format("{}:/{}", where, key));
    } else {
      hdf5::write_attribute(file_.get(), key, value, where);
    }
  }
  const hdf5::Id pipeline = hdf5::create_group(file_.get(), "pipeline", fmt::format("{}:/pipeline", where));
  const json& elements = report.value("pipeline", json::array());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const json& e = elements[i];
    const std::string name = fmt::format("{:02}_{}_{}", i, e.value("kind", ""), e.value("name", ""));
    const hdf5::Id group = hdf5::create_group(pipeline.get(), name, fmt::format("{}:/pipeline/{}", where, name));
    json attributes = e.value("params", json::object());
    for (const auto& [key, value] : e.items())
      if (key != "params") attributes["element_" + key] = value;
    hdf5::write_attributes(group.get(), attributes, fmt::format("{}:/pipeline/{}", where, name));
  }
  hdf5::write_attribute(file_.get(), "result_json", json_text(report, 2), where);
  hdf5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), where, "cannot flush (disk full?)");
  if (!file_.reset()) hdf5::fail(where, "cannot close (disk full?)");
}

void Hdf5Sink::abort() noexcept {
  for (auto& out : outputs_) out.dataset.reset();
  file_.reset();
  if (temp_.empty()) return;
  std::error_code ec;
  fs::remove(temp_, ec);
  temp_.clear();
}

}  // namespace pacflow::stages
