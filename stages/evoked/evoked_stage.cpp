#include "stages/evoked/evoked_stage.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

void EvokedStage::declare(ParamBinder<EvokedStage>& p) {
  p.choice(&EvokedStage::mode_, "mode", {{"regress", Mode::Regress}, {"subtract", Mode::Subtract}}, "regress",
           "regress (each epoch minus its condition's evoked response scaled to the epoch by least squares: for "
           "responses whose size varies across trials) or subtract (minus the evoked response itself)");
}

ElementInfo EvokedStage::info() {
  return element_info<EvokedStage>("evoked",
                                   "removes each condition's evoked response (its mean over epochs) from every epoch "
                                   "before filtering, so that an evoked response does not pass for coupling; right "
                                   "after the source (reads the input once more)");
}

StreamInfo EvokedStage::plan(const StreamInfo& before, json& resolved) {
  if (before.leading_names.empty() || before.leading_names[0] != "epochs" || before.leading_dims.at(0) < 2)
    throw InputError(fmt::format("evoked needs the input's epochs (a mean over them is the evoked response), but the "
                                 "input is laid out [{}] of {} series; cut epochs around events (edf events=) or name "
                                 "an array's epochs axis (layout=E…)",
                                 fmt::join(before.leading_names, "]["), before.series_count()));
  const std::int64_t epochs = before.leading_dims[0];
  series_ = before.series_count();
  per_epoch_ = series_ / epochs;
  length_ = before.series_length;
  conditions_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(before.condition_names.size()));
  epoch_conditions_ = before.epoch_conditions;
  excluded_.assign(static_cast<std::size_t>(series_), false);
  for (const auto s : before.excluded_series) excluded_[static_cast<std::size_t>(s)] = true;
  sums_.clear();
  counts_.clear();
  energy_.clear();
  learned_ = 0;
  std::vector<std::int64_t> per_condition(static_cast<std::size_t>(conditions_), 0);
  for (std::int64_t e = 0; e < epochs; ++e) ++per_condition[static_cast<std::size_t>(condition_of(e * per_epoch_))];
  for (std::int64_t c = 0; c < conditions_; ++c)
    if (per_condition[static_cast<std::size_t>(c)] < 2)
      throw InputError(fmt::format("evoked: {} has {} epoch{}: its evoked response would be the epoch itself, which "
                                   "removing would leave nothing; it needs two or more",
                                   conditions_ > 1 ? fmt::format("condition {}", before.condition_names[static_cast<std::size_t>(c)])
                                                   : std::string("the input"),
                                   per_condition[static_cast<std::size_t>(c)],
                                   per_condition[static_cast<std::size_t>(c)] == 1 ? "" : "s"));
  resolved["epochs_per_condition"] = per_condition;
  StreamInfo after = before;
  after.description["evoked_removed"] = mode_ == Mode::Regress ? "regress" : "subtract";
  return after;
}

std::int64_t EvokedStage::condition_of(std::int64_t series) const {
  return epoch_conditions_.empty() ? 0 : epoch_conditions_[static_cast<std::size_t>(series / per_epoch_)];
}

std::size_t EvokedStage::response_row(std::int64_t series) const {
  return static_cast<std::size_t>(condition_of(series) * per_epoch_ + series % per_epoch_);
}

void EvokedStage::learn(const float* in, std::int64_t first, std::int64_t count) {
  if (first != learned_) throw std::logic_error("evoked learns the series in order, once");
  const auto t = static_cast<std::size_t>(length_);
  if (sums_.empty()) {
    sums_.assign(static_cast<std::size_t>(conditions_ * per_epoch_) * t, 0.0);
    counts_.assign(static_cast<std::size_t>(conditions_ * per_epoch_), 0);
  }
  for (std::int64_t s = first; s < first + count; ++s) {
    if (excluded_[static_cast<std::size_t>(s)]) continue;
    const std::size_t row = response_row(s);
    const float* x = in + static_cast<std::size_t>(s - first) * t;
    double* sum = sums_.data() + row * t;
    for (std::size_t i = 0; i < t; ++i) sum[i] += x[i];
    ++counts_[row];
  }
  learned_ = first + count;
  if (learned_ < series_) return;
  energy_.assign(counts_.size(), 0.0);  // the sums become the means, r, and <r, r>
  for (std::size_t row = 0; row < counts_.size(); ++row) {
    double* r = sums_.data() + row * t;
    for (std::size_t i = 0; i < t; ++i) {
      r[i] = counts_[row] > 0 ? r[i] / static_cast<double>(counts_[row]) : 0.0;
      energy_[row] += r[i] * r[i];
    }
  }
}

void EvokedStage::apply(const float* in, float* out, std::int64_t first, std::int64_t count) const {
  if (learned_ < series_) throw std::logic_error("evoked applied before it learned the evoked responses");
  const auto t = static_cast<std::size_t>(length_);
  for (std::int64_t s = first; s < first + count; ++s) {
    const float* x = in + static_cast<std::size_t>(s - first) * t;
    float* y = out + static_cast<std::size_t>(s - first) * t;
    const std::size_t row = response_row(s);
    const double* r = sums_.data() + row * t;
    double scale = 1;
    if (excluded_[static_cast<std::size_t>(s)] || energy_[row] <= 0) {
      scale = 0;
    } else if (mode_ == Mode::Regress) {
      double dot = 0;
      for (std::size_t i = 0; i < t; ++i) dot += static_cast<double>(x[i]) * r[i];
      scale = dot / energy_[row];
    }
    for (std::size_t i = 0; i < t; ++i) y[i] = static_cast<float>(static_cast<double>(x[i]) - scale * r[i]);
  }
}

double EvokedStage::host_workspace_bytes() const {
  return static_cast<double>(conditions_ * per_epoch_) * (static_cast<double>(length_) + 2) * sizeof(double) +
         static_cast<double>(series_) / 8;
}

}  // namespace pacflow::stages
