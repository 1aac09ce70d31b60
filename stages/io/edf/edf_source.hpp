#pragma once
// Source `edf`: EDF, EDF+, BDF or BDF+ recordings through EDFlib, in physical units. Selected
// channels (by label or index) must share one sample rate; the recording is read whole as one
// epoch, cut into fixed windows (epoch=, step=) or into windows around EDF+ annotation onsets
// (events=, window=). Epochs overlapping annotations marked bad (reject_by_annotation=, "BAD" by
// default) or above a peak-to-peak limit (reject_ptp=) are left out. Each batch reads only the
// samples of its series. Flat series (EDF samples are
// integers, never NaN): nan_policy (stages/io/common/finite_samples.hpp).
#include <memory>
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/edf/edf_file.hpp"
#include "stages/io/edf/epochs.hpp"

namespace pacflow::stages {

class EdfSource final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;
  // One series in double, as EDFlib delivers it.
  double host_workspace_bytes(std::int64_t /*batch_series*/) const override {
    return static_cast<double>(epochs_.length + 2 * pad_samples_) * sizeof(double);
  }

  static ElementInfo info();
  static void declare(ParamBinder<EdfSource>& p);
  // Reads events=, window= and reject_by_annotation= and checks the epoching parameters together.
  void configured();

 private:
  std::vector<std::size_t> selected_channels() const;
  // Cuts the recording's `total` samples at `fs` into epochs; fills the epoching description.
  void describe_conditions(StreamInfo& info) const;
  void describe_overlap(double fs, StreamInfo& info) const;
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

  std::string path_;
  NanPolicy nan_policy_ = NanPolicy::Reject;
  SamplePolicy samples_;
  std::optional<json> channels_;  // unset: every channel
  std::optional<Duration> epoch_;
  std::optional<Duration> step_;
  std::optional<json> events_given_;  // events= as written
  std::vector<std::string> events_;   // one event type per condition
  std::optional<json> window_given_;  // window= as written
  std::optional<EventWindow> window_;
  json reject_by_annotation_ = "BAD";      // as written
  std::vector<std::string> bad_prefixes_;  // reject_by_annotation: empty keeps every epoch
  std::optional<double> reject_ptp_;
  std::optional<Duration> pad_;
  std::int64_t pad_samples_ = 0;         // read on each side of every epoch
  std::int64_t recording_samples_ = 0;  // of each selected channel
  static constexpr std::int64_t kPtpChunk = 1 << 20;  // samples read at a time for reject_ptp
  std::unique_ptr<EdfFile> file_;
  std::vector<int> signals_;  // EDFlib signal index of each selected channel
  Epochs epochs_;
  std::vector<double> buffer_;  // up to one series in double, as EDFlib delivers it; grown by reads
};

}  // namespace pacflow::stages
