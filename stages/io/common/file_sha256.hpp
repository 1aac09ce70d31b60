#pragma once
// The SHA-256 of an input file, recorded in result.json so a result names exactly what it read.
#include <string>

namespace pacflow::stages {

// SHA-256 of a file's bytes, lowercase hex. Streams the file in 64 KiB chunks (bounded memory).
// Throws InputError naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace pacflow::stages
