// Stage waveform against its definition: the mean of the signal over the samples whose phase falls
// in each bin (the modulation index's), per phase band; the window of a padded stream; an empty bin is NaN.
#include <cmath>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

// The mean of x over each bin of the phases, by the definition, for series `s` of a batch whose
// phase rows start at sample `first` of each signal row of `signal_length` samples.
void expect_waveform(const Batch& batch, const std::vector<float>& x, std::size_t s, std::size_t first,
                     std::size_t signal_length) {
  const auto phase = batch.at("phase").values<float>();
  const auto waveform = batch.at("phase_waveform").values<float>();
  const std::size_t n_pha = 3, bins = 18, t = phase.size() / (2 * n_pha);
  ASSERT_EQ(waveform.size(), 2 * n_pha * bins);
  for (std::size_t p = 0; p < n_pha; ++p) {
    std::vector<double> sum(bins, 0.0), count(bins, 0.0);
    for (std::size_t i = 0; i < t; ++i) {
      const double phi = phase[(s * n_pha + p) * t + i];
      // Bin b: [-pi + b w, -pi + (b + 1) w), w = 2 pi / bins; pi itself in the last (spec §5's bins).
      std::size_t b = 0;
      while (b + 1 < bins && phi >= -std::numbers::pi + static_cast<double>(b + 1) * 2 * std::numbers::pi / bins) ++b;
      sum[b] += x[s * signal_length + first + i];
      count[b] += 1;
    }
    for (std::size_t b = 0; b < bins; ++b) {
      ASSERT_GT(count[b], 0) << "every bin of these series holds samples";
      EXPECT_NEAR(waveform[(s * n_pha + p) * bins + b], sum[b] / count[b], 1e-5)
          << "series " << s << " band " << p << " bin " << b;
    }
  }
}

TEST(Waveform, IsTheSignalsMeanOverEachPhaseBin) {
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", "4:12:3"}, {"amp", "60:80:2"}}).add("hilbert", {{"outputs", "phase,amplitude"}});
  h.add("waveform", {{"bins", 18}});
  const Batch batch = h.run(x, 0, 2);  // series 0 and 1
  for (std::size_t s = 0; s < 2; ++s) expect_waveform(batch, x, s, 0, 1024);
}

// A padded stream: the phases cover the window, samples [64, 960) of each row; so does the waveform.
TEST(Waveform, OfAPaddedStreamTakesTheWindowOnly) {
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  StreamInfo stream = testing::fixture_stream("small");
  stream.pad = 64;
  testing::StageHarness h(stream);
  h.add("bandpass", {{"pha", "4:12:3"}, {"amp", "60:80:2"}}).add("hilbert", {{"outputs", "phase,amplitude"}});
  h.add("waveform", {{"bins", 18}});
  const Batch batch = h.run(x, 0, 2);
  ASSERT_EQ(batch.at("phase").values<float>().size(), 2u * 3u * 896u);
  for (std::size_t s = 0; s < 2; ++s) expect_waveform(batch, x, s, 64, 1024);
}

TEST(Waveform, NeedsPhasesBeforeIt) {
  testing::StageHarness h(testing::fixture_stream("small"));
  EXPECT_THROW(h.add("waveform"), InputError);
}

}  // namespace
}  // namespace pacflow
