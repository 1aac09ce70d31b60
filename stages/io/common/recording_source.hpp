#pragma once
// What the recording sources (`edf`, `brainvision`) share: a continuous recording (a RecordingFile,
// which each element opens in its format) read in physical units. Selected channels (by label or
// index) must share one sample rate; the recording is read whole as one epoch, cut into fixed
// windows (epoch=, step=) or into windows around annotation onsets (events=, window=). Epochs
// overlapping annotations marked bad (reject_by_annotation=, "BAD" by default) or above a
// peak-to-peak limit (reject_ptp=) are left out. With events_file= (a BIDS events.tsv,
// stages/io/common/events_tsv.hpp) its events stand for the file's annotations, for both. Each
// batch reads only the samples of its series. Flat series (samples stored as integers are never NaN): nan_policy
// (stages/io/common/finite_samples.hpp).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/io/common/channel_selection.hpp"
#include "stages/io/common/epochs.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/common/padding.hpp"
#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

// events=NAME, or events=[A, B, …]: one condition per event type, each named once.
std::vector<std::string> parse_event_types(const std::string& param, const json& value);
// reject_by_annotation=: an annotation's beginning (BAD), a list of them, or none (an empty list).
std::vector<std::string> parse_bad_prefixes(const std::string& param, const json& value);

// The words that differ between the recording sources; their parameters, checks and reads do not.
struct RecordingTexts {
  std::string source;       // the element's name, result.json's input.source: "edf"
  std::string path_doc;     // path=: "the .edf or .bdf file"
  std::string events_doc;   // events=
  std::string reject_doc;   // reject_by_annotation=
  std::string annotations;  // what events= needs, for a format without: "EDF+ or BDF+ annotations"
};

class RecordingSource : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;
  // One series in double, as the file delivers it.
  double host_workspace_bytes(std::int64_t /*batch_series*/) const override {
    return static_cast<double>(epochs_.length + 2 * pad_samples_) * sizeof(double);
  }
  // Checks the epoching parameters together.
  void configured();
  // The parameters declare_recording declares, in `texts`' words (a static object): what a dataset
  // source declares for its recordings (stages/io/bids).
  static std::vector<ParamSpec> recording_params(const RecordingTexts& texts);

 protected:
  explicit RecordingSource(const RecordingTexts& texts) : texts_(texts) {}
  // The parameters of every recording source, documented in `texts`' words (a static object).
  template <class Element>
  static void declare_recording(ParamBinder<Element>& p, const RecordingTexts& texts);
  // The recording at `path`, in the element's format; with its annotations when asked. Throws
  // InputError naming the file when it cannot be opened.
  virtual std::unique_ptr<RecordingFile> open_file(const std::string& path, bool read_annotations) const = 0;

 private:
  // What events= and reject_by_annotation= look at: the events file's events, else the file's annotations.
  const std::vector<RecordingAnnotation>& annotations() const;
  // Reads events_file= (when given) into file_events_; notes it in `info`.
  void read_events_file(StreamInfo& info, const std::stop_token& stop);
  std::vector<std::size_t> selected_channels() const;
  // The selected channels' common sample rate (refused when they differ).
  double common_rate(const std::vector<std::size_t>& selected) const;
  // Labels, units and resolutions of the selected channels into `info`; remembers their signals.
  void describe_channels(const std::vector<std::size_t>& selected, StreamInfo& info);
  // Several event types: each epoch's condition, and the epochs each condition kept.
  void describe_conditions(StreamInfo& info) const;
  void describe_overlap(double fs, StreamInfo& info) const;
  // Cuts the recording's `total` samples at `fs` into epochs; fills the epoching description.
  Epochs cut(std::int64_t total, double fs, json& description, std::vector<std::string>& warnings) const;
  Epochs fixed_epochs(std::int64_t total, double fs, json& description) const;
  Epochs event_epochs(std::int64_t total, double fs, json& description, std::vector<std::string>& warnings) const;
  // Leaves out the epochs overlapping bad annotations or above reject_ptp; says which and why.
  void reject(Epochs& epochs, double fs, const std::vector<std::size_t>& selected, json& description,
              std::vector<std::string>& warnings, const std::stop_token& stop) const;
  // Samples [offset, offset + samples) of series [first, first + count) as the file holds them,
  // before the nan_policy.
  void read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst);
  // Samples [from, from + n) of `signal`, an odd reflection standing in for those outside the
  // recording (pad= near its ends).
  void read_reflected(int signal, std::int64_t from, std::int64_t n, double* dst);
  // pad_samples and the epochs whose padding reaches past the recording, with a warning.
  void describe_padding(double fs, json& description, std::vector<std::string>& warnings) const;

  const RecordingTexts& texts_;
  std::string path_;
  NanPolicy nan_policy_ = NanPolicy::Reject;
  SamplePolicy samples_;
  std::optional<ChannelSelection> channels_;  // unset: every channel
  std::optional<Duration> epoch_;
  std::optional<Duration> step_;
  std::optional<std::filesystem::path> events_file_;
  std::vector<RecordingAnnotation> file_events_;  // read from events_file_
  std::vector<std::string> events_;  // events=: one event type per condition; empty: none
  std::optional<EventWindow> window_;
  std::vector<std::string> bad_prefixes_;  // reject_by_annotation=: empty keeps every epoch
  std::optional<double> reject_ptp_;
  std::optional<Duration> pad_;
  std::int64_t pad_samples_ = 0;         // read on each side of every epoch
  std::int64_t recording_samples_ = 0;  // of each selected channel
  static constexpr std::int64_t kPtpChunk = 1 << 20;  // samples read at a time for reject_ptp
  std::unique_ptr<RecordingFile> file_;
  std::vector<int> signals_;  // the file's signal index of each selected channel
  Epochs epochs_;
  std::vector<double> buffer_;  // up to one series in double, as the file delivers it; grown by reads
};

