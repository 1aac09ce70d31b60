#include "stages/io/common/file_sha256.hpp"

#include <array>
#include <cstdint>
#include <fmt/format.h>
#include <memory>
#include <openssl/evp.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow::stages {

std::string sha256_file(const std::string& path, const std::stop_token& stop) {
  const InputFile file(path);
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
  std::vector<char> chunk(std::size_t{1} << 20);
  for (std::uint64_t offset = 0;; offset += chunk.size()) {
    if (stop.stop_requested()) throw RunCancelled(0);
    const std::size_t got = file.read_at(offset, chunk.data(), chunk.size());
    if (got > 0 && EVP_DigestUpdate(ctx.get(), chunk.data(), got) != 1) throw std::runtime_error("SHA-256 update failed");
    if (got < chunk.size()) break;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &size) != 1) throw std::runtime_error("SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace pacflow::stages
