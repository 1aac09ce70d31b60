// The wavelet stage against TensorPAC's Morlet decomposition written out here from its definition
// (tensorpac.spectral.morlet: the wavelet, numpy.convolve in full, the centred slice), and its plan:
// the bands it publishes, a centre past Nyquist refused, a padded stream cropped.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/wavelet/wavelet_stage.hpp"

namespace pacflow {
namespace {

constexpr double kWaveletPi = std::numbers::pi;

// TensorPAC's morlet(x, sf, f, width), in complex double.
std::vector<std::complex<double>> tensorpac_morlet(const std::vector<float>& x, double sf, double f, double width) {
  const double st = 1 / (2 * kWaveletPi * (f / width));
  std::vector<std::complex<double>> m;
  for (double t = -width * st / 2; t < width * st / 2 - 1e-12; t += 1 / sf)
    m.push_back(1 / std::sqrt(st * std::sqrt(kWaveletPi)) * std::exp(-t * t / (2 * st * st)) *
                std::exp(std::complex<double>(0, 2 * kWaveletPi * f * t)));
  std::vector<std::complex<double>> full(x.size() + m.size() - 1);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t k = 0; k < m.size(); ++k) full[i + k] += static_cast<double>(x[i]) * m[k];
  const auto first = static_cast<std::size_t>(std::ceil(static_cast<double>(m.size()) / 2)) - 1;
  return {full.begin() + static_cast<std::ptrdiff_t>(first),
          full.begin() + static_cast<std::ptrdiff_t>(first + x.size())};
}

struct WaveletPlanned {
  std::unique_ptr<Stage> stage;
  std::unique_ptr<PlanContext> ctx;
};

WaveletPlanned plan_wavelet(const json& params, std::int64_t length, double fs, std::int64_t pad = 0) {
  StreamInfo stream;
  stream.leading_dims = {2};
  stream.leading_names = {"epochs"};
  stream.series_length = length;
  stream.sample_rate = fs;
  stream.pad = pad;
  WaveletPlanned p{make_element<stages::WaveletStage>(params), std::make_unique<PlanContext>(stream)};
  p.stage->plan(*p.ctx);
  p.stage->prepare();
  return p;
}

std::vector<float> wavelet_signal(std::int64_t series, std::int64_t length, double fs) {
  std::vector<float> x(static_cast<std::size_t>(series * length));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(static_cast<std::int64_t>(i) % length) / fs;
    x[i] = static_cast<float>(std::sin(2 * kWaveletPi * 6 * t + static_cast<double>(i / static_cast<std::size_t>(length))) +
                              0.5 * std::sin(2 * kWaveletPi * 70 * t) * (1 + std::cos(2 * kWaveletPi * 6 * t)) +
                              0.1 * std::sin(0.37 * static_cast<double>(i * i % 1013)));
  }
  return x;
}

TEST(Wavelet, PhaseAndAmplitudeAreTensorpacsMorletDecomposition) {
  constexpr std::int64_t kLength = 300;
  constexpr double kFs = 256;
  const WaveletPlanned p = plan_wavelet({{"pha", json::parse("[[4,8],[8,12]]")}, {"amp", json::parse("[[60,80]]")},
                                  {"width", 7}},
                                 kLength, kFs);
  const std::vector<float> x = wavelet_signal(2, kLength, kFs);
  Batch batch;
  batch.series_count = 2;
  std::copy(x.begin(), x.end(), batch.emplace(p.ctx->stream().tensor, {kLength}, DType::Float32).values<float>().begin());
  p.stage->process(batch);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  ASSERT_EQ(batch.at("phase").shape(), (Shape{2, 2, kLength}));
  for (std::int64_t s = 0; s < 2; ++s) {
    const std::vector<float> series(x.begin() + s * kLength, x.begin() + (s + 1) * kLength);
    for (std::int64_t b = 0; b < 2; ++b) {
      const auto y = tensorpac_morlet(series, kFs, b == 0 ? 6.0 : 10.0, 7);
      for (std::int64_t n = 0; n < kLength; ++n)
        ASSERT_NEAR(phase[static_cast<std::size_t>((s * 2 + b) * kLength + n)], std::arg(y[static_cast<std::size_t>(n)]),
                    1e-5)
            << "series " << s << " band " << b << " sample " << n;
    }
    const auto y = tensorpac_morlet(series, kFs, 70.0, 7);
    for (std::int64_t n = 0; n < kLength; ++n)
      ASSERT_NEAR(amplitude[static_cast<std::size_t>(s * kLength + n)], std::abs(y[static_cast<std::size_t>(n)]),
                  1e-5 * std::abs(y[static_cast<std::size_t>(n)]) + 1e-6);
  }
  EXPECT_EQ(p.ctx->require(stages::kPhaseCentres, "test"), (std::vector<double>{6, 10}));
  EXPECT_EQ(p.ctx->require(stages::kAmplitudeBands, "test"), (stages::BandEdges{{60, 80}}));
}

// TensorPAC's wavelet length: numpy.arange over [-w s_t / 2, w s_t / 2) in steps of 1 / fs.
TEST(Wavelet, TheWaveletHasTensorpacsTapsAndCentre) {
  const morlet::Wavelet w = morlet::wavelet(256, 10, 7);
  const double st = 7 / (2 * kWaveletPi * 10);
  EXPECT_EQ(w.taps(), static_cast<std::int64_t>(std::ceil(7 * st * 256)));
  EXPECT_EQ(w.offset(), (w.taps() + 1) / 2 - 1);
  const double t0 = -7 * st / 2;
  EXPECT_NEAR(w.re[0], std::exp(-t0 * t0 / (2 * st * st)) * std::cos(2 * kWaveletPi * 10 * t0) / std::sqrt(st * std::sqrt(kWaveletPi)),
              1e-15);
}

TEST(Wavelet, ACentrePastNyquistIsRefusedAndAPaddedStreamCropped) {
  try {
    plan_wavelet({{"amp", json::parse("[[100,140]]")}}, 512, 200);
    FAIL() << "accepted";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "amp");
    EXPECT_NE(std::string(e.what()).find("its centre, 120 Hz, must be above 0 and below Nyquist"), std::string::npos)
        << e.what();
  }
  // TensorPAC takes a band whose high edge passes Nyquist: only its centre matters to the wavelet.
  EXPECT_NO_THROW(plan_wavelet({{"amp", json::parse("[[80,110]]")}}, 512, 200));
  const WaveletPlanned padded = plan_wavelet({{"pha", json::parse("[[4,8]]")}, {"amp", json::parse("[[60,80]]")}}, 512, 256, 64);
  EXPECT_EQ(padded.ctx->require("phase", "test").per_series, (Shape{1, 384}));
  EXPECT_EQ(padded.ctx->resolved()["cropped"], (json{{"first_sample", 64}, {"samples", 384}}));
}

}  // namespace
}  // namespace pacflow
