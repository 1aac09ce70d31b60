// The CUDA backend is a plugin (engine/devices/gpu_plugin.hpp): the CLI links no CUDA library, runs on the CPU
// where the plugin (or the CUDA runtime it needs) is missing, and says why no GPU can be used.
#include <filesystem>
#include <gtest/gtest.h>

#include "engine/devices/gpu_plugin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

// The CLI run with PACFLOW_PLUGIN_DIR=`plugins`, as on a machine where that folder is the install's.
testing::CliResult run_cli_with_plugins(const fs::path& plugins, const std::string& args, const fs::path& cwd) {
  return testing::run_program("/usr/bin/env", "PACFLOW_PLUGIN_DIR='" + plugins.string() + "' '" PACFLOW_CLI "' " + args,
                              cwd);
}

void plugin_write_pipe(const ScratchDir& dir) {
  dir.write("p.pipe",
            "source npy path=" + (testing::data_dir() / "small" / "x.npy").string() +
                " fs=256\nstage bandpass pha=[[4,8]] amp=[[60,80]] on=cuda\nstage hilbert\nstage mi\n"
                "stage surrogates n=20\nsink npy dir=out\n");
}

TEST(GpuPlugin, CliRunsOnTheCpuWithTheCudaPluginAbsentAndSaysWhy) {
  const ScratchDir dir("gpu_plugin_absent");
  fs::create_directories(dir / "no-plugins");
  plugin_write_pipe(dir);
  const auto devices = run_cli_with_plugins(dir / "no-plugins", "devices", dir.path());
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find("cpu      the whole machine"), std::string::npos) << devices.out;
  EXPECT_NE(devices.out.find("cuda     none: library not installed: "), std::string::npos) << devices.out;

  // Asked for a GPU: refused with the reason, or run on the CPU with --fallback cpu.
  const auto refused = run_cli_with_plugins(dir / "no-plugins", "run p.pipe -q", dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("p.pipe:2:"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("library not installed"), std::string::npos) << refused.err;
  const auto fell_back = run_cli_with_plugins(dir / "no-plugins", "run p.pipe -q --fallback cpu --out a", dir.path());
  ASSERT_EQ(fell_back.exit_code, 0) << fell_back.err;
  EXPECT_NE(fell_back.err.find("runs on the CPU instead of a GPU (library not installed"), std::string::npos)
      << fell_back.err;

  // The same numbers as a run that could have loaded the plugin.
  const auto cpu = testing::run_cli("run p.pipe -q --devices cpu --out b", dir.path());
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  for (const char* name : {"pac.npy", "pac_z.npy", "pvalues.npy"}) {
    const std::string a = testing::read_file(dir / "a" / name);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, testing::read_file(dir / "b" / name)) << name;
  }
}

TEST(GpuPlugin, APluginThatCannotBeLoadedIsReportedWithTheLoadersMessage) {
  const ScratchDir dir("gpu_plugin_broken");
  fs::create_directories(dir / "plugins");
  dir.write("plugins/libpacflow_cuda.so", "not a shared library\n");
  const auto devices = run_cli_with_plugins(dir / "plugins", "devices", dir.path());
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find("cuda     none: library not installed: "), std::string::npos) << devices.out;
  if (devices.out.find("built without CUDA") == std::string::npos) {  // else the file is never opened
    EXPECT_NE(devices.out.find("libpacflow_cuda.so"), std::string::npos) << devices.out;
  }
}

TEST(GpuPlugin, OnlyThePluginLinksTheCudaLibraries) {
  const ScratchDir dir("gpu_plugin_ldd");
  const auto cli = testing::run_program("ldd", PACFLOW_CLI, dir.path());
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find("libpacflow_engine"), std::string::npos) << cli.out;  // ldd lists what the CLI needs
  EXPECT_EQ(cli.out.find("libcudart"), std::string::npos) << cli.out;
  EXPECT_EQ(cli.out.find("libcufft"), std::string::npos) << cli.out;
  const fs::path plugin = gpu_plugin().path;
  if (!fs::exists(plugin)) GTEST_SKIP() << "no CUDA plugin in this build: " << gpu_plugin().availability.why_none;
  const auto loaded = testing::run_program("ldd", plugin.string(), dir.path());
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_NE(loaded.out.find("libcudart"), std::string::npos) << loaded.out;
  EXPECT_NE(loaded.out.find("libcufft"), std::string::npos) << loaded.out;
}

}  // namespace
}  // namespace pacflow
