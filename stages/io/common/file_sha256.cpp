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

namespace {

// An OpenSSL SHA-256 digest fed piece by piece.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("SHA-256 unavailable");
  }
  void add(const void* bytes, std::size_t size) {
    if (size > 0 && EVP_DigestUpdate(ctx_.get(), bytes, size) != 1) throw std::runtime_error("SHA-256 update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), digest.data(), &size) != 1) throw std::runtime_error("SHA-256 failed");
    std::string out;
    for (unsigned int i = 0; i < size; ++i) out += fmt::format("{:02x}", digest[i]);
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

constexpr std::size_t kChunk = std::size_t{1} << 20;

}  // namespace

std::string sha256_file(const std::string& path, const std::stop_token& stop) {
  const InputFile file(path);
  Sha256 digest;
  std::vector<char> chunk(kChunk);
  for (std::uint64_t offset = 0;; offset += chunk.size()) {
    if (stop.stop_requested()) throw RunCancelled(0);
    const std::size_t got = file.read_at(offset, chunk.data(), chunk.size());
    digest.add(chunk.data(), got);
    if (got < chunk.size()) break;
  }
  return digest.hex();
}

std::string sha256_bytes(const void* bytes, std::size_t size, const std::stop_token& stop) {
  Sha256 digest;
  const auto* at = static_cast<const std::byte*>(bytes);
  for (std::size_t done = 0; done < size; done += kChunk) {
    if (stop.stop_requested()) throw RunCancelled(0);
    digest.add(at + done, std::min(kChunk, size - done));
  }
  return digest.hex();
}

}  // namespace pacflow::stages
