#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <gtest/gtest.h>
#include <set>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"
#include "stages/kernels/surrogates/surrogate_stats_cpu.hpp"
#include "stages/surrogates/surrogates_stage.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

TEST(Surrogates, ShiftsDependOnlyOnSeedAndIndexAndStayInRange) {
  std::set<std::int64_t> seen;
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const auto s = surrogates::timeshift(42, k, 64, 2048);
    ASSERT_GE(s, 64);
    ASSERT_LE(s, 2048 - 64);
    ASSERT_EQ(s, surrogates::timeshift(42, k, 64, 2048));
    seen.insert(s);
  }
  EXPECT_GT(seen.size(), 1000u);  // spread over the range, not a few values
  EXPECT_NE(surrogates::timeshift(42, 0, 64, 2048), surrogates::timeshift(43, 0, 64, 2048));
}

TEST(Surrogates, CellStatsArePopulationStatistics) {
  const double values[4] = {1, 2, 3, 4};
  const auto s = surrogates::cell_stats(3.5, values, 4, 1);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(s.z, 1.0 / std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(s.p, 2.0 / 5.0);  // (1 + #{4 >= 3.5}) / 5
  const double same[3] = {2, 2, 2};
  EXPECT_TRUE(std::isnan(surrogates::cell_stats(2, same, 3, 1).z));
}

// The CPU statistics run cell_stats' arithmetic on vectors of cells: every output equals the scalar
// definition cell by cell (cells not a multiple of any vector width, ties with the observed value),
// and maxstat counts the surrogates whose largest cell reaches the observed value.
TEST(Surrogates, CpuStatisticsEqualCellStatsForEveryCell) {
  const std::int64_t n = 37, cells = 13;
  std::vector<double> values(static_cast<std::size_t>((n + 1) * cells));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.01 * std::fmod(static_cast<double>(i * i % 97), 13.7);
  values[5 * cells + 2] = values[2];  // a tie counts as exceeding
  for (auto norm : {surrogates::Norm::Z, surrogates::Norm::Both}) {
    std::vector<std::vector<float>> out(6, std::vector<float>(static_cast<std::size_t>(cells + 3), -1.0f));
    const std::array<float*, 5> statistics = {out[0].data(), out[1].data(), out[2].data(), out[3].data(), out[4].data()};
    surrogates::surrogate_stats_on_cpu(values.data(), n, cells, statistics, out[5].data(), norm, 3);
    for (std::int64_t c = 0; c < cells; ++c) {
      const double observed = values[static_cast<std::size_t>(c)];
      const auto s = surrogates::cell_stats(observed, values.data() + cells + c, n, cells);
      std::int64_t exceed_max = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double* row = values.data() + (k + 1) * cells;
        exceed_max += *std::max_element(row, row + cells) >= observed ? 1 : 0;
      }
      const auto at = static_cast<std::size_t>(c + 3);
      EXPECT_EQ(out[0][at], static_cast<float>(s.z)) << c;
      EXPECT_EQ(out[1][at], static_cast<float>(s.mean)) << c;
      EXPECT_EQ(out[2][at], static_cast<float>(s.std)) << c;
      EXPECT_EQ(out[3][at], static_cast<float>(s.p)) << c;
      EXPECT_EQ(out[4][at], static_cast<float>(static_cast<double>(1 + exceed_max) / static_cast<double>(n + 1))) << c;
      EXPECT_EQ(out[5][at], static_cast<float>(surrogates::normalised(observed, s, norm))) << c;
    }
    EXPECT_EQ(out[0][0], -1.0f);  // nothing written before `at`
  }
}

