#pragma once
// Stage `evoked`: removes the evoked response (the event-related potential) from every epoch
// before any filter, so that a response time-locked to the events, whose slow and fast parts rise
// together, does not pass for phase-amplitude coupling (issue 36: with its amplitude varying from
// trial to trial, 24 % false positives at 5 %). A preprocessing stage (engine/api/transform.hpp)
// that learns: the run reads the input once first for each condition's mean over its epochs, per
// channel (and segment), the evoked response r; then each epoch x becomes
//   mode=regress (default)  x - a r, with a = <x, r> / <r, r>: the response scaled to the epoch's
//                           own (by least squares), for responses whose size varies across trials;
//   mode=subtract           x - r, the classic subtraction of the average.
// Series the source left out (nan_policy=skip) stay out of the means.
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/transform.hpp"

namespace pacflow::stages {

class EvokedStage final : public Transform {
 public:
  StreamInfo plan(const StreamInfo& before, json& resolved) override;
  bool per_epoch() const override { return false; }
  void apply(const float* in, float* out, std::int64_t first, std::int64_t count) const override;
  double host_workspace_bytes() const override;
  bool learns() const override { return true; }
  void learn(const float* in, std::int64_t first, std::int64_t count) override;

  static ElementInfo info();
  static void declare(ParamBinder<EvokedStage>& p);

 private:
  enum class Mode { Regress, Subtract };
  std::int64_t condition_of(std::int64_t series) const;
  // Row of the evoked response of `series`: its condition's mean at its place in the epoch.
  std::size_t response_row(std::int64_t series) const;

  Mode mode_ = Mode::Regress;
  std::int64_t per_epoch_ = 0, length_ = 0, series_ = 0, conditions_ = 1;
  std::vector<std::int64_t> epoch_conditions_;  // empty: one condition
  std::vector<bool> excluded_;                  // per series
  std::vector<double> sums_;                    // [condition][series of an epoch][time], then the means
  std::vector<std::int64_t> counts_;            // epochs in each sum
  std::vector<double> energy_;                  // <r, r> per row
  std::int64_t learned_ = 0;                    // series seen by learn()
};

}  // namespace pacflow::stages
