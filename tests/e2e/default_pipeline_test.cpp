// The embedded default pipeline, scaled down with --set, finds the coupling where it was put.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "engine/npy.hpp"
#include "engine/params.hpp"
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
                           "pvalues_maxstat.npy", "result.json", "comodulogram.png"})
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
}

}  // namespace
}  // namespace pacflow
