#include "stages/io/brainvision/brainvision_header.hpp"

#include <algorithm>
#include <climits>
#include <fmt/format.h>
#include <iterator>
#include <map>

#include "stages/io/brainvision/brainvision_text.hpp"

namespace pacflow::stages {

namespace {

constexpr std::string_view kIdentification = "Brain Vision Data Exchange Header File Version 1.0";

void check_identification(const IniText& ini) {
  if (ini.first_line() == kIdentification || ini.first_line() == "BrainVision Data Exchange Header File Version 1.0")
    return;
  ini.fail(1, fmt::format("not a BrainVision header: its first line is {}, not \"{}\"", shown_text(ini.first_line()),
                          kIdentification));
}

// An optional key that, when given, must take `wanted`; `refusal` says why another value is not read.
void only(const IniText& ini, const IniSection& section, std::string_view key, std::string_view wanted,
          std::string_view refusal) {
  const IniEntry* e = ini.find(section, key);
  if (e && !same_word(e->value, wanted)) ini.fail(e->line, fmt::format("{}={}: {}", e->key, shown_text(e->value), refusal));
}

void read_data_layout(const IniText& ini, const IniSection& common, BrainVisionHeader& h) {
  const IniEntry& format = ini.require(common, "DataFormat", "BINARY");
  if (same_word(format.value, "ASCII"))
    ini.fail(format.line, "DataFormat=ASCII: text data are not read; export the recording as BINARY (IEEE_FLOAT_32)");
  if (!same_word(format.value, "BINARY"))
    ini.fail(format.line, fmt::format("DataFormat={}: expected BINARY", shown_text(format.value)));
  const IniEntry& orientation = ini.require(common, "DataOrientation", "MULTIPLEXED or VECTORIZED");
  h.vectorized = same_word(orientation.value, "VECTORIZED");
  if (!h.vectorized && !same_word(orientation.value, "MULTIPLEXED"))
    ini.fail(orientation.line,
             fmt::format("DataOrientation={}: expected MULTIPLEXED or VECTORIZED", shown_text(orientation.value)));
  only(ini, common, "DataType", "TIMEDOMAIN", "only time-domain data (TIMEDOMAIN) are read");
  only(ini, common, "SegmentationType", "NOTSEGMENTED",
       "segmented data (epochs exported from BrainVision Analyzer) are not read; export the continuous recording");
}

// [Common Infos]: the files, the data layout and the sampling interval; returns NumberOfChannels.
std::int64_t read_common(const IniText& ini, BrainVisionHeader& h, int& count_line) {
  const IniSection& common = ini.require_section("Common Infos", "the data file, its layout and the sampling interval");
  ini.require_entries_only(common, "KEY=VALUE");
  const IniEntry& data = ini.require(common, "DataFile", "the binary data file");
  if (data.value.empty()) ini.fail(data.line, "DataFile= names no file");
  h.data_file = data.value;
  h.data_file_line = data.line;
  if (const IniEntry* markers = ini.find(common, "MarkerFile"); markers && !markers->value.empty()) {
    h.marker_file = markers->value;
    h.marker_file_line = markers->line;
  }
  read_data_layout(ini, common, h);
  const IniEntry& channels = ini.require(common, "NumberOfChannels", "how many channels the data file holds");
  const auto count = whole_number(channels.value);
  if (!count || *count < 1 || *count > INT_MAX)
    ini.fail(channels.line, fmt::format("NumberOfChannels={} is not a positive whole number", shown_text(channels.value)));
  count_line = channels.line;
  const IniEntry& interval = ini.require(common, "SamplingInterval", "microseconds between samples");
  // Between 1 ps and 11.6 days (1e-6 to 1e12 µs): no recording lies outside, and no time computed
  // from one inside overflows.
  const auto us = real_number(interval.value);
  if (!us || *us <= 0)
    ini.fail(interval.line, fmt::format("SamplingInterval={} is not a positive number of microseconds",
                                        shown_text(interval.value)));
  if (*us < 1e-6 || *us > 1e12)
    ini.fail(interval.line,
             fmt::format("SamplingInterval={} µs is outside 1e-06 to 1e+12 µs", shown_text(interval.value)));
  h.fs = 1e6 / *us;
  // DataPoints=0 is taken as not said (the count then comes from the data file's size).
  if (const IniEntry* points = ini.find(common, "DataPoints")) {
    const auto n = whole_number(points->value);
    if (!n || *n < 0)
      ini.fail(points->line, fmt::format("DataPoints={} is not a whole number of samples", shown_text(points->value)));
    if (*n > 0) {
      h.data_points = *n;
      h.data_points_line = points->line;
    }
  }
  return *count;
}

void read_binary(const IniText& ini, BrainVisionHeader& h) {
  const IniSection& binary = ini.require_section("Binary Infos", "BinaryFormat=INT_16, INT_32 or IEEE_FLOAT_32");
  ini.require_entries_only(binary, "KEY=VALUE");
  const IniEntry& format = ini.require(binary, "BinaryFormat", "INT_16, INT_32 or IEEE_FLOAT_32");
  struct Known {
    std::string_view name;
    BinaryFormat format;
    int bytes;
  };
  static constexpr Known kKnown[] = {
      {"INT_16", BinaryFormat::Int16, 2}, {"INT_32", BinaryFormat::Int32, 4}, {"IEEE_FLOAT_32", BinaryFormat::Float32, 4}};
  const auto known = std::find_if(std::begin(kKnown), std::end(kKnown),
                                  [&](const Known& k) { return same_word(format.value, k.name); });
  if (known == std::end(kKnown))
    ini.fail(format.line, fmt::format("BinaryFormat={} is not read: expected INT_16, INT_32 or IEEE_FLOAT_32",
                                      shown_text(format.value)));
  h.format = known->format;
  h.bytes_per_sample = known->bytes;
  h.format_name = known->name;
  only(ini, binary, "UseBigEndianOrder", "NO", "big-endian data are not read (the format's data are little-endian)");
}

BrainVisionChannel read_channel(const IniText& ini, const IniEntry& e) {
  const auto fields = comma_fields(e.value);
  BrainVisionChannel channel{std::string(trimmed(fields[0])), 1.0, "µV"};
  if (channel.name.empty()) ini.fail(e.line, fmt::format("{} has no name (ChN=<Name>,<Reference>,<Resolution>,<Unit>)", e.key));
  if (fields.size() > 2 && !trimmed(fields[2]).empty()) {
    const auto resolution = real_number(trimmed(fields[2]));
    if (!resolution || *resolution == 0)
      ini.fail(e.line, fmt::format("{} (\"{}\"): its resolution {} is not a number other than 0", e.key, channel.name,
                                   shown_text(fields[2])));
    channel.resolution = *resolution;
  }
  if (fields.size() > 3 && !trimmed(fields[3]).empty()) channel.unit = std::string(trimmed(fields[3]));
  return channel;
}

void read_channels(const IniText& ini, BrainVisionHeader& h, std::int64_t count, int count_line) {
  constexpr std::string_view kLine = "ChN=<Name>,<Reference>,<Resolution>,<Unit>";
  const IniSection& infos = ini.require_section("Channel Infos", "a ChN=<Name>,<Reference>,<Resolution>,<Unit> line per channel");
  ini.require_entries_only(infos, kLine);
  std::map<std::int64_t, const IniEntry*> by_number;
  for (const auto& e : infos.entries) {
    const auto n = e.key.size() > 2 && same_word(e.key.substr(0, 2), "Ch") ? whole_number(e.key.substr(2)) : std::nullopt;
    if (!n || *n < 1) ini.fail(e.line, fmt::format("expected {}, got the key {}", kLine, shown_text(e.key)));
    if (*n > count)
      ini.fail(e.line, fmt::format("{} is past NumberOfChannels={} (line {})", e.key, count, count_line));
    if (const auto [at, added] = by_number.emplace(*n, &e); !added)
      ini.fail(e.line, fmt::format("channel {} is given twice (first at line {})", *n, at->second->line));
  }
  for (std::int64_t n = 1; n <= count; ++n)
    if (!by_number.contains(n))
      ini.fail(infos.line, fmt::format("[{}] has no Ch{}= line, but NumberOfChannels={} (line {})", infos.name, n,
                                       count, count_line));
  for (const auto& [n, e] : by_number) h.channels.push_back(read_channel(ini, *e));
}

}  // namespace

BrainVisionHeader parse_vhdr(std::string_view bytes, const std::string& path) {
  const IniText ini(bytes, path);
  check_identification(ini);
  BrainVisionHeader header;
  int count_line = 0;
  const std::int64_t count = read_common(ini, header, count_line);
  read_binary(ini, header);
  read_channels(ini, header, count, count_line);
  return header;
}

}  // namespace pacflow::stages
