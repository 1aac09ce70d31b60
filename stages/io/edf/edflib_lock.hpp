#pragma once
// EDFlib keeps its open files in a process-wide table that its open and close calls change without
// a lock (edflib.h, "thread-safety"). Every edfopen_* and edfclose_file call holds this mutex.
#include <mutex>

namespace pacflow::stages {

std::mutex& edflib_table_mutex();

}  // namespace pacflow::stages
