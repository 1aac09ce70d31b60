// Hostile values through the whole chain: NaN and infinite samples under each nan_policy, flat
// series, zero channels, series too short for the filters, one surrogate, one bin, absurd band
// counts. Each gets one clear error or a defined result, never a crash or a hang.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <tuple>

#include "engine/io/npy.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

constexpr std::int64_t kLength = 1024;  // the small fixture: [2 epochs][3 channels][1024] at 256 Hz

// The small fixture with `edit` applied to its samples ([2][3][1024]), written to `path`.
template <typename Edit>
fs::path edited_input(const fs::path& path, Edit edit) {
  Shape shape;
  auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy", &shape);
  edit(x);
  NpyWriter writer(path, shape);
  writer.append(x.data(), static_cast<std::int64_t>(x.size()));
  writer.commit();
  return path;
}

float& hostile_sample(std::vector<float>& x, std::int64_t epoch, std::int64_t channel, std::int64_t t) {
  return x[static_cast<std::size_t>((epoch * 3 + channel) * kLength + t)];
}

// PAC of `input` (two phase and two amplitude bands), with these source and mi parameters; the
// report, and `pac` filled from pac.npy ([E][C or pair][2][2] flattened).
json run_pac(const fs::path& input, const fs::path& out, std::vector<float>& pac, json source = json::object(),
             json mi = json::object()) {
  source["path"] = input.string();
  source["fs"] = 256;
  const json report = Pipeline(stages::builtin_registry())
                          .source("npy", source)
                          .stage("bandpass", {{"pha", json::parse("[[4,8],[8,12]]")}, {"amp", json::parse("[[60,80],[80,100]]")}})
                          .stage("hilbert")
                          .stage("mi", mi)
                          .sink("npy", {{"dir", out.string()}})
                          .run().to_json();
  pac = testing::load_floats(out / "pac.npy");
  return report;
}

bool mentions(const json& report, const std::string& words) {
  for (const auto& w : report.at("warnings"))
    if (w.get<std::string>().find(words) != std::string::npos) return true;
  return false;
}

// The message of the input error `run` throws: while planning (InputError) or while reading a batch
// (a StageError caused by bad input, which the CLI also reports with exit code 2).
std::string hostile_error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e.what();
  } catch (const StageError& e) {
    return e.input_error() ? e.what() : std::string("(not an input error) ") + e.what();
  }
  return "(no error)";
}

TEST(HostileValues, NanSampleIsRefusedByDefaultNamingFileEpochChannelAndSample) {
  const ScratchDir dir("hostile");
  const auto input = edited_input(dir / "x.npy", [](auto& x) { hostile_sample(x, 1, 2, 100) = NAN; });
  std::vector<float> pac;
  const std::string error = hostile_error_of([&] { run_pac(input, dir / "out", pac); });
  EXPECT_NE(error.find("x.npy: NaN at epoch 1, channel 2, sample 100"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));
}

// skip: the series' results are NaN; every other series' results are those of a run where that
// series held anything finite (here: the fixture as it is), bit for bit.
TEST(HostileValues, NanSkipGivesNanForThatSeriesOnlyAndWarnsNamingIt) {
  const ScratchDir dir("hostile");
  const auto clean = edited_input(dir / "clean.npy", [](auto&) {});
  const auto hostile = edited_input(dir / "nan.npy", [](auto& x) {
    hostile_sample(x, 1, 2, 100) = NAN;
    hostile_sample(x, 1, 2, 101) = -INFINITY;
  });
  std::vector<float> reference, pac;
  run_pac(clean, dir / "clean", reference);
  const json report = run_pac(hostile, dir / "skip", pac, {{"nan_policy", "skip"}});
  ASSERT_EQ(pac.size(), 2u * 3u * 4u);
  for (std::size_t row = 0; row < 6; ++row)
    for (std::size_t cell = 0; cell < 4; ++cell) {
      const std::size_t at = row * 4 + cell;
      if (row == 5)
        EXPECT_TRUE(std::isnan(pac[at])) << "cell " << cell;
      else
        EXPECT_EQ(pac[at], reference[at]) << "row " << row << " cell " << cell;
    }
  EXPECT_TRUE(mentions(report, "1 series left out, every result computed from them is NaN (nan_policy=skip): "
                               "epoch 1, channel 2 (2 non-finite samples)"))
      << report["warnings"];
  EXPECT_EQ(report["input"]["non_finite_samples"], 2);
  EXPECT_EQ(report["input"]["series_with_unusable_samples"], 1);
  EXPECT_EQ(report["input"]["flat_series"], 0);
}

