// The brainvision source against recordings the tests write (brainvision_test_files.hpp): physical
// values exactly (stored value × resolution) in every binary format and orientation, channel names
// and units in either codepage, markers as events and conditions, bad markers left out, a missing
// marker file, and the same signal as EDF and as BrainVision giving the same PAC bit for bit.
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"
#include "stages/io/brainvision/brainvision_source.hpp"
#include "stages/io/brainvision/brainvision_test_files.hpp"
#include "stages/io/edf/edf_file.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

using namespace bv_test;

constexpr int kBvRate = 128;
constexpr int kBvSeconds = 10;

// A stored value for channel c at sample t, spanning most of the int16 range.
double stored_value(std::size_t c, std::int64_t t) {
  return std::round(20000.0 * std::sin(2 * std::numbers::pi * 3.0 * static_cast<double>(t) / kBvRate +
                                       static_cast<double>(c)) +
                    100.0 * static_cast<double>(c) + static_cast<double>(t % 7));
}

Recording recording(std::vector<Channel> channels, std::string format = "INT_16", bool vectorized = false) {
  Recording r;
  r.channels = std::move(channels);
  r.format = std::move(format);
  r.vectorized = vectorized;
  for (std::size_t c = 0; c < r.channels.size(); ++c) {
    r.stored.emplace_back();
    for (std::int64_t t = 0; t < kBvRate * kBvSeconds; ++t) r.stored[c].push_back(stored_value(c, t));
  }
  return r;
}

std::unique_ptr<BrainVisionSource> make_source(const fs::path& path, json params = json::object()) {
  params["path"] = path.string();
  return make_element<BrainVisionSource>(params);
}

std::vector<float> read_all(BrainVisionSource& source, const StreamInfo& s, std::int64_t batch = 3) {
  std::vector<float> out(static_cast<std::size_t>(s.series_count() * s.series_length));
  for (std::int64_t first = 0; first < s.series_count(); first += batch)
    source.read(first, std::min(batch, s.series_count() - first), out.data() + first * s.series_length);
  return out;
}

// Every sample of epoch e, channel c is exactly float(stored × resolution) of the file's channel.
void expect_exact(const std::vector<float>& got, const StreamInfo& s, const Recording& r,
                  const std::vector<std::int64_t>& starts) {
  const std::int64_t C = s.leading_dims[1], T = s.series_length;
  ASSERT_EQ(s.leading_dims[0], static_cast<std::int64_t>(starts.size()));
  for (std::int64_t e = 0; e < s.leading_dims[0]; ++e)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t t = 0; t < T; ++t) {
        const auto cu = static_cast<std::size_t>(c);
        const double stored = r.stored[cu][static_cast<std::size_t>(starts[static_cast<std::size_t>(e)] + t)];
        const auto expected = static_cast<float>(stored * r.channels[cu].resolution);
        ASSERT_EQ(got[static_cast<std::size_t>((e * C + c) * T + t)], expected) << "epoch " << e << " channel " << c
                                                                                << " t " << t;
      }
}

TEST(BrainVisionSource, ReadsInt16MultiplexedInPhysicalUnitsExactly) {
  testing::ScratchDir dir("bv_int16");
  const Recording r = recording({{"Fz", 0.1, "µV"}, {"Cz", 0.5, ""}, {"C3\\1A2", 1.0, "uV"}});
  const auto path = write_recording(dir.path(), "rec", r);
  const auto source = make_source(path);
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.description["source"], "brainvision");
  EXPECT_EQ(s.description["format"], "BrainVision");
  EXPECT_EQ(s.leading_dims, (Shape{1, 3}));
  EXPECT_EQ(s.series_length, kBvRate * kBvSeconds);
  EXPECT_EQ(s.sample_rate, kBvRate);
  EXPECT_EQ(s.labels.at(1), (std::vector<std::string>{"Fz", "Cz", "C3,A2"}));
  EXPECT_EQ(s.description["units"], (json{"µV", "µV", "uV"}));  // µV when left out
  EXPECT_EQ(s.description["resolution_per_step"], (json{0.1, 0.5, 1.0}));
  EXPECT_EQ(s.input_files.size(), 3u);  // header, data, markers: no output may replace them
  ASSERT_EQ(s.description["other_files"].size(), 2u);
  EXPECT_EQ(s.description["other_files"][0]["path"], (dir / "rec.eeg").string());
  EXPECT_EQ(s.description["other_files"][0]["sha256"].get<std::string>().size(), 64u);
  expect_exact(read_all(*source, s), s, r, {0});
}

