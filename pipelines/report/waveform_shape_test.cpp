// The non-sinusoidality diagnostic (waveform_shape.hpp) by its definition: the harmonic share of a
// waveform made of known harmonics, the epochs' scatter taken out, and noise not judged.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "pipelines/report/waveform_shape.hpp"

namespace pacflow::report {
namespace {

constexpr int kBins = 36;

// One series' waveform over the bins' centres: cos(theta) + a cos(2 theta + 0.3) + noise.
std::vector<float> waveform(double a, double noise, std::mt19937& random) {
  std::normal_distribution<double> gauss;
  std::vector<float> w;
  for (int b = 0; b < kBins; ++b) {
    const double theta = -std::numbers::pi + (b + 0.5) * 2 * std::numbers::pi / kBins;
    w.push_back(static_cast<float>(std::cos(theta) + a * std::cos(2 * theta + 0.3) + noise * gauss(random)));
  }
  return w;
}

TEST(WaveformShape, TheHarmonicShareOfKnownHarmonicsWithTheScatterOfEpochsTakenOut) {
  std::mt19937 random(3);
  WaveformShape shape(3, 1, kBins);
  for (int epoch = 0; epoch < 200; ++epoch) {
    shape.add(0, waveform(0.0, 0.2, random));   // a sinusoid in noise
    shape.add(1, waveform(0.5, 0.2, random));   // a second harmonic at half its amplitude: share 0.25 / 1.25
    shape.add(2, waveform(0.0, 0.0, random));   // an exact sinusoid: share 0
  }
  EXPECT_NEAR(shape.share(0, 0), 0.0, 0.01) << "the noise's power is taken out";
  EXPECT_NEAR(shape.share(1, 0), 0.2, 0.01);
  const std::vector<BandShape> bands = shape.bands();
  ASSERT_EQ(bands.size(), 1u);
  EXPECT_EQ(bands[0].judged, 3);
  EXPECT_EQ(bands[0].channel, 1);
  EXPECT_TRUE(bands[0].non_sinusoidal());
}

TEST(WaveformShape, NoiseHasNoWaveformToJudgeAndAnEmptyBinLeavesTheSeriesOut) {
  std::mt19937 random(5);
  std::normal_distribution<double> gauss;
  WaveformShape shape(1, 2, kBins);
  for (int epoch = 0; epoch < 100; ++epoch) {
    std::vector<float> two(2 * kBins);
    for (auto& v : two) v = static_cast<float>(gauss(random));
    two[kBins] = std::nanf("");  // band 1's first bin empty: that band's series is left out
    shape.add(0, two);
  }
  EXPECT_TRUE(std::isnan(shape.share(0, 0))) << "no fundamental stands out of pure noise";
  EXPECT_TRUE(std::isnan(shape.share(0, 1))) << "no series of band 1 was added";
  EXPECT_FALSE(shape.bands()[0].non_sinusoidal());
  EXPECT_EQ(shape.bands()[0].judged, 0);
  WaveformShape copy(1, 2, kBins);
  copy.restore(shape.state());
  EXPECT_EQ(copy.state(), shape.state());
  EXPECT_THROW(WaveformShape(2, 2, kBins).restore(shape.state()), std::invalid_argument);
}

}  // namespace
}  // namespace pacflow::report