// With cross-channel pairs a result row combines the channels of one epoch: every row of the epoch
// that holds the skipped series is NaN, the other epoch's rows are untouched.
TEST(HostileValues, NanSkipTurnsEveryPairOfThatEpochToNan) {
  const ScratchDir dir("hostile");
  const auto clean = edited_input(dir / "clean.npy", [](auto&) {});
  const auto hostile = edited_input(dir / "nan.npy", [](auto& x) { hostile_sample(x, 0, 1, 7) = NAN; });
  std::vector<float> reference, pac;
  run_pac(clean, dir / "clean", reference, json::object(), {{"pairs", "all"}});
  run_pac(hostile, dir / "skip", pac, {{"nan_policy", "skip"}}, {{"pairs", "all"}});
  ASSERT_EQ(pac.size(), reference.size());
  const std::size_t per_epoch = pac.size() / 2;
  for (std::size_t i = 0; i < pac.size(); ++i) {
    if (i < per_epoch)
      EXPECT_TRUE(std::isnan(pac[i])) << i;
    else
      EXPECT_EQ(pac[i], reference[i]) << i;
  }
}

// zero: exactly the run on the input with those samples set to 0, plus a warning counting them.
TEST(HostileValues, NanZeroEqualsTheInputWithZerosAndCountsTheSamples) {
  const ScratchDir dir("hostile");
  const auto zeros = edited_input(dir / "zeros.npy", [](auto& x) {
    hostile_sample(x, 0, 0, 3) = 0;
    hostile_sample(x, 1, 1, 4) = 0;
    hostile_sample(x, 1, 1, 5) = 0;
  });
  const auto hostile = edited_input(dir / "nan.npy", [](auto& x) {
    hostile_sample(x, 0, 0, 3) = INFINITY;
    hostile_sample(x, 1, 1, 4) = NAN;
    hostile_sample(x, 1, 1, 5) = NAN;
  });
  std::vector<float> reference, pac;
  run_pac(zeros, dir / "zeros", reference);
  const json report = run_pac(hostile, dir / "zero", pac, {{"nan_policy", "zero"}});
  EXPECT_EQ(pac, reference);
  EXPECT_TRUE(mentions(report, "3 NaN, infinite or out-of-range samples in 2 series replaced by 0 (nan_policy=zero): epoch 0, "
                               "channel 0 (1 non-finite sample); epoch 1, channel 1 (2 non-finite samples)"))
      << report["warnings"];
}

TEST(HostileValues, FlatSeriesIsRefusedNamingItOrLeftOutWithSkip) {
  const ScratchDir dir("hostile");
  const auto input = edited_input(dir / "flat.npy", [](auto& x) {
    for (std::int64_t t = 0; t < kLength; ++t) hostile_sample(x, 0, 1, t) = 2.5f;
  });
  std::vector<float> pac;
  for (const char* policy : {"reject", "zero"}) {
    const std::string error = hostile_error_of([&] { run_pac(input, dir / "out", pac, {{"nan_policy", policy}}); });
    EXPECT_NE(error.find("flat.npy: epoch 0, channel 1 is flat (every sample is 2.5)"), std::string::npos)
        << policy << ": " << error;
  }
  const json report = run_pac(input, dir / "skip", pac, {{"nan_policy", "skip"}});
  for (std::size_t i = 0; i < pac.size(); ++i) EXPECT_EQ(std::isnan(pac[i]), i / 4 == 1) << i;
  EXPECT_TRUE(mentions(report, "epoch 0, channel 1 (flat)")) << report["warnings"];
}

// A file name is bytes, not necessarily UTF-8 (a Latin-1 "café.npy"); it reaches result.json, which
// must still be written (the byte becomes U+FFFD) rather than fail the finished run.
TEST(HostileValues, InputNameThatIsNotUtf8StillGivesAResultJson) {
  const ScratchDir dir("hostile");
  const auto input = edited_input(dir / "caf\xe9.npy", [](auto&) {});
  std::vector<float> pac;
  run_pac(input, dir / "out", pac);
  const json result = json::parse(testing::read_file(dir / "out" / "result.json"));
  EXPECT_NE(result["input"]["path"].get<std::string>().find("caf\xef\xbf\xbd.npy"), std::string::npos)
      << result["input"]["path"];
}