TEST(BrainVisionSource, ReadsFloat32VectorizedAndInt32MultiplexedExactly) {
  testing::ScratchDir dir("bv_formats");
  for (const auto& [format, vectorized] : {std::pair{"IEEE_FLOAT_32", true}, std::pair{"INT_32", false},
                                           std::pair{"INT_16", true}}) {
    SCOPED_TRACE(fmt::format("{} {}", format, vectorized ? "vectorized" : "multiplexed"));
    Recording r = recording({{"Fz", 0.25, ""}, {"Cz", 1.0, ""}, {"Pz", 0.001, "mV"}, {"Oz", 2.0, ""}}, format,
                            vectorized);
    if (std::string(format) == "INT_32")
      for (auto& row : r.stored)
        for (auto& v : row) v *= 1000;  // beyond int16
    if (std::string(format) == "IEEE_FLOAT_32")
      for (auto& row : r.stored)
        for (auto& v : row) v = static_cast<float>(v / 3.0);  // fractions
    const auto path = write_recording(dir.path(), std::string("rec_") + format, r);
    const auto source = make_source(path, {{"channels", "Oz,Fz,Pz,Cz"}, {"epoch", "2s"}});
    const StreamInfo s = source->open({});
    EXPECT_EQ(s.leading_dims, (Shape{5, 4}));
    EXPECT_EQ(s.description["units"][2], "mV");
    // Channels as selected: the reordered recording is checked against the reordered channels.
    const Recording reordered{{r.channels[3], r.channels[0], r.channels[2], r.channels[1]}, r.sampling_interval,
                              r.format, r.vectorized, {r.stored[3], r.stored[0], r.stored[2], r.stored[1]}, {}};
    expect_exact(read_all(*source, s, 7), s, reordered, {0, 256, 512, 768, 1024});
  }
}

TEST(BrainVisionSource, AnsiCodepageIsReadAsLatin1) {
  testing::ScratchDir dir("bv_ansi");
  const Recording r = recording({{"Fz", 0.1, ""}});
  std::string header = header_text(r, "rec");
  header.replace(header.find("Codepage=UTF-8"), 14, "Codepage=ANSI");
  header.replace(header.find("Ch1=Fz,,0.1"), 11, "Ch1=F\xFC,,0.1,\xB5V");  // "Fü", "µV" in Latin-1
  write_bytes(dir / "rec.vhdr", header);
  write_bytes(dir / "rec.eeg", data_bytes(r));
  write_bytes(dir / "rec.vmrk", marker_text(r, "rec"));
  const StreamInfo s = make_source(dir / "rec.vhdr")->open({});
  EXPECT_EQ(s.labels.at(1).at(0), "Fü");
  EXPECT_EQ(s.description["units"][0], "µV");
}

// Markers at 2.5 s, 5 s and 7.5 s (S  1) and 3.5 s, 6.5 s (S  2), with a New Segment at the start.
Recording with_markers() {
  Recording r = recording({{"Fz", 0.1, ""}, {"Cz", 0.1, ""}});
  r.markers = {{"New Segment", "", 1, 1},         {"Stimulus", "S  1", 321, 1}, {"Stimulus", "S  2", 449, 1},
               {"Stimulus", "S  1", 641, 1},      {"Stimulus", "S  2", 833, 1}, {"Stimulus", "S  1", 961, 1}};
  return r;
}

