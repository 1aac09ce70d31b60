// envelope_phase against its definition computed here in double: each amplitude envelope filtered
// with the phase band's fir1 filter (direct filtfilt) and its analytic signal by a direct DFT.
#include <cmath>
#include <complex>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "stages/kernels/filters/fir1.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

// Phase of scipy.signal.hilbert(x) (N = T) by a direct DFT, and |z|.
std::vector<std::complex<double>> analytic_signal(const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<std::complex<double>> spectrum(n), z(n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t t = 0; t < n; ++t) spectrum[k] += x[t] * std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k * t % n) / static_cast<double>(n));
  for (std::size_t k = 1; k < n; ++k) spectrum[k] *= k < (n + 1) / 2 ? 2.0 : (2 * k == n ? 1.0 : 0.0);
  for (std::size_t t = 0; t < n; ++t) {
    for (std::size_t k = 0; k < n; ++k) z[t] += spectrum[k] * std::polar(1.0, 2 * std::numbers::pi * static_cast<double>(k * t % n) / static_cast<double>(n));
    z[t] /= static_cast<double>(n);
  }
  return z;
}

TEST(EnvelopePhase, IsThePhaseOfEachEnvelopeFilteredInEachPhaseBand) {
  const json m = testing::manifest("small");  // T = 1024: fast padding keeps N = T
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("envelope_phase");
  const Batch batch = h.run(x, 4, 1);
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto envelope = batch.at("envelope_phase").values<float>();
  const std::size_t t = 1024, n_pha = 3, n_amp = 4;
  ASSERT_EQ(envelope.size(), n_pha * n_amp * t);
  for (std::size_t p = 0; p < n_pha; ++p) {
    const auto order = m["pha_filter_orders"][p].get<std::int64_t>();
    const auto b = fir::fir1_bandpass(order, m["pha_bands_hz"][p][0].get<double>(), m["pha_bands_hz"][p][1].get<double>(), 256.0);
    for (std::size_t a = 0; a < n_amp; ++a) {
      const std::vector<double> env(amplitude.begin() + static_cast<std::ptrdiff_t>(a * t),
                                    amplitude.begin() + static_cast<std::ptrdiff_t>((a + 1) * t));
      const auto z = analytic_signal(fir::filtfilt_reference(b, env));
      double peak = 0;
      for (const auto& v : z) peak = std::max(peak, std::abs(v));
      for (std::size_t i = 0; i < t; ++i) {
        if (std::abs(z[i]) < 1e-2 * peak) continue;  // the phase of a vanishing signal is noise
        const float ours = envelope[(p * n_amp + a) * t + i];
        ASSERT_NEAR(std::remainder(ours - std::arg(z[i]), 2 * std::numbers::pi), 0.0, 1e-4 * std::numbers::pi)
            << "phase band " << p << " amplitude band " << a << " t " << i;
      }
    }
  }
}

TEST(EnvelopePhase, PlvWithoutItNamesTheMissingStage) {
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert");
  try {
    h.add("mi", {{"method", "plv"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("stage envelope_phase"), std::string::npos) << e.what();
  }
}

TEST(EnvelopePhase, NeedsBandpassAndHilbertBeforeIt) {
  testing::StageHarness h(testing::fixture_stream("small"));
  EXPECT_THROW(h.add("envelope_phase"), InputError);
}

}  // namespace
}  // namespace pacflow