TEST(HostileValues, UnknownNanPolicyIsRefusedNamingTheParameter) {
  const ScratchDir dir("hostile");
  const auto input = edited_input(dir / "x.npy", [](auto&) {});
  std::vector<float> pac;
  const std::string error = hostile_error_of([&] { run_pac(input, dir / "out", pac, {{"nan_policy", "ignore"}}); });
  EXPECT_NE(error.find("parameter \"nan_policy\": must be one of reject, zero, skip, got \"ignore\""),
            std::string::npos)
      << error;
}

TEST(HostileValues, ZeroChannelsOrEpochsAreRefused) {
  const ScratchDir dir("hostile");
  NpyWriter(dir / "none.npy", {2, 0, 64}).commit();
  std::vector<float> pac;
  std::string error = hostile_error_of([&] { run_pac(dir / "none.npy", dir / "out", pac); });
  EXPECT_NE(error.find("array of shape [2, 0, 64] holds no series of at least 2 samples"), std::string::npos) << error;
  for (const char* empty : {"channels", "epochs"}) {
    error = hostile_error_of([&] {
      Pipeline(stages::builtin_registry())
          .source("synthetic", {{empty, 0}})
          .stage("bandpass")
          .stage("hilbert")
          .stage("mi")
          .sink("npy", {{"dir", (dir / "out").string()}})
          .validate();
    });
    EXPECT_NE(error.find(std::string("parameter \"") + empty + "\""), std::string::npos) << error;
  }
}

TEST(HostileValues, SeriesTooShortForTheFilterIsRefusedNamingTheBand) {
  const ScratchDir dir("hostile");
  NpyWriter writer(dir / "short.npy", {1, 1, 3});
  const float x[3] = {1, -1, 2};
  writer.append(x, 3);
  writer.commit();
  std::vector<float> pac;
  const std::string error = hostile_error_of([&] { run_pac(dir / "short.npy", dir / "out", pac); });
  EXPECT_NE(error.find("series of 3 samples are too short to filter band [4, 8] Hz"), std::string::npos) << error;
}

// One surrogate has no spread: z is NaN (spec: NaN where std = 0), and p = (1 + [MI_1 >= MI]) / 2 is
// 1/2 or 1, with a warning.
TEST(HostileValues, SingleSurrogateGivesNanZAndHalfOrWholePValuesWithAWarning) {
  const ScratchDir dir("hostile");
  const json report = Pipeline(stages::builtin_registry())
                          .source("npy", {{"path", (testing::data_dir() / "small" / "x.npy").string()}, {"fs", 256}})
                          .stage("bandpass", {{"pha", json::parse("[[4,8]]")}, {"amp", json::parse("[[60,80]]")}})
                          .stage("hilbert")
                          .stage("mi")
                          .stage("surrogates", {{"n", 1}})
                          .sink("npy", {{"dir", (dir / "out").string()}})
                          .run().to_json();
  EXPECT_TRUE(mentions(report, "single permutation have no spread")) << report["warnings"];
  for (float z : testing::load_floats(dir / "out" / "pac_z.npy")) EXPECT_TRUE(std::isnan(z));
  const auto pac = testing::load_floats(dir / "out" / "pac.npy");
  const auto surrogate = testing::load_floats(dir / "out" / "surrogate_mean.npy");  // the one surrogate
  const auto p = testing::load_floats(dir / "out" / "pvalues.npy");
  ASSERT_EQ(p.size(), pac.size());
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p[i], surrogate[i] >= pac[i] ? 1.0f : 0.5f) << i;
  for (float v : testing::load_floats(dir / "out" / "pvalues_maxstat.npy")) EXPECT_TRUE(v == 0.5f || v == 1.0f) << v;
}

