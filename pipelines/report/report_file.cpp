#include "pipelines/report/report_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/io/input_file.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::report {

namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& file) {
  require_regular_file(file);  // a FIFO or a device is refused, not waited on
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf()))
    throw InputError(fmt::format("{}: cannot read it: {}", file.string(), file_error_reason(errno)));
  return text.str();
}

// The hdf5 sink's report: the file's result_json attribute.
std::string text_of_hdf5(const fs::path& file) {
  const hdf5::QuietErrors quiet;
  const hdf5::Id handle = hdf5::open_file_readonly(file);
  const auto text = hdf5::read_string_attribute(handle.get(), "result_json", file.string());
  if (!text || text->size() != 1)
    throw InputError(
        fmt::format("{}: no result_json attribute; is it a file pacflow's hdf5 sink wrote?", file.string()));
  return text->front();
}

}  // namespace

nlohmann::json read_run_report(const fs::path& target) {
  std::error_code error;
  const fs::file_status status = fs::status(target, error);
  if (!fs::exists(status))
    throw MissingFileError(target.string(), fmt::format("{}: no such file or folder; give a run's output folder, its "
                                                        "result.json or its .h5 file",
                                                        target.string()));
  fs::path file = target;
  if (fs::is_directory(status)) {
    file = target / "result.json";
    if (!fs::exists(file))
      throw MissingFileError(file.string(),
                             fmt::format("{}: no result.json in this folder (the npy sink writes one; for "
                                         "an hdf5 sink's outputs give its .h5 file)",
                                         target.string()));
  }
  const bool hdf5_file = file.extension() == ".h5" || file.extension() == ".hdf5";
  const std::string text = hdf5_file ? text_of_hdf5(file) : text_of(file);
  nlohmann::json report;
  try {
    report = parse_json_record(text);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not a run's report: not JSON ({})", file.string(), e.what()));
  }
  if (!report.is_object()) throw InputError(fmt::format("{}: not a run's report: not a JSON object", file.string()));
  return report;
}

}  // namespace pacflow::report
