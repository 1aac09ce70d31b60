#include "pipelines/bids/bids_channels.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/channel_selection.hpp"
#include "stages/io/common/tsv_table.hpp"

namespace pacflow::bids {

namespace {

bool is_bad(std::string status) {
  std::transform(status.begin(), status.end(), status.begin(), [](unsigned char c) { return std::tolower(c); });
  return status == "bad";
}

}  // namespace

BidsChannels read_bids_channels(const std::filesystem::path& file) {
  const stages::TsvTable table(file, "a BIDS channels file");
  const std::size_t name = table.required_column("name", "BIDS channels files name each channel");
  const std::optional<std::size_t> status = table.column("status");
  BidsChannels channels{file, {}, {}};
  for (const stages::TsvRow& row : table.rows()) {
    channels.names.push_back(row.cells[name]);
    channels.bad.push_back(status && is_bad(row.cells[*status]));
  }
  return channels;
}

std::optional<json> recording_channels(const std::optional<json>& given, const BidsChannels& channels) {
  std::vector<std::string> good, bad;
  for (std::size_t i = 0; i < channels.names.size(); ++i) (channels.bad[i] ? bad : good).push_back(channels.names[i]);
  if (given) {
    std::vector<std::size_t> selected;
    try {
      selected = stages::select_channels(*given, channels.names);
    } catch (const InputError&) {
      return given;  // a channel channels.tsv does not name: the reader says which the recording has
    }
    for (const std::size_t i : selected)
      if (channels.bad[i])
        throw InputError(
            fmt::format("channels= selects {}, which {} marks bad (status bad); leave it out of "
                        "channels=, or mark it good",
                        channels.names[i], channels.file.string()));
    return given;
  }
  if (bad.empty()) return std::nullopt;
  if (good.empty())
    throw InputError(fmt::format("{}: every channel is marked bad ({})", channels.file.string(), fmt::join(bad, ", ")));
  return json(good);
}

}  // namespace pacflow::bids
