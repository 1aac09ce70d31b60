#include "engine/io/provenance.hpp"

#include <filesystem>
#include <fstream>
#include <oneapi/tbb/info.h>
#include <unistd.h>

#include "engine/api/pipeline.hpp"
#include "engine/build_info.hpp"  // generated: PACFLOW_GIT_COMMIT, PACFLOW_GIT_DESCRIBE
#include "engine/placement/devices.hpp"

namespace pacflow {

namespace {

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : "unknown";
}

// The value of the first line of `file` starting with `key` (after the first `separator`), trimmed.
std::string first_field(const std::filesystem::path& file, const std::string& key, char separator) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto at = line.find(separator, key.size());
    if (at == std::string::npos) continue;
    const auto begin = line.find_first_not_of(" \t", at + 1);
    const auto end = line.find_last_not_of(" \t");
    return begin == std::string::npos ? "" : line.substr(begin, end - begin + 1);
  }
  return "";
}

std::string cpu_model() {
  // x86 names the model; ARM kernels give only the implementer and part numbers.
  for (const char* key : {"model name", "Model", "Hardware"})
    if (std::string model = first_field("/proc/cpuinfo", key, ':'); !model.empty()) return model;
  return "unknown";
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar 5 …" → "550.54.15".
std::string nvidia_driver() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  const std::string marker = "Kernel Module";
  const auto at = line.find(marker);
  if (at == std::string::npos) return line;
  const auto begin = line.find_first_not_of(' ', at + marker.size());
  return begin == std::string::npos ? "" : line.substr(begin, line.find(' ', begin) - begin);
}

std::string simd_name(int bytes) {
  switch (bytes) {
    case 64: return "AVX-512 (64-byte vectors)";
    case 32: return "AVX2 (32-byte vectors)";
    case 16: return "SSE2 or NEON (16-byte vectors)";
    default: return "unknown";
  }
}

}  // namespace

std::string build_commit() { return PACFLOW_GIT_COMMIT; }
std::string build_describe() { return PACFLOW_GIT_DESCRIBE; }

json collect_provenance(const std::vector<std::string>& command_line, int simd_width_bytes) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  json out = {{"command_line", command_line},
              {"working_directory", ec ? "" : cwd.string()},
              {"version", engine_version()},
              {"commit", build_commit()},
              {"describe", build_describe()},
              {"build",
               {{"compiler", PACFLOW_COMPILER},
                {"build_type", PACFLOW_BUILD_TYPE},
                {"cuda", PACFLOW_CUDA_BUILT != 0},
                {"native", PACFLOW_NATIVE_BUILT != 0},
                {"sanitize", PACFLOW_SANITIZE_BUILT},
                {"simd_width_bytes", simd_width_bytes},
                {"simd", simd_name(simd_width_bytes)}}},
              {"host", host_name()},
              {"cpu_model", cpu_model()},
              {"threads", oneapi::tbb::info::default_concurrency()},
              {"gpu_driver", nvidia_driver()}};
  return out;
}

}  // namespace pacflow
