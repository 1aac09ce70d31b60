#include "stages/kernels/filters/fir1.hpp"

#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

namespace pacflow::fir {

double floor_divide(double a, double b) {
  // Python's float `a // b` (CPython's float_divmod): the floor of the exact quotient, where
  // floor(a / b) would floor the rounded one (1024 / 6.4000000000000004 rounds up to 160).
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floor = std::floor(div);
  if (div - floor > 0.5) floor += 1.0;
  return floor;
}

std::int64_t filter_order(double fs, double f_lo, int cycles, std::int64_t series_length) {
  // In double first: a tiny f_lo must not overflow the integer before the short-series rule caps it.
  const double order = cycles * floor_divide(fs, f_lo);
  if (static_cast<double>(series_length) < 3 * order) return (series_length - 1) / 3;
  return static_cast<std::int64_t>(order);
}

std::vector<double> fir1_bandpass(std::int64_t order, double f_lo, double f_hi, double fs) {
  if (order < 1) throw std::invalid_argument("filter order must be >= 1");
  constexpr double pi = std::numbers::pi;
  const double w1 = f_lo / (fs / 2), w2 = f_hi / (fs / 2);
  const auto length = static_cast<std::size_t>(order + 1);
  std::vector<double> b(length);
  const double half = static_cast<double>(order) / 2.0;
  for (std::size_t k = 0; k < length; ++k) {
    const double m = static_cast<double>(k) - half;
    // Ideal band-pass impulse response, sampled at m (half-integers for odd orders).
    const double ideal = m == 0.0 ? w2 - w1 : (std::sin(pi * w2 * m) - std::sin(pi * w1 * m)) / (pi * m);
    const double hamming = 0.54 - 0.46 * std::cos(2.0 * pi * static_cast<double>(k) / static_cast<double>(order));
    b[k] = ideal * hamming;
  }
  // Unit gain at the band centre f0 = (w1 + w2)/2 (in units of Nyquist, i.e. π·f0 rad/sample).
  const double omega = pi * (w1 + w2) / 2.0;
  std::complex<double> response = 0;
  for (std::size_t k = 0; k < length; ++k)
    response += b[k] * std::polar(1.0, -omega * static_cast<double>(k));
  const double gain = std::abs(response);
  for (auto& v : b) v /= gain;
  return b;
}

std::vector<double> filtfilt_reference(const std::vector<double>& b, const std::vector<double>& x) {
  const std::size_t n = b.size() - 1;  // padlen = order
  const std::size_t t = x.size();
  if (t <= n) throw std::invalid_argument("series shorter than the filter's padding");
  std::vector<double> e;
  e.reserve(t + 2 * n);
  for (std::size_t j = n; j >= 1; --j) e.push_back(2 * x[0] - x[j]);
  e.insert(e.end(), x.begin(), x.end());
  for (std::size_t j = 1; j <= n; ++j) e.push_back(2 * x[t - 1] - x[t - 1 - j]);

  // lfilter with steady-state initial conditions zi·first: samples before the start equal the first.
  auto pass = [&](const std::vector<double>& in) {
    std::vector<double> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      double acc = 0;
      for (std::size_t j = 0; j <= n; ++j) acc += b[j] * (i >= j ? in[i - j] : in[0]);
      out[i] = acc;
    }
    return out;
  };
  std::vector<double> forward = pass(e);
  std::vector<double> reversed(forward.rbegin(), forward.rend());
  std::vector<double> backward = pass(reversed);
  std::vector<double> result(t);
  for (std::size_t i = 0; i < t; ++i) result[i] = backward[backward.size() - 1 - (n + i)];
  return result;
}

}  // namespace pacflow::fir
