#include <bit>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <numbers>

#include "stages/common/fast_length.hpp"
#include "stages/common/lanes.hpp"
#include "stages/kernels/analytic/analytic_signal.hpp"
#include "stages/kernels/analytic/hilbert_math.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

TEST(Hilbert, FastLengthIsSmallest5SmoothAtLeastT) {
  EXPECT_EQ(next_fast_length(1024), 1024);
  EXPECT_EQ(next_fast_length(1025), 1080);
  EXPECT_EQ(next_fast_length(1500), 1500);
  EXPECT_EQ(next_fast_length(2049), 2160);
  EXPECT_EQ(next_fast_length(7), 8);
}

TEST(Hilbert, AnalyticWeightsMatchScipy) {
  EXPECT_EQ(hilbert::analytic_weight(0, 8), 1.0f);
  EXPECT_EQ(hilbert::analytic_weight(3, 8), 2.0f);
  EXPECT_EQ(hilbert::analytic_weight(4, 8), 1.0f);
  EXPECT_EQ(hilbert::analytic_weight(5, 8), 0.0f);
  EXPECT_EQ(hilbert::analytic_weight(3, 7), 2.0f);
  EXPECT_EQ(hilbert::analytic_weight(4, 7), 0.0f);
  EXPECT_EQ(hilbert::phase_of(-1.0f, -0.0f), std::numbers::pi_v<float>);  // (−π, π]
}

// Every vector width computes the scalar function's bits.
template <int Bytes>
void expect_vector_phases_equal_scalar(const std::vector<float>& res, const std::vector<float>& ims) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr std::size_t lanes = simd::Simd<Bytes>::floats;
  for (std::size_t i = 0; i + lanes <= res.size(); i += lanes) {
    Float re, im;
    for (std::size_t l = 0; l < lanes; ++l) {
      re[l] = res[i + l];
      im[l] = ims[i + l];
    }
    const Float v = hilbert::phase_atan2(im, re);
    for (std::size_t l = 0; l < lanes; ++l) ASSERT_EQ(v[l], hilbert::phase_of(res[i + l], ims[i + l])) << Bytes;
  }
}

// The analytic signal's per-bin weights and per-sample amplitudes in vectors (AnalyticSignal::apply's
// steps) are the scalar definitions' bits at every width this CPU has, for every length around the
// vector widths and for zeros, subnormals, the largest floats, infinities and NaN.
TEST(Hilbert, WeightsAndAmplitudesInVectorsAreTheScalarBitsAtEveryWidth) {
  const auto same = [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); };
  std::vector<float> special = {0.0f, -0.0f, 1e-42f, -3e-39f, 3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN, 1.0f, -2.5f};
  for (const int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    for (std::size_t count = 0; count <= 4001; count = count < 40 ? count + 1 : count * 10 / 9 + 400) {
      std::vector<fftwf_complex> z(count);
      for (std::size_t i = 0; i < count; ++i) {
        z[i][0] = i % 7 == 3 ? special[i % special.size()] : std::sin(0.37f * static_cast<float>(i)) * 1e3f;
        z[i][1] = i % 5 == 1 ? special[(i / 5) % special.size()] : std::cos(0.11f * static_cast<float>(i)) * 7e2f;
      }
      for (const float scale : {1.0f, 1.0f / 4000.0f}) {
        std::vector<float> out(count + 1, -7.0f);
        hilbert::write_amplitudes(z.data(), count, scale, out.data(), width);
        for (std::size_t i = 0; i < count; ++i)
          ASSERT_TRUE(same(out[i], hilbert::amplitude_of(z[i][0] * scale, z[i][1] * scale)))
              << "width " << width << " count " << count << " sample " << i << ": " << out[i];
        EXPECT_EQ(out[count], -7.0f);  // nothing past the end
      }
    }
    for (const std::int64_t n : {1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 64, 4000, 4001}) {
      std::vector<fftwf_complex> spectrum(static_cast<std::size_t>(n)), expected(spectrum.size());
      for (std::size_t k = 0; k < spectrum.size(); ++k) {
        spectrum[k][0] = k % 6 == 2 ? special[k % special.size()] : 0.5f + static_cast<float>(k);
        spectrum[k][1] = -1.25f * static_cast<float>(k);
      }
      for (std::size_t k = 0; k < spectrum.size(); ++k) {  // apply's scalar loop before the vectors
        const float w = k <= static_cast<std::size_t>(n / 2) ? hilbert::analytic_weight(static_cast<std::int64_t>(k), n)
                                                              : 0.0f;
        expected[k][0] = w == 0.0f ? 0.0f : spectrum[k][0] * w;
        expected[k][1] = w == 0.0f ? 0.0f : spectrum[k][1] * w;
      }
      hilbert::weight_spectrum(spectrum.data(), n, width);
      for (std::size_t k = 0; k < spectrum.size(); ++k)
        for (int part = 0; part < 2; ++part)
          ASSERT_TRUE(same(spectrum[k][part], expected[k][part])) << "width " << width << " n " << n << " bin " << k;
    }
  }
}