// The statistics gathered a chunk of surrogates at a time (the stage past row_memory) are those of
// one pass over all of them, bit for bit, however the surrogates are cut; out of order is refused.
TEST(Surrogates, StatisticsGatheredInChunksAreTheBitsOfOnePass) {
  const std::int64_t n = 37, cells = 13;
  std::vector<double> values(static_cast<std::size_t>((n + 1) * cells));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.01 * std::fmod(static_cast<double>(i * i % 89), 11.3);
  values[9 * cells + 4] = values[4];  // a tie with the observed value
  const auto run = [&](const std::vector<std::int64_t>& cuts) {
    std::vector<std::vector<float>> out(6, std::vector<float>(static_cast<std::size_t>(cells)));
    const std::array<float*, 5> statistics = {out[0].data(), out[1].data(), out[2].data(), out[3].data(), out[4].data()};
    surrogates::StreamedStats stats(values.data(), cells);
    std::int64_t k = 0;
    for (const std::int64_t count : cuts) {
      stats.add(values.data() + (k + 1) * cells, k, count);
      k += count;
    }
    EXPECT_EQ(k, n);
    stats.write(n, statistics, out[5].data(), surrogates::Norm::Both, 0);
    return out;
  };
  const auto whole = run({n});
  for (const auto& cuts : std::vector<std::vector<std::int64_t>>{{1, 36}, {7, 7, 7, 7, 7, 2}, std::vector<std::int64_t>(37, 1),
                                                                  {0, 20, 0, 17}}) {
    const auto chunked = run(cuts);
    for (std::size_t o = 0; o < whole.size(); ++o)
      for (std::size_t c = 0; c < whole[o].size(); ++c)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(chunked[o][c]), std::bit_cast<std::uint32_t>(whole[o][c]))
            << "output " << o << " cell " << c << " cut into " << cuts.size();
  }
  surrogates::StreamedStats stats(values.data(), cells);
  stats.add(values.data() + cells, 0, 5);
  EXPECT_THROW(stats.add(values.data() + 7 * cells, 6, 3), std::logic_error);  // surrogate 5 skipped
  const std::array<float*, 5> none = {nullptr, nullptr, nullptr, nullptr, nullptr};
  EXPECT_THROW(stats.write(n, none, nullptr, surrogates::Norm::Z, 0), std::logic_error);  // 5 of 37 added
}

struct FixtureRun {
  json manifest;
  Batch batch;
};

FixtureRun run_small_with_fixture_shifts(const std::string& device) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"), device);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  h.add("hilbert", {{"pad", m["hilbert_pad"]}});
  h.add("mi", {{"bins", m["n_bins"]}});
  h.add("surrogates", {{"shifts", m["shifts"]}});
  return {m, h.run(x, 0, h.context().stream().series_count())};
}

class SurrogatesOn : public testing::OnDevice {};
INSTANTIATE_TEST_SUITE_P(Devices, SurrogatesOn, ::testing::ValuesIn(testing::test_devices()), testing::device_test_name);

TEST_P(SurrogatesOn, MeanStdAndZMatchFixtureWithExplicitShifts) {
  const auto run = run_small_with_fixture_shifts(device());
  const auto check = [&](const char* tensor, const char* file, double abs_tol, double rel_tol) {
    const auto ref = testing::load_doubles(data_dir() / "small" / file);
    const auto ours = run.batch.at(tensor).values<float>();
    ASSERT_EQ(ours.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
      EXPECT_NEAR(ours[i], ref[i], abs_tol + rel_tol * std::abs(ref[i])) << tensor << " cell " << i;
  };
  check("surrogate_mean", "surrogate_mean.npy", 2e-5, 1e-3);
  check("surrogate_std", "surrogate_std.npy", 2e-5, 1e-2);
  check("pac_z", "pac_z.npy", 1e-2, 0);
}

TEST_P(SurrogatesOn, PValuesMatchFixtureWithExplicitShifts) {
  const auto run = run_small_with_fixture_shifts(device());
  const double step = 1.0 / static_cast<double>(run.manifest["shifts"].size() + 1);
  for (const auto& [tensor, file] : {std::pair{"pvalues", "pvalues.npy"}, std::pair{"pvalues_maxstat", "pvalues_maxstat.npy"}}) {
    const auto ref = testing::load_doubles(data_dir() / "small" / file);
    const auto ours = run.batch.at(tensor).values<float>();
    ASSERT_EQ(ours.size(), ref.size());
    std::size_t exact = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      // A surrogate within float32 rounding of the observed MI may tie differently: one count at most.
      EXPECT_LE(std::abs(ours[i] - ref[i]), step + 1e-6) << tensor << " cell " << i;
      exact += std::abs(ours[i] - ref[i]) < 1e-6 ? 1 : 0;
    }
    EXPECT_GE(static_cast<double>(exact), 0.95 * static_cast<double>(ref.size())) << tensor;
  }
}

