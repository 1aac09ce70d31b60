// The brainvision source against malformed recordings: every broken header, data file or marker
// file is refused with one InputError that names the file, the line and what is wrong, and no
// truncation of a header or marker file gets past the checks into a crash.
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/io/brainvision/brainvision_source.hpp"
#include "stages/io/brainvision/brainvision_test_files.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

using namespace bv_test;

Recording three_channels(bool vectorized = false) {
  Recording r;
  r.channels = {{"Fz", 0.1, ""}, {"Cz", 0.1, ""}, {"Pz", 0.1, ""}};
  r.vectorized = vectorized;
  for (std::size_t c = 0; c < 3; ++c) r.stored.emplace_back(1280, static_cast<double>(c));
  r.markers = {{"New Segment", "", 1, 1}, {"Stimulus", "S  1", 200, 1}};
  return r;
}

// The files of one recording as text, for a case to break.
struct Files {
  std::string header, data, markers;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const auto end = text.find("\r\n", start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 2;
  }
  return lines;
}

// `text` with line `n` (1-based) replaced by `with`, or removed when `with` is null, or `insert`ed before.
std::string edited(const std::string& text, std::size_t n, const char* with, bool insert = false) {
  auto lines = lines_of(text);
  const auto at = lines.begin() + static_cast<std::ptrdiff_t>(n - 1);
  if (insert) lines.insert(at, with);
  else if (with) *at = with;
  else lines.erase(at);
  std::string out;
  for (const auto& line : lines) out += line + "\r\n";
  return out;
}

struct BvCase {
  std::string name;
  std::function<void(Files&)> breaks;
  std::string file;  // "vhdr", "eeg" or "vmrk": the file the message starts with
  int line;          // 0: none
  std::string says;
  bool vectorized = false;
};