template <class Element>
void RecordingSource::declare_recording(ParamBinder<Element>& p, const RecordingTexts& texts) {
  p.required(&RecordingSource::path_, "path", texts.path_doc).as(ParamType::InputFile);
  p.parsed_optional(&RecordingSource::channels_, "channels", &ChannelSelection::parse,
                    "labels or indices in order, e.g. Fz,Cz or 0-15 or [Fz, \"C3 A2\"]; default: every channel");
  p.optional(&RecordingSource::epoch_, "epoch", "epoch length (e.g. 4s); default: the whole recording is one epoch")
      .unit("s, ms or smp");
  p.optional(&RecordingSource::step_, "step", "distance between epoch starts (default: the epoch length)")
      .unit("s, ms or smp");
  p.parsed_optional(&RecordingSource::events_, "events", parse_event_types, texts.events_doc);
  p.optional(&RecordingSource::events_file_, "events_file",
             "a BIDS events.tsv: onset, duration and trial_type of each event; used instead of the file's annotations "
             "for events= (and its rows whose trial_type begins with BAD for rejection)");
  p.parsed_optional(&RecordingSource::window_, "window", parse_event_window,
                    "START:END around each event onset, e.g. -1s:3s (with events)")
      .unit("s, ms or smp");
  p.parsed(&RecordingSource::bad_prefixes_, "reject_by_annotation", "BAD", parse_bad_prefixes, texts.reject_doc);
  p.optional(&RecordingSource::reject_ptp_, "reject_ptp",
             "epochs where some channel's peak-to-peak amplitude exceeds this (in the channels' physical unit, e.g. 150 "
             "for 150 uV) are left out (MNE's reject=)")
      .unit("physical unit")
      .greater_than(0);
  declare_pad(p, &RecordingSource::pad_,
              "more of the recording read on each side of every epoch: filtered with it, then cropped after the "
              "hilbert stage, so short epochs keep their full filters; where the recording ends, an odd reflection "
              "stands in (reported)");
  declare_nan_policy(p, &RecordingSource::nan_policy_);
}

}  // namespace pacflow::stages
