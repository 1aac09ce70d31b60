#include "pipelines/report/waveform_shape.hpp"

#include <algorithm>
#include <boost/math/distributions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace pacflow::report {

WaveformShape::WaveformShape(std::int64_t channels, std::int64_t bands, std::int64_t bins)
    : channels_(channels), bands_(bands), bins_(bins), harmonics_(bins / 2 - 1) {
  if (channels <= 0 || bands <= 0 || harmonics_ < 2)
    throw std::invalid_argument("WaveformShape: needs channels, bands and at least 6 bins");
  count_.assign(static_cast<std::size_t>(channels * bands), 0);
  re_.assign(count_.size() * static_cast<std::size_t>(harmonics_), 0.0);
  im_.assign(re_.size(), 0.0);
  power_.assign(re_.size(), 0.0);
  const double width = 2 * std::numbers::pi / static_cast<double>(bins_);
  for (std::int64_t k = 1; k <= harmonics_; ++k)
    for (std::int64_t b = 0; b < bins_; ++b) {
      const double theta = -std::numbers::pi + (static_cast<double>(b) + 0.5) * width;
      cos_.push_back(std::cos(static_cast<double>(k) * theta));
      sin_.push_back(std::sin(static_cast<double>(k) * theta));
    }
}

void WaveformShape::add(std::int64_t channel, std::span<const float> waveforms) {
  if (static_cast<std::int64_t>(waveforms.size()) != bands_ * bins_ || channel < 0 || channel >= channels_)
    throw std::invalid_argument("WaveformShape::add: not one series' waveforms");
  for (std::int64_t band = 0; band < bands_; ++band) {
    const float* w = waveforms.data() + band * bins_;
    bool whole = true;
    for (std::int64_t b = 0; b < bins_; ++b) whole = whole && std::isfinite(w[b]);
    if (!whole) continue;
    const auto cell = static_cast<std::size_t>(channel * bands_ + band);
    ++count_[cell];
    for (std::int64_t k = 1; k <= harmonics_; ++k) {
      double re = 0, im = 0;
      const std::size_t row = static_cast<std::size_t>((k - 1) * bins_);
      for (std::int64_t b = 0; b < bins_; ++b) {
        re += w[b] * cos_[row + static_cast<std::size_t>(b)];
        im -= w[b] * sin_[row + static_cast<std::size_t>(b)];
      }
      re /= static_cast<double>(bins_);
      im /= static_cast<double>(bins_);
      const std::size_t at = cell * static_cast<std::size_t>(harmonics_) + static_cast<std::size_t>(k - 1);
      re_[at] += re;
      im_[at] += im;
      power_[at] += re * re + im * im;
    }
  }
}

std::pair<double, double> WaveformShape::power_and_noise(std::size_t cell, std::int64_t k) const {
  const auto s = static_cast<double>(count_[cell]);
  const std::size_t at = cell * static_cast<std::size_t>(harmonics_) + static_cast<std::size_t>(k - 1);
  const double mean_re = re_[at] / s, mean_im = im_[at] / s;
  const double mean_power = mean_re * mean_re + mean_im * mean_im;
  // The spread of c_k over the epochs, (sum |c|^2 - S |C|^2) / (S - 1), and the noise it puts in |C_k|^2.
  return {mean_power, std::max(0.0, power_[at] - s * mean_power) / (s - 1) / s};
}

double WaveformShape::share(std::int64_t channel, std::int64_t band) const {
  const auto cell = static_cast<std::size_t>(channel * bands_ + band);
  if (count_[cell] < 2) return std::numeric_limits<double>::quiet_NaN();
  const auto [first, first_noise] = power_and_noise(cell, 1);
  if (!(first > 9 * first_noise) || first == 0) return std::numeric_limits<double>::quiet_NaN();
  double harmonics = 0;
  for (std::int64_t k = 2; k <= harmonics_; ++k) {
    const auto [power, noise] = power_and_noise(cell, k);
    harmonics += std::max(0.0, power - noise);
  }
  const double fundamental = first - first_noise;
  return harmonics / (fundamental + harmonics);
}

bool WaveformShape::harmonics_stand_out(std::int64_t channel, std::int64_t band, double alpha) const {
  const auto cell = static_cast<std::size_t>(channel * bands_ + band);
  if (count_[cell] < 2) return false;
  double q = 0;
  for (std::int64_t k = 2; k <= harmonics_; ++k) {
    const auto [power, noise] = power_and_noise(cell, k);
    if (power > 0 && noise == 0) return true;  // the same harmonic in every epoch
    q += noise > 0 ? power / noise : 0.0;
  }
  const boost::math::gamma_distribution<double> null(static_cast<double>(harmonics_ - 1), 1.0);
  return q > boost::math::quantile(boost::math::complement(null, alpha));
}

std::vector<BandShape> WaveformShape::bands() const {
  const double alpha = kHarmonicsAlpha / static_cast<double>(channels_ * bands_);
  std::vector<BandShape> out(static_cast<std::size_t>(bands_));
  for (std::int64_t band = 0; band < bands_; ++band) {
    BandShape& b = out[static_cast<std::size_t>(band)];
    for (std::int64_t c = 0; c < channels_; ++c) {
      const double h = share(c, band);
      if (std::isnan(h)) continue;
      ++b.judged;
      const bool stands_out = harmonics_stand_out(c, band, alpha);
      // Channels whose harmonics stand out come first; among equals, the largest share.
      if (b.channel < 0 || (stands_out && !b.harmonics) || (stands_out == b.harmonics && h > b.share)) {
        b.share = h;
        b.channel = c;
        b.harmonics = stands_out;
      }
    }
  }
  return out;
}

nlohmann::json WaveformShape::state() const {
  return {{"count", count_}, {"re", re_}, {"im", im_}, {"power", power_}};
}

void WaveformShape::restore(const nlohmann::json& state) {
  auto count = state.at("count").get<std::vector<std::int64_t>>();
  auto re = state.at("re").get<std::vector<double>>(), im = state.at("im").get<std::vector<double>>(),
       power = state.at("power").get<std::vector<double>>();
  if (count.size() != count_.size() || re.size() != re_.size() || im.size() != re_.size() || power.size() != re_.size())
    throw std::invalid_argument("the waveform record does not fit this run");
  count_ = std::move(count);
  re_ = std::move(re);
  im_ = std::move(im);
  power_ = std::move(power);
}

}  // namespace pacflow::report