std::vector<BvCase> header_cases() {
  const auto line = [](std::size_t n, const char* with, bool insert = false) {
    return [=](Files& f) { f.header = edited(f.header, n, with, insert); };
  };
  return {
      {"version", line(1, "Brain Vision Data Exchange Header File Version 2.0"), "vhdr", 1,
       "not a BrainVision header: its first line is \"Brain Vision Data Exchange Header File Version 2.0\""},
      {"ascii", line(kLineDataFormat, "DataFormat=ASCII"), "vhdr", kLineDataFormat,
       "DataFormat=ASCII: text data are not read"},
      {"binary_format", line(kLineBinaryFormat, "BinaryFormat=IEEE_FLOAT_64"), "vhdr", kLineBinaryFormat,
       "BinaryFormat=\"IEEE_FLOAT_64\" is not read: expected INT_16, INT_32 or IEEE_FLOAT_32"},
      {"orientation", line(kLineOrientation, "DataOrientation=SIDEWAYS"), "vhdr", kLineOrientation,
       "DataOrientation=\"SIDEWAYS\": expected MULTIPLEXED or VECTORIZED"},
      {"zero_interval", line(kLineInterval, "SamplingInterval=0"), "vhdr", kLineInterval,
       "SamplingInterval=\"0\" is not a positive number of microseconds"},
      {"negative_interval", line(kLineInterval, "SamplingInterval=-7812.5"), "vhdr", kLineInterval,
       "SamplingInterval=\"-7812.5\" is not a positive number of microseconds"},
      {"absurd_interval", line(kLineInterval, "SamplingInterval=1e15"), "vhdr", kLineInterval,
       "SamplingInterval=\"1e15\" µs is outside 1e-06 to 1e+12 µs"},
      {"missing_interval", line(kLineInterval, nullptr), "vhdr", 4,
       "[Common Infos] has no SamplingInterval= (microseconds between samples)"},
      {"no_binary_infos", [](Files& f) { f.header = edited(edited(f.header, 15, nullptr), 15, nullptr); }, "vhdr", 0,
       "no [Binary Infos] section"},
      {"more_channels", line(kLineChannels, "NumberOfChannels=4"), "vhdr", kLineChannelInfos,
       "[Channel Infos] has no Ch4= line, but NumberOfChannels=4 (line 11)"},
      {"fewer_channels", line(kLineChannels, "NumberOfChannels=2"), "vhdr", kLineFirstChannel + 2,
       "Ch3 is past NumberOfChannels=2 (line 11)"},
      {"channel_count", line(kLineChannels, "NumberOfChannels=many"), "vhdr", kLineChannels,
       "NumberOfChannels=\"many\" is not a positive whole number"},
      {"no_name", line(kLineFirstChannel, "Ch1=,,0.1"), "vhdr", kLineFirstChannel, "Ch1 has no name"},
      {"resolution", line(kLineFirstChannel, "Ch1=Fz,,x,µV"), "vhdr", kLineFirstChannel,
       "Ch1 (\"Fz\"): its resolution \"x\" is not a number other than 0"},
      {"channel_key", line(kLineFirstChannel + 1, "Channel2=Cz,,0.1"), "vhdr", kLineFirstChannel + 1,
       "expected ChN=<Name>,<Reference>,<Resolution>,<Unit>, got the key \"Channel2\""},
      {"channel_twice", line(kLineFirstChannel + 1, "Ch1=Cz,,0.1"), "vhdr", kLineFirstChannel + 1,
       "channel 1 is given twice (first at line 21)"},
      {"big_endian", line(kLineBinaryFormat + 1, "UseBigEndianOrder=YES", true), "vhdr", kLineBinaryFormat + 1,
       "UseBigEndianOrder=\"YES\": big-endian data are not read"},
      {"segmented", line(14, "SegmentationType=MARKERBASED"), "vhdr", 14, "segmented data"},
      {"codepage", line(5, "Codepage=UTF-16"), "vhdr", 5, "Codepage=\"UTF-16\" is neither UTF-8 nor ANSI"},
      {"key_twice", line(7, "DataFile=other.eeg"), "vhdr", 7, "DataFile= is given twice in [Common Infos] (first at line 6)"},
      {"stray_line", line(9, "garbage here"), "vhdr", 9, "expected KEY=VALUE in [Common Infos], got \"garbage here\""},
      {"section_twice", line(4, "[Channel Infos]"), "vhdr", kLineChannelInfos,
       "a second [Channel Infos] section (the first is at line 4)"},
  };
}

std::vector<BvCase> data_and_marker_cases() {
  const auto marker = [](std::size_t n, const char* with) {
    return [=](Files& f) { f.markers = edited(f.markers, n, with); };
  };
  const int mk2 = kLineFirstMarker + 1;
  return {
      {"missing_data", [](Files& f) { f.header = edited(f.header, kLineDataFile, "DataFile=missing.eeg"); }, "vhdr",
       kLineDataFile, "the data file "},
      {"partial_sample", [](Files& f) { f.data.pop_back(); }, "eeg", 0,
       "its 7679 bytes are not a whole number of samples of 3 channels of 2 bytes (INT_16): 5 bytes are left over"},
      {"no_samples", [](Files& f) { f.data.clear(); }, "eeg", 0, "the data file holds no samples"},
      {"vectorized_size", [](Files& f) { f.header = edited(f.header, 14, "DataPoints=1281"); }, "vhdr", 14,
       "DataPoints=1281, but the data file", true},
      {"marker_version", marker(1, "Brain Vision Data Exchange Marker File, Version 9.0"), "vmrk", 1,
       "not a BrainVision marker file"},
      {"marker_fields", marker(mk2, "Mk2=Stimulus,S  1"), "vmrk", mk2,
       "Mk2 has 2 fields; expected MkN=<Type>,<Description>,<Position>,<Size>,<Channel>"},
      {"marker_position", marker(mk2, "Mk2=Stimulus,S  1,abc,1,0"), "vmrk", mk2,
       "Mk2: its position \"abc\" is not a sample number (1 or more)"},
      {"marker_position_zero", marker(mk2, "Mk2=Stimulus,S  1,0,1,0"), "vmrk", mk2,
       "Mk2: its position \"0\" is not a sample number"},
      {"marker_far", marker(mk2, "Mk2=Stimulus,S  1,9007199254740993,1,0"), "vmrk", mk2,
       "Mk2: its position \"9007199254740993\" is not a sample number"},
      {"marker_size", marker(mk2, "Mk2=Stimulus,S  1,200,-3,0"), "vmrk", mk2,
       "Mk2: its size \"-3\" is not a whole number of samples"},
      {"marker_key", marker(mk2, "Marker2=Stimulus,S  1,200,1,0"), "vmrk", mk2, "got the key \"Marker2\""},
      {"marker_twice", marker(mk2, "Mk1=Stimulus,S  1,200,1,0"), "vmrk", mk2, "marker 1 is given twice (first at line 9)"},
      {"no_marker_infos", marker(7, "[Markers]"), "vmrk", 0, "no [Marker Infos] section"},
  };
}

