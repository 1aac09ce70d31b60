// The edf source against recordings the tests write with EDFlib (EDF+, BDF+) or by hand (plain
// EDF): physical values within one digital step of what was written, channel selection, fixed and
// event epochs, and one clear error naming the file for each hostile file.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <tuple>
#include <numbers>

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/io/edf/edf_source.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;

constexpr int kEdfRate = 128;
constexpr int kEdfSeconds = 10;

// The physical value written for channel c at sample t (uV), well inside +-500 uV.
double written(std::size_t c, std::int64_t t) {
  return 200.0 * std::sin(2 * std::numbers::pi * 3.0 * static_cast<double>(t) / kEdfRate + static_cast<double>(c)) +
         25.0 * static_cast<double>(c) + static_cast<double>(t % 11);
}

std::vector<EdfSignalSpec> specs(const std::vector<std::string>& labels, bool bdf, std::vector<int> rates = {}) {
  std::vector<EdfSignalSpec> out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EdfSignalSpec s;
    s.label = labels[i];
    s.sample_rate = rates.empty() ? kEdfRate : rates[i];
    if (bdf) s.digital_min = -8388608, s.digital_max = 8388607;
    out.push_back(s);
  }
  return out;
}

struct Annotation {
  double onset_s;
  std::string text;
  double duration_s = -1;  // none: an instant
};

fs::path write_recording(const fs::path& path, bool bdf, const std::vector<std::string>& labels = {"Fz", "Cz", "Pz", "Oz"},
                         const std::vector<Annotation>& annotations = {}, std::vector<int> rates = {}) {
  const auto signals = specs(labels, bdf, rates);
  EdfWriter writer(path.string(), bdf, signals);
  for (int r = 0; r < kEdfSeconds; ++r) {
    std::vector<std::vector<double>> record(signals.size());
    for (std::size_t c = 0; c < signals.size(); ++c)
      for (int i = 0; i < signals[c].sample_rate; ++i)
        record[c].push_back(written(c, std::int64_t{r} * signals[c].sample_rate + i));
    writer.write_record(record);
  }
  for (const auto& a : annotations) writer.annotate(a.onset_s, a.text, a.duration_s);
  writer.close();
  return path;
}

std::unique_ptr<EdfSource> edf_make_source(const fs::path& path, json params = json::object()) {
  params["path"] = path.string();
  return make_element<EdfSource>(params);
}

std::vector<float> edf_read_all(EdfSource& source, const StreamInfo& s, std::int64_t batch = 3) {
  std::vector<float> out(static_cast<std::size_t>(s.series_count() * s.series_length));
  for (std::int64_t first = 0; first < s.series_count(); first += batch)
    source.read(first, std::min(batch, s.series_count() - first), out.data() + first * s.series_length);
  return out;
}

// Every sample of epoch e, channel c equals written(file channel, epoch start + t) within one
// digital step (plus float32 rounding).
void expect_samples(const std::vector<float>& got, const StreamInfo& s, const std::vector<std::size_t>& file_channels,
                    const std::vector<std::int64_t>& starts, double step) {
  const std::int64_t C = s.leading_dims[1], T = s.series_length;
  ASSERT_EQ(s.leading_dims[0], static_cast<std::int64_t>(starts.size()));
  for (std::int64_t e = 0; e < s.leading_dims[0]; ++e)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t t = 0; t < T; ++t) {
        const double expected = written(file_channels[static_cast<std::size_t>(c)], starts[static_cast<std::size_t>(e)] + t);
        const float value = got[static_cast<std::size_t>((e * C + c) * T + t)];
        ASSERT_NEAR(value, expected, step + std::abs(expected) * 0x1p-23) << "epoch " << e << " channel " << c << " t " << t;
      }
}

