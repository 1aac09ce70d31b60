#pragma once
// A BIDS tabular file (events.tsv, channels.tsv, participants.tsv): UTF-8 text, one header line
// naming the columns, then one row per line, cells separated by tabs, every row as many cells as the
// header; "n/a" marks a missing value. What the BIDS readers share; each checks its own columns.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

struct TsvRow {
  int line = 0;  // in the file, 1-based
  std::vector<std::string> cells;
};

class TsvTable {
 public:
  // Reads `path` (`what` names the kind of file in messages, e.g. "a BIDS events file"). Throws
  // MissingFileError or InputError naming the file, and the line of a row with too few or too many
  // cells. A byte-order mark, '\r' line ends and blank lines are skipped.
  TsvTable(const std::filesystem::path& path, std::string_view what);

  const std::filesystem::path& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<TsvRow>& rows() const { return rows_; }
  // The index of column `name`, if the header names it.
  std::optional<std::size_t> column(std::string_view name) const;
  // The index of column `name`; an InputError naming the file's header line and `why` if it has none.
  std::size_t required_column(std::string_view name, std::string_view why) const;
  // An InputError located at `line` of the file.
  InputError error_at(int line, const std::string& message) const;

 private:
  std::filesystem::path path_;
  int header_line_ = 0;
  std::vector<std::string> header_;
  std::vector<TsvRow> rows_;
};

// Whether a cell holds no value: "n/a" (BIDS) or nothing.
inline bool is_missing(std::string_view cell) { return cell.empty() || cell == "n/a"; }

}  // namespace pacflow::stages
