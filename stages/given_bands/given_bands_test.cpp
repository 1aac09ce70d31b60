#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"
#include "stages/io/memory/memory_sink.hpp"
#include "stages/io/memory/memory_source.hpp"

namespace pacflow::stages {
namespace {

constexpr std::int64_t kE = 4, kGivenBandsT = 512;
const json kPha = json::parse("[[4,8],[8,12]]");
const json kAmp = json::parse("[[60,80],[80,100],[100,120]]");

std::vector<float> coupled_signals() {
  std::vector<float> x(static_cast<std::size_t>(kE * kGivenBandsT));
  for (std::int64_t e = 0; e < kE; ++e)
    for (std::int64_t t = 0; t < kGivenBandsT; ++t) {
      const double tt = static_cast<double>(t) / 256.0, slow = std::sin(2 * M_PI * 6 * tt + 0.7 * static_cast<double>(e));
      x[static_cast<std::size_t>(e * kGivenBandsT + t)] =
          static_cast<float>(slow + (1 + slow) * 0.3 * std::sin(2 * M_PI * 90 * tt) + 0.05 * std::cos(0.37 * static_cast<double>(t * (e + 1))));
    }
  return x;
}

struct InMemory {
  Registry registry = builtin_registry();
  std::shared_ptr<ResultArrays> results = std::make_shared<ResultArrays>();
  std::shared_ptr<HostArray> input = std::make_shared<HostArray>();
  explicit InMemory(const std::vector<float>& values, Shape shape) {
    input->data = reinterpret_cast<const std::byte*>(values.data());
    input->shape = std::move(shape);
    registry.add(MemorySource::info(input));
    registry.add(MemorySink::info(results));
  }
  const ResultArray& operator[](const std::string& name) const {
    for (const auto& a : results->arrays)
      if (a.name == name) return a;
    throw std::out_of_range(name);
  }
};

// Given the hilbert stage's own phases and amplitudes, mi and surrogates compute exactly what they
// compute after bandpass and hilbert: the same bits.
TEST(GivenBands, GivenTheHilbertStagesOutputMiAndSurrogatesGiveTheSameBits) {
  const auto x = coupled_signals();
  InMemory filtered(x, {kE, kGivenBandsT});
  Pipeline(filtered.registry)
      .source("array", {{"fs", 256}, {"layout", "ET"}})
      .stage("bandpass", {{"pha", kPha}, {"amp", kAmp}})
      .stage("hilbert", {{"outputs", "phase,amplitude"}})
      .stage("mi")
      .stage("surrogates", {{"n", 16}, {"trials", "none"}})
      .sink("arrays")
      .run();
  const ResultArray& phase = filtered["phase"];
  const ResultArray& amplitude = filtered["amplitude"];
  // Each epoch's rows, phases then amplitudes: [E][2 + 3][T]
  std::vector<float> stacked;
  for (std::int64_t e = 0; e < kE; ++e) {
    const auto p = phase.values.begin() + e * 2 * kGivenBandsT, a = amplitude.values.begin() + e * 3 * kGivenBandsT;
    stacked.insert(stacked.end(), p, p + 2 * kGivenBandsT);
    stacked.insert(stacked.end(), a, a + 3 * kGivenBandsT);
  }
  InMemory given(stacked, {kE, 5 * kGivenBandsT});
  Pipeline(given.registry)
      .source("array", {{"fs", 256}, {"layout", "ET"}})
      .stage("given_bands", {{"pha", kPha}, {"amp", kAmp}})
      .stage("mi")
      .stage("surrogates", {{"n", 16}, {"trials", "none"}})
      .sink("arrays")
      .run();
  for (const char* name : {"pac", "pac_z", "pvalues"}) {
    EXPECT_EQ(given[name].shape, filtered[name].shape) << name;
    EXPECT_EQ(given[name].values, filtered[name].values) << name;
  }
}

std::string given_bands_error_of(const std::vector<float>& values, Shape shape, json given = {{"pha", kPha}, {"amp", kAmp}},
                     json source = {{"fs", 256}, {"layout", "ET"}}) {
  InMemory run(values, std::move(shape));
  try {
    Pipeline(run.registry).source("array", source).stage("given_bands", given).stage("mi").sink("arrays").run();
  } catch (const InputError& e) {
    return e.what();
  } catch (const StageError& e) {
    return e.input_error() ? e.what() : std::string("(not input) ") + e.what();
  }
  return "(no error)";
}

TEST(GivenBands, PhasesAreWrappedAndOutOfRangeValuesRefusedByName) {
  std::vector<float> rows(static_cast<std::size_t>(5 * kGivenBandsT), 1.0f);  // one epoch: 2 phase rows, 3 amplitude rows
  for (std::int64_t t = 0; t < 2 * kGivenBandsT; ++t)
    rows[static_cast<std::size_t>(t)] = static_cast<float>(2 * std::numbers::pi * static_cast<double>(t % 64) / 64.0);  // [0, 2 pi)
  EXPECT_EQ(given_bands_error_of(rows, {1, 5 * kGivenBandsT}), "(no error)");  // [0, 2 pi) is wrapped, as TensorPAC does
  auto degrees = rows;
  degrees[70] = 180.0f;
  EXPECT_NE(given_bands_error_of(degrees, {1, 5 * kGivenBandsT}).find("series 0, phase band 0, sample 70: 180 is not a phase in radians"),
            std::string::npos);
  auto negative = rows;
  negative[static_cast<std::size_t>(2 * kGivenBandsT + kGivenBandsT + 3)] = -0.5f;
  EXPECT_NE(given_bands_error_of(negative, {1, 5 * kGivenBandsT}).find("series 0, amplitude band 1, sample 3: -0.5 is not an amplitude"),
            std::string::npos);
  EXPECT_NE(given_bands_error_of(rows, {1, 5 * kGivenBandsT - 1}).find("not 5 rows (2 phase, 3 amplitude bands) of the same length"),
            std::string::npos);
  EXPECT_NE(given_bands_error_of(rows, {1, 5 * kGivenBandsT}, {{"pha", kPha}, {"amp", json::parse("[[60,200]]")}}).find("Nyquist"),
            std::string::npos);
  EXPECT_NE(given_bands_error_of(rows, {1, 5 * kGivenBandsT}, {{"pha", kPha}, {"amp", kAmp}}, {{"fs", 256}, {"layout", "ET"}, {"pad", "8smp"}})
                .find("pad"),
            std::string::npos);
}

// The usual series is checked in vectors: a value out of place anywhere (each lane of the first
// vectors, the tail, the last sample of a row) is still found and named, and a phase that needs
// wrapping anywhere is wrapped, as the value-by-value checks do it.
TEST(GivenBands, ValuesOutOfPlaceAreFoundAtEveryPositionOfTheVectors) {
  std::vector<float> rows(static_cast<std::size_t>(5 * kGivenBandsT), 1.0f);
  for (std::int64_t t = 0; t < 2 * kGivenBandsT; ++t)
    rows[static_cast<std::size_t>(t)] = static_cast<float>(3.0 * std::sin(0.1 * static_cast<double>(t)));  // in (−π, π]
  ASSERT_EQ(given_bands_error_of(rows, {1, 5 * kGivenBandsT}), "(no error)");
  const auto pac_of = [](const std::vector<float>& values) {
    InMemory run(values, {1, 5 * kGivenBandsT});
    Pipeline(run.registry)
        .source("array", {{"fs", 256}, {"layout", "ET"}})
        .stage("given_bands", {{"pha", kPha}, {"amp", kAmp}})
        .stage("mi")
        .sink("arrays")
        .run();
    return run["pac"].values;
  };
  for (const std::int64_t t : {0, 1, 5, 7, 8, 15, 16, 17, 31, 33, 500, 510, 511}) {
    const auto at = [&](std::int64_t band) { return static_cast<std::size_t>(band * kGivenBandsT + t); };
    // (NaN and infinities are the source's to refuse, before any stage.)
    for (const float bad : {7.0f, -6.5f}) {
      auto phase = rows;
      phase[at(1)] = bad;
      EXPECT_NE(given_bands_error_of(phase, {1, 5 * kGivenBandsT}).find(fmt::format("phase band 1, sample {}: {} is not a phase", t, bad)),
                std::string::npos)
          << t;
    }
    for (const float bad : {-0.5f, -1e-30f}) {
      auto amplitude = rows;
      amplitude[at(2 + 2)] = bad;
      EXPECT_NE(given_bands_error_of(amplitude, {1, 5 * kGivenBandsT}).find(fmt::format("amplitude band 2, sample {}: {} is not an amplitude", t, bad)),
                std::string::npos)
          << t << " " << bad;
    }
    auto wrapped = rows, by_hand = rows;
    wrapped[at(0)] = 3.5f;
    wrapped[at(1)] = std::numbers::pi_v<float>;  // just above π in double: wrapped to just above −π
    by_hand[at(0)] = static_cast<float>(3.5 - 2 * std::numbers::pi);
    by_hand[at(1)] = static_cast<float>(static_cast<double>(std::numbers::pi_v<float>) - 2 * std::numbers::pi);
    EXPECT_EQ(pac_of(wrapped), pac_of(by_hand)) << t;
  }
}

// An amplitude row of zeros (TensorPAC's amplitude of a silent channel) or of subnormal values once
// gave MI exactly 0 and NaN z-scores, exit code 0; it is refused naming the series and the band. A
// series of zeros throughout, the stand-in for one that nan_policy=skip left out, still runs.
TEST(GivenBands, AmplitudeRowOfZerosOrSubnormalsIsRefusedNamingSeriesAndBand) {
  std::vector<float> rows(static_cast<std::size_t>(5 * kGivenBandsT), 1.0f);  // one epoch: 2 phase rows, 3 amplitude rows
  for (std::int64_t t = 0; t < 2 * kGivenBandsT; ++t)
    rows[static_cast<std::size_t>(t)] = static_cast<float>(2 * std::numbers::pi * static_cast<double>(t % 64) / 64.0);
  ASSERT_EQ(given_bands_error_of(rows, {1, 5 * kGivenBandsT}), "(no error)");
  auto silent = rows;
  std::fill(silent.begin() + 4 * kGivenBandsT, silent.end(), 0.0f);  // amplitude band 2
  std::string error = given_bands_error_of(silent, {1, 5 * kGivenBandsT});
  EXPECT_NE(error.find("given_bands: series 0 (epoch 0, channel 0), amplitude band 2 ([100, 120] Hz): every "
                       "amplitude is 0, so there is no amplitude to distribute over the phase bins"),
            std::string::npos)
      << error;
  auto tiny = rows;
  std::fill(tiny.begin() + 3 * kGivenBandsT, tiny.begin() + 4 * kGivenBandsT, 1e-44f);  // amplitude band 1, subnormal
  error = given_bands_error_of(tiny, {1, 5 * kGivenBandsT});
  EXPECT_NE(error.find("series 0 (epoch 0, channel 0), amplitude band 1 ([80, 100] Hz): the largest amplitude is "
                       "9.80909e-45, below 1e-20"),
            std::string::npos)
      << error;
  // Epoch 1 all zeros, left out by nan_policy=skip: its results are NaN, nothing is refused.
  auto left_out = rows;
  left_out.resize(2 * rows.size(), 0.0f);
  EXPECT_EQ(given_bands_error_of(left_out, {2, 5 * kGivenBandsT}, {{"pha", kPha}, {"amp", kAmp}},
                     {{"fs", 256}, {"layout", "ET"}, {"nan_policy", "skip"}}),
            "(no error)");
}

}  // namespace
}  // namespace pacflow::stages