std::string edf_open_error(const fs::path& path, json params = json::object()) {
  try {
    edf_make_source(path, std::move(params))->open({});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EdfSource, ReadsEdfPlusAndBdfPlusInPhysicalUnitsWithinOneDigitalStep) {
  testing::ScratchDir dir("edf_values");
  for (const bool bdf : {false, true}) {
    SCOPED_TRACE(bdf ? "BDF+" : "EDF+");
    const auto path = write_recording(dir / (bdf ? "a.bdf" : "a.edf"), bdf);
    const auto source = edf_make_source(path);
    const StreamInfo s = source->open({});
    EXPECT_EQ(s.description["format"], bdf ? "BDF+" : "EDF+");
    EXPECT_EQ(s.leading_dims, (Shape{1, 4}));
    EXPECT_EQ(s.series_length, kEdfRate * kEdfSeconds);
    EXPECT_EQ(s.sample_rate, kEdfRate);
    EXPECT_EQ(s.labels.at(1), (std::vector<std::string>{"Fz", "Cz", "Pz", "Oz"}));
    EXPECT_EQ(s.description["units"][0], "uV");
    const double step = 1000.0 / (bdf ? 16777215.0 : 65535.0);  // physical range / digital steps
    EXPECT_DOUBLE_EQ(s.description["resolution_per_step"][0].get<double>(), step);
    expect_samples(edf_read_all(*source, s), s, {0, 1, 2, 3}, {0}, step);
  }
}

TEST(EdfSource, SelectsChannelsByLabelAndIndexInTheOrderGiven) {
  testing::ScratchDir dir("edf_channels");
  const auto path = write_recording(dir / "a.edf", false);
  const double step = 1000.0 / 65535.0;
  const std::vector<std::pair<json, std::vector<std::size_t>>> cases = {
      {"Pz,Fz", {2, 0}}, {"1-2", {1, 2}}, {json::array({3, "Fz"}), {3, 0}}, {"0-1,Oz", {0, 1, 3}}, {2, {2}}};
  for (const auto& [spec, expected] : cases) {
    SCOPED_TRACE(spec.dump());
    const auto source = edf_make_source(path, {{"channels", spec}});
    const StreamInfo s = source->open({});
    ASSERT_EQ(s.leading_dims[1], static_cast<std::int64_t>(expected.size()));
    EXPECT_EQ(s.description["channel_indices"].get<std::vector<std::size_t>>(), expected);
    expect_samples(edf_read_all(*source, s), s, expected, {0}, step);
  }
  const std::string unknown = edf_open_error(path, {{"channels", "Fz,Cx"}});
  EXPECT_NE(unknown.find(path.string() + ": no channel labelled \"Cx\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("did you mean"), std::string::npos) << unknown;
  EXPECT_NE(edf_open_error(path, {{"channels", "0-4"}}).find("index 4 is out of range"), std::string::npos);
  EXPECT_NE(edf_open_error(path, {{"channels", "Fz,0"}}).find("selected twice"), std::string::npos);
}

TEST(EdfSource, CutsFixedWindowsWithAStep) {
  testing::ScratchDir dir("edf_windows");
  const auto path = write_recording(dir / "a.edf", false);
  {
    const auto overlapping = edf_make_source(path, {{"epoch", "2s"}, {"step", "1s"}, {"channels", "Cz,Oz"}});
    const StreamInfo s = overlapping->open({});
    std::vector<std::int64_t> starts;
    for (int k = 0; k < 9; ++k) starts.push_back(k * kEdfRate);  // 0 s .. 8 s: the last window ends at 10 s
    EXPECT_EQ(s.series_length, 2 * kEdfRate);
    expect_samples(edf_read_all(*overlapping, s, 5), s, {1, 3}, starts, 1000.0 / 65535.0);
    // Overlapping windows are said to be so: no test may permute them as if independent (issue 36).
    EXPECT_EQ(s.description["epoching"]["overlapping_pairs"], 8);
    EXPECT_NE(s.epochs_not_exchangeable.find("8 pairs of consecutive epochs overlap in time (the first at 0 s; "
                                             "epochs of 2 s every 1 s)"),
              std::string::npos)
        << s.epochs_not_exchangeable;
    // The most of them no two of which overlap, among which epochs may be permuted: every second.
    EXPECT_EQ(s.exchangeable_epochs, (std::vector<std::int64_t>{0, 2, 4, 6, 8}));
    EXPECT_EQ(s.description["epoching"]["non_overlapping_epochs"], 5);
  }  // EDFlib opens a file once at a time

  const StreamInfo t = edf_make_source(path, {{"epoch", "3s"}})->open({});
  EXPECT_TRUE(t.epochs_not_exchangeable.empty()) << t.epochs_not_exchangeable;
  EXPECT_EQ(t.description["epoching"]["overlapping_pairs"], 0);
  EXPECT_EQ(t.leading_dims, (Shape{3, 4}));
  EXPECT_EQ(t.description["epoching"]["unused_trailing_samples"], kEdfRate);
  EXPECT_EQ(t.description["epoching"]["epoch_starts_samples"], json::array({0, 3 * kEdfRate, 6 * kEdfRate}));
  EXPECT_EQ(edf_make_source(path, {{"epoch", "256smp"}, {"step", "128 samples"}})->open({}).leading_dims, (Shape{9, 4}));
  EXPECT_NE(edf_open_error(path, {{"epoch", "11s"}}).find("longer than the recording"), std::string::npos);
}

TEST(EdfSource, CutsWindowsAroundAnnotationOnsetsAndWarnsAboutThoseThatDoNotFit) {
  testing::ScratchDir dir("edf_events");
  for (const bool bdf : {false, true}) {
    SCOPED_TRACE(bdf ? "BDF+" : "EDF+");
    const auto path = write_recording(dir / (bdf ? "a.bdf" : "a.edf"), bdf, {"Fz", "Cz"},
                                      {{2.0, "stim"}, {3.0, "other"}, {5.5, "stim"}, {9.5, "stim"}});
    const double step = 1000.0 / (bdf ? 16777215.0 : 65535.0);
    {
      const auto source = edf_make_source(path, {{"events", "stim"}, {"window", "-1s:3s"}});
      const StreamInfo s = source->open({});
      EXPECT_EQ(s.series_length, 4 * kEdfRate);
      // 9.5 s + 3 s runs past the end (10 s): skipped, with a warning naming it.
      ASSERT_EQ(s.warnings.size(), 1u);
      EXPECT_NE(s.warnings[0].find("1 of 3 \"stim\" events skipped"), std::string::npos) << s.warnings[0];
      EXPECT_NE(s.warnings[0].find("9.5"), std::string::npos) << s.warnings[0];
      expect_samples(edf_read_all(*source, s), s, {0, 1}, {1 * kEdfRate, static_cast<std::int64_t>(4.5 * kEdfRate)}, step);
    }
    {
      const auto in_samples = edf_make_source(path, {{"events", "other"}, {"window", "-64smp:64smp"}});
      const StreamInfo o = in_samples->open({});
      expect_samples(edf_read_all(*in_samples, o), o, {0, 1}, {3 * kEdfRate - 64}, step);
    }
    const std::string missing = edf_open_error(path, {{"events", "stimulus"}, {"window", "0s:1s"}});
    EXPECT_NE(missing.find("no annotation \"stimulus\"; the file has \"other\" (1x), \"stim\" (3x)"), std::string::npos)
        << missing;
  }
}

// MNE's reject_by_annotation: an epoch is left out when an annotation whose text begins with "bad"
// (any case) overlaps it: onset < epoch end and onset + duration > epoch start, in seconds.
// events=[go, nogo]: one condition per event type, epochs grouped by condition in the list's order
// and by onset within one; each epoch's condition travels with the stream and result.json names them.
TEST(EdfSource, SeveralEventTypesMakeConditionsWithTheirEpochsGrouped) {
  testing::ScratchDir dir("edf_conditions");
  const auto path = write_recording(dir / "c.edf", false, {"Fz", "Cz"},
                                    {{5.0, "nogo"}, {2.0, "go"}, {7.0, "go"}, {3.5, "nogo"}, {6.0, "BAD_eye", 0.5}});
  {
    const auto source = edf_make_source(path, {{"events", {"go", "nogo"}}, {"window", "-0.5s:0.5s"}});
    const StreamInfo s = source->open({});
    // go at 2 and 7 s, nogo at 3.5 and 5 s; none overlaps BAD_eye [6, 6.5)
    EXPECT_EQ(s.leading_dims, (Shape{4, 2}));
    EXPECT_EQ(s.condition_names, (std::vector<std::string>{"go", "nogo"}));
    EXPECT_EQ(s.epoch_conditions, (std::vector<std::int64_t>{0, 0, 1, 1}));
    EXPECT_EQ(s.description["epoching"]["epoch_starts_samples"], json::array({192, 832, 384, 576}));
    EXPECT_EQ(s.description["epoching"]["onsets_s"], json::array({2.0, 7.0, 3.5, 5.0}));
    EXPECT_EQ(s.description["conditions"][1], (json{{"name", "nogo"}, {"epochs", 2}, {"first_epoch", 2}}));
    const auto samples = edf_read_all(*source, s);
    expect_samples(samples, s, {0, 1}, {192, 832, 384, 576}, 1000.0 / 65535.0);
  }  // EDFlib opens a file once at a time

  // A rejected epoch leaves its condition with the others; a condition without epochs is refused.
  const StreamInfo rejected = edf_make_source(path, {{"events", {"go", "nogo"}}, {"window", "-1.5s:0.5s"}})->open({});
  EXPECT_EQ(rejected.epoch_conditions, (std::vector<std::int64_t>{0, 1, 1})) << "go at 7 s: [5.5, 7.5) overlaps BAD_eye";
  EXPECT_EQ(rejected.description["conditions"][0]["epochs"], 1);
  const std::string all_out = edf_open_error(path, {{"events", {"go", "BAD_eye"}}, {"window", "0s:0.2s"}});
  EXPECT_NE(all_out.find("every \"BAD_eye\" epoch is left out"), std::string::npos) << all_out;
  EXPECT_NE(edf_open_error(path, {{"events", {"go", "go"}}, {"window", "0s:1s"}}).find("\"go\" is listed twice"),
            std::string::npos);
}

TEST(EdfSource, EpochsOverlappingBadAnnotationsAreLeftOutAndListed) {
  testing::ScratchDir dir("edf_bad");
  const auto path = write_recording(dir / "a.edf", false, {"Fz", "Cz"},
                                    {{2.5, "BAD_muscle", 1.0},   // [2.5, 3.5]: epochs at 2 s and 3 s
                                     {7.25, "bad eye"},           // an instant inside the epoch at 7 s
                                     {5.0, "BAD_edge"},           // an instant on a boundary: inside none
                                     {8.5, "Stim", 0.2},          // not bad
                                     {3.0, "go"}, {6.0, "go"}});
  {
    const auto source = edf_make_source(path, {{"epoch", "1s"}});
    const StreamInfo s = source->open({});
    EXPECT_EQ(s.leading_dims, (Shape{7, 2}));
    EXPECT_EQ(s.description["epoching"]["epoch_starts_samples"],
              json::array({0, kEdfRate, 4 * kEdfRate, 5 * kEdfRate, 6 * kEdfRate, 8 * kEdfRate, 9 * kEdfRate}));
    const json& rejected = s.description["rejected_epochs"];
    ASSERT_EQ(rejected.size(), 3u);
    EXPECT_EQ(rejected[0]["start_s"], 2.0);
    EXPECT_EQ(rejected[0]["annotation"], "BAD_muscle");
    EXPECT_EQ(rejected[0]["annotation_duration_s"], 1.0);
    EXPECT_EQ(rejected[1]["start_s"], 3.0);
    EXPECT_EQ(rejected[2]["start_s"], 7.0);
    EXPECT_EQ(rejected[2]["annotation"], "bad eye");
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("3 of 10 epochs left out: overlapping \"BAD_muscle\" (2x), \"bad eye\" (1x)"),
              std::string::npos)
        << s.warnings[0];
    // The series are those of the epochs kept.
    expect_samples(edf_read_all(*source, s), s, {0, 1}, {0, kEdfRate, 4 * kEdfRate, 5 * kEdfRate, 6 * kEdfRate, 8 * kEdfRate, 9 * kEdfRate},
                   1000.0 / 65535.0);
  }  // EDFlib opens a file once at a time

  const StreamInfo all = edf_make_source(path, {{"epoch", "1s"}, {"reject_by_annotation", "none"}})->open({});
  EXPECT_EQ(all.leading_dims, (Shape{10, 2}));
  EXPECT_TRUE(all.warnings.empty());
  // Other prefixes, several at once: "Stim" spans [8.5, 8.7].
  const StreamInfo stim =
      edf_make_source(path, {{"epoch", "1s"}, {"reject_by_annotation", json::array({"stim", "bad_m"})}})->open({});
  EXPECT_EQ(stim.leading_dims, (Shape{7, 2}));
  // Around events too ([2.5, 3.5) overlaps BAD_muscle); the onsets kept are listed.
  const StreamInfo events = edf_make_source(path, {{"events", "go"}, {"window", "-0.5s:0.5s"}})->open({});
  EXPECT_EQ(events.leading_dims, (Shape{1, 2}));
  EXPECT_EQ(events.description["epoching"]["onsets_s"], json::array({6.0}));
  EXPECT_EQ(events.description["rejected_epochs"][0]["start_s"], 2.5);
}

TEST(EdfSource, EveryEpochLeftOutIsRefusedSayingWhatToDo) {
  testing::ScratchDir dir("edf_all_bad");
  const auto path = write_recording(dir / "a.edf", false, {"Fz"}, {{4.0, "BAD", 2.0}});
  const std::string whole = edf_open_error(path);
  try {
    edf_make_source(path)->open({});
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "reject_by_annotation");
  }
  EXPECT_NE(whole.find("every one of the 1 epochs is left out (overlapping \"BAD\" (1x)); cut the recording into "
                       "epochs (epoch=4s or events=)"),
            std::string::npos)
      << whole;
  EXPECT_EQ(edf_make_source(path, {{"epoch", "2s"}})->open({}).leading_dims, (Shape{4, 1}));  // 4-6 s out
}

// MNE's reject=: an epoch is left out when some channel's peak-to-peak amplitude exceeds the limit.
TEST(EdfSource, EpochsAboveThePeakToPeakLimitAreLeftOutNamingTheChannel) {
  testing::ScratchDir dir("edf_ptp");
  const auto path = dir / "spike.edf";
  {
    const auto signals = specs({"Fz", "Cz"}, false);
    EdfWriter writer(path.string(), false, signals);
    for (int r = 0; r < kEdfSeconds; ++r) {
      std::vector<std::vector<double>> record(2);
      for (std::size_t c = 0; c < 2; ++c)
        for (int i = 0; i < kEdfRate; ++i)
          record[c].push_back(written(c, std::int64_t{r} * kEdfRate + i) + (c == 1 && r == 6 && i == 40 ? 250.0 : 0.0));
      writer.write_record(record);
    }
    writer.close();
  }
  // Without the spike every epoch's peak-to-peak is at most 2 * 200 + 10 uV.
  {
    const auto source = edf_make_source(path, {{"epoch", "2s"}, {"reject_ptp", 500}});
    const StreamInfo s = source->open({});
    EXPECT_EQ(s.leading_dims, (Shape{4, 2}));
    ASSERT_EQ(s.description["rejected_epochs"].size(), 1u);
    const json& spiked = s.description["rejected_epochs"][0];
    EXPECT_EQ(spiked["start_s"], 6.0);
    EXPECT_EQ(spiked["channel"], "Cz");
    EXPECT_EQ(spiked["unit"], "uV");
    EXPECT_GT(spiked["peak_to_peak"].get<double>(), 500.0);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("1 of 5 epochs left out: 1 above reject_ptp at 6 s (Cz "), std::string::npos)
        << s.warnings[0];
  }
  EXPECT_EQ(edf_make_source(path, {{"epoch", "2s"}, {"reject_ptp", 800}})->open({}).leading_dims, (Shape{5, 2}));
  // Every epoch left out by the limit alone: blamed on reject_ptp, whose way out is named (issue 35).
  try {
    edf_make_source(path, {{"epoch", "2s"}, {"reject_ptp", 1}})->open({});
    ADD_FAILURE() << "every epoch left out, yet opened";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "reject_ptp");
    EXPECT_NE(std::string(e.what()).find("raise reject_ptp above 1"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("reject_by_annotation=none"), std::string::npos) << e.what();
  }
  // A limit that is not above 0 is refused naming the parameter (before the file is opened).
  const std::string negative = edf_open_error(path, {{"reject_ptp", -1}});
  EXPECT_NE(negative.find("must be greater than 0, got -1"), std::string::npos) << negative;
  try {
    edf_make_source(path, {{"reject_ptp", 0}});
    ADD_FAILURE() << "reject_ptp=0 was accepted";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "reject_ptp");
    EXPECT_EQ(e.bare_message(), "must be greater than 0, got 0");
  }
}

