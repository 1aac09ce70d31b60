#include "engine/io/checksum.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <memory>
#include <system_error>
#include <unistd.h>
#include <vector>
#include <xxhash.h>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow {

namespace {

constexpr const char* kChecksumKey = "checksum";

std::string hex(XXH64_hash_t hash) { return fmt::format("{:016x}", static_cast<std::uint64_t>(hash)); }

}  // namespace

std::string checksum_of(std::string_view bytes) { return hex(XXH3_64bits(bytes.data(), bytes.size())); }

struct Checksum::State {
  XXH3_state_t* xxh = XXH3_createState();  // the library allocates it: its size is not a stable API
  ~State() { XXH3_freeState(xxh); }
};

Checksum::Checksum() : state_(std::make_unique<State>()) {
  if (!state_->xxh || XXH3_64bits_reset(state_->xxh) != XXH_OK) throw std::bad_alloc();
}

Checksum::~Checksum() = default;

void Checksum::update(const void* bytes, std::size_t size) { XXH3_64bits_update(state_->xxh, bytes, size); }

std::string Checksum::hex() const { return pacflow::hex(XXH3_64bits_digest(state_->xxh)); }

std::string checksum_of_fd(int fd, std::uint64_t size, const std::stop_token& stop) {
  Checksum sum;
  std::vector<char> buffer(std::size_t{4} << 20);
  for (std::uint64_t done = 0; done < size;) {
    if (stop.stop_requested()) throw RunCancelled(0);
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw std::system_error(errno, std::generic_category(), "reading back a file to check it");
    if (got == 0) break;  // shorter than said: the checksum then differs
    sum.update(buffer.data(), static_cast<std::size_t>(got));
    done += static_cast<std::uint64_t>(got);
  }
  return sum.hex();
}

std::string checksum_of_file(const std::filesystem::path& path, const std::stop_token& stop) {
  const InputFile file(path);
  return checksum_of_fd(file.fd(), file.size(), stop);
}

nlohmann::json sealed(nlohmann::json record) {
  record.erase(kChecksumKey);
  record[kChecksumKey] = checksum_of(record.dump());
  return record;
}

bool seal_intact(const nlohmann::json& record) {
  if (!record.is_object() || !record.contains(kChecksumKey) || !record[kChecksumKey].is_string()) return false;
  nlohmann::json rest = record;
  rest.erase(kChecksumKey);
  return checksum_of(rest.dump()) == record[kChecksumKey].get<std::string>();
}

}  // namespace pacflow
