#include "stages/kernels/analytic/morlet.hpp"

#include <numbers>

namespace pacflow::morlet {

Wavelet wavelet(double fs, double f, double width) {
  constexpr double kPi = std::numbers::pi;
  const double dt = 1.0 / fs;
  const double spread = 1.0 / (2.0 * kPi * (f / width));  // s_t
  const double start = -width * spread / 2, stop = width * spread / 2;
  // As numpy.arange(start, stop, dt): ceil((stop - start) / dt) samples, start + k * (next - start).
  const auto taps = static_cast<std::int64_t>(std::ceil((stop - start) / dt));
  const double step = (start + dt) - start;
  const double scale = 1.0 / std::sqrt(spread * std::sqrt(kPi));
  Wavelet w;
  w.re.reserve(static_cast<std::size_t>(taps));
  w.im.reserve(static_cast<std::size_t>(taps));
  for (std::int64_t k = 0; k < taps; ++k) {
    const double t = start + static_cast<double>(k) * step;
    const double envelope = scale * std::exp(-(t * t) / (2.0 * spread * spread));
    w.re.push_back(envelope * std::cos(2.0 * kPi * f * t));
    w.im.push_back(envelope * std::sin(2.0 * kPi * f * t));
  }
  return w;
}

}  // namespace pacflow::morlet
