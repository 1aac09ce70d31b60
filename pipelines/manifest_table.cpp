#include "pipelines/manifest_table.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <sstream>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/run_files.hpp"  // kRunReport
#include "pipelines/pipe_format.hpp"

namespace pacflow {

namespace {

namespace fs = std::filesystem;

// The largest table read: a dataset is many rows of short cells.
constexpr std::size_t kMaxTableBytes = std::size_t{64} << 20;

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    std::string cell = line.substr(start, tab == std::string::npos ? std::string::npos : tab - start);
    const auto first = cell.find_first_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, cell.find_last_not_of(' ') - first + 1));
    if (tab == std::string::npos) return cells;
    start = tab + 1;
  }
}

bool is_skipped(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

std::string reader_by_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".npy" || ext == ".npz") return "npy";
  if (ext == ".edf" || ext == ".bdf") return "edf";
  if (ext == ".vhdr") return "brainvision";
  if (ext == ".h5" || ext == ".hdf5") return "hdf5";
  return "";
}

void check_id(const std::string& id, const SourceLocation& where) {
  const bool plain = std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
  if (id.empty() || !plain || id == "." || id == "..")
    throw InputError(fmt::format("id \"{}\": a recording's id names its results' folder: use letters, digits, '.', "
                                 "'_' and '-'",
                                 id),
                     where);
  // Names pacflow keeps for itself in an output folder: a folder by that name would break every
  // later run there (its lock, its journal, its temporaries are hidden names; the run's report).
  if (id.front() == '.' || id == kRunReport)
    throw InputError(fmt::format("id \"{}\": a recording's id names its results' folder, and {} is pacflow's own "
                                 "name in an output folder; start the id with a letter or digit",
                                 id, id.front() == '.' ? "a name starting with '.'" : id),
                     where);
}

class TableReader {
 public:
  TableReader(fs::path file, const std::optional<std::string>& reader, const Registry& registry)
      : file_(std::move(file)), reader_(reader.value_or("")), registry_(registry) {}

  ManifestTable read() {
    std::string text;
    try {
      text = InputFile(file_).read_all(kMaxTableBytes, "a dataset's table");
    } catch (const MissingFileError& e) {
      throw MissingFileError(file_.string(), fmt::format("cannot read the dataset's table: {}", e.bare_message()));
    } catch (const InputError& e) {  // a folder, a FIFO, a device, too large
      throw InputError(fmt::format("cannot read the dataset's table: {}", e.bare_message()));
    }
    if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);  // the byte-order mark spreadsheets write
    ManifestTable table{file_, {}, "manifest", {}};
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find('\0') != std::string::npos)
        throw InputError("a NUL byte: a dataset's table is tab-separated text", at(number, line.find('\0')));
      if (is_skipped(line)) continue;
      if (header_.empty())
        read_header(line, number);
      else
        table.recordings.push_back(read_row(line, number));
    }
    if (header_.empty()) throw InputError(fmt::format("{}: no header line (id, path, …)", file_.string()));
    if (table.recordings.empty()) throw InputError(fmt::format("{}: no recording: one row per recording after the header", file_.string()));
    return table;
  }

 private:
  SourceLocation at(int line, std::size_t column) const {
    return {file_.string(), line, static_cast<int>(column) + 1};
  }

  void read_header(const std::string& line, int number) {
    header_ = cells_of(line);
    std::set<std::string> seen;
    for (std::size_t c = 0; c < header_.size(); ++c) {
      if (header_[c].empty()) throw InputError("a column without a name", at(number, c));
      if (!seen.insert(header_[c]).second) throw InputError(fmt::format("column \"{}\" is named twice", header_[c]), at(number, c));
    }
    for (const char* needed : {"id", "path"})
      if (!seen.contains(needed))
        throw InputError(fmt::format("the header has no {} column (it names: {}); a dataset's table needs id and path",
                                     needed, fmt::join(header_, ", ")),
                         at(number, 0));
  }

  ManifestRecording read_row(const std::string& line, int number) {
    const std::vector<std::string> cells = cells_of(line);
    if (cells.size() != header_.size())
      throw InputError(fmt::format("{} cells where the header names {} columns (cells are separated by tabs)",
                                   cells.size(), header_.size()),
                       at(number, 0));
    ManifestRecording row;
    row.line = number;
    row.params = json::object();
    std::string path;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (header_[c] == "id") row.id = cells[c];
      if (header_[c] == "path") path = cells[c];
      if (header_[c] == "reader") row.reader = cells[c];
    }
    check_id(row.id, at(number, column("id")));
    if (!ids_.insert(row.id).second) throw InputError(fmt::format("id \"{}\" is given twice", row.id), at(number, column("id")));
    if (path.empty()) throw InputError(fmt::format("recording {} has no path", row.id), at(number, column("path")));
    const fs::path file = fs::path(path).is_absolute() ? fs::path(path) : (file_.parent_path() / path).lexically_normal();
    if (row.reader.empty()) row.reader = reader_;
    if (row.reader.empty()) row.reader = reader_by_extension(file);
    if (row.reader.empty())
      throw InputError(fmt::format("{}: no reader for this kind of file; name its source in a reader column or with "
                                   "the manifest's reader= (npy, edf, brainvision, hdf5)",
                                   path),
                       at(number, column("path")));
    const ElementInfo* info = registry_.find(ElementKind::Source, row.reader);
    if (!info || row.reader == "manifest" || !has_param(*info, "path"))
      throw InputError(
          fmt::format("reader \"{}\" is not a source that reads a file (npy, edf, brainvision, hdf5)", row.reader),
          at(number, column("reader") < header_.size() ? column("reader") : column("path")));
    row.params["path"] = file.string();
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string& key = header_[c];
      if (key == "id" || key == "path" || key == "reader" || cells[c].empty()) continue;
      if (!has_param(*info, key))
        throw InputError(fmt::format("column \"{}\" is not a parameter of the {} source", key, row.reader),
                         at(number, c));
      row.params[key] = parse_pipe_value(cells[c], at(number, c));
    }
    return row;
  }

  std::size_t column(const std::string& name) const {
    return static_cast<std::size_t>(std::find(header_.begin(), header_.end(), name) - header_.begin());
  }
  static bool has_param(const ElementInfo& info, const std::string& name) {
    return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& p) { return p.name == name; });
  }

  fs::path file_;
  std::string reader_;
  const Registry& registry_;
  std::vector<std::string> header_;
  std::set<std::string> ids_;
};

}  // namespace

ManifestTable read_manifest(const fs::path& file, const std::optional<std::string>& reader, const Registry& registry) {
  return TableReader(file, reader, registry).read();
}

std::string origin_of(const ManifestTable& table, const ManifestRecording& row) {
  if (row.line > 0) return fmt::format("{}:{}", table.file.string(), row.line);
  return row.params.at("path").get<std::string>();
}

}  // namespace pacflow
