#pragma once
// Stage `wavelet`: phase of the phase bands and amplitude of the amplitude bands by TensorPAC's
// complex Morlet wavelets (Pac(dcomplex="wavelet"), stages/kernels/analytic/morlet.hpp), in place
// of bandpass and hilbert: each band is one wavelet at its centre frequency (the mean of its edges),
// `width` cycles wide, convolved with the source's series. Writes `phase` [n_pha][T] and `amplitude`
// [n_amp][T] and publishes the bands as bandpass does, for the stages and sinks after it. A padded
// stream (a source's pad=) is cropped here, as hilbert crops it. On the CPU, or a GPU
// (wavelet_cuda_kernel.cpp), both through morlet::morlet_sample.
//
// Its own stage rather than an option of hilbert: the wavelet is the filter and the analytic signal
// at once, and takes the unfiltered series, where hilbert takes bandpass's output.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/analytic/morlet.hpp"
#include "stages/kernels/filters/bands.hpp"

namespace pacflow::stages {

// What the stage planned: the one description its CPU code and its GPU adapter both run from.
struct WaveletPlan {
  std::string input;  // the source's tensor
  std::vector<morlet::Wavelet> pha, amp;
  std::int64_t length = 0;  // of the series, padding included
  std::int64_t first = 0;   // the window kept: samples [first, first + kept)
  std::int64_t kept = 0;
};

class WaveletStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // Two multiply-adds per tap, output sample and band.
  double flops_per_series() const override;

  static ElementInfo info();
  static void declare(ParamBinder<WaveletStage>& p);
  void configured();  // reads outputs=
  const WaveletPlan& planned() const { return plan_; }  // once plan() returned

 private:
  // The wavelets of `list` (one per band, at its edges' mean); refuses a centre at or past Nyquist.
  std::vector<morlet::Wavelet> wavelets(const std::string& param, const std::vector<bands::Band>& list,
                                        double fs) const;

  bands::BandSpec pha_spec_, amp_spec_;  // pha= and amp= as read
  double width_ = 7;
  std::vector<std::string> outputs_;  // outputs= as read; unset: none
  bool phase_result_ = false, amplitude_result_ = false;
  WaveletPlan plan_;
};

}  // namespace pacflow::stages
