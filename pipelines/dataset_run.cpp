#include "pipelines/dataset_run.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/api/rank_link.hpp"
#include "engine/io/checksum.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/output_set.hpp"
#include "pipelines/bids/bids_derivative.hpp"
#include "pipelines/bids/bids_sidecar.hpp"
#include "pipelines/channel_alignment.hpp"
#include "pipelines/dataset_checkpoint.hpp"
#include "pipelines/dataset_table.hpp"
#include "pipelines/group/group_figure.hpp"
#include "pipelines/report/dataset_page.hpp"
#include "stages/io/png/png_sink.hpp"
#include "pipelines/group/group_summary.hpp"
#include "pipelines/manifest_table.hpp"
#include "pipelines/recording_codec.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/hdf5/stacked_results.hpp"
#include "stages/io/memory/memory_sink.hpp"

namespace pacflow {

namespace {

namespace fs = std::filesystem;

// Every sink's outputs one folder deeper: DIR → DIR/id, DIR/NAME → DIR/id/NAME.
void nest_outputs(std::vector<ElementSpec>& elements, const Registry& registry, const std::string& id) {
  for_each_output(elements, registry, [&](ElementSpec& e, const ParamSpec& spec, const fs::path& path) {
    e.params[spec.name] = spec.type == ParamType::OutputDir ? (path / id).string()
                                                            : (path.parent_path() / id / path.filename()).string();
  });
}

// Where the stacked file goes when stacked= is not given: recordings.h5 in the folder of the first
// sink's outputs.
fs::path default_stacked_path(const Pipeline& pipeline) {
  std::optional<fs::path> folder;
  for_each_output(pipeline.elements(), pipeline.registry(), [&](const ElementSpec&, const ParamSpec& spec, const fs::path& path) {
    if (!folder) folder = spec.type == ParamType::OutputDir ? path : path.parent_path();
  });
  return folder ? *folder / "recordings.h5" : fs::path("recordings.h5");
}

std::optional<std::string> text_param(const ElementSpec& manifest, const char* key) {
  const auto it = manifest.params.find(key);
  if (it == manifest.params.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw InputError(fmt::format("{}: {}= takes a name or a path", manifest.name, key), manifest.where);
  return it->get<std::string>();
}

// What the stacked file says of the facts every recording shares, with the engine's version.
json facts_json(const stages::SharedFacts& facts) {
  json out = facts.study;
  out["version"] = engine_version();
  if (!facts.channel_names.empty()) out["channel_names"] = facts.channel_names;
  if (facts.condition_names.size() > 1) out["condition_names"] = facts.condition_names;
  return out;
}

// Whether the files a kept recording read besides its own (a BrainVision header's data and markers,
// as its report lists them with their SHA-256) are as they were: otherwise it runs again.
bool companions_unchanged(const json& report, const std::stop_token& stop) {
  for (const auto& f : report.value("input", json::object()).value("other_files", json::array())) {
    try {
      if (stages::sha256_file(f.at("path").get<std::string>(), stop) != f.at("sha256").get<std::string>()) return false;
    } catch (const InputError&) {  // gone or unreadable: the run says so
      return false;
    }
  }
  return true;
}

ManifestTable table_of(const Pipeline& pipeline) {
  return read_dataset_table(pipeline.elements().front(), pipeline.registry());
}

// Every file the table names exists and is a regular file before any recording runs: a typo in row
// 57 stops the dataset before 56 recordings' work, not after.
void check_inputs(const ManifestTable& table) {
  for (const auto& r : table.recordings) {
    const fs::path file = r.params.at("path").get<std::string>();
    const std::string where = fmt::format("{}: recording {}", origin_of(table, r), r.id);
    try {
      require_regular_file(file);  // "is a named pipe (FIFO)", "is a directory", "no such file"
    } catch (const MissingFileError& e) {
      throw MissingFileError(file.string(), fmt::format("{}: {}", where, e.bare_message()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where, e.bare_message()));
    }
  }
}

// A recording's elements: the row's reader and parameters as the source, the pipeline's stages, and
// its sinks one folder deeper.
std::vector<ElementSpec> recording_elements(const Pipeline& pipeline, const ManifestTable& table,
                                            const ManifestRecording& row) {
  std::vector<ElementSpec> elements = pipeline.elements();
  const SourceLocation where =
      row.line > 0 ? SourceLocation{table.file.string(), row.line, 1} : SourceLocation{origin_of(table, row)};
  elements.front() = ElementSpec{ElementKind::Source, row.reader, row.params, where, {}};
  nest_outputs(elements, pipeline.registry(), row.id);
  return elements;
}

// What every rank (or shard) of a dataset must agree on: the engine, the table's rows and the
// pipeline's elements; files by their absolute paths (a shard and its merge may start elsewhere).
json dataset_plan(const Pipeline& pipeline, const ManifestTable& table) {
  const auto absolute = [](const json& path) { return fs::absolute(path.get<std::string>()).lexically_normal().string(); };
  json rows = json::array(), elements = json::array();
  for (const auto& r : table.recordings) {
    json params = r.params;
    params["path"] = absolute(params["path"]);
    if (params.contains("events_file")) params["events_file"] = absolute(params["events_file"]);  // BIDS' events.tsv
    rows.push_back({{"id", r.id}, {"reader", r.reader}, {"params", params}});
  }
  for (const auto& e : pipeline.elements())
    elements.push_back({{"kind", kind_name(e.kind)}, {"name", e.name}, {"params", e.params}});
  elements[0]["params"][table_param(table)] = absolute(table.file.string());
  return {{"version", engine_version()}, {"input", {{table.kind, absolute(table.file.string())}, {"rows", rows}}},
          {"pipeline", elements}};
}

// What the stacked file says of the dataset: the table and its rows (as the plan has them, the same
// whatever the process or folder it runs from), and the facts every recording shares (the first's).
json stacked_attributes(const json& plan, const json& facts) {
  json attributes{{"manifest_rows", plan["input"]["rows"].dump()}};
  for (const auto& [key, value] : plan["input"].items())  // the table (manifest) or the BIDS folder (bids)
    if (key != "rows") attributes[key] = value;
  attributes.update(facts);
  return attributes;
}

// The memory sink each recording's run hands its results over with (a name of its own: the
// pipeline's registry may have an `arrays` sink already, the Python module's).
constexpr const char* kRecordingArrays = "dataset_recording_arrays";

// "source \"manifest\", parameter \"stacked\": MESSAGE", located at stacked= (or the manifest).
InputError stacked_error(const ElementSpec& manifest, const std::string& message) {
  const auto it = manifest.param_where.find("stacked");
  return InputError(fmt::format("source \"{}\", parameter \"stacked\": {}", manifest.name, message),
                    it != manifest.param_where.end() ? it->second : manifest.where);
}

// Recording `row`'s pipeline (recording_elements, then `extra` elements) over `registry`; the table
// is one of its inputs: never an output, never stale.
Pipeline recording_pipeline(const Pipeline& pipeline, const ManifestTable& table, const ManifestRecording& row,
                            const Registry& registry, std::vector<ElementSpec> extra = {}) {
  std::vector<ElementSpec> elements = recording_elements(pipeline, table, row);
  for (auto& e : extra) elements.push_back(std::move(e));
  Pipeline recording = pipeline.variant(registry, std::move(elements));
  recording.add_input_file(table.file);
  return recording;
}

// The dataset's report pages: each report sink's own path, with its alpha (the recordings' pages lie
// one folder deeper, DIR/id/NAME).
std::vector<std::pair<fs::path, double>> report_pages(const Pipeline& pipeline) {
  std::vector<std::pair<fs::path, double>> places;
  for_each_output(pipeline.elements(), pipeline.registry(), [&](const ElementSpec& e, const ParamSpec& spec, const fs::path& path) {
    if (e.kind != ElementKind::Sink || e.name != "report" || spec.name != "path") return;
    places.emplace_back(path, Params(e.params, pipeline.registry().find(ElementKind::Sink, "report")->params).number("alpha"));
  });
  return places;
}

// No recording's folder (DIR/id) is where a dataset report page goes (DIR/NAME): an id such as
// report.html is refused at its line.
void check_report_pages(const Pipeline& pipeline, const ManifestTable& table) {
  for (const auto& [page, alpha] : report_pages(pipeline))
    for (const auto& row : table.recordings)
      if (row.id == page.filename().string())
        throw InputError(fmt::format("id \"{}\" names the folder of the recording's results, where the dataset's report "
                                     "page {} goes; rename the recording or give the report sink another path",
                                     row.id, page.string()),
                         SourceLocation{origin_of(table, row)});
}

// The stacked file (none: nothing to check) is an output like any sink's: a regular file or nothing
// yet, not an input (a recording, the table, the .pipe file), not in a folder a recording's run
// writes, not where a recording's folder goes (an id such as recordings.h5, refused at its line).
void check_stacked_path(const Pipeline& pipeline, const ManifestTable& table, const fs::path& stacked) {
  if (stacked.empty()) return;
  const ElementSpec& manifest = pipeline.elements().front();
  try {
    check_output_target(stacked);
  } catch (const InputError& e) {
    throw stacked_error(manifest, e.bare_message());
  }
  std::vector<fs::path> inputs = pipeline.input_files();
  inputs.push_back(table.file);
  for (const auto& row : table.recordings) inputs.emplace_back(row.params.at("path").get<std::string>());
  if (const auto clash = find_output_clash({{stacked, "the stacked file"}}, inputs))
    throw stacked_error(manifest, clash->message);
  const fs::path stacked_at = fs::absolute(stacked).lexically_normal();
  const fs::path recordings_at = fs::absolute(default_stacked_path(pipeline).parent_path()).lexically_normal();
  for (const auto& row : table.recordings) {
    if (recordings_at / row.id == stacked_at)
      throw InputError(fmt::format("id \"{}\" names the folder of the recording's results, where the stacked file "
                                   "{} goes; rename the recording or give the manifest another stacked=",
                                   row.id, stacked.string()),
                       SourceLocation{origin_of(table, row)});
    for (const fs::path& folder : recording_pipeline(pipeline, table, row, pipeline.registry()).output_folders())
      if (lies_inside(stacked, folder))
        throw stacked_error(manifest, fmt::format("{} lies in {}, the folder of recording {}'s results; put the "
                                                  "stacked file beside the recordings' folders",
                                                  stacked.string(), folder.string(), row.id));
  }
}

// Where the stacked file goes: stacked= (none: nowhere), by default default_stacked_path.
fs::path stacked_path_of(const Pipeline& pipeline) {
  const std::optional<std::string> stacked = text_param(pipeline.elements().front(), "stacked");
  return !stacked ? default_stacked_path(pipeline) : *stacked == "none" ? fs::path() : fs::path(*stacked);
}

// The manifest's group test settings (its parameters, defaults filled); nullopt for group=none.
std::optional<group::Settings> group_settings(const Pipeline& pipeline) {
  const ElementSpec& manifest = pipeline.elements().front();
  const ElementInfo* info = pipeline.registry().find(ElementKind::Source, manifest.name);
  if (!info) throw std::logic_error("the manifest source is not registered");
  const Params params(manifest.params, info->params);
  if (params.string("group") == "none") return std::nullopt;
  group::Settings s;
  s.flips = params.integer("group_n");
  s.seed = static_cast<std::uint64_t>(params.integer("group_seed"));
  s.cluster_p = params.number("group_cluster_p");
  return s;
}

// Every recording's value of the group test's statistic, kept as the collector stacks them.
class GroupValues {
 public:
  GroupValues(std::optional<group::Settings> settings, std::size_t recordings)
      : settings_(settings), values_(recordings) {}
  void add(std::size_t i, const stages::ResultArrays& results) {
    if (!settings_) return;
    if (i == 0) statistic_ = statistic_of(results);
    for (const stages::ResultArray& a : results.arrays) {
      if (a.name != statistic_) continue;
      if (i == 0) {
        shape_.assign(a.shape.begin(), a.shape.end());
        dims_ = a.dims;
      }
      values_[i].assign(a.values.begin(), a.values.end());
    }
  }
  // A recording whose channels are not the first's by name: the subjects' cells would not match.
  void refuse(std::string why) { refused_ = std::move(why); }
  // The tests, into the stacked file and the report, and returned; nothing when the recordings have no
  // statistic to test (the report says so) or there is one recording.
  std::optional<group::GroupOutcome> finish(stages::StackedResults& stacked, DatasetReport& report) const {
    if (!settings_) return std::nullopt;
    if (values_.size() < 2) return skip(report, "one recording: a group test needs at least two");
    if (refused_) return skip(report, *refused_);
    std::vector<double> all;
    for (const auto& v : values_) {
      if (v.empty())
        return skip(report, "the recordings have no trial_rank_z (the trial-level test is off: surrogates "
                            "trials=none, or fewer than four epochs) and no erpac_rank_z (erpac n=)");
      all.insert(all.end(), v.begin(), v.end());
    }
    group::GroupOutcome outcome =
        group::group_tests(all, static_cast<std::int64_t>(values_.size()), shape_, dims_, *settings_, statistic_);
    for (const group::GroupArray& a : outcome.arrays) stacked.add_summary(a.name, a.shape, a.dims, a.doc, a.values);
    report.group = outcome.report;
    report.warnings.insert(report.warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
    return outcome;
  }
  std::size_t subjects() const { return values_.size(); }

 private:
  // The first of the statistics a group test takes that the results have; empty: none.
  static std::string statistic_of(const stages::ResultArrays& results) {
    for (const char* name : group::kGroupStatistics)
      for (const stages::ResultArray& a : results.arrays)
        if (a.name == name) return name;
    return "";
  }
  std::nullopt_t skip(DatasetReport& report, std::string why) const {
    group::GroupReport skipped;
    skipped.skipped = std::move(why);
    skipped.settings = *settings_;
    report.group = std::move(skipped);
    return std::nullopt;
  }

  std::optional<group::Settings> settings_;
  std::string statistic_;
  std::optional<std::string> refused_;
  std::vector<std::vector<double>> values_;  // [recording][cells]
  std::vector<std::size_t> shape_;
  std::vector<std::string> dims_;
};

class DatasetRun {
 public:
  DatasetRun(const Pipeline& pipeline, const RunOptions& options, RecordingResults on_recording,
             BeforeCommit before_commit)
      : pipeline_(pipeline),
        options_(options),
        on_recording_(std::move(on_recording)),
        before_commit_(std::move(before_commit)),
        table_(table_of(pipeline)),
        plan_(dataset_plan(pipeline, table_)),
        group_(group_settings(pipeline), table_.recordings.size()) {
    stacked_path_ = stacked_path_of(pipeline);
    for (const auto& w : table_.warnings) warnings_.push_back(w);  // the dataset's, as read
    if (RankLink* link = options.ranks) {
      rank_ = link->rank();
      ranks_ = link->size();
      collects_ = link->collects();
      computes_ = link->computes();
    }
    if (computes_) check_inputs(table_);
    check_stacked_path(pipeline_, table_, stacked_path_);
    check_report_pages(pipeline_, table_);
    if (!options.checkpoint.empty()) {
      if (options.ranks)
        throw InputError("--checkpoint: a dataset over ranks or shards keeps no checkpoint; run it in one process "
                         "with --checkpoint, or as shards (--shard i/N), running a failed shard again alone");
      checkpoint_.emplace(options.checkpoint, plan_);
    }
    if (is_bids()) check_derivative_targets();
    check_own_targets();
    hold_folders();
    if (options.ranks) options.ranks->begin(plan_, 0);
  }

  // Every recording this process runs, then the stacked file, committed together (with what
  // before_commit adds): a failure anywhere leaves every earlier file as it was.
  DatasetReport run() {
    DatasetReport report{table_.file.string(), {}, {}, {}, std::nullopt, std::nullopt};
    std::vector<DatasetReport::Recording>& recordings = report.recordings;
    const std::size_t count = table_.recordings.size();
    for (std::size_t i = 0; i < count; ++i) {
      const int owner = owner_of(i);
      if (computes_ && owner == rank_) {
        const auto results = run_recording(i, recordings);
        if (collects_)
          stack(i, *results);
        else
          options_.ranks->send(encode_recording(static_cast<std::int64_t>(i), *results));
      } else if (collects_) {
        const Batch batch = options_.ranks->receive(static_cast<std::int64_t>(i), owner, options_.stop);
        stack(i, decode_recording(batch));
        recordings.push_back({table_.recordings[i].id, owner, std::nullopt, 0.0, false});
      }
    }
    report.warnings = folders_.notes();
    report.warnings.insert(report.warnings.end(), warnings_.begin(), warnings_.end());
    if (collects_ && is_bids()) {  // every results folder a BIDS derivative dataset
      const std::string description = bids::derivative_description(table_, plan_);
      for (const fs::path& root : pipeline_.output_folders()) outputs().add_content(root / "dataset_description.json", description);
    }
    std::optional<group::GroupOutcome> outcome;
    if (collects_ && stacked_) {
      outcome = group_.finish(*stacked_, report);
      if (outcome) add_group_figures(*outcome);
      stacked_->finish(stacked_attributes(plan_, facts_json(first_facts_)), outputs());
      report.stacked = stacked_path_;
    }
    if (collects_) add_dataset_pages(report, outcome ? &*outcome : nullptr);
    if (before_commit_) before_commit_(report, outputs());
    if (checkpoint_) report.checkpoint = DatasetReport::Resumed{checkpoint_->dir(), resumed_};
    if (!options_.commit_into) {
      own_outputs_.commit(options_.stop);
      for (const auto& w : own_outputs_.warnings()) report.warnings.push_back(w);
      if (checkpoint_) checkpoint_->discard();  // every file in place: nothing left to resume
    }
    folders_.keep_created();
    return report;
  }

 private:
  int owner_of(std::size_t i) const { return static_cast<int>(i % static_cast<std::size_t>(ranks_)); }
  bool is_bids() const { return table_.kind == "bids"; }

  // A BIDS dataset's results folders become derivative datasets. The files pacflow names there (the
  // description, each recording's sidecar) never lead into the raw dataset: a results folder that is
  // the dataset itself, or a symbolic link by such a name, would have one of its files replaced.
  void check_derivative_targets() const {
    const fs::path raw = fs::weakly_canonical(fs::absolute(table_.file));
    const auto refuse_into_raw = [&](const fs::path& target) {
      // Only a symbolic link leads such a name out of its folder (ROOT/derivatives/pacflow is fine).
      if (lies_inside(target, raw) && !lies_inside(target, target.parent_path()))
        throw InputError(fmt::format("{}: leads into the BIDS dataset {} (a symbolic link?), whose file pacflow would "
                                     "replace; remove it, or write the results elsewhere",
                                     target.string(), table_.file.string()));
    };
    for (const fs::path& root : pipeline_.output_folders()) {
      if (fs::weakly_canonical(fs::absolute(root)) == raw)
        throw InputError(fmt::format("the results folder {} is the BIDS dataset itself; write them beside it or into "
                                     "its derivatives folder (dir={}/derivatives/pacflow)",
                                     root.string(), table_.file.string()));
      if (collects_) refuse_into_raw(root / "dataset_description.json");
    }
    for (std::size_t i = 0; i < table_.recordings.size(); ++i) {
      if (computes_ && owner_of(i) != rank_) continue;  // as hold_folders: a rank writes its own recordings
      const ManifestRecording& row = table_.recordings[i];
      for (const fs::path& folder : recording_pipeline(pipeline_, table_, row, pipeline_.registry()).output_folders())
        refuse_into_raw(folder / bids::sidecar_name(row));
    }
  }

  // Where the group figures go: beside each png sink's dataset figure (not a recording's), with the
  // sink's alpha.
  struct FigurePlace {
    fs::path folder;
    double alpha;
    std::vector<plot::FigureFormat> formats;  // the sink's formats=
  };
  std::vector<FigurePlace> group_figure_places() const {
    std::vector<FigurePlace> places;
    for_each_output(pipeline_.elements(), pipeline_.registry(), [&](const ElementSpec& e, const ParamSpec& spec, const fs::path& path) {
      if (e.kind != ElementKind::Sink || e.name != "png" || spec.name != "path") return;
      const Params params(e.params, pipeline_.registry().find(ElementKind::Sink, "png")->params);
      places.push_back({path.parent_path(), params.number("alpha"),
                        stages::PngSink::parse_formats(params.string("formats"), path)});
    });
    return places;
  }

  group::FigureAxes group_figure_axes() const {
    const auto centres = [&](const PlanFact<std::vector<double>>& fact) {
      return first_facts_.study.value(fact.name, json::array()).get<std::vector<double>>();
    };
    return {centres(stages::kPhaseCentres), centres(stages::kAmplitudeCentres), first_facts_.channel_names,
            first_facts_.condition_names, first_times_};
  }

  void add_group_figures(const group::GroupOutcome& outcome) {
    const group::FigureAxes axes = group_figure_axes();
    for (const FigurePlace& place : group_figure_places())
      for (group::Figure& f : group::group_figures(outcome, axes, static_cast<std::int64_t>(group_.subjects()),
                                                   place.alpha, place.folder, place.formats))
        outputs().add_content(f.file, f.bytes);
  }

  // The dataset's report pages: each report sink's own path, with its alpha (the recordings' pages
  // lie one folder deeper, DIR/id/NAME).
  std::vector<std::pair<fs::path, double>> report_page_places() const { return report_pages(pipeline_); }

  void add_dataset_pages(const DatasetReport& report, const group::GroupOutcome* outcome) {
    for (const auto& [path, alpha] : report_page_places()) {
      report::DatasetPage page{report.dataset, {}, report.group, {}, report.warnings};
      for (const DatasetReport::Recording& r : report.recordings)
        page.recordings.push_back({r.id, (fs::path(r.id) / path.filename()).string(),
                                   r.from_checkpoint ? "taken from the checkpoint"
                                   : r.series        ? fmt::format("rank {}, {} series, {:.2f} s", r.rank, *r.series, r.wall_s)
                                                     : fmt::format("rank {}", r.rank)});
      if (outcome)
        for (group::Figure& f : group::group_figures(*outcome, group_figure_axes(),
                                                     static_cast<std::int64_t>(group_.subjects()), alpha,
                                                     path.parent_path(), {plot::FigureFormat::kSvg}))
          page.group_figures.push_back({"the group test's t per channel, its significant clusters outlined (" +
                                            f.file.stem().string() + ")",
                                        fs::path(f.file).replace_extension(".png").filename().string(), std::move(f.bytes)});
      outputs().add_content(path, report::dataset_page_html(page));
    }
  }

  // The files the dataset names itself (a BIDS derivative's description and sidecars, the group
  // figures), checked as a sink's outputs are before anything runs: never a special file, a name
  // pacflow keeps, or one of the run's inputs (the .pipe file, the table, a recording).
  void check_own_targets() const {
    std::vector<OutputPath> own;
    if (collects_)
      for (const auto& place : report_page_places()) own.push_back({place.first, "the dataset's report page"});
    if (collects_ && !stacked_path_.empty())
      for (const auto& place : group_figure_places())
        for (const std::string& name : group::group_figure_names(place.formats))
          own.push_back({place.folder / name, "the group figures"});
    if (is_bids()) {
      if (collects_)
        for (const fs::path& root : pipeline_.output_folders())
          own.push_back({root / "dataset_description.json", "the BIDS derivative"});
      for (std::size_t i = 0; i < table_.recordings.size(); ++i) {
        if (computes_ && owner_of(i) != rank_) continue;
        const ManifestRecording& row = table_.recordings[i];
        for (const fs::path& folder : recording_pipeline(pipeline_, table_, row, pipeline_.registry()).output_folders())
          own.push_back({folder / bids::sidecar_name(row), "the BIDS derivative"});
      }
    }
    if (own.empty()) return;
    for (const OutputPath& o : own) check_output_target(o.path);
    std::vector<fs::path> inputs = pipeline_.input_files();
    inputs.push_back(table_.file);
    for (const auto& row : table_.recordings) {
      inputs.emplace_back(row.params.at("path").get<std::string>());
      inputs.insert(inputs.end(), row.companions.begin(), row.companions.end());
    }
    for (const OutputPath& o : own)
      if (const auto clash = find_output_clash({o}, inputs)) throw InputError(clash->message);
  }

  // Recording `row`'s BIDS sidecar in each of its results folders, with its files.
  void add_sidecars(const ManifestRecording& row) {
    const std::string sidecar = bids::recording_sidecar(table_, row, plan_);
    for (const fs::path& folder : recording_pipeline(pipeline_, table_, row, pipeline_.registry()).output_folders())
      outputs().add_content(folder / bids::sidecar_name(row), sidecar);
  }
  OutputSet& outputs() { return options_.commit_into ? *options_.commit_into : own_outputs_; }

  // The folders this process writes into, made and held for the whole dataset: the sinks' own
  // folders and the stacked file's, locked (the collector's: one dataset at a time into them), and
  // beneath them each recording's folder this process writes, settled under that lock (a lock each
  // would take a descriptor per recording).
  void hold_folders() {
    if (collects_) {
      std::vector<fs::path> base = pipeline_.output_folders();
      if (!stacked_path_.empty()) base.push_back(resolved_output(stacked_path_).parent_path());
      folders_.hold(base);
    }
    std::vector<fs::path> recording_folders;
    for (std::size_t i = 0; i < table_.recordings.size(); ++i) {
      // A merge (which computes nothing) writes every recording's folder; a rank only its own.
      if (computes_ && owner_of(i) != rank_) continue;
      const ManifestRecording& row = table_.recordings[i];
      for (const fs::path& f : recording_pipeline(pipeline_, table_, row, pipeline_.registry()).output_folders())
        recording_folders.push_back(f);
    }
    folders_.settle_beneath(recording_folders);
  }

  // Recording i's pipeline, with an `arrays` sink that hands its results over (with the facts every
  // recording shares); returns them. Its files go into the dataset's commit.
  std::shared_ptr<stages::ResultArrays> run_recording(std::size_t i, std::vector<DatasetReport::Recording>& recordings) {
    const ManifestRecording& row = table_.recordings[i];
    auto results = std::make_shared<stages::ResultArrays>();
    Registry registry = pipeline_.registry();
    registry.add(stages::MemorySink::info(results, kRecordingArrays));
    std::string input_checksum;
    if (checkpoint_) {
      input_checksum = checksum_of_file(row.params.at("path").get<std::string>(), options_.stop);
      if (row.params.contains("events_file"))  // a BIDS recording's events.tsv: where its epochs are
        input_checksum += " " + checksum_of_file(row.params["events_file"].get<std::string>(), options_.stop);
      if (auto kept = checkpoint_->find(row.id, input_checksum); kept && companions_unchanged(kept->report, options_.stop))
        return resume_recording(i, *kept, recordings);
    }
    const std::size_t files_before = outputs().size();
    RunOptions options = options_;
    options.ranks = nullptr;  // a recording runs whole, in this process
    options.commit_into = &outputs();
    options.checkpoint.clear();  // the dataset's: kept per recording, below
    options.on_progress = dataset_progress(i);
    const auto start = std::chrono::steady_clock::now();
    RunReport run;
    try {
      run = recording_pipeline(pipeline_, table_, row, registry,
                               {{ElementKind::Sink, kRecordingArrays, json::object(), {}, {}}})
                .run(options);
    } catch (const RunCancelled&) {
      throw;
    } catch (const InputError& e) {  // located at the row when the source is at fault; nested: its type stays
      std::throw_with_nested(RecordingFailed(fmt::format("recording {}: {}", row.id, e.what())));
    } catch (const std::exception& e) {
      std::throw_with_nested(
          RecordingFailed(fmt::format("{}: recording {}: {}", origin_of(table_, row), row.id, e.what())));
    }
    recordings.push_back(
        {row.id, rank_, run.run.series, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    note_warnings(run.plan.warnings);
    if (const auto mismatch = bids::sampling_frequency_warning(row.id, row.metadata, run.plan.input.sample_rate_hz))
      note_warnings({*mismatch});
    const json report = run.to_json();  // what the checkpoint keeps and the Python module hands over
    if (is_bids()) add_sidecars(row);
    if (on_recording_) on_recording_(row.id, report, results);
    if (checkpoint_) {
      auto files = outputs().files();
      files.erase(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(files_before));
      checkpoint_->keep(row.id, input_checksum, report, *results, files);
    }
    return results;
  }

  // Recording i as the checkpoint kept it: its files (copied from the checkpoint at the commit, so a
  // run killed meanwhile still resumes), arrays and report, as if it had just run.
  std::shared_ptr<stages::ResultArrays> resume_recording(std::size_t i, DatasetCheckpoint::Recording& kept,
                                                         std::vector<DatasetReport::Recording>& recordings) {
    const ManifestRecording& row = table_.recordings[i];
    for (const auto& [stored, target] : kept.files) outputs().add(stored, target, /*keep=*/true);
    auto results = std::make_shared<stages::ResultArrays>(std::move(kept.results));
    recordings.push_back({row.id, rank_, kept.report["run"]["series"].get<std::int64_t>(), 0.0, true});
    ++resumed_;
    note_warnings(kept.report.value("warnings", json::array()).get<std::vector<std::string>>());
    if (on_recording_) on_recording_(row.id, kept.report, results);
    return results;
  }

  // A recording's warnings, said once, not once per recording.
  void note_warnings(const std::vector<std::string>& warnings) {
    for (const auto& w : warnings)
      if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) warnings_.push_back(w);
  }

  // Recording i's progress as the whole dataset's: which of this process's recordings it is, and the
  // time since the dataset started.
  std::function<void(const Progress&)> dataset_progress(std::size_t i) const {
    if (!options_.on_progress) return {};
    std::int64_t mine = 0, before = 0;
    for (std::size_t k = 0; k < table_.recordings.size(); ++k) {
      if (computes_ && owner_of(k) != rank_) continue;
      before += k < i ? 1 : 0;
      ++mine;
    }
    return [this, before, mine](const Progress& p) {
      Progress whole = p;
      whole.recording = before;
      whole.recordings = mine;
      whole.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      options_.on_progress(whole);
    };
  }

  // The collector: recording i's arrays into the stacked file (made with the first recording's).
  // Another shape stops the dataset at that recording: nothing of it is written.
  void stack(std::size_t i, const stages::ResultArrays& results) {
    const stages::SharedFacts& facts = results.facts;
    if (stacked_path_.empty()) return;
    if (i == 0) {
      first_facts_ = facts;
      for (const Coordinate& c : results.coordinates)
        if (c.name == stages::tensors::kErpacTimes) first_times_ = c.values();
      std::vector<std::string> ids;
      for (const auto& r : table_.recordings) ids.push_back(r.id);
      stacked_.emplace(stacked_path_, std::move(ids), results);
    }
    // The first recording's channels in another order: matched by name. Other names are stacked by
    // position and said (montages may name one electrode otherwise), and the group test, which would
    // pool other electrodes' cells, is not made.
    const ManifestRecording& row = table_.recordings[i];
    std::optional<stages::ResultArrays> aligned;
    if (i > 0 && facts.channel_names != first_facts_.channel_names) {
      if (const auto order = channel_order(results, first_facts_.channel_names)) {
        aligned = reordered_channels(results, *order);
      } else {
        warnings_.push_back(fmt::format("recording {}'s channels {} are not {}'s {}: the stacked file holds them by "
                                        "position, under the first recording's names",
                                        row.id, json_text(facts.channel_names), table_.recordings[0].id,
                                        json_text(first_facts_.channel_names)));
        group_.refuse(fmt::format("recording {}'s channels are not {}'s by name: the group test pools each "
                                  "channel's cells across subjects, so every recording must name the same channels "
                                  "(in any order)",
                                  row.id, table_.recordings[0].id));
      }
    }
    const stages::ResultArrays& stacking = aligned ? *aligned : results;
    try {
      // Conditions in another order would be mixed by position: refused.
      if (i > 0 && facts.condition_names != first_facts_.condition_names)
        throw InputError(fmt::format("its conditions {} are not {}'s {}: stacked, they would be mixed; give every "
                                     "recording the same conditions, in one order",
                                     json_text(facts.condition_names), table_.recordings[0].id,
                                     json_text(first_facts_.condition_names)));
      stacked_->add(i, stacking);
      group_.add(i, stacking);
    } catch (const InputError& e) {
      std::throw_with_nested(RecordingFailed(
          fmt::format("{}: recording {}: {}", origin_of(table_, row), row.id, e.bare_message())));
    }
  }

  const Pipeline& pipeline_;
  RunOptions options_;
  RecordingResults on_recording_;
  BeforeCommit before_commit_;
  ManifestTable table_;
  json plan_;  // what every rank agrees on (dataset_plan)
  GroupValues group_;
  fs::path stacked_path_;
  int rank_ = 0, ranks_ = 1;
  bool collects_ = true, computes_ = true;
  stages::SharedFacts first_facts_;  // the first recording's, for the stacked file and the group figures
  std::vector<double> first_times_;  // its erpac_times, for the group figures of ERPAC
  OutputFolders folders_;  // declared before the files: released after they are committed or removed
  OutputSet own_outputs_;  // every file of the dataset, committed together (unless commit_into)
  std::vector<std::string> warnings_;
  std::optional<stages::StackedResults> stacked_;
  std::optional<DatasetCheckpoint> checkpoint_;  // --checkpoint: the recordings done, kept
  std::int64_t resumed_ = 0;                     // recordings taken from it
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

bool is_dataset(const Pipeline& pipeline) {
  const auto& elements = pipeline.elements();
  return !elements.empty() && elements.front().kind == ElementKind::Source && is_dataset_source(elements.front().name);
}

DatasetReport run_dataset(const Pipeline& pipeline, const RunOptions& options, const RecordingResults& on_recording,
                          const BeforeCommit& before_commit) {
  return DatasetRun(pipeline, options, on_recording, before_commit).run();
}

json DatasetReport::to_json() const {
  json listed = json::array();
  for (const auto& r : recordings) {
    json entry{{"id", r.id}, {"rank", r.rank}};
    if (r.series) entry.update({{"series", *r.series}, {"wall_s", r.wall_s}});
    if (r.from_checkpoint) entry["from_checkpoint"] = true;
    listed.push_back(std::move(entry));
  }
  json out{{"dataset", dataset}, {"recordings", std::move(listed)}, {"warnings", warnings}};
  if (group) out["group"] = group::to_json(*group);
  if (stacked) out["stacked"] = stacked->string();
  if (checkpoint) out["checkpoint"] = {{"dir", checkpoint->dir.string()}, {"recordings_resumed", checkpoint->recordings}};
  return out;
}

double DatasetPlan::run_time_seconds() const {
  double seconds = 0;
  for (const auto& r : recordings) seconds += r.plan.run_time ? r.plan.run_time->total() : 0.0;
  return seconds;
}

json DatasetPlan::to_json() const {
  json listed = json::array();
  for (const auto& r : recordings)
    listed.push_back({{"id", r.id}, {"line", r.line}, {"origin", r.origin}, {"plan", r.plan.to_json()}});
  return {{"dataset", dataset},
          {"warnings", warnings},
          {"recordings", std::move(listed)},
          {"run_time_estimate", {{"seconds", run_time_seconds()}}}};
}

DatasetPlan validate_dataset(const Pipeline& pipeline, const RunOptions& options) {
  const ManifestTable table = table_of(pipeline);
  check_inputs(table);
  check_stacked_path(pipeline, table, stacked_path_of(pipeline));
  check_report_pages(pipeline, table);
  DatasetPlan plan{table.file.string(), table.warnings, {}};
  for (const auto& row : table.recordings) {
    try {
      plan.recordings.push_back(
          {row.id, row.line, origin_of(table, row), recording_pipeline(pipeline, table, row, pipeline.registry()).validate(options)});
    } catch (const InputError& e) {
      std::throw_with_nested(InputError(fmt::format("recording {}: {}", row.id, e.what())));
    }
  }
  return plan;
}

}  // namespace pacflow
