#include "stages/io/brainvision/brainvision_markers.hpp"

#include <fmt/format.h>
#include <map>

#include "stages/io/brainvision/brainvision_text.hpp"

namespace pacflow::stages {

namespace {

constexpr std::string_view kLine = "MkN=<Type>,<Description>,<Position>,<Size>,<Channel>";
// Positions and sizes beyond any recording (2^53 samples, exact in a double) are refused, so that
// no onset or window computed from them overflows.
constexpr std::int64_t kMaxSamples = std::int64_t{1} << 53;

// The identification lines BrainVision writers use (with and without the comma, as MNE accepts).
bool identifies_markers(const std::string& line) {
  for (const std::string_view name : {"Brain Vision", "BrainVision"})
    for (const std::string_view comma : {",", ""})
      if (line == fmt::format("{} Data Exchange Marker File{} Version 1.0", name, comma)) return true;
  return false;
}

BrainVisionMarker read_marker(const IniText& ini, const IniEntry& e) {
  const auto fields = comma_fields(e.value);
  if (fields.size() < 4)
    ini.fail(e.line, fmt::format("{} has {} field{}; expected {}", e.key, fields.size(), fields.size() == 1 ? "" : "s",
                                 kLine));
  BrainVisionMarker marker{fields[0], fields[1], 0, 0, e.line};
  const auto position = whole_number(trimmed(fields[2]));
  if (!position || *position < 1 || *position > kMaxSamples)
    ini.fail(e.line, fmt::format("{}: its position {} is not a sample number (1 or more)", e.key, shown_text(fields[2])));
  marker.position = *position;
  if (!trimmed(fields[3]).empty()) {
    const auto size = whole_number(trimmed(fields[3]));
    if (!size || *size < 0 || *size > kMaxSamples)
      ini.fail(e.line, fmt::format("{}: its size {} is not a whole number of samples", e.key, shown_text(fields[3])));
    marker.size = *size;
  }
  return marker;
}

}  // namespace

std::vector<BrainVisionMarker> parse_vmrk(std::string_view bytes, const std::string& path) {
  const IniText ini(bytes, path);
  if (!identifies_markers(ini.first_line()))
    ini.fail(1, fmt::format("not a BrainVision marker file: its first line is {}, not \"Brain Vision Data Exchange "
                            "Marker File, Version 1.0\"",
                            shown_text(ini.first_line())));
  const IniSection& infos = ini.require_section("Marker Infos", "a MkN= line per marker");
  ini.require_entries_only(infos, kLine);
  std::vector<BrainVisionMarker> markers;
  std::map<std::int64_t, int> lines;  // marker number -> its line
  for (const auto& e : infos.entries) {
    const auto n = e.key.size() > 2 && same_word(e.key.substr(0, 2), "Mk") ? whole_number(e.key.substr(2)) : std::nullopt;
    if (!n || *n < 1) ini.fail(e.line, fmt::format("expected {}, got the key {}", kLine, shown_text(e.key)));
    if (const auto [at, added] = lines.emplace(*n, e.line); !added)
      ini.fail(e.line, fmt::format("marker {} is given twice (first at line {})", *n, at->second));
    markers.push_back(read_marker(ini, e));
  }
  return markers;
}

std::vector<RecordingAnnotation> marker_annotations(const std::vector<BrainVisionMarker>& markers, double fs) {
  std::vector<RecordingAnnotation> annotations;
  annotations.reserve(markers.size());
  for (const auto& m : markers)
    annotations.push_back({static_cast<double>(m.position - 1) / fs, static_cast<double>(m.size) / fs,
                           m.type + "/" + m.description, m.description});
  return annotations;
}

}  // namespace pacflow::stages
