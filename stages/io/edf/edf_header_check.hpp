#pragma once
// EDFlib reports every malformed header with one code ("format errors"). This check repeats the
// checks EDFlib 1.23 makes, in its order, to say which field is wrong, with its bytes and the rule it
// breaks: printable ASCII text, dd.mm.yy and hh.mm.ss dates and times, strict whole numbers and
// numbers, the signal count (1..640), the header size, the record count and duration, each
// signal's fields (EDF+ annotation signals' fixed values), the data record size (10 MiB for EDF,
// 15 MiB for BDF), EDF+'s patient and recording subfields, and the file size.
#include <string>

namespace pacflow::stages {

// What is wrong with the EDF/BDF header of `path`, e.g. "the header declares 10 data records of
// 2048 bytes, but the file holds 12288 bytes of data (6 records)"; "" when the check finds nothing.
std::string diagnose_edf_header(const std::string& path);

}  // namespace pacflow::stages
