#include "pipelines/bids/bids_dataset.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

#include "engine/api/errors.hpp"
#include "pipelines/bids/bids_channels.hpp"
#include "pipelines/bids/bids_filters.hpp"
#include "pipelines/bids/bids_inheritance.hpp"
#include "pipelines/bids/bids_sidecar.hpp"
#include "pipelines/bids/bids_participants.hpp"
#include "pipelines/bids/bids_tree.hpp"
#include "stages/io/common/events_tsv.hpp"

namespace pacflow::bids {

namespace {

namespace fs = std::filesystem;

// The reader of a recording file by its extension; "" for a companion (not a recording). Refuses
// the formats pacflow does not read, naming the file.
std::string reader_of(const BidsFile& file) {
  const std::string& ext = file.name.extension;
  if (ext == ".edf" || ext == ".bdf") return "edf";
  if (ext == ".vhdr") return "brainvision";
  if (ext == ".eeg" || ext == ".vmrk" || ext == ".fdt" || ext == ".json") return "";
  if (ext == ".set")
    throw InputError(
        fmt::format("{}: EEGLAB .set files are not read; convert the recording to EDF, BDF or "
                    "BrainVision (e.g. mne_bids.write_raw_bids(..., format=\"EDF\")), or leave this "
                    "subject out with subjects=",
                    file.path.string()));
  throw InputError(
      fmt::format("{}: a {} recording pacflow does not read; BIDS recordings are read as EDF/BDF (.edf, "
                  ".bdf) or BrainVision (.vhdr)",
                  file.path.string(), ext.empty() ? "folder or extensionless" : ext));
}

class BidsReader {
 public:
  BidsReader(const ElementSpec& source, const Registry& registry)
      : source_(source),
        registry_(registry),
        params_(source.params, registry.find(ElementKind::Source, source.name)->params),
        root_(params_.string("root")),
        task_(params_.string("task")),
        datatype_(params_.string("datatype")),
        subjects_(given("subjects"), "subjects", "sub"),
        sessions_(given("sessions"), "sessions", "ses"),
        runs_(given("runs"), "runs", "run") {}

  ManifestTable read() {
    check_root();
    const BidsTree tree = scan_bids(root_, datatype_, task_);
    ManifestTable table{root_, {}, "bids", {}};
    std::set<std::string> ids;
    for (const BidsFile& file : selected(tree)) {
      const std::string reader = reader_of(file);
      if (reader.empty()) continue;
      if (!ids.insert(file.name.stem).second)
        throw InputError(
            fmt::format("{}: recording {} is there in two formats; keep one", file.path.string(), file.name.stem));
      table.recordings.push_back(row_of(file, reader));
    }
    if (table.recordings.empty()) throw no_recording(tree);
    std::set<std::string> recorded;
    for (const BidsFile& f : tree.files) recorded.insert(f.name.entity("sub").value_or(""));
    table.warnings =
        participant_warnings(root_, tree.subjects, recorded, fmt::format("{} recording of task {}", datatype_, task_),
                             [this](const std::string& label) { return subjects_.selects(label); });
    if (!fs::exists(root_ / "dataset_description.json"))
      table.warnings.push_back(
          fmt::format("{}: no dataset_description.json; is it a BIDS dataset's folder?", root_.string()));
    return table;
  }

 private:
  std::optional<json> given(const char* name) const {
    if (!params_.has(name) || params_.raw(name).is_null()) return std::nullopt;
    return params_.raw(name);
  }

  void check_root() const {
    std::error_code ec;
    const auto status = fs::status(root_, ec);
    if (!fs::exists(status))
      throw MissingFileError(root_.string(),
                             fmt::format("root={}: no such folder (the BIDS dataset's)", root_.string()));
    if (!fs::is_directory(status))
      throw ParamError("root",
                       fmt::format("{} is not a folder; root= names the BIDS dataset's folder", root_.string()));
  }

  // The files the filters keep; a filter's value that keeps none is refused, naming the labels there are.
  std::vector<BidsFile> selected(const BidsTree& tree) {
    std::vector<BidsFile> kept;
    std::set<std::string> subjects, sessions, runs;
    for (const BidsFile& f : tree.files) {
      subjects.insert(f.name.entity("sub").value_or(""));
      if (const auto ses = f.name.entity("ses")) sessions.insert(*ses);
      if (const auto run = f.name.entity("run")) runs.insert(*run);
      const bool keep_subject = subjects_.keeps(f.name.entity("sub"));
      const bool keep_session = sessions_.keeps(f.name.entity("ses"));
      if (runs_.keeps(f.name.entity("run")) && keep_subject && keep_session) kept.push_back(f);
    }
    if (tree.files.empty()) return kept;  // no_recording says why
    const auto sorted = [](const std::set<std::string>& labels) {
      std::vector<std::string> v(labels.begin(), labels.end());
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
      return v;
    };
    subjects_.check_all_used(sorted(subjects));
    sessions_.check_all_used(sorted(sessions));
    runs_.check_all_used(sorted(runs));
    if (kept.empty())
      throw InputError(
          fmt::format("{}: no recording of task {} has all of subjects=, sessions= and runs=", root_.string(), task_));
    return kept;
  }

