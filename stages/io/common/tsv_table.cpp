#include "stages/io/common/tsv_table.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>

#include "engine/io/input_file.hpp"

namespace pacflow::stages {

namespace {

// The largest table read: BIDS tables are short rows of short cells.
constexpr std::size_t kMaxTsvBytes = std::size_t{64} << 20;

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    cells.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return cells;
    start = tab + 1;
  }
}

}  // namespace

TsvTable::TsvTable(const std::filesystem::path& path, std::string_view what) : path_(path) {
  std::string text = InputFile(path_).read_all(kMaxTsvBytes, what);
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos) throw error_at(number, "a NUL byte: a BIDS table is tab-separated text");
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::string> cells = split_tabs(line);
    if (header_.empty()) {
      header_ = std::move(cells);
      header_line_ = number;
      continue;
    }
    if (cells.size() != header_.size())
      throw error_at(number, fmt::format("{} cells where the header names {} columns ({}); cells are separated by "
                                         "tabs, n/a for a missing value",
                                         cells.size(), header_.size(), fmt::join(header_, ", ")));
    rows_.push_back({number, std::move(cells)});
  }
  if (header_.empty())
    throw InputError(fmt::format("{}: empty; {} starts with a header line naming its columns", path_.string(), what));
}

std::optional<std::size_t> TsvTable::column(std::string_view name) const {
  const auto it = std::find(header_.begin(), header_.end(), name);
  if (it == header_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header_.begin());
}

std::size_t TsvTable::required_column(std::string_view name, std::string_view why) const {
  if (const auto c = column(name)) return *c;
  throw error_at(header_line_,
                 fmt::format("no {} column (the header names {}); {}", name, fmt::join(header_, ", "), why));
}

InputError TsvTable::error_at(int line, const std::string& message) const {
  return InputError(message, SourceLocation{path_.string(), line, 0});
}

}  // namespace pacflow::stages
