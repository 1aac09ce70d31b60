#include "stages/io/edf/edf_writer.hpp"

#include <cmath>
#include <edflib.h>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/io/edf/edflib_lock.hpp"

namespace pacflow::stages {

EdfWriter::EdfWriter(const std::string& path, bool bdf, const std::vector<EdfSignalSpec>& signals)
    : path_(path), signals_(signals) {
  {
    const std::lock_guard lock(edflib_table_mutex());
    handle_ = edfopen_file_writeonly(path.c_str(), bdf ? EDFLIB_FILETYPE_BDFPLUS : EDFLIB_FILETYPE_EDFPLUS,
                                     static_cast<int>(signals.size()));
  }
  if (handle_ < 0) throw InputError(fmt::format("{}: cannot create (EDFlib error {})", path, handle_));
  for (std::size_t i = 0; i < signals.size(); ++i) {
    const auto s = static_cast<int>(i);
    const EdfSignalSpec& spec = signals[i];
    if (edf_set_samplefrequency(handle_, s, spec.sample_rate) != 0 ||
        edf_set_physical_minimum(handle_, s, spec.physical_min) != 0 ||
        edf_set_physical_maximum(handle_, s, spec.physical_max) != 0 ||
        edf_set_digital_minimum(handle_, s, spec.digital_min) != 0 ||
        edf_set_digital_maximum(handle_, s, spec.digital_max) != 0 || edf_set_label(handle_, s, spec.label.c_str()) != 0 ||
        edf_set_physical_dimension(handle_, s, spec.unit.c_str()) != 0) {
      close_quietly();
      throw InputError(fmt::format("{}: EDFlib refused the settings of signal {} (\"{}\")", path, s, spec.label));
    }
  }
}

EdfWriter::~EdfWriter() { close_quietly(); }

int EdfWriter::close_quietly() noexcept {
  if (handle_ < 0) return 0;
  const std::lock_guard lock(edflib_table_mutex());
  const int status = edfclose_file(handle_);
  handle_ = -1;
  return status;
}

void EdfWriter::write_record(const std::vector<std::vector<double>>& record) {
  if (record.size() != signals_.size()) throw std::invalid_argument("EdfWriter: one sample vector per signal");
  for (std::size_t s = 0; s < record.size(); ++s) {
    if (record[s].size() != static_cast<std::size_t>(signals_[s].sample_rate))
      throw std::invalid_argument("EdfWriter: a record holds sample_rate samples per signal");
    std::vector<double> samples = record[s];  // EDFlib takes a non-const pointer
    if (edfwrite_physical_samples(handle_, samples.data()) != 0)
      throw InputError(fmt::format("{}: write failed (disk full?)", path_));
  }
}

void EdfWriter::annotate(double onset_s, const std::string& text, double duration_s) {
  const long long duration = duration_s < 0 ? -1 : std::llround(duration_s * 10000.0);
  if (edfwrite_annotation_utf8(handle_, std::llround(onset_s * 10000.0), duration, text.c_str()) != 0)
    throw InputError(fmt::format("{}: cannot add annotation \"{}\"", path_, text));
}

void EdfWriter::close() {
  if (close_quietly() != 0) throw InputError(fmt::format("{}: closing failed (disk full?)", path_));
}

}  // namespace pacflow::stages