TEST(BrainVisionSource, MarkersMakeEventEpochsAndConditionsNamedAsMneNamesThem) {
  testing::ScratchDir dir("bv_events");
  const Recording r = with_markers();
  const auto path = write_recording(dir.path(), "rec", r);
  const auto source =
      make_source(path, {{"events", {"Stimulus/S  1", "Stimulus/S  2"}}, {"window", "-0.5s:1s"}});
  const StreamInfo s = source->open({});
  const std::vector<std::int64_t> starts = {320 - 64, 640 - 64, 960 - 64, 448 - 64, 832 - 64};
  EXPECT_EQ(s.description["epoching"]["epoch_starts_samples"], json(starts));
  EXPECT_EQ(s.description["epoching"]["onsets_s"], (json{2.5, 5.0, 7.5, 3.5, 6.5}));
  EXPECT_EQ(s.series_length, 192);
  EXPECT_EQ(s.condition_names, (std::vector<std::string>{"Stimulus/S  1", "Stimulus/S  2"}));
  EXPECT_EQ(s.epoch_conditions, (std::vector<std::int64_t>{0, 0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(s.time_origin_s, -0.5);
  expect_exact(read_all(*source, s), s, r, starts);
  // A marker the file lacks: the markers there are, New Segment among them (never an event unless named).
  try {
    make_source(path, {{"events", "Stimulus/S  3"}, {"window", "0s:1s"}})->open({});
    FAIL() << "accepted a marker the file lacks";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "events");
    EXPECT_NE(std::string(e.what()).find("no annotation \"Stimulus/S  3\"; the file has \"New Segment/\" (1x), "
                                         "\"Stimulus/S  1\" (3x), \"Stimulus/S  2\" (2x)"),
              std::string::npos)
        << e.what();
  }
}

TEST(BrainVisionSource, EpochsOverlappingBadMarkersAreLeftOutByTypeOrDescription) {
  testing::ScratchDir dir("bv_bad");
  Recording r = recording({{"Fz", 0.1, ""}});
  // 2 s epochs: [0, 256), [256, 512), … A bad interval over samples 300-363 spoils the second; a
  // one-sample comment at sample 1100 the fifth (a size-1 marker covers its sample, as in MNE).
  r.markers = {{"Bad Interval", "Bad Min-Max", 301, 64}, {"Comment", "BAD_eye", 1101, 1}, {"Comment", "fine", 600, 1}};
  const auto path = write_recording(dir.path(), "rec", r);
  const StreamInfo s = make_source(path, {{"epoch", "2s"}})->open({});
  EXPECT_EQ(s.description["epoching"]["epoch_starts_samples"], (json{0, 512, 768}));
  const json& rejected = s.description["rejected_epochs"];
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[0]["annotation"], "Bad Interval/Bad Min-Max");
  EXPECT_DOUBLE_EQ(rejected[0]["annotation_duration_s"].get<double>(), 0.5);
  EXPECT_EQ(rejected[1]["annotation"], "Comment/BAD_eye");
  EXPECT_DOUBLE_EQ(rejected[1]["annotation_onset_s"].get<double>(), 1100.0 / kBvRate);
  const StreamInfo kept = make_source(path, {{"epoch", "2s"}, {"reject_by_annotation", "none"}})->open({});
  EXPECT_EQ(kept.leading_dims[0], 5);
}

TEST(BrainVisionSource, AMissingMarkerFileIsAWarningOnlyWhenMarkersAreAsked) {
  testing::ScratchDir dir("bv_no_markers");
  const auto path = write_recording(dir.path(), "rec", with_markers());
  fs::remove(dir / "rec.vmrk");
  const StreamInfo asked = make_source(path)->open({});  // reject_by_annotation=BAD reads markers
  ASSERT_EQ(asked.warnings.size(), 1u);
  EXPECT_NE(asked.warnings[0].find((dir / "rec.vmrk").string() + ": the marker file (MarkerFile= at " + path.string() +
                                   ":7) is missing"),
            std::string::npos)
      << asked.warnings[0];
  EXPECT_EQ(asked.input_files.size(), 2u);
  const StreamInfo not_asked = make_source(path, {{"reject_by_annotation", "none"}})->open({});
  EXPECT_TRUE(not_asked.warnings.empty());
  try {
    make_source(path, {{"events", "Stimulus/S  1"}, {"window", "0s:1s"}})->open({});
    FAIL() << "events without markers";
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("no annotation \"Stimulus/S  1\"; the file has none"), std::string::npos)
        << e.what();
  }
}

