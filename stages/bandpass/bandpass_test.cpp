#include <cmath>
#include <fstream>
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/kernels/filters/bands.hpp"
#include "stages/kernels/filters/filtfilt_fft.hpp"
#include "stages/kernels/filters/fir1.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

TEST(Fir1, MatchesReferenceCoefficientsWithinSpecTolerance) {
  std::ifstream in(data_dir() / "fir1.json");
  const json cases = json::parse(in);
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    const auto reference = c["b"].get<std::vector<double>>();
    const auto b = fir::fir1_bandpass(c["order"].get<std::int64_t>(), c["band_hz"][0].get<double>(),
                                      c["band_hz"][1].get<double>(), c["fs"].get<double>());
    ASSERT_EQ(b.size(), reference.size());
    const double scale = testing::max_abs(reference.data(), reference.data() + reference.size());
    for (std::size_t k = 0; k < b.size(); ++k)
      ASSERT_NEAR(b[k], reference[k], 1e-7 * scale) << "fs " << c["fs"] << " band " << c["band_hz"] << " k " << k;
  }
}

TEST(Fir1, OrderFollowsCyclesAndShortSeriesRule) {
  EXPECT_EQ(fir::filter_order(256, 3.0, 3, 1024), 255);
  EXPECT_EQ(fir::filter_order(256, 43.75, 6, 1024), 30);
  // T < 3n: n = floor((T - 1) / 3).
  EXPECT_EQ(fir::filter_order(512, 1.5, 3, 2048), 682);
}

TEST(FiltFilt, FftPathEqualsDirectFiltfiltDefinition) {
  std::vector<double> x(300);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * static_cast<double>(i)) + 0.01 * static_cast<double>(i % 7);
  const auto b1 = fir::fir1_bandpass(40, 10, 20, 256);
  const auto b2 = fir::fir1_bandpass(99, 3, 5, 256);
  fir::FiltFiltBank bank({b1, b2}, static_cast<std::int64_t>(x.size()));
  auto ws = bank.make_workspace();
  std::vector<float> xf(x.begin(), x.end());
  std::vector<float> out(2 * x.size());
  bank.apply(xf, ws, out.data(), x.size());
  const auto ref1 = fir::filtfilt_reference(b1, x);
  const auto ref2 = fir::filtfilt_reference(b2, x);
  const double m1 = testing::max_abs(ref1.data(), ref1.data() + ref1.size());
  const double m2 = testing::max_abs(ref2.data(), ref2.data() + ref2.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(out[i], ref1[i], 1e-5 * m1) << i;
    ASSERT_NEAR(out[x.size() + i], ref2[i], 1e-5 * m2) << i;
  }
}

// Compares the stage's filtered output with the fixture [band][E][C][T] for every series.
void expect_filtered_matches(const std::string& folder, const std::string& device) {
  const json m = testing::manifest(folder);
  const auto x = testing::load_floats(data_dir() / folder / "x.npy");
  testing::StageHarness h(testing::fixture_stream(folder), device);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  const std::int64_t series = h.context().stream().series_count();
  const std::int64_t t = h.context().stream().series_length;
  const Batch batch = h.run(x, 0, series);
  for (const auto& [tensor, file, orders] : {std::tuple{"filtered_pha", "pha_filtered.npy", "pha_filter_orders"},
                                             std::tuple{"filtered_amp", "amp_filtered.npy", "amp_filter_orders"}}) {
    const auto ref = testing::load_doubles(data_dir() / folder / file);
    const auto ours = batch.at(tensor).values<float>();
    const auto bands = static_cast<std::int64_t>(m[orders].size());
    for (std::int64_t band = 0; band < bands; ++band) {
      for (std::int64_t s = 0; s < series; ++s) {
        const double* r = ref.data() + (band * series + s) * t;
        const double tol = 1e-4 * testing::max_abs(r, r + t);
        const float* o = ours.data() + (s * bands + band) * t;
        for (std::int64_t i = 0; i < t; ++i)
          ASSERT_NEAR(o[i], r[i], tol) << folder << " " << tensor << " band " << band << " series " << s << " t " << i;
      }
    }
  }
}

class BandpassOn : public testing::OnDevice {};
TEST_P(BandpassOn, MatchesFiltfiltFixtureSmall) { expect_filtered_matches("small", device()); }
TEST_P(BandpassOn, MatchesFiltfiltFixtureNopad) { expect_filtered_matches("nopad_bins12", device()); }
INSTANTIATE_TEST_SUITE_P(Devices, BandpassOn, ::testing::ValuesIn(testing::test_devices()), testing::device_test_name);