// pad=: each epoch is read with that much of the recording on each side; past the recording's ends
// an odd reflection stands in (x(-k) = 2 x(0) - x(k), x(N - 1 + k) = 2 x(N - 1) - x(N - 1 - k)),
// reported per epoch.
TEST(EdfSource, PaddedEpochsReadTheRecordingAroundThemAndReflectPastItsEnds) {
  testing::ScratchDir dir("edf_pad");
  const auto path = write_recording(dir / "a.edf", false, {"Fz", "Cz"});
  constexpr std::int64_t P = kEdfRate / 2, L = 2 * kEdfRate, N = kEdfSeconds * kEdfRate;
  const auto source = edf_make_source(path, {{"epoch", "2s"}, {"pad", "500ms"}, {"channels", "Cz"}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{5, 1}));
  EXPECT_EQ(s.series_length, L + 2 * P);
  EXPECT_EQ(s.pad, P);
  const auto x = [](std::int64_t i) {  // Cz as written, reflected past the ends
    if (i < 0) return 2 * written(1, 0) - written(1, -i);
    if (i >= N) return 2 * written(1, N - 1) - written(1, 2 * (N - 1) - i);
    return written(1, i);
  };
  const auto got = edf_read_all(*source, s, 2);
  for (std::int64_t e = 0; e < 5; ++e)
    for (std::int64_t t = 0; t < L + 2 * P; ++t) {
      const double expected = x(e * L - P + t);
      // Reflected values carry two samples' rounding.
      const double tolerance = 3 * 1000.0 / 65535.0 + std::abs(expected) * 0x1p-22;
      ASSERT_NEAR(got[static_cast<std::size_t>(e * (L + 2 * P) + t)], expected, tolerance) << "epoch " << e << " t " << t;
    }
  ASSERT_EQ(s.description["padding_missing"].size(), 2u);
  EXPECT_EQ(s.description["padding_missing"][0]["missing_before_samples"], P);
  EXPECT_EQ(s.description["padding_missing"][1]["epoch_start_s"], 8.0);
  EXPECT_EQ(s.description["padding_missing"][1]["missing_after_samples"], P);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("pad=64 samples reaches past the recording's ends for 2 of 5 epochs (at 0 s, 8 s)"),
            std::string::npos)
      << s.warnings[0];
}

