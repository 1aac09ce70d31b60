#pragma once
// Checksums of what a run reads back (checkpoint records and partial outputs, a shard's batches and
// record, the files a merge copies): XXH3-64 (libxxhash), as 16 hex digits. A flipped byte anywhere
// is refused, naming the file, instead of resuming or merging to other numbers.
//
// A record (a JSON object) is sealed by a "checksum" member over the rest of it, as
// nlohmann::json::dump() writes it (keys sorted, so the text does not depend on how it was built).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>

namespace pacflow {

// The checksum of `bytes`: 16 lowercase hex digits.
std::string checksum_of(std::string_view bytes);

// A checksum over bytes given piece by piece (a file as it is written): the same as checksum_of
// over all of them at once.
class Checksum {
 public:
  Checksum();
  ~Checksum();
  Checksum(const Checksum&) = delete;
  Checksum& operator=(const Checksum&) = delete;
  void update(const void* bytes, std::size_t size);
  std::string hex() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The checksum of the first `size` bytes of the open file `fd` (read with pread, 4 MiB at a time),
// and of `path` whole (InputFile: a regular file, never a FIFO). Throw RunCancelled when `stop` is
// requested meanwhile.
std::string checksum_of_fd(int fd, std::uint64_t size, const std::stop_token& stop = {});
std::string checksum_of_file(const std::filesystem::path& path, const std::stop_token& stop = {});

// `record` with its "checksum" member set over everything else in it.
nlohmann::json sealed(nlohmann::json record);
// Whether `record` carries a "checksum" member that matches the rest of it.
bool seal_intact(const nlohmann::json& record);

}  // namespace pacflow
