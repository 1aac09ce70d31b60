// The embedded default pipeline, scaled down with --set, finds the coupling where it was put; with
// the coupling taken out, its trial-level test rejects no more channels than its 5 % allows.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "engine/io/npy.hpp"
#include "engine/api/params.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

TEST(DefaultPipeline, ScaledDownRunPutsLargestZInTheCoupledCell) {
  const testing::ScratchDir dir("e2e");
  const fs::path pipe = fs::path(PACFLOW_SOURCE_DIR) / "pipelines" / "pac.pipe";
  const auto r = testing::run_cli(
      "run '" + pipe.string() + "' --out out --set source.epochs=4 --set source.channels=4 --set surrogates.n=50 -q",
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"pac.npy", "pac_z.npy", "surrogate_mean.npy", "surrogate_std.npy", "pvalues.npy",
                           "pvalues_maxstat.npy", "result.json", "comodulogram.png", "comodulogram.pdf",
                           "comodulogram_channels.pdf"})
    EXPECT_TRUE(fs::exists(dir / "out" / file)) << file;

  const Tensor z = read_npy(dir / "out" / "pac_z.npy");
  ASSERT_EQ(z.shape(), (Shape{4, 4, 9, 10}));
  std::ifstream in(dir / "out" / "result.json");
  const json report = json::parse(in);
  const auto pha = report["pha_bands_hz"];
  const auto amp = report["amp_bands_hz"];
  EXPECT_TRUE(report["warnings"].empty()) << "a newcomer's first run warns: " << report["warnings"];
  // Mean z over epochs and channels, then its largest cell.
  constexpr std::size_t kCells = 9 * 10;
  std::vector<double> mean(kCells, 0.0);
  const auto v = z.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) mean[i % kCells] += v[i] / 16.0;
  const auto best = static_cast<std::size_t>(std::max_element(mean.begin(), mean.end()) - mean.begin());
  const std::size_t p = best / 10, a = best % 10;
  // The coupled cell: the phase band centred nearest 6 Hz, the amplitude band centred nearest 80 Hz.
  auto nearest = [](const json& bands, double f) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < bands.size(); ++i) {
      const double c = (bands[i][0].get<double>() + bands[i][1].get<double>()) / 2;
      const double ck = (bands[k][0].get<double>() + bands[k][1].get<double>()) / 2;
      if (std::abs(c - f) < std::abs(ck - f)) k = i;
    }
    return k;
  };
  EXPECT_EQ(p, nearest(pha, 6.0)) << "phase band " << pha[p];
  EXPECT_EQ(a, nearest(amp, 80.0)) << "amplitude band " << amp[a];
  EXPECT_GT(mean[best], 5.0);  // clearly significant, not a noise peak
  // The png is a real image.
  std::ifstream png(dir / "out" / "comodulogram.png", std::ios::binary);
  char signature[8] = {};
  png.read(signature, 8);
  EXPECT_EQ(std::string(signature + 1, 3), "PNG");
  EXPECT_EQ(testing::read_file(dir / "out" / "comodulogram.pdf").substr(0, 5), "%PDF-") << "its vector form";
}

// chi=1: no coupling anywhere. Max-T over each channel's 90 cells allows a 5 % chance of any
// rejection per channel: 8 of 160 channels expected, 16 or more has a chance of 0.3 %. (Time-shift
// surrogates averaged over epochs rejected 40 to 60 % of the channels here: spec §6.4.)
TEST(DefaultPipeline, WithNoCouplingTheTrialLevelTestHoldsItsFamilyWiseError) {
  const testing::ScratchDir dir("e2e_null");
  const fs::path pipe = fs::path(PACFLOW_SOURCE_DIR) / "pipelines" / "pac.pipe";
  constexpr std::int64_t kChannels = 32, kSeeds = 5, kCells = 9 * 10;
  std::int64_t rejected = 0;
  for (std::int64_t seed = 1; seed <= kSeeds; ++seed) {
    const std::string out = "out" + std::to_string(seed);
    const auto r = testing::run_cli("run '" + pipe.string() + "' --out " + out + " --set source.chi=1 --set source.seed=" +
                                        std::to_string(seed) + " --set source.channels=" + std::to_string(kChannels) +
                                        " -q",
                                    dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Tensor p = read_npy(dir / out / "trial_pvalues.npy");
    ASSERT_EQ(p.shape(), (Shape{kChannels, 9, 10}));
    const auto v = p.values<float>();
    for (std::int64_t c = 0; c < kChannels; ++c)
      rejected += std::any_of(v.begin() + c * kCells, v.begin() + (c + 1) * kCells, [](float x) { return x <= 0.05f; });
  }
  RecordProperty("rejected_channels", static_cast<int>(rejected));
  EXPECT_LT(rejected, 16) << "channels with a trial-level p <= 0.05 among " << kSeeds * kChannels << " uncoupled ones";
}

}  // namespace
}  // namespace pacflow