TEST(Surrogates, RejectsShiftOutsideSeries) {
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi");
  EXPECT_THROW(h.add("surrogates", {{"shifts", {5, 1024}}}), ParamError);
}

TEST(Surrogates, DefaultMinShiftIsOnePeriodOfLowestPhaseCentre) {
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi");
  h.context().begin_element();
  h.add("surrogates", {{"n", 50}});
  const json resolved = h.context().take_resolved();
  EXPECT_EQ(resolved["min_shift_samples"], 64);  // ceil(256 / 4)
  for (const auto& s : resolved["shifts"]) {
    EXPECT_GE(s.get<std::int64_t>(), 64);
    EXPECT_LE(s.get<std::int64_t>(), 1024 - 64);
  }
}

// A shift s moves the amplitude min(s, T - s) samples: s = 5 and s = T - 5 are both 5 samples from
// the observed alignment, and both below the default min_shift of 64 (one period of 4 Hz at 256 Hz).
TEST(Surrogates, ExplicitShiftsCloserThanMinShiftAreWarnedAbout) {
  auto warnings_for = [](json params) {
    testing::StageHarness h(testing::fixture_stream("small"));
    h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi");
    h.add("surrogates", std::move(params));
    return h.context().warnings();
  };
  const auto close = warnings_for({{"shifts", {5, 64, 500, 1019}}});
  ASSERT_EQ(close.size(), 1u);
  EXPECT_NE(close[0].find("shifts 5, 1019 are within min_shift = 64 samples"), std::string::npos) << close[0];
  EXPECT_NE(close[0].find("[64, 960]"), std::string::npos) << close[0];
  EXPECT_TRUE(warnings_for({{"shifts", {64, 500, 960}}}).empty());
  // An explicit min_shift is the threshold instead: 100 ms = 25.6 -> 26 samples.
  const auto given = warnings_for({{"shifts", {30, 20}}, {"min_shift", "100ms"}});
  ASSERT_EQ(given.size(), 1u);
  EXPECT_NE(given[0].find("shift 20 is within min_shift = 26 samples (given)"), std::string::npos) << given[0];
  EXPECT_NE(warnings_for({{"shifts", {3}}, {"method", "timelag"}}).at(0).find("moves the phase"), std::string::npos);
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

// timelag shifts the phase: its surrogate k is MI(phi((t + s_k) mod T), A(t)). Computed here
// directly from the fixture's phase and amplitude with per-sample sums, independently of the stage.
TEST_P(SurrogatesOn, TimelagShiftsThePhaseInsteadOfTheAmplitude) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"), device());
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("mi");
  const std::vector<std::int64_t> shifts = {47, 300, 700};
  h.add("surrogates", {{"shifts", shifts}, {"method", "timelag"}});
  const Batch batch = h.run(x, 0, 1);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  const std::size_t t = 1024, n_pha = 3, n_amp = 4;
  const int bins = 18;
  for (std::size_t p = 0; p < n_pha; ++p) {
    for (std::size_t a = 0; a < n_amp; ++a) {
      double sum = 0, squares = 0;
      for (auto s : shifts) {
        std::vector<double> sums(bins, 0.0);
        std::vector<std::int64_t> counts(bins, 0);
        for (std::size_t i = 0; i < t; ++i) {
          const auto j = static_cast<std::size_t>(mi::phase_bin(phase[p * t + (i + static_cast<std::size_t>(s)) % t], bins));
          sums[j] += amplitude[a * t + i];
          ++counts[j];
        }
        const double v = mi::tort_mi(sums.data(), counts.data(), bins);
        sum += v;
        squares += v * v;
      }
      const double mean = sum / 3, std = std::sqrt(std::max(0.0, squares / 3 - mean * mean));
      EXPECT_NEAR(batch.at("surrogate_mean").values<float>()[p * n_amp + a], mean, 1e-6) << p << "," << a;
      EXPECT_NEAR(batch.at("surrogate_std").values<float>()[p * n_amp + a], std, 1e-6) << p << "," << a;
    }
  }
}

