#include "stages/notch/notch_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace pacflow::notch {

Biquad iir_notch(double frequency, double q, double fs) {
  if (!(frequency > 0 && frequency < fs / 2) || !(q > 0)) throw std::invalid_argument("iir_notch: out of range");
  // scipy's _design_notch_peak_filter, step by step in its order.
  double w0 = 2 * frequency / fs;
  double bw = w0 / q;
  bw = bw * std::numbers::pi;
  w0 = w0 * std::numbers::pi;
  const double gb = 1 / std::sqrt(2.0);
  const double beta = (std::sqrt(1.0 - std::pow(gb, 2.0)) / gb) * std::tan(bw / 2.0);
  const double gain = 1.0 / (1.0 + beta);
  return {{gain * 1.0, gain * (-2.0 * std::cos(w0)), gain * 1.0}, {1.0, -2.0 * gain * std::cos(w0), 2.0 * gain - 1.0}};
}

namespace {

// lfilter_zi(b, a) for a biquad: the state of a step response at rest, solving
// (I - companion(a)^T) zi = b[1:] - a[1:] b[0].
std::array<double, 2> step_state(const Biquad& f) {
  const double r0 = f.b[1] - f.a[1] * f.b[0], r1 = f.b[2] - f.a[2] * f.b[0];
  const double z0 = (r0 + r1) / (1.0 + f.a[1] + f.a[2]);
  return {z0, r1 - f.a[2] * z0};
}

// lfilter(b, a, x, zi) in place, direct form II transposed in scipy's order of operations.
void lfilter(const Biquad& f, std::span<double> x, std::array<double, 2> z) {
  for (double& v : x) {
    const double in = v;
    const double y = z[0] + f.b[0] * in;
    z[0] = z[1] + in * f.b[1] - y * f.a[1];
    z[1] = in * f.b[2] - y * f.a[2];
    v = y;
  }
}

}  // namespace

void filtfilt(const Biquad& f, std::span<double> x, std::vector<double>& scratch) {
  const std::size_t n = x.size(), edge = kPadLength;
  if (n <= edge) throw std::invalid_argument("filtfilt: series too short");
  // odd_ext: 2 x[0] - x[edge..1], x, 2 x[n-1] - x[n-2..n-1-edge].
  scratch.resize(n + 2 * edge);
  for (std::size_t i = 0; i < edge; ++i) scratch[i] = 2 * x[0] - x[edge - i];
  std::copy(x.begin(), x.end(), scratch.begin() + static_cast<std::ptrdiff_t>(edge));
  for (std::size_t i = 0; i < edge; ++i) scratch[edge + n + i] = 2 * x[n - 1] - x[n - 2 - i];
  const std::array<double, 2> zi = step_state(f);
  const std::span<double> ext(scratch);
  lfilter(f, ext, {zi[0] * ext.front(), zi[1] * ext.front()});
  std::reverse(ext.begin(), ext.end());
  lfilter(f, ext, {zi[0] * ext.front(), zi[1] * ext.front()});
  std::reverse(ext.begin(), ext.end());
  std::copy(ext.begin() + static_cast<std::ptrdiff_t>(edge), ext.begin() + static_cast<std::ptrdiff_t>(edge + n),
            x.begin());
}

}  // namespace pacflow::notch