// The PAC arrays of a small pipeline reading `source` with `params` (the npy sink's pac.npy).
std::vector<float> pac_of(const std::string& source, json params, const fs::path& out) {
  Pipeline p(builtin_registry());
  p.source(source, std::move(params))
      .stage("bandpass", {{"pha", "4:8:2"}, {"amp", "30:50:2"}})
      .stage("hilbert")
      .stage("mi")
      .sink("npy", {{"dir", out.string()}});
  p.run();
  return testing::load_floats(out / "pac.npy");
}

TEST(BrainVisionSource, TheSameSignalAsEdfAndAsBrainVisionGivesIdenticalPac) {
  testing::ScratchDir dir("bv_edf");
  std::vector<EdfSignalSpec> specs(2);
  specs[0].label = "C3";
  specs[1].label = "C4";
  for (auto& s : specs) s.sample_rate = kBvRate;
  {
    EdfWriter writer((dir / "rec.edf").string(), false, specs);
    for (int sec = 0; sec < kBvSeconds; ++sec) {
      std::vector<std::vector<double>> record(2);
      for (std::size_t c = 0; c < 2; ++c)
        for (int i = 0; i < kBvRate; ++i) record[c].push_back(stored_value(c, std::int64_t{sec} * kBvRate + i) / 50.0);
      writer.write_record(record);
    }
    for (const double onset : {2.5, 5.0, 7.5}) writer.annotate(onset, "Stimulus/S  1");
    writer.annotate(3.5, "BAD_eye", 1.0);
    writer.close();
  }
  // The EDF's physical values, as float32, written as IEEE_FLOAT_32 with resolution 1: both sources
  // hand the pipeline the same float32 samples.
  Recording r = recording({{"C3", 1.0, "uV"}, {"C4", 1.0, "uV"}}, "IEEE_FLOAT_32", true);
  {
    const EdfFile edf((dir / "rec.edf").string(), false);  // closed before the edf source opens it
    for (int c = 0; c < 2; ++c) edf.read_physical(c, 0, kBvRate * kBvSeconds, r.stored[static_cast<std::size_t>(c)].data());
  }
  r.markers = {{"Stimulus", "S  1", 321, 1}, {"Stimulus", "S  1", 641, 1}, {"Stimulus", "S  1", 961, 1},
               {"Bad Interval", "eye", 449, kBvRate}};
  const auto vhdr = write_recording(dir.path(), "rec", r);
  const json common = {{"events", "Stimulus/S  1"}, {"window", "-1s:1s"}};
  json edf_params = common, bv_params = common;
  edf_params["path"] = (dir / "rec.edf").string();
  bv_params["path"] = vhdr.string();
  const auto from_edf = pac_of("edf", edf_params, dir / "edf_out");
  const auto from_bv = pac_of("brainvision", bv_params, dir / "bv_out");
  ASSERT_EQ(from_edf.size(), 2u * 2 * 2 * 2) << "[epochs][channels][phase][amplitude]: one of three epochs left out";
  EXPECT_EQ(from_edf, from_bv);
}

}  // namespace
}  // namespace pacflow::stages
