#pragma once
// Stage `given_bands`: phases and amplitudes computed elsewhere (TensorPAC's Pac.fit, another
// toolbox's filters), in place of bandpass and hilbert. Each series of the source holds the n_pha
// phase rows then the n_amp amplitude rows of one epoch and channel, T samples each, one after the
// other ([n_pha + n_amp][T] flattened; an npy array [E][C][n_pha + n_amp][T] read with layout=ECST and
// reshaped, or the Python module's Pac.fit). Writes `phase` [n_pha][T] (radians, wrapped into
// (-pi, pi]) and `amplitude` [n_amp][T], and publishes the bands it is told, as bandpass does, for the
// stages and sinks after it. Refuses a phase outside [-2 pi, 2 pi] (degrees?) and a negative or
// non-finite amplitude, naming the series, band and sample, and an amplitude row that is 0 throughout
// (or below kSmallestPeak, stages/common/sample_range.hpp), naming the series and band: its MI would
// be exactly 0 and its z-scores NaN. A series that is 0 throughout is left alone (a stand-in for a
// series nan_policy=skip left out; the sources refuse flat ones).
#include <array>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/filters/bands.hpp"

namespace pacflow::stages {

class GivenBandsStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;

  static ElementInfo info();
  static void declare(ParamBinder<GivenBandsStage>& p);

 private:
  // Copies series `s` of `signal` into its phase and amplitude rows; throws InputError for a value
  // out of range or an amplitude row without amplitude. The usual series (phases within (−π, π],
  // amplitude rows finite, non-negative and large enough) is checked in vectors and copied as is;
  // any other goes through split_checked, value by value: the same rows either way.
  void split(const float* series, float* phase, float* amplitude, std::int64_t s) const;
  void split_checked(const float* series, float* phase, float* amplitude, std::int64_t s) const;

  bands::BandSpec pha_spec_;  // pha= and amp= as read
  bands::BandSpec amp_spec_;
  std::vector<bands::Band> pha_;
  std::vector<bands::Band> amp_;
  std::string input_;        // the source's tensor
  Shape leading_dims_;       // the stream's, to name a series in messages
  std::vector<std::string> leading_names_;
  std::int64_t length_ = 0;  // T, per band row
};

}  // namespace pacflow::stages
