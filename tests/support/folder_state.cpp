#include "tests/support/folder_state.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/io/atomic_file.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::testing {

namespace fs = std::filesystem;

std::map<std::string, std::string> folder_contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const bool regular = fs::is_regular_file(fs::symlink_status(e.path(), ec));
    out[e.path().filename().string()] = regular ? read_file(e.path()) : "<not a regular file>";
  }
  return out;
}

bool has_temporary(const fs::path& dir) {
  for (const auto& [name, bytes] : folder_contents(dir))
    if (temp_file_writer(name) > 0) return true;
  return false;
}

std::int64_t series_recorded(const fs::path& dir) {
  std::ifstream in(dir / "checkpoint.json");
  if (!in) return 0;
  try {
    return nlohmann::json::parse(in).at("series_done").get<std::int64_t>();
  } catch (const nlohmann::json::exception&) {
    return 0;  // read while being replaced
  }
}

}  // namespace pacflow::testing