TEST(Bandpass, ResolvesFilterOrdersAsTheFixtureDoes) {
  for (const std::string folder : {"small", "nopad_bins12"}) {
    const json m = testing::manifest(folder);
    testing::StageHarness h(testing::fixture_stream(folder));
    h.context().begin_element();
    h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
    const json resolved = h.context().take_resolved();
    EXPECT_EQ(resolved["pha_filter_orders"], m["pha_filter_orders"]) << folder;
    EXPECT_EQ(resolved["amp_filter_orders"], m["amp_filter_orders"]) << folder;
  }
}

TEST(Bands, CentredSpecUsesQuarterAndEighthWidths) {
  const auto pha = bands::resolve("pha", "2:20:10", bands::Role::Phase, false);
  ASSERT_EQ(pha.size(), 10u);
  EXPECT_DOUBLE_EQ(pha[0].lo, 1.5);
  EXPECT_DOUBLE_EQ(pha[0].hi, 2.5);
  EXPECT_DOUBLE_EQ(pha[9].centre(), 20.0);
  const auto amp = bands::resolve("amp", "60:160:10", bands::Role::Amplitude, false);
  EXPECT_DOUBLE_EQ(amp[0].lo, 52.5);
  EXPECT_DOUBLE_EQ(amp[0].hi, 67.5);
  // The fixture's amplitude bands are 50:100:4.
  const auto fixture = bands::resolve("amp", "50:100:4", bands::Role::Amplitude, false);
  EXPECT_NEAR(fixture[1].lo, 58.333333333333336, 1e-12);
  EXPECT_NEAR(fixture[2].hi, 93.75000000000001, 1e-12);
}

TEST(Bands, AcceptsLogDynamicPresetAndListForms) {
  const auto log = bands::resolve("pha", "log:2:20:3", bands::Role::Phase, false);
  EXPECT_NEAR(log[1].centre(), std::sqrt(40.0), 1e-12);
  const auto dynamic = bands::resolve("pha", "2:20:4:2", bands::Role::Phase, false);
  ASSERT_EQ(dynamic.size(), 7u);  // arange(2, 16, 2)
  EXPECT_DOUBLE_EQ(dynamic[6].lo, 14);
  EXPECT_DOUBLE_EQ(dynamic[6].hi, 18);
  EXPECT_EQ(bands::resolve("amp", "mres", bands::Role::Amplitude, false).size(), 30u);
  const auto list = bands::resolve("amp", json::parse("[[60,80],[80,100]]"), bands::Role::Amplitude, false);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_DOUBLE_EQ(list[1].hi, 100);
  const auto clamped = bands::resolve("pha", "1:20:3", bands::Role::Phase, true);
  EXPECT_DOUBLE_EQ(clamped[0].lo, 1.0);
  EXPECT_DOUBLE_EQ(clamped[2].hi, 20.0);
}

// TensorPAC's (start, stop, width, step) bands are np.arange's, value for value: 6:14:4:0.2 has low
// edges such as 8.000000000000002 (not 8), so at 1024 Hz its filter orders are 477 and 381 where an
// exact 6.4 and 8 would give 480 and 384. The expected edges and orders are NumPy's and TensorPAC's
// (`np.arange(6, 10, 0.2)`, `np.arange(10, 14, 0.2)`, `3 * (1024 // f_lo)`), printed as hex floats.
TEST(Bands, StartStopWidthStepGivesTensorPacsEdgesAndFilterOrdersBitForBit) {
  const std::vector<double> lows = {
      0x1.8000000000000p+2, 0x1.8cccccccccccdp+2, 0x1.999999999999ap+2, 0x1.a666666666667p+2, 0x1.b333333333334p+2,
      0x1.c000000000001p+2, 0x1.ccccccccccccep+2, 0x1.d99999999999bp+2, 0x1.e666666666668p+2, 0x1.f333333333335p+2,
      0x1.0000000000001p+3, 0x1.0666666666668p+3, 0x1.0cccccccccccep+3, 0x1.1333333333334p+3, 0x1.199999999999bp+3,
      0x1.2000000000002p+3, 0x1.2666666666668p+3, 0x1.2cccccccccccep+3, 0x1.3333333333335p+3, 0x1.399999999999cp+3};
  const std::vector<double> highs = {
      0x1.4000000000000p+3, 0x1.4666666666666p+3, 0x1.4ccccccccccccp+3, 0x1.5333333333332p+3, 0x1.5999999999998p+3,
      0x1.5fffffffffffep+3, 0x1.6666666666664p+3, 0x1.6cccccccccccap+3, 0x1.7333333333330p+3, 0x1.7999999999996p+3,
      0x1.7fffffffffffcp+3, 0x1.8666666666662p+3, 0x1.8ccccccccccc8p+3, 0x1.933333333332ep+3, 0x1.9999999999994p+3,
      0x1.9fffffffffffap+3, 0x1.a666666666660p+3, 0x1.accccccccccc6p+3, 0x1.b33333333332cp+3, 0x1.b999999999992p+3};
  const auto bands = bands::resolve("pha", "6:14:4:0.2", bands::Role::Phase, false);
  ASSERT_EQ(bands.size(), lows.size());
  for (std::size_t i = 0; i < bands.size(); ++i) {
    EXPECT_EQ(bands[i].lo, lows[i]) << i;
    EXPECT_EQ(bands[i].hi, highs[i]) << i;
  }
  StreamInfo stream;
  stream.leading_dims = {1, 1};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = 10240;
  stream.sample_rate = 1024;
  testing::StageHarness h(stream);
  h.context().begin_element();
  h.add("bandpass", {{"pha", "6:14:4:0.2"}, {"amp", json::parse("[[60, 80]]")}});
  const std::vector<std::int64_t> tensorpac = {510, 495, 477, 465, 450, 438, 426, 414, 402, 393,
                                               381, 372, 363, 357, 348, 339, 333, 324, 318, 312};
  EXPECT_EQ(h.context().take_resolved()["pha_filter_orders"].get<std::vector<std::int64_t>>(), tensorpac);
}

