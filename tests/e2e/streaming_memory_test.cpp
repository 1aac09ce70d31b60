// Peak memory does not grow with the input (issue 4): the same pipeline on 16x more series keeps
// the CLI's peak RSS flat, because batches stream through a bounded number of slots and the npy
// sink writes rows as they come.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "engine/io/npy.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/sanitizers.hpp"

namespace pacflow {
namespace {

// Largest peak RSS (KiB) among the children this process has waited for, pipeline_cli included.
long children_peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_maxrss;
}

// Runs the CLI with `small_args`, then with `large_args` (in `dir`), and expects the peak RSS of
// the larger run to stay within that of the smaller one plus a quarter and 16 MiB.
void expect_flat_peak_rss(const testing::ScratchDir& dir, const std::string& small_args,
                          const std::string& large_args, const std::string& label) {
  const auto small_run = testing::run_cli(small_args, dir.path());
  ASSERT_EQ(small_run.exit_code, 0) << small_run.err;
  const long small = children_peak_rss_kib();
  const auto large_run = testing::run_cli(large_args, dir.path());
  ASSERT_EQ(large_run.exit_code, 0) << large_run.err;
  const long peak = children_peak_rss_kib();  // the larger of the two runs
  std::printf("peak RSS: %s: %ld KiB, then %ld KiB\n", label.c_str(), small, peak);
  EXPECT_LE(peak, small + small / 4 + 16 * 1024) << "peak RSS grew with the input (" << label << ")";
}

TEST(Streaming, PeakMemoryStaysFlatWhenTheInputGrowsSixteenfold) {
#if defined(PACFLOW_UNDER_ASAN)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer: its quarantine keeps freed batches";
#endif
  testing::ScratchDir dir("streaming_rss");
  const std::string pipe = dir.write("grow.pipe",
                                     "source synthetic fs=512 epochs=8 channels=16 n_times=4096\n"
                                     "stage bandpass pha=4:12:3 amp=60:120:3\n"
                                     "stage hilbert\nstage mi\nstage surrogates n=20 trial_block=2\n"
                                     "sink npy dir=out\n")
                               .string();
  // The trial-level test's blocks of 2 epochs make batches of 32 series in both runs, 4 in flight.
  expect_flat_peak_rss(dir, "run -q --batch 8 --in-flight 4 " + pipe,
                       "run -q --batch 8 --in-flight 4 --set source.epochs=128 " + pipe, "128 series, then 2048");
}

// Through rings (issue 3): an input 50 times what the rings hold (2 slots of 4 series) streams in
// the memory of one that fits in them. (Without the trial-level test, whose blocks of 8 epochs would
// make every batch 64 series.)
TEST(Streaming, PeakMemoryStaysFlatThroughRingsForAnInputFiftyTimesTheirCapacity) {
#if defined(PACFLOW_UNDER_ASAN)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer: its quarantine keeps freed batches";
#endif
  testing::ScratchDir dir("streaming_rings");
  const std::string pipe = dir.write("rings.pipe",
                                     "source synthetic fs=512 epochs=1 channels=8 n_times=4096\n"
                                     "stage bandpass pha=4:12:3 amp=60:120:3 on=cpu:0\n"
                                     "stage hilbert\n"
                                     "stage mi ring=2 batch=4\n"
                                     "stage surrogates n=20 ring=2 batch=4 trials=none\n"
                                     "sink npy dir=out\n")
                               .string();
  expect_flat_peak_rss(dir, "run -q --batch 4 " + pipe, "run -q --batch 4 --set source.epochs=50 " + pipe,
                       "8 series, then 400");
}

// The npy source maps its file and hands back the pages of each batch it has read: a file 8 times
// larger (16 MiB -> 128 MiB) keeps the CLI's peak RSS flat instead of growing with the file.
TEST(Streaming, PeakMemoryStaysFlatWhenAnNpyInputGrowsEightfold) {
#if defined(PACFLOW_UNDER_ASAN)
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
  expect_flat_peak_rss(dir, "run -q --batch 16 --in-flight 4 " + pipe,
                       "run -q --batch 16 --in-flight 4 --set source.path=large.npy " + pipe,
                       "16 MiB input file, then 128 MiB");
}

// Planning makes nothing per channel (issue 17): validate of a million channels once took 347 MB
// (a diag pair, and its JSON, per channel) while the estimate it printed, which run --max-memory
// checks, said 20 MiB. Its peak RSS is now that of one channel.
TEST(Streaming, PlanningAMillionChannelsTakesNoMemoryPerChannel) {
#if defined(PACFLOW_UNDER_ASAN)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer";
#endif
  testing::ScratchDir dir("streaming_channels");
  const std::string pipe = dir.write("channels.pipe",
                                     "source synthetic channels=1\n"
                                     "stage bandpass\nstage hilbert\nstage mi\n"
                                     "sink npy dir=out\n")
                               .string();
  expect_flat_peak_rss(dir, "validate " + pipe, "validate --set source.channels=1000000 " + pipe,
                       "1 channel, then a million");
}

}  // namespace
}  // namespace pacflow