TEST(EdfSource, RefusesChannelsOfDifferentRatesListingThem) {
  testing::ScratchDir dir("edf_rates");
  const auto path = write_recording(dir / "a.edf", false, {"Fz", "ECG", "Cz"}, {}, {128, 256, 128});
  const std::string message = edf_open_error(path);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("different sample rates (128 Hz: Fz, Cz; 256 Hz: ECG)"), std::string::npos) << message;
  const auto ecg = edf_make_source(path, {{"channels", "ECG"}});
  const StreamInfo s = ecg->open({});
  EXPECT_EQ(s.sample_rate, 256);
  expect_samples(edf_read_all(*ecg, s), s, {1}, {0}, 1000.0 / 65535.0);
}

TEST(EdfSource, RefusesContradictoryEpochingParameters) {
  const auto param_of = [](json params) {
    params["path"] = "x.edf";
    try {
      make_element<EdfSource>(params);
    } catch (const ParamError& e) {
      return e.param();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(param_of({{"step", "1s"}}), "step");
  EXPECT_EQ(param_of({{"events", "stim"}}), "window");
  EXPECT_EQ(param_of({{"window", "-1s:1s"}}), "window");
  EXPECT_EQ(param_of({{"events", "stim"}, {"window", "-1s:1s"}, {"epoch", "2s"}}), "events");
  EXPECT_EQ(param_of({{"events", "stim"}, {"window", "1s"}}), "window");
  EXPECT_EQ(param_of({{"events", "stim"}, {"window", "-1s:3s"}}), "(accepted)");
}

// A plain EDF (no annotations signal) written field by field as the EDF specification lays it out:
// 2 signals, 3 one-second records at 8 Hz, digital value d stored, physical = d * 0.5 - 10.
fs::path write_plain_edf(const fs::path& path) {
  const auto field = [](const std::string& text, std::size_t width) {
    std::string f = text.substr(0, width);
    return f + std::string(width - f.size(), ' ');
  };
  std::string header = field("0", 8) + field("X X X X", 80) + field("Startdate X X X X", 80) + field("01.02.20", 8) +
                       field("10.11.12", 8) + field(std::to_string(256 * 3), 8) + field("", 44) + field("3", 8) +
                       field("1", 8) + field("2", 4);
  for (const char* label : {"C3", "C4"}) header += field(label, 16);
  for (int s = 0; s < 2; ++s) header += field("AgAgCl", 80);
  for (int s = 0; s < 2; ++s) header += field("uV", 8);
  for (int s = 0; s < 2; ++s) header += field("-10", 8);    // physical minimum at digital 0
  for (int s = 0; s < 2; ++s) header += field("117.5", 8);  // physical maximum at digital 255
  for (int s = 0; s < 2; ++s) header += field("0", 8);
  for (int s = 0; s < 2; ++s) header += field("255", 8);
  for (int s = 0; s < 2; ++s) header += field("", 80);
  for (int s = 0; s < 2; ++s) header += field("8", 8);
  for (int s = 0; s < 2; ++s) header += field("", 32);
  std::ofstream out(path, std::ios::binary);
  out << header;
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < 8; ++i) {
        const int d = 10 * s + 8 * r + i;  // little-endian int16
        out.put(static_cast<char>(d & 0xff)).put(static_cast<char>((d >> 8) & 0xff));
      }
  return path;
}

TEST(EdfSource, ReadsPlainEdfFromAnotherWriter) {
  testing::ScratchDir dir("edf_plain");
  const auto path = write_plain_edf(dir / "plain.edf");
  const auto source = edf_make_source(path);
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.description["format"], "EDF");
  EXPECT_EQ(s.labels.at(1), (std::vector<std::string>{"C3", "C4"}));
  EXPECT_EQ(s.sample_rate, 8);
  const auto got = edf_read_all(*source, s);
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 24; ++t) EXPECT_DOUBLE_EQ(got[static_cast<std::size_t>(c * 24 + t)], (10 * c + t) * 0.5 - 10.0);
}