TEST(Hilbert, PhaseAtan2IsWithinAboutOneUlpOfPiAndVectorsAgreeBitwise) {
  double worst = 0;
  std::vector<float> res, ims;
  for (int i = -300; i <= 300; ++i)
    for (int j = -300; j <= 300; ++j) {
      const auto re = static_cast<float>(i) * 0.37f, im = static_cast<float>(j) * 0.53f;
      const double exact = std::atan2(static_cast<double>(im), static_cast<double>(re));
      double err = std::abs(static_cast<double>(hilbert::phase_of(re, im)) - exact);
      if (exact == -std::numbers::pi) err = std::abs(static_cast<double>(hilbert::phase_of(re, im)) - std::numbers::pi);
      worst = std::max(worst, err);
      res.push_back(re);
      ims.push_back(im);
    }
  EXPECT_LT(worst, 3e-7);  // a float ulp of pi is 2.4e-7
  EXPECT_EQ(hilbert::phase_of(0.0f, 0.0f), 0.0f);
  EXPECT_FLOAT_EQ(hilbert::phase_of(0.0f, 2.0f), std::numbers::pi_v<float> / 2);
  EXPECT_FLOAT_EQ(hilbert::phase_of(0.0f, -2.0f), -std::numbers::pi_v<float> / 2);
  expect_vector_phases_equal_scalar<16>(res, ims);
  expect_vector_phases_equal_scalar<32>(res, ims);
  if (simd::simd_width() == 64) expect_vector_phases_equal_scalar<64>(res, ims);
}

void expect_phase_and_amplitude_match(const std::string& folder, const std::string& device) {
  const json m = testing::manifest(folder);
  const auto x = testing::load_floats(data_dir() / folder / "x.npy");
  testing::StageHarness h(testing::fixture_stream(folder), device);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  h.add("hilbert", {{"pad", m["hilbert_pad"]}});
  const std::int64_t series = h.context().stream().series_count();
  const std::int64_t t = h.context().stream().series_length;
  const Batch batch = h.run(x, 0, series);

  const auto phase_ref = testing::load_doubles(data_dir() / folder / "phase.npy");
  const auto phase = batch.at("phase").values<float>();
  const auto n_pha = static_cast<std::int64_t>(m["pha_bands_hz"].size());
  for (std::int64_t band = 0; band < n_pha; ++band)
    for (std::int64_t s = 0; s < series; ++s) {
      const double* r = phase_ref.data() + (band * series + s) * t;
      const double tol = 1e-4 * testing::max_abs(r, r + t);
      const float* o = phase.data() + (s * n_pha + band) * t;
      for (std::int64_t i = 0; i < t; ++i)
        ASSERT_NEAR(std::remainder(o[i] - r[i], 2 * std::numbers::pi), 0.0, tol)
            << folder << " phase band " << band << " series " << s << " t " << i;
    }

  const auto amp_ref = testing::load_doubles(data_dir() / folder / "amplitude.npy");
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto n_amp = static_cast<std::int64_t>(m["amp_bands_hz"].size());
  for (std::int64_t band = 0; band < n_amp; ++band)
    for (std::int64_t s = 0; s < series; ++s) {
      const double* r = amp_ref.data() + (band * series + s) * t;
      const double tol = 1e-4 * testing::max_abs(r, r + t);
      const float* o = amplitude.data() + (s * n_amp + band) * t;
      for (std::int64_t i = 0; i < t; ++i)
        ASSERT_NEAR(o[i], r[i], tol) << folder << " amplitude band " << band << " series " << s << " t " << i;
    }
}

class HilbertOn : public testing::OnDevice {};
TEST_P(HilbertOn, PhaseAndAmplitudeMatchFixtureFastPadding) { expect_phase_and_amplitude_match("small", device()); }
TEST_P(HilbertOn, PhaseAndAmplitudeMatchFixtureNoPadding) { expect_phase_and_amplitude_match("nopad_bins12", device()); }

// pad=: the series are filtered and transformed whole, then cropped; the window kept is exactly the
// same samples of the unpadded computation (bit for bit: the same arithmetic on the same inputs).
TEST_P(HilbertOn, APaddedStreamIsCroppedToTheWindowBetweenItsPadding) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  const auto run = [&](std::int64_t pad) {
    StreamInfo stream = testing::fixture_stream("small");
    stream.pad = pad;
    testing::StageHarness h(stream, device());
    h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert");
    return h.run(x, 0, stream.series_count());
  };
  const Batch whole = run(0), padded = run(100);
  const std::int64_t t = 1024, kept = t - 200;
  for (const char* name : {"phase", "amplitude"}) {
    const auto full = whole.at(name).values<float>();
    const auto cropped = padded.at(name).values<float>();
    const std::int64_t rows = static_cast<std::int64_t>(full.size()) / t;
    ASSERT_EQ(static_cast<std::int64_t>(cropped.size()), rows * kept) << name;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t i = 0; i < kept; ++i)
        ASSERT_EQ(cropped[static_cast<std::size_t>(r * kept + i)], full[static_cast<std::size_t>(r * t + 100 + i)])
            << name << " row " << r << " sample " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, HilbertOn, ::testing::ValuesIn(testing::test_devices()), testing::device_test_name);

}  // namespace
}  // namespace pacflow
