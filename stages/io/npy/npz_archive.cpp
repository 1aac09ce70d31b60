#include "stages/io/npy/npz_archive.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <unzip.h>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow::stages {

namespace {

constexpr std::string_view kNpySuffix = ".npy";

std::string key_of(const std::string& member) {
  return member.ends_with(kNpySuffix) ? member.substr(0, member.size() - kNpySuffix.size()) : member;
}

// An archive opened through minizip, on a descriptor pacflow opened itself (a regular file, opened
// without blocking: InputFile). minizip reads through its stdio callbacks; its `open` is handed a
// duplicate of that descriptor instead of opening the name again. Neither copied nor moved: minizip
// keeps a pointer to `file_`.
class ZipArchive {
 public:
  explicit ZipArchive(const std::filesystem::path& path) : file_(path), name_(path.string()) {
    zlib_filefunc64_def functions{};
    fill_fopen64_filefunc(&functions);
    functions.opaque = &file_;
    functions.zopen64_file = [](voidpf opaque, const void*, int mode) -> voidpf {
      if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ) return nullptr;
      const int fd = ::dup(static_cast<const InputFile*>(opaque)->fd());
      if (fd < 0) return nullptr;
      FILE* stream = ::fdopen(fd, "rb");
      if (!stream) ::close(fd);
      return stream;
    };
    zip_ = unzOpen2_64(name_.c_str(), &functions);
    if (!zip_)
      throw InputError(fmt::format("{}: not a readable .npz archive: its zip directory is missing or damaged", name_));
  }
  ~ZipArchive() {
    if (member_open_) unzCloseCurrentFile(zip_);
    unzClose(zip_);
  }
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  const InputFile& file() const { return file_; }
  const std::string& name() const { return name_; }

  std::vector<std::string> member_names() {
    std::vector<std::string> names;
    for (int at = unzGoToFirstFile(zip_); at == UNZ_OK; at = unzGoToNextFile(zip_)) {
      unz_file_info64 info{};
      std::array<char, 4096> name{};
      if (unzGetCurrentFileInfo64(zip_, &info, name.data(), name.size() - 1, nullptr, 0, nullptr, 0) != UNZ_OK)
        damaged("", "its directory cannot be read");
      names.emplace_back(name.data());
    }
    return names;
  }

  // Makes `member` the current one; false when the archive has no such member.
  bool locate(const std::string& member) { return unzLocateFile(zip_, member.c_str(), /*case sensitive=*/1) == UNZ_OK; }

  unz_file_info64 current_info() {
    unz_file_info64 info{};
    if (unzGetCurrentFileInfo64(zip_, &info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK)
      damaged("", "its directory cannot be read");
    return info;
  }

  // Opens the current member for reading from its start; returns where its data begin in the file.
  std::uint64_t open_member(const std::string& member) {
    close_member();
    if (unzOpenCurrentFile(zip_) != UNZ_OK) damaged(member, "its local header is damaged");
    member_open_ = true;
    return unzGetCurrentFileZStreamPos64(zip_);
  }

  // Inflates up to `count` bytes of the open member into dst; returns how many (0 at its end).
  std::size_t inflate(const std::string& member, void* dst, std::size_t count) {
    const int got = unzReadCurrentFile(zip_, dst, static_cast<unsigned>(std::min<std::size_t>(count, INT_MAX)));
    if (got < 0) damaged(member, fmt::format("its compressed data are damaged (minizip error {})", got));
    return static_cast<std::size_t>(got);
  }

  // Closes the open member; when every byte of it was read, its CRC-32 is checked.
  void close_member(const std::string& member = "") {
    if (!member_open_) return;
    member_open_ = false;
    if (unzCloseCurrentFile(zip_) == UNZ_CRCERROR) damaged(member, "its CRC-32 does not match its data");
  }

  [[noreturn]] void damaged(const std::string& member, const std::string& what) const {
    throw InputError(fmt::format("{}{}: damaged .npz archive: {}", name_, member.empty() ? "" : ":" + member, what));
  }

 private:
  InputFile file_;
  std::string name_;
  unzFile zip_ = nullptr;
  bool member_open_ = false;
};

// A deflated member, inflated as it is read. Reads go forward; one before the current position
// starts the member again (the source reads each pass in order, so a run inflates it a few times).
class InflatedMember final : public NpyValues {
 public:
  InflatedMember(std::unique_ptr<ZipArchive> archive, std::string member, std::uint64_t size)
      : archive_(std::move(archive)), member_(std::move(member)), size_(size) {
    archive_->open_member(member_);
    header_ = parse_npy_header([this](std::uint64_t offset, void* dst, std::size_t count) { return bytes(offset, dst, count); },
                               size_, archive_->name() + ":" + member_);
  }

  const NpyHeader& header() const override { return header_; }

