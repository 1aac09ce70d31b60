#include "stages/io/edf/edf_file.hpp"

#include <edflib.h>
#include <memory>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"
#include "stages/io/edf/edf_header_check.hpp"
#include "stages/io/edf/edflib_lock.hpp"

namespace pacflow::stages {

namespace {

std::string trim(const char* text) {
  std::string s(text);
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

std::string open_error(const std::string& path, int code) {
  // EDFlib says "format errors" or "read error" for any malformed or short header: name the field.
  if (code == EDFLIB_FILE_CONTAINS_FORMAT_ERRORS || code == EDFLIB_FILE_READ_ERROR) {
    const std::string why = diagnose_edf_header(path);
    if (!why.empty()) return "not a valid EDF/BDF file: " + why;
  }
  switch (code) {
    case EDFLIB_NO_SUCH_FILE_OR_DIRECTORY: return "no such file, or it cannot be opened";
    case EDFLIB_FILE_CONTAINS_FORMAT_ERRORS:
      return "not a valid EDF/BDF file: its header breaks the EDF(+)/BDF(+) specification (EDFbrowser's header "
             "check names the field)";
    case EDFLIB_FILE_READ_ERROR: return "read error";
    case EDFLIB_FILE_ALREADY_OPENED:
      return "already open in this process: EDFlib opens a file once at a time, so two sources cannot read it at "
             "the same time";
    case EDFLIB_FILETYPE_ERROR: return "not an EDF or BDF file";
    case EDFLIB_FILE_IS_DISCONTINUOUS:
      return "a discontinuous recording (EDF+D/BDF+D): its data records have gaps, so samples have no fixed times; "
             "convert it to EDF+C first";
    case EDFLIB_MAXFILES_REACHED: return "too many EDF files open at once";
    case EDFLIB_MALLOC_ERROR: return "out of memory";
    default: return fmt::format("EDFlib could not open it (error {})", code);
  }
}

}  // namespace

EdfFile::EdfFile(std::string path, bool read_annotations) : path_(std::move(path)) {
  require_regular_file(path_);  // EDFlib opens by name: a FIFO would block it, a device never end
  // The header struct holds 640 signal slots (~200 KB): keep it off the stack.
  const auto header = std::make_unique<edf_hdr_struct>();
  {
    const std::lock_guard lock(edflib_table_mutex());
    if (edfopen_file_readonly(path_.c_str(), header.get(),
                              read_annotations ? EDFLIB_READ_ALL_ANNOTATIONS : EDFLIB_DO_NOT_READ_ANNOTATIONS) != 0)
      throw InputError(fmt::format("{}: {}", path_, open_error(path_, header->filetype)));
  }
  handle_.id = header->handle;
  static constexpr const char* kFormats[] = {"EDF", "EDF+", "BDF", "BDF+"};
  format_ = kFormats[header->filetype & 3];
  const double record_s = static_cast<double>(header->datarecord_duration) / EDFLIB_TIME_DIMENSION;
  for (int s = 0; s < header->edfsignals; ++s) {
    const edf_param_struct& p = header->signalparam[s];
    // Physical units per digital step.
    const double resolution = (p.phys_max - p.phys_min) / (p.dig_max - p.dig_min);
    signals_.push_back({trim(p.label), trim(p.physdimension), p.smp_in_datarecord / record_s, p.smp_in_file, resolution});
  }
  for (long long i = 0; i < header->annotations_in_file; ++i) {
    edf_annotation_struct a{};
    if (edf_get_annotation(handle_.id, static_cast<int>(i), &a) != 0) continue;
    // EDFlib gives -10000000 (-1 s) for an annotation without a duration.
    const double duration_s = a.duration_l > 0 ? static_cast<double>(a.duration_l) / EDFLIB_TIME_DIMENSION : 0.0;
    annotations_.push_back({static_cast<double>(a.onset) / EDFLIB_TIME_DIMENSION, duration_s, trim(a.annotation), ""});
  }
}

EdfFile::~EdfFile() = default;

EdfFile::Handle::~Handle() {
  if (id < 0) return;
  const std::lock_guard lock(edflib_table_mutex());
  edfclose_file(id);
}

void EdfFile::read_physical(int signal, std::int64_t start, int count, double* dst) const {
  if (edfseek(handle_.id, signal, start, EDFSEEK_SET) != start)
    throw InputError(fmt::format("{}: cannot seek to sample {} of signal \"{}\"", path_, start, signals_.at(signal).label));
  const int got = edfread_physical_samples(handle_.id, signal, count, dst);
  if (got != count)
    throw InputError(fmt::format("{}: read {} of {} samples of signal \"{}\" from sample {} (file damaged?)", path_,
                                 got < 0 ? 0 : got, count, signals_.at(signal).label, start));
}

}  // namespace pacflow::stages
