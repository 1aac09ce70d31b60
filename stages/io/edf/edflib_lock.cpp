#include "stages/io/edf/edflib_lock.hpp"

namespace pacflow::stages {

std::mutex& edflib_table_mutex() {
  static std::mutex mutex;  // guards EDFlib's own global state, which we cannot make local
  return mutex;
}

}  // namespace pacflow::stages
