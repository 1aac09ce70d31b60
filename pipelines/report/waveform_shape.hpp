#pragma once
// The non-sinusoidality diagnostic of the report: how much of each phase band's phase-locked
// waveform (stage waveform's phase_waveform: the signal's mean by phase bin) lies in harmonics of
// the rhythm rather than in its fundamental. Per channel, the waveforms' Fourier coefficients c_k
// (k = 1 … bins/2 - 1, over the bins' centres) are averaged over the epochs, C_k; the power of each
// beyond what the epochs' scatter explains, P_k = max(0, |C_k|^2 - var(c_k) / S) for S epochs; and the
// harmonic share H = sum_{k>=2} P_k / sum_{k>=1} P_k. A sinusoid has H = 0, a square wave about 0.19,
// a sawtooth about 0.39. A channel's rhythm is judged only where its fundamental stands out of that
// scatter (|C_1|^2 > 9 var(c_1) / S, z > 3): noise has no waveform to judge. Its harmonics count as
// present only where they stand out too: Q = sum_{k>=2} |C_k|^2 / (var(c_k) / S), Gamma(K - 1, 1)
// without harmonics (each term an exponential), above its 1 - alpha quantile, alpha 1 % over every
// channel and band of the run (Bonferroni): a few epochs of noise flag nothing.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <utility>
#include <vector>

namespace pacflow::report {

inline constexpr double kMaxHarmonicShare = 0.1;  // above: the report flags the phase band (W)

inline constexpr double kHarmonicsAlpha = 0.01;  // over every channel and band of a run

struct BandShape {
  std::int64_t judged = 0;    // channels whose fundamental stands out
  double share = 0;           // the largest harmonic share among those whose harmonics stand out, else among all
  std::int64_t channel = -1;  // where it is
  bool harmonics = false;     // that channel's harmonics stand out of the scatter
  bool non_sinusoidal() const { return harmonics && share > kMaxHarmonicShare; }
};

class WaveformShape {
 public:
  WaveformShape() = default;
  WaveformShape(std::int64_t channels, std::int64_t bands, std::int64_t bins);
  bool empty() const { return bands_ == 0; }
  // One series' waveforms, [bands][bins], of `channel`. A band with an empty bin (NaN) is left out.
  void add(std::int64_t channel, std::span<const float> waveforms);
  // Per band: the harmonic share of its channels.
  std::vector<BandShape> bands() const;
  // The channel's harmonic share in `band` (NaN when its fundamental does not stand out).
  double share(std::int64_t channel, std::int64_t band) const;
  // Whether the channel's harmonics in `band` stand out of the epochs' scatter at level `alpha`.
  bool harmonics_stand_out(std::int64_t channel, std::int64_t band, double alpha) const;

  // A checkpoint's record of the sums, and back (throws std::invalid_argument when it does not fit).
  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  std::int64_t channels_ = 0, bands_ = 0, bins_ = 0, harmonics_ = 0;
  // Per (channel, band): epochs added, and per harmonic the sums of Re c, Im c and |c|^2.
  std::vector<std::int64_t> count_;
  std::vector<double> re_, im_, power_;
  std::vector<double> cos_, sin_;  // [harmonic][bin]: cos and sin of k times the bin's centre
  // Harmonic k's mean power |C_k|^2 and the scatter's share of it, var(c_k) / S, for (channel, band).
  std::pair<double, double> power_and_noise(std::size_t cell, std::int64_t k) const;
};

}  // namespace pacflow::report
