#pragma once
// The line-noise notch: scipy.signal.iirnotch(f, Q, fs), a second-order IIR notch, applied forward
// and backward as scipy.signal.filtfilt(b, a, x) does by default (odd extension of padlen =
// 3 · max(len(a), len(b)) = 9 samples at each end, initial conditions lfilter_zi(b, a) scaled by the
// first sample of each pass, the extension removed), in double precision.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace pacflow::notch {

struct Biquad {
  std::array<double, 3> b{}, a{};  // a[0] = 1
};

// scipy.signal.iirnotch: the notch at `frequency` Hz of quality `q` (bandwidth frequency / q at
// -3 dB) for sample rate `fs`. Requires 0 < frequency < fs / 2 and q > 0.
Biquad iir_notch(double frequency, double q, double fs);

// The most notches one stage applies. Each is a filtfilt pass over every series, and a stage's
// notches are planned (and listed in the report) before the run: 10000 removes every harmonic of a
// 50 Hz line sampled at 1 MHz (9999 below 500 kHz), while a mistyped freq (1e-9 Hz: 1e11 harmonics)
// is refused at once instead of planning gigabytes of filters.
inline constexpr std::int64_t kMaxHarmonics = 10000;

// The samples filtfilt adds at each end.
inline constexpr std::size_t kPadLength = 9;

// filtfilt(f.b, f.a, x) in place. x must hold more than kPadLength samples; `scratch` is resized as
// needed (x.size() + 2 kPadLength values) and can be kept between calls.
void filtfilt(const Biquad& f, std::span<double> x, std::vector<double>& scratch);

}  // namespace pacflow::notch