std::string open_error(const fs::path& path) {
  try {
    json params = {{"path", path.string()}};
    make_element<BrainVisionSource>(params)->open({});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BrainVisionSource, EveryMalformedFileIsRefusedNamingTheFileAndTheLine) {
  testing::ScratchDir dir("bv_malformed");
  auto cases = header_cases();
  for (auto& c : data_and_marker_cases()) cases.push_back(std::move(c));
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path folder = dir / c.name;
    fs::create_directory(folder);
    const Recording r = three_channels(c.vectorized);
    Files files{header_text(r, "rec"), data_bytes(r), marker_text(r, "rec")};
    c.breaks(files);
    write_bytes(folder / "rec.vhdr", files.header);
    write_bytes(folder / "rec.eeg", files.data);
    write_bytes(folder / "rec.vmrk", files.markers);
    const std::string message = open_error(folder / "rec.vhdr");
    const std::string file = (folder / ("rec." + c.file)).string();
    const std::string where = c.line > 0 ? fmt::format("{}:{}: ", file, c.line) : file + ": ";
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;  // starts with the file and the line
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(BrainVisionSource, AMissingDataFileNamesItAndTheHeaderLineThatNamedIt) {
  testing::ScratchDir dir("bv_missing_data");
  const auto path = write_recording(dir.path(), "rec", three_channels());
  fs::remove(dir / "rec.eeg");
  const std::string message = open_error(path);
  EXPECT_EQ(message, fmt::format("{}:{}: the data file {}: no such file", path.string(), kLineDataFile,
                                 (dir / "rec.eeg").string()));
}

// Every prefix of a good header and of a good marker file: accepted or refused with one clear
// error, never a crash (the fuzz target tests/fuzz/brainvision_reader_entry.cpp goes further).
TEST(BrainVisionSource, EveryTruncationOfTheHeaderOrTheMarkersIsRefusedCleanly) {
  testing::ScratchDir dir("bv_truncated");
  const Recording r = three_channels();
  const auto path = write_recording(dir.path(), "rec", r);
  for (const bool header : {true, false}) {
    const std::string whole = header ? header_text(r, "rec") : marker_text(r, "rec");
    for (std::size_t n = 0; n < whole.size(); ++n) {
      write_bytes(dir / (header ? "rec.vhdr" : "rec.vmrk"), whole.substr(0, n));
      const std::string message = open_error(path);
      ASSERT_FALSE(message.empty());
      ASSERT_EQ(message.find('\n'), std::string::npos) << message;
    }
    write_bytes(dir / (header ? "rec.vhdr" : "rec.vmrk"), whole);
  }
  EXPECT_EQ(open_error(path), "(no error)");
}

}  // namespace
}  // namespace pacflow::stages