// TensorPAC's swap_blocks (idpac[1] = 2, Bahramisharif et al. 2013) cuts each amplitude series at a
// point c and swaps the two blocks: [A(c..T-1), A(0..c-1)]. Built here literally, block by block,
// the surrogate's MI equals timeshift's with shifts=[c].
TEST(Surrogates, TimeshiftIsTensorPacsAmplitudeBlockSwap) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  const std::size_t t = 1024, n_pha = 3, n_amp = 4;
  const int bins = 18;
  for (const std::int64_t cut : {100, 517}) {
    testing::StageHarness h(testing::fixture_stream("small"));
    h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("mi");
    h.add("surrogates", {{"shifts", {cut}}});
    const Batch batch = h.run(x, 0, 1);
    const auto phase = batch.at("phase").values<float>();
    const auto amplitude = batch.at("amplitude").values<float>();
    for (std::size_t a = 0; a < n_amp; ++a) {
      const auto series = amplitude.begin() + static_cast<std::ptrdiff_t>(a * t);
      std::vector<float> swapped(series + cut, series + static_cast<std::ptrdiff_t>(t));
      swapped.insert(swapped.end(), series, series + cut);
      for (std::size_t p = 0; p < n_pha; ++p) {
        std::vector<double> sums(bins, 0.0);
        std::vector<std::int64_t> counts(bins, 0);
        for (std::size_t i = 0; i < t; ++i) {
          const auto j = static_cast<std::size_t>(mi::phase_bin(phase[p * t + i], bins));
          sums[j] += swapped[i];
          ++counts[j];
        }
        EXPECT_NEAR(batch.at("surrogate_mean").values<float>()[p * n_amp + a],
                    mi::tort_mi(sums.data(), counts.data(), bins), 1e-6)
            << "cut " << cut << ", cell " << p << "," << a;
      }
    }
  }
}

// A source that knows its shifts keep the coupling (the synthetic source's tort model) says so in its
// stream; the surrogates stage warns from that, whatever the source.
TEST(Surrogates, WarnsWhenTheSourceSaysShiftsKeepTheCoupling) {
  auto warnings_for = [](std::string why) {
    StreamInfo stream = testing::fixture_stream("small");
    stream.shifts_keep_coupling = std::move(why);
    testing::StageHarness h(std::move(stream));
    h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi").add("surrogates", {{"n", 20}});
    return h.context().warnings();
  };
  EXPECT_TRUE(warnings_for("").empty());
  const auto warned = warnings_for("a strictly periodic slow rhythm");
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_NE(warned[0].find("cannot reject the null here (TensorPAC issue 20): a strictly periodic slow rhythm"),
            std::string::npos)
      << warned[0];
}

// Epochs the source knows are not exchangeable (overlapping windows of one recording) get no
// permutation test over them all: when the source names the epochs that do not overlap, the test
// is made on those, saying so; else none by default, with a warning saying why, and refused when
// asked for (issue 36).
TEST(Surrogates, EpochsThatAreNotExchangeableGetNoPermutationTestAndSaySo) {
  const auto plan = [](std::string why, json trials, std::vector<std::int64_t> usable = {}) {
    StreamInfo stream = testing::fixture_stream("small");
    stream.leading_dims = {stream.series_count(), 1};  // its six series as six epochs of one channel
    stream.leading_names = {"epochs", "channels"};
    stream.labels.clear();
    stream.epochs_not_exchangeable = std::move(why);
    stream.exchangeable_epochs = std::move(usable);
    testing::StageHarness h(std::move(stream));
    json params{{"n", 20}};
    if (!trials.is_null()) params["trials"] = trials;
    h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi").add("surrogates", params);
    return std::pair{h.context().warnings(), json(h.context().resolved())};
  };
  const auto [plain_warnings, plain] = plan("", nullptr);
  ASSERT_EQ(plain["trials"], "maxstat") << "the fixture's epochs: four or more";
  const auto [warnings, resolved] = plan("3 pairs of consecutive epochs overlap in time", nullptr);
  EXPECT_EQ(resolved["trials"], "none");
  ASSERT_EQ(warnings.size(), plain_warnings.size() + 1);
  EXPECT_NE(warnings.back().find("trials: no trial-level test: 3 pairs of consecutive epochs overlap in time"),
            std::string::npos)
      << warnings.back();
  try {
    plan("3 pairs of consecutive epochs overlap in time", "maxstat");
    ADD_FAILURE() << "a permutation test over overlapping epochs was planned";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "trials");
    EXPECT_NE(std::string(e.what()).find("use epochs that do not overlap"), std::string::npos) << e.what();
  }
  // Six epochs, of which 0, 2 and 4 do not overlap: too few for trials=auto, enough when asked for.
  const auto [few_warnings, few] = plan("5 pairs of consecutive epochs overlap in time", nullptr, {0, 2, 4});
  EXPECT_EQ(few["trials"], "none");
  EXPECT_NE(few_warnings.back().find("only 3 epochs do not overlap (four are needed)"), std::string::npos)
      << few_warnings.back();
  const auto [subset_warnings, subset] = plan("5 pairs of consecutive epochs overlap in time", "maxstat", {0, 2, 4});
  EXPECT_EQ(subset["trial_epochs"], 3);
  EXPECT_EQ(subset["trial_left_out_epochs"], json::array({1, 3, 5}));
  const bool said = std::any_of(subset_warnings.begin(), subset_warnings.end(), [](const std::string& w) {
    return w.find("trials: the trial-level test uses the 3 of 6 epochs that do not overlap in time") !=
           std::string::npos;
  });
  EXPECT_TRUE(said) << ::testing::PrintToString(subset_warnings);
}

