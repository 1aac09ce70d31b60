#pragma once
// What the CLI left in a folder, for tests that check outputs are complete or absent, temporaries
// gone and earlier files untouched.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "tests/support/sanitizers.hpp"

namespace pacflow::testing {

// Every entry of `dir` (hidden ones too) with its bytes; an entry that is not a regular file is
// "<not a regular file>" (never opened: a FIFO would block). Empty when `dir` does not exist.
std::map<std::string, std::string> folder_contents(const std::filesystem::path& dir);

// Whether `dir` holds a temporary output file (".NAME.tmp-PID-XXXXXXXX").
bool has_temporary(const std::filesystem::path& dir);

// The series a checkpoint in `dir` records done (0 when it has no record yet).
std::int64_t series_recorded(const std::filesystem::path& dir);

// How much slower every batch runs under a sanitizer, for timeouts.
#if defined(PACFLOW_UNDER_ASAN) || defined(PACFLOW_UNDER_TSAN)
inline constexpr int kSanitizerSlowdown = 10;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

}  // namespace pacflow::testing
