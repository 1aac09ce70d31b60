#pragma once
// Stage `bandpass`: filters every series into phase bands and amplitude bands (spec §2–§3).
// Reads `signal` [T]; writes `filtered_pha` [n_pha][T] and `filtered_amp` [n_amp][T].
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include "engine/api/param_binding.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/kernels/filters/bands.hpp"
#include "stages/kernels/filters/filtfilt_fft.hpp"

namespace pacflow::stages {

// One filter bank as planned: its bands, their filter orders, the FFT size of its convolution and,
// once the stage is prepared, its filters.
struct BandpassBank {
  std::vector<bands::Band> bands;
  std::vector<std::int64_t> orders;
  std::size_t fft_size = 0;  // of the FFT convolution, known when planned
  std::optional<fir::FiltFiltBank> filters;  // built by prepare()
};

// What the stage planned for its stream: the one description its CPU code (bandpass_stage.cpp) and
// its GPU adapter (bandpass_cuda_kernel.cpp) both run from.
struct BandpassPlan {
  std::string signal = tensors::kSignal;  // the tensor it filters
  std::int64_t length = 0;                // of a series
  BandpassBank pha;
  BandpassBank amp;
};

class BandpassStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  // Builds both filter banks (coefficients, spectra, FFT plans) that plan() sized.
  void prepare() override;
  void process(Batch& batch) override;
  // Two FFTs of about 2T points per band (FFT convolution), 5 N log2 N flops each: an estimate.
  double flops_per_series() const override;
  // The filter spectra of both banks, plus each thread's FFT buffers.
  double host_workspace_bytes(int threads) const override;

  static ElementInfo info();
  static void declare(ParamBinder<BandpassStage>& p);
  void configured();  // reads outputs=
  const BandpassPlan& planned() const { return plan_; }  // once plan() returned (filters: prepare())

 private:
  using Workspaces = oneapi::tbb::enumerable_thread_specific<fir::FiltFiltBank::Workspace>;  // each thread's
  void plan_bank(BandpassBank& bank, const std::string& param, bands::Role role, int cycles, const StreamInfo& s);
  void prepare_bank(BandpassBank& bank, std::unique_ptr<Workspaces>& workspaces) const;
  // Refuses series shorter than one cycle of the lowest phase band, or than 3 filter orders of
  // every band (naming the numbers).
  void refuse_short_series(const StreamInfo& s) const;
  void run_bank(const BandpassBank& bank, Workspaces& workspaces, const float* signal, std::int64_t series,
                float* out) const;
  // Throws InputError naming the first series of the batch too small for the float32 filters
  // (too_small_series, stages/common/sample_range.hpp).
  void refuse_tiny_series(const float* signal, const Batch& batch) const;

  bands::BandSpec pha_spec_;  // pha= and amp= as read
  bands::BandSpec amp_spec_;
  bool clamp_ = false;
  int pha_cycles_ = 3;
  std::vector<std::string> outputs_;  // outputs= as read; unset: none
  bool filtered_results_ = false;     // outputs=filtered: filtered_pha and filtered_amp are results
  int amp_cycles_ = 6;
  double sample_rate_ = 0;
  Shape leading_dims_;  // the stream's, to name a series in messages
  std::vector<std::string> leading_names_;
  std::string input_path_;  // the source's file, when it names one, for messages
  BandpassPlan plan_;
  std::unique_ptr<Workspaces> pha_workspaces_;  // built by prepare()
  std::unique_ptr<Workspaces> amp_workspaces_;
  std::vector<std::string> reduced_;  // the bands whose order the series' length cut: "pha [1.5, 2.5] Hz (1020)"
  std::size_t bands_planned_ = 0;
};

}  // namespace pacflow::stages
