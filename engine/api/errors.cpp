#include "engine/api/errors.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <system_error>

namespace pacflow {

std::string SourceLocation::prefix() const {
  if (file.empty()) return {};
  if (line <= 0) return fmt::format("{}: ", file);
  if (column <= 0) return fmt::format("{}:{}: ", file, line);
  return fmt::format("{}:{}:{}: ", file, line, column);
}

InputError::InputError(const std::string& message, SourceLocation where)
    : std::runtime_error(where.prefix() + message), where_(std::move(where)), bare_(message) {}

ParamError::ParamError(std::string param, const std::string& message)
    : InputError(message), param_(std::move(param)) {}

MissingFileError::MissingFileError(std::string path, const std::string& message)
    : InputError(message), path_(std::move(path)) {}

StageError::StageError(const std::string& kind, const std::string& stage, long long batch,
                       const std::exception& cause)
    : std::runtime_error(batch >= 0 ? fmt::format("{} \"{}\" failed on batch {}: {}", kind, stage, batch, cause.what())
                                    : fmt::format("{} \"{}\" failed: {}", kind, stage, cause.what())),
      stage_(stage),
      batch_(batch),
      input_error_(caused_by_input(cause)) {}

DeviceError::DeviceError(std::string device, const std::exception& cause)
    : std::runtime_error(fmt::format("on {}: {}", device, cause.what())), device_(std::move(device)) {}

RunCancelled::RunCancelled(long long batches_delivered)
    : std::runtime_error(fmt::format("the run was cancelled after {} batch{} reached the sinks", batches_delivered,
                                     batches_delivered == 1 ? "" : "es")),
      delivered_(batches_delivered) {}

namespace {

// A file-system error about a path the user named, rather than about the machine (a full disk, an
// I/O error): such paths come from the pipeline, its parameters or the command line.
bool about_the_path(const std::filesystem::filesystem_error& e) {
  const std::error_code code = e.code();
  for (const std::errc input : {std::errc::no_such_file_or_directory, std::errc::not_a_directory,
                                std::errc::is_a_directory, std::errc::permission_denied,
                                std::errc::operation_not_permitted, std::errc::read_only_file_system,
                                std::errc::file_exists, std::errc::filename_too_long,
                                std::errc::too_many_symbolic_link_levels})
    if (code == input) return true;
  return false;
}

bool says_input_is_wrong(const std::exception& e) {
  if (const auto* stage = dynamic_cast<const StageError*>(&e)) return stage->input_error();
  if (dynamic_cast<const InputError*>(&e) || dynamic_cast<const nlohmann::json::parse_error*>(&e)) return true;
  if (const auto* file = dynamic_cast<const std::filesystem::filesystem_error*>(&e)) return about_the_path(*file);
  return false;
}

}  // namespace

bool caused_by_input(const std::exception& error) {
  if (says_input_is_wrong(error)) return true;
  try {
    std::rethrow_if_nested(error);
  } catch (const std::exception& cause) {
    return caused_by_input(cause);
  } catch (...) {
  }
  return false;
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Levenshtein distance, except that one swap of neighbours counts as one edit ("hilbret").
std::size_t distance(const std::string& a, const std::string& b) {
  std::size_t best = edit_distance(a, b);
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    std::string swapped = a;
    std::swap(swapped[i], swapped[i + 1]);
    if (swapped == b) best = std::min<std::size_t>(best, 1);
  }
  return best;
}
}  // namespace

std::string suggest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best.empty() ? std::string{} : fmt::format("did you mean \"{}\"?", best);
}

}  // namespace pacflow