TEST(HostileValues, OneBinAndAbsurdBandCountsAreRefusedNamingTheParameter) {
  const ScratchDir dir("hostile");
  const auto input = edited_input(dir / "x.npy", [](auto&) {});
  std::vector<float> pac;
  std::string error = hostile_error_of([&] { run_pac(input, dir / "out", pac, json::object(), {{"bins", 1}}); });
  EXPECT_NE(error.find("parameter \"bins\": must be from 2 to 1024, got 1"), std::string::npos) << error;
  error = hostile_error_of([&] {
    Pipeline(stages::builtin_registry())
        .source("synthetic")
        .stage("bandpass", {{"amp", "60:160:100001"}})
        .stage("hilbert")
        .stage("mi")
        .sink("npy", {{"dir", (dir / "out").string()}})
        .validate();
  });
  EXPECT_NE(error.find("band count in \"60:160:100001\" must be a whole number from 1 to 100000"), std::string::npos)
      << error;
}

// A band count within the limit but too big for the memory at hand is refused before anything runs,
// with the estimate (here against an explicit limit, so the test does not depend on the machine).
TEST(HostileValues, HugeBandCountIsRefusedUpFrontByTheMemoryLimit) {
  const ScratchDir dir("hostile");
  RunOptions options;
  options.max_memory = MemoryBudget{0x1p28, 0};
  const std::string error = hostile_error_of([&] {
    Pipeline(stages::builtin_registry())
        .source("synthetic")
        .stage("bandpass", {{"amp", "60:160:5000"}})
        .stage("hilbert")
        .stage("mi")
        .sink("npy", {{"dir", (dir / "out").string()}})
        .run(options);
  });
  EXPECT_NE(error.find("the run needs an estimated"), std::string::npos) << error;
  EXPECT_NE(error.find("more than the memory limit of 256.0 MiB"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// A finite sample too large for the float32 arithmetic (one 1e38 spike: its filter FFT overflows,
// once silently giving MI 0 and z NaN) is refused naming it, or handled by nan_policy like a NaN.
TEST(HostileValues, SampleBeyondTheFloat32RangeIsRefusedNamingItOrLeftOutWithSkip) {
  const ScratchDir dir("hostile");
  const auto clean = edited_input(dir / "clean.npy", [](auto&) {});
  const auto spike = edited_input(dir / "spike.npy", [](auto& x) { hostile_sample(x, 1, 2, 17) = 1e38f; });
  std::vector<float> reference, pac;
  const std::string error = hostile_error_of([&] { run_pac(spike, dir / "out", pac); });
  EXPECT_NE(error.find("spike.npy: value 1e+38 at epoch 1, channel 2, sample 17: beyond ±1e+20"), std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));

  run_pac(clean, dir / "clean", reference);
  const json report = run_pac(spike, dir / "skip", pac, {{"nan_policy", "skip"}});
  EXPECT_TRUE(mentions(report, "epoch 1, channel 2 (1 sample beyond ±1e+20)")) << report["warnings"];
  EXPECT_EQ(report["input"]["out_of_range_samples"], 1);
  for (std::size_t at = 0; at < pac.size(); ++at) {
    if (at / 4 == 5)
      EXPECT_TRUE(std::isnan(pac[at])) << at;
    else
      EXPECT_EQ(pac[at], reference[at]) << at;
  }
}

// Up to the bound the arithmetic stays exact where it matters: Tort's MI does not depend on the
// amplitude's scale, so data scaled to samples near 1e20 give the MI of the data as they are.
TEST(HostileValues, SamplesNearTheBoundGiveTheSameMiAsTheDataUnscaled) {
  const ScratchDir dir("hostile");
  float largest = 0;
  const auto clean = edited_input(dir / "clean.npy", [&](auto& x) {
    for (float v : x) largest = std::max(largest, std::abs(v));
  });
  const auto scaled = edited_input(dir / "scaled.npy", [&](auto& x) {
    for (float& v : x) v *= static_cast<float>(0.9e20 / largest);
  });
  std::vector<float> reference, pac;
  run_pac(clean, dir / "clean", reference);
  run_pac(scaled, dir / "scaled", pac);
  ASSERT_EQ(pac.size(), reference.size());
  for (std::size_t at = 0; at < pac.size(); ++at) {
    ASSERT_TRUE(std::isfinite(pac[at])) << at;
    EXPECT_NEAR(pac[at], reference[at], 1e-4 * reference[at] + 1e-9) << at;
  }
}

// The other end of the float32 range: a recording scaled by 1e-44 (every sample subnormal), or a
// series of zeros but for one 1e-45 sample, once band-passed to zeros: MI exactly 0 or 1, z NaN, exit
// code 0. Such a series is refused naming it (the CLI exits with 2), before any result is written.
TEST(HostileValues, SeriesOfSubnormalSamplesIsRefusedNamingIt) {
  const ScratchDir dir("hostile");
  float largest = 0;
  const auto scaled = edited_input(dir / "scaled.npy", [&](auto& x) {
    for (float v : x) largest = std::max(largest, std::abs(v));
    for (float& v : x) v = static_cast<float>(v / largest * 1e-44);
  });
  std::vector<float> pac;
  std::string error = hostile_error_of([&] { run_pac(scaled, dir / "out", pac); });
  // Every series is too small; whichever batch comes first names its first.
  EXPECT_NE(error.find("is too small to filter: its largest sample magnitude is "), std::string::npos) << error;
  EXPECT_NE(error.find(", below 1e-20, where pacflow's float32 filters underflow to 0"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));

  const auto one = edited_input(dir / "one.npy", [](auto& x) {
    for (std::int64_t t = 0; t < kLength; ++t) hostile_sample(x, 1, 2, t) = 0;
    hostile_sample(x, 1, 2, 500) = 1e-45f;
  });
  error = hostile_error_of([&] { run_pac(one, dir / "out", pac); });
  EXPECT_NE(error.find("one.npy: epoch 1, channel 2 is too small to filter: its largest sample magnitude is "
                       "1.4013e-45"),
            std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));
}

// What planning makes per channel is bounded (issue 17): a million channels once planned a million
// diag pairs and their JSON (347 MB in validate, 363 MB in a run under --max-memory 64MB, whose
// estimate saw none of it), and pairs=all of a thousand channels a million pairs. (The CLI's peak
// memory: Streaming.PlanningAMillionChannelsTakesNoMemoryPerChannel.)
TEST(HostileValues, MillionChannelsArePlannedWithoutPerChannelListsAndAllPairsOfThemAreRefused) {
  const ScratchDir dir("hostile");
  const json report = Pipeline(stages::builtin_registry())
                          .source("synthetic", {{"channels", 1000000}})
                          .stage("bandpass")
                          .stage("hilbert")
                          .stage("mi")
                          .sink("npy", {{"dir", (dir / "out").string()}})
                          .validate().to_json();
  const std::string text = report.dump();
  EXPECT_LT(text.size(), std::size_t{1} << 20) << "the plan lists something per channel";
  EXPECT_NE(text.find("each of the 1000000 channels with itself (diag)"), std::string::npos);

  std::string error = hostile_error_of([&] {
    Pipeline(stages::builtin_registry())
        .source("synthetic", {{"channels", 1000}})
        .stage("bandpass")
        .stage("hilbert")
        .stage("mi", {{"pairs", "all"}})
        .sink("npy", {{"dir", (dir / "out").string()}})
        .validate();
  });
  EXPECT_NE(error.find("parameter \"pairs\": all ordered pairs of 1000 channels are 1e+06 pairs, more than the 65536 "
                       "allowed"),
            std::string::npos)
      << error;
}

// Synthetic parameters whose samples would overflow (noise=1e37) or whose phase step does
// (pha_bw=1e308) are refused naming them, instead of NaN everywhere.
TEST(HostileValues, SyntheticParametersThatOverflowAreRefusedNamingThem) {
  const ScratchDir dir("hostile");
  for (const auto& [name, number, words] : {std::tuple{"noise", 1e37, "parameter \"noise\": must be from 0 to 1e+19"},
                                            std::tuple{"pha_bw", 1e308, "parameter \"pha_bw\": must be from 0 to fs/2"}}) {
    // Named copies: clang 14 cannot capture a structured binding in a lambda (C++20 allows it).
    const std::string key = name;
    const double value = number;
    const std::string error = hostile_error_of([&] {
      Pipeline(stages::builtin_registry())
          .source("synthetic", {{key, value}})
          .stage("bandpass")
          .stage("hilbert")
          .stage("mi")
          .sink("npy", {{"dir", (dir / "out").string()}})
          .validate();
    });
    EXPECT_NE(error.find(words), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace pacflow
