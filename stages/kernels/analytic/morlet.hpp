#pragma once
// TensorPAC's complex decomposition by Morlet wavelets (tensorpac.spectral.morlet, dcomplex=
// "wavelet"): for a band's centre frequency f (the mean of its edges) and a width w (cycles), the
// wavelet sampled at rate fs,
//   s_t = w / (2 pi f),   t_k = -w s_t / 2 + k / fs  for k = 0 ... L - 1,  L = ceil(w s_t fs),
//   m_k = exp(-t_k^2 / (2 s_t^2)) exp(2 pi i f t_k) / sqrt(s_t sqrt(pi)),
// convolved with the series x (numpy.convolve, full), of which the N samples
// y_n = sum_k x[n + c - k] m_k,  c = ceil(L / 2) - 1,  over the k with 0 <= n + c - k < N,
// are kept (the series' own length, centred as TensorPAC slices it). Phase = arg y, amplitude = |y|.
// The per-sample sum is shared by the CPU stage and any GPU kernel.
#include <cmath>
#include <cstdint>
#include <vector>

#include "stages/common/hd.hpp"

namespace pacflow::morlet {

struct Wavelet {
  std::vector<double> re, im;  // m_k
  std::int64_t taps() const { return static_cast<std::int64_t>(re.size()); }
  // c: the full convolution's sample that output sample 0 is.
  std::int64_t offset() const { return (taps() + 1) / 2 - 1; }
};

// The wavelet at `f` Hz for a series sampled at `fs` Hz, `width` cycles wide.
Wavelet wavelet(double fs, double f, double width);

// y_n of `x` (`length` samples) for a wavelet of `taps` taps, in double.
PACFLOW_HD inline void morlet_sample(const float* x, std::int64_t length, const double* re, const double* im,
                                     std::int64_t taps, std::int64_t offset, std::int64_t n, double& out_re,
                                     double& out_im) {
  const std::int64_t j = n + offset;  // in the full convolution: sum over x[j - k] m_k
  const std::int64_t k_first = j - (length - 1) > 0 ? j - (length - 1) : 0;
  const std::int64_t k_last = j < taps - 1 ? j : taps - 1;
  double sum_re = 0, sum_im = 0;
  for (std::int64_t k = k_first; k <= k_last; ++k) {
    const double v = static_cast<double>(x[j - k]);
    sum_re += v * re[k];
    sum_im += v * im[k];
  }
  out_re = sum_re;
  out_im = sum_im;
}

}  // namespace pacflow::morlet
