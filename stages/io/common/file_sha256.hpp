#pragma once
// The SHA-256 of an input file (or an array in memory), recorded in result.json so a result names
// exactly what it read.
#include <cstddef>
#include <stop_token>
#include <string>

namespace pacflow::stages {

// SHA-256 of a file's bytes, lowercase hex. Streams the file in 1 MiB chunks (bounded memory) and
// stops with RunCancelled(0) soon after `stop` is requested (a large file takes seconds to read).
// Throws InputError naming the file when it cannot be read or is not a regular file.
std::string sha256_file(const std::string& path, const std::stop_token& stop = {});

// SHA-256 of `size` bytes in memory (an array handed over by a caller), lowercase hex; stops as
// sha256_file does.
std::string sha256_bytes(const void* bytes, std::size_t size, const std::stop_token& stop = {});

}  // namespace pacflow::stages
