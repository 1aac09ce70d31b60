#include "pipelines/dataset_run.hpp"

#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "engine/api/errors.hpp"
#include "engine/api/rank_link.hpp"
#include "engine/io/output_set.hpp"
#include "pipelines/manifest_table.hpp"
#include "stages/io/hdf5/stacked_results.hpp"
#include "stages/io/memory/memory_sink.hpp"

namespace pacflow {

namespace {

namespace fs = std::filesystem;

// The value a parameter of `spec` has: given, or the element's default.
json value_of(const ElementSpec& e, const ParamSpec& spec) {
  return e.params.contains(spec.name) ? e.params[spec.name] : spec.default_value;
}

// Every sink's outputs one folder deeper: DIR → DIR/id, DIR/NAME → DIR/id/NAME.
void nest_outputs(std::vector<ElementSpec>& elements, const Registry& registry, const std::string& id) {
  for (auto& e : elements) {
    if (e.kind != ElementKind::Sink) continue;
    for (const ParamSpec& spec : registry.find(e.kind, e.name)->params) {
      const json value = value_of(e, spec);
      if (!value.is_string()) continue;
      const fs::path path = value.get<std::string>();
      if (spec.type == ParamType::OutputDir) e.params[spec.name] = (path / id).string();
      if (spec.type == ParamType::OutputFile) e.params[spec.name] = (path.parent_path() / id / path.filename()).string();
    }
  }
}

// Where the stacked file goes when stacked= is not given: recordings.h5 in the folder of the first
// sink's outputs.
fs::path default_stacked_path(const Pipeline& pipeline) {
  for (const auto& e : pipeline.elements()) {
    if (e.kind != ElementKind::Sink) continue;
    for (const ParamSpec& spec : pipeline.registry().find(e.kind, e.name)->params) {
      const json value = value_of(e, spec);
      if (!value.is_string()) continue;
      if (spec.type == ParamType::OutputDir) return fs::path(value.get<std::string>()) / "recordings.h5";
      if (spec.type == ParamType::OutputFile)
        return fs::path(value.get<std::string>()).parent_path() / "recordings.h5";
    }
  }
  return "recordings.h5";
}

std::optional<std::string> text_param(const ElementSpec& manifest, const char* key) {
  const auto it = manifest.params.find(key);
  if (it == manifest.params.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw InputError(fmt::format("manifest: {}= takes a name or a path", key), manifest.where);
  return it->get<std::string>();
}

// One recording's result arrays as a batch (the rank link carries batches): a tensor per array.
Batch batch_of(std::int64_t index, const stages::ResultArrays& results) {
  Batch batch;
  batch.index = index;
  batch.series_count = 1;
  for (const auto& array : results.arrays) {
    Tensor& t = batch.emplace(array.name, array.shape, DType::Float32);
    std::copy(array.values.begin(), array.values.end(), t.values<float>().begin());
  }
  return batch;
}

stages::ResultArrays results_of(const Batch& batch, const stages::ResultArrays& first) {
  stages::ResultArrays results;
  for (const auto& template_array : first.arrays) {
    const auto it = batch.tensors.find(template_array.name);
    if (it == batch.tensors.end()) continue;  // StackedResults names what is missing
    stages::ResultArray array{template_array.name, {}, template_array.dims, template_array.doc, {}};
    const Shape& shape = it->second.shape();
    array.shape.assign(shape.begin() + 1, shape.end());
    const auto values = it->second.values<float>();
    array.values.assign(values.begin(), values.end());
    results.arrays.push_back(std::move(array));
  }
  return results;
}

// What the stacked file says of the dataset: the table and its rows, and from the first recording's
// report the facts that cannot differ between recordings: the bands (in Hz, whatever the sample
// rate), the measure and the trial-level test, the engine's version. (Filter orders, FFT lengths and
// shifts in samples depend on each recording's rate and length: its own result.json has them.)
json stacked_attributes(const ManifestTable& table, const json& first_report) {
  json attributes{{"manifest", table.file.string()}};
  json rows = json::array();
  for (const auto& r : table.recordings) rows.push_back({{"id", r.id}, {"reader", r.reader}, {"params", r.params}});
  attributes["manifest_rows"] = rows.dump();
  for (const auto& [key, value] : first_report.items()) {
    const bool shared = key == "version" || key.ends_with("_hz") || key.starts_with("mi_") || key == "trial_test";
    if (shared && !value.is_object()) attributes[key] = value;
  }
  return attributes;
}

ManifestTable table_of(const Pipeline& pipeline) {
  const ElementSpec& manifest = pipeline.elements().front();
  const std::optional<std::string> path = text_param(manifest, "path");
  if (!path) throw InputError("manifest: path= names the dataset's table", manifest.where);
  return read_manifest(*path, text_param(manifest, "reader"), pipeline.registry());
}

// Every file the table names exists before any recording runs: a typo in row 57 stops the dataset
// before 56 recordings' work, not after.
void check_inputs(const ManifestTable& table) {
  for (const auto& r : table.recordings) {
    const fs::path file = r.params.at("path").get<std::string>();
    std::error_code error;
    if (!fs::is_regular_file(file, error))
      throw MissingFileError(file.string(), fmt::format("{}:{}: recording {}: {}: {}", table.file.string(), r.line,
                                                        r.id, file.string(), error ? error.message() : "no such file"));
  }
}

// A recording's elements: the row's reader and parameters as the source, the pipeline's stages, and
// its sinks one folder deeper.
std::vector<ElementSpec> recording_elements(const Pipeline& pipeline, const ManifestTable& table,
                                            const ManifestRecording& row) {
  std::vector<ElementSpec> elements = pipeline.elements();
  elements.front() =
      ElementSpec{ElementKind::Source, row.reader, row.params, SourceLocation{table.file.string(), row.line, 1}, {}};
  nest_outputs(elements, pipeline.registry(), row.id);
  return elements;
}

class DatasetRun {
 public:
  DatasetRun(const Pipeline& pipeline, const RunOptions& options)
      : pipeline_(pipeline), options_(options), table_(table_of(pipeline)) {
    const std::optional<std::string> stacked = text_param(pipeline.elements().front(), "stacked");
    stacked_path_ = !stacked ? default_stacked_path(pipeline) : *stacked == "none" ? fs::path() : fs::path(*stacked);
    if (options.ranks) {
      rank_ = options.ranks->rank();
      ranks_ = options.ranks->size();
    }
    check_inputs(table_);
  }

  json run() {
    json recordings = json::array();
    const std::size_t count = table_.recordings.size();
    for (std::size_t i = 0; i < count; ++i) {
      const bool own = static_cast<int>(i % static_cast<std::size_t>(ranks_)) == rank_;
      if (own) {
        stages::ResultArrays results = run_recording(i, recordings);
        if (rank_ != 0) options_.ranks->send(batch_of(static_cast<std::int64_t>(i), results));
        else stack(i, results);
      } else if (rank_ == 0) {
        const int from = static_cast<int>(i % static_cast<std::size_t>(ranks_));
        const Batch batch = options_.ranks->receive(static_cast<std::int64_t>(i), from, options_.stop);
        stack(i, results_of(batch, first_));
        recordings.push_back({{"id", table_.recordings[i].id}, {"rank", from}});
      }
    }
    json report{{"dataset", table_.file.string()}, {"recordings", recordings}};
    if (rank_ == 0 && stacked_) {
      OutputSet outputs;
      stacked_->finish(stacked_attributes(table_, first_report_), outputs);
      outputs.commit(options_.stop);
      report["stacked"] = stacked_path_.string();
    }
    return report;
  }

 private:
  // Recording i's pipeline, with an `arrays` sink that hands its results over.
  stages::ResultArrays run_recording(std::size_t i, json& recordings) {
    const ManifestRecording& row = table_.recordings[i];
    auto results = std::make_shared<stages::ResultArrays>();
    Registry registry = pipeline_.registry();
    registry.add(stages::MemorySink::info(results));
    std::vector<ElementSpec> elements = recording_elements(pipeline_, table_, row);
    elements.push_back({ElementKind::Sink, "arrays", json::object(), {}, {}});
    RunOptions options = options_;
    options.ranks = nullptr;  // a recording runs whole, in this process
    const auto start = std::chrono::steady_clock::now();
    json report;
    try {
      report = pipeline_.variant(registry, std::move(elements)).run(options);
    } catch (const RunCancelled&) {
      throw;
    } catch (const InputError& e) {  // located at the row when the source is at fault; nested: its type stays
      std::throw_with_nested(InputError(fmt::format("recording {}: {}", row.id, e.what())));
    } catch (const std::exception& e) {
      std::throw_with_nested(
          std::runtime_error(fmt::format("{}:{}: recording {}: {}", table_.file.string(), row.line, row.id, e.what())));
    }
    recordings.push_back({{"id", row.id},
                          {"rank", rank_},
                          {"series", report["run"]["series"]},
                          {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}});
    if (i == 0) first_report_ = report;
    return std::move(*results);
  }

  // Rank 0: recording i's arrays into the stacked file (made with the first recording's).
  void stack(std::size_t i, const stages::ResultArrays& results) {
    if (stacked_path_.empty()) return;
    if (i == 0) {
      first_ = results;
      std::vector<std::string> ids;
      for (const auto& r : table_.recordings) ids.push_back(r.id);
      stacked_.emplace(stacked_path_, std::move(ids), results);
    }
    stacked_->add(i, results);
  }

  const Pipeline& pipeline_;
  RunOptions options_;
  ManifestTable table_;
  fs::path stacked_path_;
  int rank_ = 0, ranks_ = 1;
  stages::ResultArrays first_;  // the first recording's: names, dims and docs of the stacked arrays
  json first_report_;
  std::optional<stages::StackedResults> stacked_;
};

}  // namespace

bool is_dataset(const Pipeline& pipeline) {
  const auto& elements = pipeline.elements();
  return !elements.empty() && elements.front().kind == ElementKind::Source && elements.front().name == "manifest";
}

json run_dataset(const Pipeline& pipeline, const RunOptions& options) {
  if (!options.checkpoint.empty())
    throw InputError("--checkpoint: a dataset's recordings each run whole; run the dataset again to redo it");
  return DatasetRun(pipeline, options).run();
}

json validate_dataset(const Pipeline& pipeline, const RunOptions& options) {
  const ManifestTable table = table_of(pipeline);
  check_inputs(table);
  json recordings = json::array();
  for (const auto& row : table.recordings) {
    json plan;
    try {
      plan = pipeline.variant(pipeline.registry(), recording_elements(pipeline, table, row)).validate(options);
    } catch (const InputError& e) {
      std::throw_with_nested(InputError(fmt::format("recording {}: {}", row.id, e.what())));
    }
    recordings.push_back({{"id", row.id}, {"line", row.line}, {"plan", std::move(plan)}});
  }
  return {{"dataset", table.file.string()}, {"recordings", std::move(recordings)}};
}

}  // namespace pacflow
