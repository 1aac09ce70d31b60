#pragma once
// The sums behind the PAC measures, for the observed alignment and any circular shift of the
// amplitude, in double precision:
// - shifted_dot: Σ_t u(t) · v((t + s) mod T), the complex and moment sums of mvl, ndpac, plv, gc;
// - PhaseRuns + wrapped_prefix: per-bin amplitude sums and counts (tort's binning, spec §5) for
//   hr and the amplitude distribution, one subtraction per run of equal bin whatever its length.
#include <cstdint>
#include <span>
#include <stop_token>
#include <vector>

namespace pacflow::mi {

// out[k · out_stride] = Σ_t u[t] · v[(t + shifts[k]) mod T] with 0 <= shifts[k] < T, summed in
// double as two dot products (before and after the wrap), each split into 16 partial sums by index
// and added in a fixed order. simd_bytes picks the vector width (16, 32 or 64 bytes; 0 = the
// widest this CPU has); every width gives the same bits.
void shifted_dot(const double* u, const double* v, std::int64_t length, std::span<const std::int64_t> shifts,
                 double* out, std::int64_t out_stride = 1, int simd_bytes = 0);
// The same with out_stride 1 and the widest vectors, checking `stop` before each shift:
// throws RunCancelled(-1) soon after it is requested.
void shifted_dot(const double* u, const double* v, std::int64_t length, std::span<const std::int64_t> shifts,
                 double* out, const std::stop_token& stop);

// cos and sin of n angles, in double.
void cos_sin(const float* angle, std::int64_t n, double* cos_out, double* sin_out);

// P[i] = Σ_{t < i} A[t mod T] for i in [0, 2T], in double: the amplitude over samples [a, e) shifted
// by s is P[e + s] − P[a + s] (run_mi_math.hpp's wrapped_prefix_rows, which the GPU runs too).
std::vector<double> wrapped_prefix(const float* amplitude, std::int64_t length);

// The runs of equal phase bin of every phase band of one series, and each bin's sample count.
class PhaseRuns {
 public:
  PhaseRuns(const float* phase, std::int64_t n_pha, std::int64_t length, int bins);
  int bins() const { return bins_; }
  // sums[j] = Σ_{t in bin j of band p} A((t + shift) mod T), from the amplitude's wrapped_prefix
  // (run_mi_math.hpp's add_prefix_runs, as the GPU adds them).
  void bin_sums(std::int64_t p, const double* prefix, std::int64_t shift, double* sums) const;
  const std::int64_t* counts(std::int64_t p) const { return counts_.data() + p * bins_; }

 private:
  struct Band {
    std::vector<std::int32_t> ends;  // one past each run's last sample, in time order
    std::vector<std::int32_t> bins;  // each run's bin
  };
  int bins_;
  std::vector<Band> runs_;            // per phase band
  std::vector<std::int64_t> counts_;  // [p][bin]
};

}  // namespace pacflow::mi
