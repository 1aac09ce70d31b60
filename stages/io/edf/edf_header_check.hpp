#pragma once
// EDFlib reports every malformed header with one code ("format errors"). This check reads the
// fixed ASCII header fields itself to say which one is wrong: a file shorter than its header, a
// record count that does not match the file size, digital or physical ranges that are empty or out
// of the format's range.
#include <string>

namespace pacflow::stages {

// What is wrong with the EDF/BDF header of `path`, e.g. "the header declares 10 data records of
// 2048 bytes, but the file holds 12288 bytes of data (6 records)"; "" when the check finds nothing.
std::string diagnose_edf_header(const std::string& path);

}  // namespace pacflow::stages