// events=go window=-1:3 once made 4-sample epochs and epoch=4 thousands of 4-sample ones: a
// duration without a unit is refused, the seconds suggested.
TEST(EdfSource, DurationsWithoutAUnitAreRefusedSuggestingSeconds) {
  const auto message = [](json params) {
    try {
      make_element<EdfSource>(params);
      return std::string("(accepted)");
    } catch (const ParamError& e) {
      return std::string(e.what());
    }
  };
  const std::string window = message({{"path", "x.edf"}, {"events", "go"}, {"window", "-1:3"}});
  EXPECT_NE(window.find("the numbers have no unit (-1s:3s?)"), std::string::npos) << window;
  const auto bare_epoch = [](json epoch) {
    try {
      Params({{"path", "x.edf"}, {"epoch", epoch}}, EdfSource::info().params);
      return std::string("(accepted)");
    } catch (const ParamError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(bare_epoch(4).find("4 has no unit"), std::string::npos) << bare_epoch(4);
  EXPECT_NE(bare_epoch("4").find("(4s?)"), std::string::npos) << bare_epoch("4");
  EXPECT_EQ(message({{"path", "x.edf"}, {"events", "go"}, {"window", "-1s:3s"}}), "(accepted)");
  EXPECT_EQ(message({{"path", "x.edf"}, {"events", "go"}, {"window", "-512smp:1536smp"}}), "(accepted)");
}

TEST(EdfSource, RefusesEventsInPlainEdf) {
  testing::ScratchDir dir("edf_plain_events");
  const auto path = write_plain_edf(dir / "plain.edf");
  const std::string message = edf_open_error(path, {{"events", "x"}, {"window", "0s:4s"}});
  EXPECT_NE(message.find("events= needs EDF+ or BDF+ annotations; this file is plain EDF"), std::string::npos)
      << message;
}

// Copies `from` to `to` with `text` written over bytes [offset, offset + text.size()).
fs::path patched(const fs::path& from, const fs::path& to, std::size_t offset, const std::string& text) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  std::fstream f(to, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  return to;
}

fs::path truncated(const fs::path& from, const fs::path& to, std::uintmax_t size) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::resize_file(to, size);
  return to;
}

TEST(EdfSource, GivesOneClearErrorNamingTheFileForEachHostileFile) {
  testing::ScratchDir dir("edf_hostile");
  const auto good = write_recording(dir / "good.edf", false, {"Fz", "Cz"});
  const auto size = fs::file_size(good);
  const std::size_t header = 256 * 4;  // 2 signals + the EDF+ annotations signal
  std::ofstream(dir / "text.edf") << "this is not a recording\n";
  const std::vector<std::pair<fs::path, std::string>> cases = {
      {dir / "missing.edf", "no such file"},
      {dir / "text.edf", "fewer than the 256-byte fixed EDF/BDF header"},
      {truncated(good, dir / "short_header.edf", 300), "truncated header: 3 signals need a 1024-byte header"},
      {patched(good, dir / "records.edf", 236, "15      "), "declares 15 data records"},
      {truncated(good, dir / "short_data.edf", size - 100), "the file is truncated or its record count is wrong"},
      {patched(good, dir / "digital.edf", 256 + 3 * 120, "32767   "), "signal 0 (\"Fz\"): its digital minimum 32767 is not below its maximum 32767"},
      {patched(good, dir / "physical.edf", 256 + 3 * 104, "500     "), "signal 0 (\"Fz\"): its physical minimum equals its maximum (500)"},
      {patched(good, dir / "garbage.edf", 0, "GARBAGE!"), "not a valid EDF/BDF file: it starts with neither"},
  };
  ASSERT_GT(size, header);
  for (const auto& [path, part] : cases) {
    SCOPED_TRACE(path.filename().string());
    const std::string message = edf_open_error(path);
    EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u) << message;  // starts with the file
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

// Every header rule EDFlib enforces, broken one at a time in an EDF+ file of 2 signals and the
// annotation signal: EDFlib refuses each file, and the message names the field, its bytes and the
// rule (diagnose_edf_header), never only "format errors".
TEST(EdfSource, HeaderFieldsBreakingTheSpecificationAreNamed) {
  testing::ScratchDir dir("edf_fields");
  const auto good = write_recording(dir / "good.edf", false, {"Fz", "Cz"});
  ASSERT_EQ(edf_open_error(good), "(no error)");
  std::string head(256, '\0');
  std::ifstream(good, std::ios::binary).read(head.data(), 256);
  const std::string startdate = head.substr(168, 8);
  const std::string other_year = "Startdate " + startdate.substr(0, 2) + "-JAN-1990 X X X";
  // Per-signal fields of signal s (3 signals: Fz, Cz, then "EDF Annotations").
  const auto at = [](std::size_t before_per_signal, std::size_t width, std::size_t s) {
    return 256 + before_per_signal * 3 + width * s;
  };
  const std::vector<std::tuple<std::size_t, std::string, std::string>> cases = {
      {8 + 3, "\xE9", "its local patient identification (bytes 8-87) holds byte 0xE9 at its position 3"},
      {168, "32.01.20", "its startdate (bytes 168-175) \"32.01.20\" is not a valid dd.mm.yy"},
      {176, "25.00.00", "its starttime (bytes 176-183) \"25.00.00\" is not a valid hh.mm.ss"},
      {252, "641 ", "the signal count 641 exceeds the 640 signals EDFlib reads"},
      {184, " 1024   ", "the header size field \"1024\" does not match"},
      {236, " 5      ", "the data record count \"5\" is not a positive number"},
      {244, "-1      ", "its duration of a data record (bytes 244-251) \"-1\" is not a duration in seconds"},
      {at(0, 16, 0), "F\x01", "signal 0 (\"F\\x01\"): its label (bytes 256-271) holds byte 0x01"},
      {at(16, 80, 2), "x", "signal 2 (\"EDF Annotations\"): its transducer type (bytes 464-543) must be blank"},
      {at(96, 8, 0), "\x7f", "signal 0 (\"Fz\"): its physical dimension (bytes 544-551) holds byte 0x7F"},
      {at(104, 8, 1), "1,5     ", "signal 1 (\"Cz\"): its physical minimum (bytes 576-583) \"1,5\" is not a number"},
      {at(120, 8, 2), "-32767  ", "its digital minimum (bytes 632-639) is -32767; an annotation signal's must be -32768"},
      {at(136, 80, 2), "HP:0.1Hz", "signal 2 (\"EDF Annotations\"): its prefiltering (bytes 824-903) must be blank"},
      {at(216, 8, 0), "6000000 ", "bytes exceeds the 10 MiB EDFlib reads"},
      {at(224, 32, 1), "\t", "signal 1 (\"Cz\"): its reserved field (bytes 960-991) holds byte 0x09"},
      {8, "X m X X" + std::string(73, ' '), "the sex \"m\" is not M, F or X"},
      {88, other_year + std::string(80 - other_year.size(), ' '), "is not the header's startdate"},
  };
  for (const auto& [offset, text, part] : cases) {
    SCOPED_TRACE(part);
    const auto bad = patched(good, dir / "bad.edf", offset, text);
    const std::string message = edf_open_error(bad);
    EXPECT_NE(message.find("not a valid EDF/BDF file: "), std::string::npos) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace pacflow::stages