// The smallest p-value of every test is stated, and a correction that cannot reach 0.05 with the
// permutations given says so with the n that would (issue 36: Bonferroni over 25 cells, n = 200).
TEST(Surrogates, StatesTheSmallestPValueAndWarnsWhenTheCorrectionCannotReachFivePercent) {
  const auto plan = [](std::int64_t n, const char* trials) {
    StreamInfo stream = testing::fixture_stream("small");
    stream.leading_dims = {stream.series_count(), 1};  // six epochs of one channel: 720 orderings
    stream.leading_names = {"epochs", "channels"};
    stream.labels.clear();
    testing::StageHarness h(std::move(stream));
    h.add("bandpass", {{"pha", "4:8:5"}, {"amp", "60:80:5"}}).add("hilbert").add("mi");
    h.add("surrogates", {{"n", n}, {"trials", trials}});
    return std::pair{h.context().warnings(), json(h.context().resolved())};
  };
  const auto has = [](const std::vector<std::string>& warnings, const std::string& part) {
    return std::any_of(warnings.begin(), warnings.end(), [&](const auto& w) { return w.find(part) != std::string::npos; });
  };
  const auto [bonferroni_warnings, bonferroni] = plan(200, "bonferroni");
  EXPECT_DOUBLE_EQ(bonferroni["p_floor"].get<double>(), 1.0 / 201);
  EXPECT_DOUBLE_EQ(bonferroni["trial_p_floor"].get<double>(), 25.0 / 201);
  EXPECT_TRUE(has(bonferroni_warnings, "trials=bonferroni: the smallest p-value it can give is 0.124 (1/201 times the "
                                       "family's 25 cells), above 0.05: no cell can be significant at 0.05; use n=499 or more"))
      << ::testing::PrintToString(bonferroni_warnings);
  const auto [enough_warnings, enough] = plan(499, "bonferroni");
  EXPECT_FALSE(has(enough_warnings, "smallest p-value")) << ::testing::PrintToString(enough_warnings);
  const auto [maxstat_warnings, maxstat] = plan(200, "maxstat");
  EXPECT_DOUBLE_EQ(maxstat["trial_p_floor"].get<double>(), 1.0 / 201);
  EXPECT_FALSE(has(maxstat_warnings, "smallest p-value"));
  // Six epochs have 720 orderings: with n = 719 or more the test takes every one of them, exactly.
  const auto [all_warnings, all] = plan(1000, "maxstat");
  EXPECT_EQ(all["trial_permutations"], 719);
  EXPECT_DOUBLE_EQ(all["trial_p_floor"].get<double>(), 1.0 / 720);
  EXPECT_NE(all["trial_null"].get<std::string>().find("every ordering"), std::string::npos) << all["trial_null"];
  const auto [few_warnings, few] = plan(9, "maxstat");
  EXPECT_DOUBLE_EQ(few["trial_p_floor"].get<double>(), 0.1);
  EXPECT_TRUE(has(few_warnings, "trials=maxstat: the smallest p-value it can give is 0.1, above 0.05: no cell can be "
                                "significant at 0.05; use n=19 or more"))
      << ::testing::PrintToString(few_warnings);
}

}  // namespace
}  // namespace pacflow