  InputError no_recording(const BidsTree& tree) const {
    return InputError(
        fmt::format("{}: no {} recording of task {} (sub-*/[ses-*/]{}/sub-*_task-{}_*{}.edf, .bdf or .vhdr){}",
                    root_.string(), datatype_, task_, datatype_, task_, datatype_,
                    tree.tasks.empty() ? fmt::format("; it has no {} recording of any task", datatype_)
                                       : fmt::format("; its {} tasks: {}", datatype_, fmt::join(tree.tasks, ", "))));
  }

  ManifestRecording row_of(const BidsFile& file, const std::string& reader) const;

  const ElementSpec& source_;
  const Registry& registry_;
  Params params_;
  fs::path root_;
  std::string task_, datatype_;
  LabelFilter subjects_, sessions_, runs_;
};

ManifestRecording BidsReader::row_of(const BidsFile& file, const std::string& reader) const {
  const std::string& id = file.name.stem;
  ManifestRecording row{id, reader, json{{"path", file.path.string()}}, 0, {}};
  const ElementInfo* info = registry_.find(ElementKind::Source, reader);
  for (const auto& item : source_.params.items()) {
    const std::string& key = item.key();
    const json& value = item.value();
    const bool reads =
        std::any_of(info->params.begin(), info->params.end(), [&](const ParamSpec& p) { return p.name == key; });
    if (reads && key != "path" && key != "events_file" && !value.is_null()) row.params[key] = value;
  }
  // Its channels.tsv and events.tsv: beside it, or higher in the tree (the inheritance principle).
  const std::optional<fs::path> channels_tsv = applicable_file(root_, file.path, file.name, "channels", ".tsv");
  if (channels_tsv) {
    std::optional<json> given;
    if (row.params.contains("channels")) given = row.params["channels"];
    try {
      const std::optional<json> channels = recording_channels(given, read_bids_channels(*channels_tsv));
      if (channels) row.params["channels"] = *channels;
    } catch (const InputError& e) {
      std::throw_with_nested(InputError(fmt::format("recording {}: {}", id, e.what())));
    }
  }
  if (row.params.contains("events")) {
    const std::optional<fs::path> events_tsv = applicable_file(root_, file.path, file.name, "events", ".tsv");
    if (!events_tsv) {
      const fs::path beside = file.path.parent_path() / (id + "_events.tsv");
      throw MissingFileError(beside.string(),
                             fmt::format("recording {}: events= takes its epochs from {}, which is missing (BIDS "
                                         "keeps a recording's events there, or in a _events.tsv higher in the "
                                         "tree whose entities are the recording's)",
                                         id, beside.string()));
    }
    try {
      stages::read_events_tsv(*events_tsv);  // read now: a bad file stops the dataset before any recording runs
    } catch (const InputError& e) {
      std::throw_with_nested(InputError(fmt::format("recording {}: {}", id, e.what())));
    }
    row.params["events_file"] = events_tsv->string();
    row.companions.push_back(*events_tsv);
  }
  if (channels_tsv) row.companions.push_back(*channels_tsv);
  // Its _eeg.json (or _ieeg.json), merged from the root down: read now, so a malformed one stops the
  // dataset before any recording runs.
  try {
    RecordingSidecar sidecar = read_recording_sidecar(root_, file.path, file.name, datatype_);
    row.metadata = std::move(sidecar.metadata);
    row.companions.insert(row.companions.end(), sidecar.files.begin(), sidecar.files.end());
  } catch (const InputError& e) {
    std::throw_with_nested(InputError(fmt::format("recording {}: {}", id, e.what())));
  }
  return row;
}

}  // namespace

ManifestTable read_bids(const ElementSpec& source, const Registry& registry) {
  try {
    return BidsReader(source, registry).read();
  } catch (const ParamError& e) {
    const auto it = source.param_where.find(e.param());
    std::throw_with_nested(
        InputError(fmt::format("source \"{}\", parameter \"{}\": {}", source.name, e.param(), e.bare_message()),
                   it != source.param_where.end() ? it->second : source.where));
  }
}

}  // namespace pacflow::bids
