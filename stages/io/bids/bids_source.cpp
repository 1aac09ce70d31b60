#include "stages/io/bids/bids_source.hpp"

#include <algorithm>

#include "stages/io/common/recording_source.hpp"

namespace pacflow::stages {

namespace {

const RecordingTexts& bids_texts() {
  static const RecordingTexts texts{
      "bids", "",
      "trial_type of the events in each recording's events.tsv: one epoch around each onset of it; a list [go, nogo] "
      "makes one condition per trial type (epochs grouped by condition, in the list's order)",
      "epochs overlapping an event whose text begins with this (any case; a list such as [BAD, EDGE] for several) "
      "are left out: with events=, the rows of events.tsv whose trial_type begins with it, else the recording's own "
      "annotations (EDF+, BrainVision markers); none keeps every epoch",
      "events.tsv"};
  return texts;
}

// The reader parameters every recording of the dataset takes (not path= and events_file=, which
// the dataset gives each recording), inserted after the element's own.
void add_reader_params(ElementInfo& info) {
  std::vector<ParamSpec> readers;
  for (ParamSpec spec : RecordingSource::recording_params(bids_texts())) {
    if (spec.name == "path" || spec.name == "events_file") continue;
    if (spec.name == "channels")
      spec.doc =
          "labels or indices in order, e.g. Fz,Cz or 0-15 or [Fz, \"C3 A2\"] (none marked bad in channels.tsv); "
          "default: every channel channels.tsv does not mark bad";
    readers.push_back(std::move(spec));
  }
  const auto after =
      std::find_if(info.params.begin(), info.params.end(), [](const ParamSpec& p) { return p.name == "runs"; });
  info.params.insert(after + 1, readers.begin(), readers.end());
}

auto labels_of(std::string entity) {
  return [entity](const std::string& param, const json& value) { return parse_entity_labels(param, value, entity); };
}

}  // namespace

void BidsSource::declare(ParamBinder<BidsSource>& p) {
  p.required(&BidsSource::root_, "root",
             "the BIDS dataset's folder (dataset_description.json, participants.tsv, sub-*/[ses-*/]eeg/); relative to "
             "the .pipe file")
      .as(ParamType::InputFile);
  p.required(&BidsSource::task_, "task", "the task whose recordings are read: task-NAME in their file names");
  p.choice(&BidsSource::datatype_, "datatype", {{"eeg", "eeg"}, {"ieeg", "ieeg"}}, "eeg",
           "the recordings' folder and suffix: eeg (…/eeg/…_eeg.edf) or ieeg (…/ieeg/…_ieeg.edf)");
  p.parsed_optional(&BidsSource::subjects_, "subjects", labels_of("sub"),
                    "only these subjects' recordings, by label: [01, 02] (sub-01, sub-02); default: every subject");
  p.parsed_optional(&BidsSource::sessions_, "sessions", labels_of("ses"),
                    "only these sessions' recordings, by label ([1, 2]); default: all");
  p.parsed_optional(&BidsSource::runs_, "runs", labels_of("run"),
                    "only these runs' recordings, by label ([1, 2]); default: all");
  declare_dataset(p);
}

ElementInfo BidsSource::info() {
  ElementInfo info = element_info<BidsSource>(
      "bids",
      "a dataset in BIDS (root=DIR task=NAME): one recording per EEG or iEEG file of the task (EDF/BDF, "
      "BrainVision), bad channels of channels.tsv left out, events from events.tsv (beside the recording or "
      "inherited from above it); the pipeline runs once per recording (results per recording, and stacked), "
      "and the results folder is a BIDS derivative dataset");
  add_reader_params(info);
  return info;
}

}  // namespace pacflow::stages
