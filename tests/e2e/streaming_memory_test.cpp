// Peak memory does not grow with the input (issue 4): the same pipeline on 16x more series keeps
// the CLI's peak RSS flat, because batches stream through a bounded number of slots and the npy
// sink writes rows as they come.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "engine/npy.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

// Largest peak RSS (KiB) among the children this process has waited for, pipeline_cli included.
long children_peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_maxrss;
}

TEST(Streaming, PeakMemoryStaysFlatWhenTheInputGrowsSixteenfold) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer: its quarantine keeps freed batches";
#endif
  testing::ScratchDir dir("streaming_rss");
  const std::string pipe = dir.write("grow.pipe",
                                     "source synthetic fs=512 epochs=2 channels=16 n_times=4096\n"
                                     "stage bandpass pha=4:12:3 amp=60:120:3\n"
                                     "stage hilbert\nstage mi\nstage surrogates n=20\n"
                                     "sink npy dir=out\n")
                               .string();
  ASSERT_EQ(testing::run_cli("run -q --batch 8 --in-flight 4 " + pipe, dir.path()).exit_code, 0);
  const long small = children_peak_rss_kib();
  const auto large = testing::run_cli("run -q --batch 8 --in-flight 4 --set source.epochs=32 " + pipe, dir.path());
  ASSERT_EQ(large.exit_code, 0) << large.err;
  const long peak = children_peak_rss_kib();  // the larger of the two runs
  std::printf("peak RSS: 32 series %ld KiB, 512 series %ld KiB\n", small, peak);
  EXPECT_LE(peak, small + small / 4 + 16 * 1024) << "peak RSS grew with the input";
}

// Through rings (issue 3): an input 50 times what the rings hold (2 slots of 4 series) streams in
// the memory of one that fits in them.
TEST(Streaming, PeakMemoryStaysFlatThroughRingsForAnInputFiftyTimesTheirCapacity) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer: its quarantine keeps freed batches";
#endif
  testing::ScratchDir dir("streaming_rings");
  const std::string pipe = dir.write("rings.pipe",
                                     "source synthetic fs=512 epochs=1 channels=8 n_times=4096\n"
                                     "stage bandpass pha=4:12:3 amp=60:120:3 on=cpu:0\n"
                                     "stage hilbert\n"
                                     "stage mi ring=2 batch=4\n"
                                     "stage surrogates n=20 ring=2 batch=4\n"
                                     "sink npy dir=out\n")
                               .string();
  const auto small = testing::run_cli("run -q --batch 4 " + pipe, dir.path());
  ASSERT_EQ(small.exit_code, 0) << small.err;
  const long one_ring = children_peak_rss_kib();
  const auto large = testing::run_cli("run -q --batch 4 --set source.epochs=50 " + pipe, dir.path());
  ASSERT_EQ(large.exit_code, 0) << large.err;
  const long peak = children_peak_rss_kib();
  std::printf("peak RSS: 8 series %ld KiB, 400 series %ld KiB\n", one_ring, peak);
  EXPECT_LE(peak, one_ring + one_ring / 4 + 16 * 1024) << "peak RSS grew with the input";
}

// The npy source maps its file and hands back the pages of each batch it has read: a file 8 times
// larger (16 MiB -> 128 MiB) keeps the CLI's peak RSS flat instead of growing with the file.
TEST(Streaming, PeakMemoryStaysFlatWhenAnNpyInputGrowsEightfold) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer: its quarantine keeps freed batches";
#endif
  testing::ScratchDir dir("streaming_npy");
  const auto write_input = [&](const std::string& name, std::int64_t epochs) {
    constexpr std::int64_t kChannels = 16, kSamples = 32768;
    NpyWriter w(dir / name, {epochs, kChannels, kSamples});
    std::vector<float> series(kSamples);
    for (std::int64_t s = 0; s < epochs * kChannels; ++s) {
      for (std::int64_t t = 0; t < kSamples; ++t) series[static_cast<std::size_t>(t)] = static_cast<float>((s * 31 + t) % 97) - 48.0f;
      w.append(series.data(), kSamples);
    }
    w.commit();
  };
  write_input("small.npy", 8);
  write_input("large.npy", 64);
  const std::string pipe = dir.write("npy.pipe",
                                     "source npy path=small.npy fs=512\n"
                                     "stage bandpass pha=[[4,8]] amp=[[60,80]]\n"
                                     "stage hilbert\nstage mi\n"
                                     "sink npy dir=out\n")
                               .string();
  // The same batches in flight for both (their bound scales with the machine's threads, and the
  // small input has fewer batches than a many-core machine would keep alive).
  ASSERT_EQ(testing::run_cli("run -q --batch 16 --in-flight 4 " + pipe, dir.path()).exit_code, 0);
  const long small = children_peak_rss_kib();
  const auto large =
      testing::run_cli("run -q --batch 16 --in-flight 4 --set source.path=large.npy " + pipe, dir.path());
  ASSERT_EQ(large.exit_code, 0) << large.err;
  const long peak = children_peak_rss_kib();
  std::printf("peak RSS: 16 MiB input %ld KiB, 128 MiB input %ld KiB\n", small, peak);
  EXPECT_LE(peak, small + small / 4 + 16 * 1024) << "peak RSS grew with the input file";
}

}  // namespace
}  // namespace pacflow
