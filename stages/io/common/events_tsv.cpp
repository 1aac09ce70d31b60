#include "stages/io/common/events_tsv.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "stages/io/common/tsv_table.hpp"

namespace pacflow::stages {

namespace {

// A finite decimal number in seconds, or nothing.
std::optional<double> seconds_of(const std::string& cell) {
  double value = 0;
  const char* end = cell.data() + cell.size();
  const auto [at, ec] = std::from_chars(cell.data(), end, value);
  if (ec != std::errc() || at != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::vector<RecordingAnnotation> read_events_tsv(const std::filesystem::path& path) {
  const TsvTable table(path, "a BIDS events file");
  const std::size_t onset = table.required_column("onset", "BIDS events files give each event's onset in seconds");
  const std::size_t type = table.required_column(
      "trial_type", "events= selects events by their trial_type; add the column, or cut fixed windows with epoch=");
  const std::optional<std::size_t> duration = table.column("duration");
  std::vector<RecordingAnnotation> events;
  for (const TsvRow& row : table.rows()) {
    const std::optional<double> at = seconds_of(row.cells[onset]);
    if (!at) throw table.error_at(row.line, fmt::format("onset \"{}\" is not a number of seconds", row.cells[onset]));
    double length = 0;
    if (duration && !is_missing(row.cells[*duration])) {
      const std::optional<double> d = seconds_of(row.cells[*duration]);
      if (!d || *d < 0)
        throw table.error_at(
            row.line, fmt::format("duration \"{}\" is not a number of seconds >= 0 (or n/a)", row.cells[*duration]));
      length = *d;
    }
    if (is_missing(row.cells[type])) continue;  // no event type: nothing events= could select
    events.push_back({*at, length, row.cells[type], ""});
  }
  return events;
}

}  // namespace pacflow::stages