// Plans a bandpass stage over series of `length` samples at 512 Hz; returns the error, or the
// warnings when it plans.
std::string plan_bandpass(std::int64_t length, const json& params, std::vector<std::string>* warnings = nullptr) {
  StreamInfo stream;
  stream.leading_dims = {1, 1};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = length;
  stream.sample_rate = 512;
  try {
    testing::StageHarness h(stream);
    h.add("bandpass", params);
    if (warnings) *warnings = h.context().warnings();
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(Bandpass, SeriesShorterThanACycleOfTheLowestPhaseBandAreRefusedNamingTheNumbers) {
  // 256 samples at 512 Hz are 0.5 s; the slowest phase band starts at 1.5 Hz (a 0.667 s cycle).
  const std::string error = plan_bandpass(256, {{"pha", "2:20:10"}, {"amp", "60:160:10"}});
  EXPECT_NE(error.find("series of 256 samples (0.5 s at 512 Hz) are shorter than one cycle of the lowest phase "
                       "band [1.5, 2.5] Hz (1 / 1.5 Hz = 0.666667 s)"),
            std::string::npos)
      << error;
  EXPECT_EQ(plan_bandpass(512, {{"pha", json::parse("[[2, 4]]")}, {"amp", json::parse("[[60, 80]]")}, {"pha_cycles", 1}}), "");
}

TEST(Bandpass, SeriesShorterThanThreeOrdersOfEveryBandAreRefused) {
  // 400 samples allow orders up to 133; phase 3 × (512 // 4) = 384 and amplitude 6 × (512 // 20) = 150
  // both exceed it.
  const std::string error = plan_bandpass(400, {{"pha", json::parse("[[4, 8]]")}, {"amp", json::parse("[[20, 30]]")}});
  EXPECT_NE(error.find("series of 400 samples are shorter than 3 filter orders of every band (pha [4, 8] Hz (384), "
                       "amp [20, 30] Hz (150)); every filter would be cut to order 133"),
            std::string::npos)
      << error;
}

TEST(Bandpass, TheOrderWarningListsEveryBandItTouchesInOneLine) {
  std::vector<std::string> warnings;
  ASSERT_EQ(plan_bandpass(2048, {{"pha", json::parse("[[1.5, 2.5], [2, 3], [6, 8]]")}, {"amp", json::parse("[[60, 80]]")}}, &warnings), "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "series of 2048 samples are shorter than 3 filter orders of 2 bands, whose orders are "
                         "reduced to floor((T - 1) / 3) = 682 (spec §3): pha [1.5, 2.5] Hz (1023), pha [2, 3] Hz (768)");
  warnings.clear();
  ASSERT_EQ(plan_bandpass(4096, {{"pha", json::parse("[[1.5, 2.5], [2, 3], [6, 8]]")}, {"amp", json::parse("[[60, 80]]")}}, &warnings), "");
  EXPECT_TRUE(warnings.empty());
}

TEST(Bands, RejectsBandAboveNyquistNamingTheBand) {
  const auto amp = bands::resolve("amp", json::parse("[[60,80],[200,300]]"), bands::Role::Amplitude, false);
  try {
    bands::check_against_nyquist("amp", amp, 512);
    FAIL() << "expected a ParamError";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "amp");
    EXPECT_NE(std::string(e.what()).find("band 1 [200, 300] Hz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Nyquist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bands::resolve("pha", "2:x:10", bands::Role::Phase, false), ParamError);
  EXPECT_THROW(bands::resolve("pha", json::parse("[[4]]"), bands::Role::Phase, false), ParamError);
}

}  // namespace
}  // namespace pacflow