  void read(std::int64_t first, std::int64_t count, float* dst, bool /*release*/) override {
    if (first < 0 || count < 0 || first + count > element_count(header_.shape))
      throw std::out_of_range(fmt::format("{}:{}: values {}..{} are outside the array", archive_->name(), member_,
                                          first, first + count));
    const std::size_t width = dtype_size(header_.dtype);
    const std::size_t per_chunk = chunk_.size() / width;
    for (std::int64_t done = 0; done < count;) {
      const auto k = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(per_chunk), count - done));
      const std::uint64_t at = header_.data_offset + static_cast<std::uint64_t>(first + done) * width;
      if (bytes(at, chunk_.data(), k * width) != k * width)
        archive_->damaged(member_, "it holds fewer bytes than its header declares");
      npy_values_to_float(header_, chunk_.data(), k, dst + done);
      done += static_cast<std::int64_t>(k);
    }
  }

 private:
  // Bytes [offset, offset + count) of the member into dst; returns how many it holds.
  std::size_t bytes(std::uint64_t offset, void* dst, std::size_t count) {
    if (offset < position_ || !open_) {
      position_ = 0;
      archive_->open_member(member_);
      open_ = true;
    }
    while (position_ < offset) {  // skip forward
      const std::size_t got = archive_->inflate(member_, skip_.data(), std::min<std::uint64_t>(skip_.size(), offset - position_));
      if (got == 0) return 0;
      position_ += got;
    }
    std::size_t done = 0;
    auto* out = static_cast<std::byte*>(dst);
    while (done < count) {
      const std::size_t got = archive_->inflate(member_, out + done, count - done);
      if (got == 0) break;
      done += got;
    }
    position_ += done;
    if (position_ >= size_) {  // the whole member was inflated: minizip checks its CRC-32 on closing
      open_ = false;
      archive_->close_member(member_);
    }
    return done;
  }

  std::unique_ptr<ZipArchive> archive_;
  std::string member_;
  std::uint64_t size_;
  NpyHeader header_;
  std::uint64_t position_ = 0;
  bool open_ = true;
  std::array<std::byte, 1 << 16> chunk_{};
  std::array<std::byte, 1 << 16> skip_{};
};

std::vector<std::string> npy_members(ZipArchive& archive) {
  std::vector<std::string> members;
  for (auto& name : archive.member_names())
    if (name.ends_with(kNpySuffix)) members.push_back(std::move(name));
  return members;
}

std::string listed_keys(const std::vector<std::string>& members) {
  if (members.empty()) return "no .npy member at all";
  std::vector<std::string> keys;
  for (const auto& m : members) keys.push_back(key_of(m));
  return fmt::format("key={}", fmt::join(keys, ", key="));
}

}  // namespace

bool is_zip_archive(const std::filesystem::path& path) {
  const InputFile file(path);
  std::array<char, 4> start{};
  const std::size_t got = file.read_at(0, start.data(), start.size());
  // A member's local header, or the end of an archive with no member at all.
  return got == 4 && (std::memcmp(start.data(), "PK\x03\x04", 4) == 0 || std::memcmp(start.data(), "PK\x05\x06", 4) == 0);
}

std::vector<std::string> npz_keys(const std::filesystem::path& path) {
  ZipArchive archive(path);
  std::vector<std::string> keys;
  for (const auto& m : npy_members(archive)) keys.push_back(key_of(m));
  return keys;
}

NpzMember open_npz_member(const std::filesystem::path& path, const std::optional<std::string>& key) {
  auto archive = std::make_unique<ZipArchive>(path);
  const auto members = npy_members(*archive);
  std::string member;
  if (key) {
    member = key->ends_with(kNpySuffix) ? *key : *key + std::string(kNpySuffix);
    if (!archive->locate(member))
      throw ParamError("key", fmt::format("{}: the archive has no array \"{}\"; it holds {}", path.string(), *key,
                                          listed_keys(members)));
  } else {
    if (members.size() != 1)
      throw ParamError("key", fmt::format("{}: the archive holds {} arrays; say which with {}", path.string(),
                                          members.size(), listed_keys(members)));
    member = members.front();
    if (!archive->locate(member)) archive->damaged(member, "its directory lists a member it cannot find");
  }
  const unz_file_info64 info = archive->current_info();
  NpzMember result;
  result.key = key_of(member);
  result.where = archive->name() + ":" + member;
  if (info.flag & 1u)
    throw InputError(fmt::format("{}: the member is encrypted; NumPy writes plain members (np.savez)", result.where));
  if (info.compression_method == 0) {
    if (info.compressed_size != info.uncompressed_size)
      archive->damaged(member, "a stored member's compressed and uncompressed sizes differ");
    const std::uint64_t at = archive->open_member(member);
    archive->close_member();
    result.values = std::make_unique<NpyRowReader>(archive->file(), at, info.uncompressed_size, result.where);
  } else if (info.compression_method == Z_DEFLATED) {
    result.compressed = true;
    result.values = std::make_unique<InflatedMember>(std::move(archive), member, info.uncompressed_size);
  } else {
    throw InputError(fmt::format("{}: compressed with zip method {}, which pacflow does not read; NumPy writes stored "
                                 "(np.savez) or deflated (np.savez_compressed) members",
                                 result.where, info.compression_method));
  }
  return result;
}

}  // namespace pacflow::stages
