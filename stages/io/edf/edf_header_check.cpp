#include "stages/io/edf/edf_header_check.hpp"

#include <charconv>
#include <cstdint>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <string_view>

namespace pacflow::stages {

namespace {

constexpr std::size_t kFixedHeader = 256;  // bytes before the per-signal fields
constexpr std::size_t kPerSignal = 256;    // header bytes per signal

std::string_view trimmed(std::string_view field) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\0')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\0')) field.remove_suffix(1);
  return field;
}

template <typename T>
std::optional<T> number(std::string_view field) {
  field = trimmed(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  T value{};
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || end != field.data() + field.size() || field.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string diagnose_edf_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "cannot open for reading";
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (size < kFixedHeader)
    return fmt::format("truncated: the file has {} bytes, fewer than the {}-byte fixed EDF/BDF header", size,
                       kFixedHeader);
  std::string fixed(kFixedHeader, '\0');
  in.seekg(0);
  in.read(fixed.data(), static_cast<std::streamsize>(fixed.size()));
  const std::string_view head(fixed);
  const bool bdf = head.substr(0, 8) == "\xff" "BIOSEMI";
  if (!bdf && head.substr(0, 8) != "0       ")
    return "it starts with neither the EDF version \"0\" nor the BDF marker \"\\xffBIOSEMI\"";
  const auto signals = number<int>(head.substr(252, 4));
  if (!signals || *signals < 1) return fmt::format("the signal count \"{}\" is not a positive number", head.substr(252, 4));
  const std::uint64_t header_bytes = kFixedHeader + kPerSignal * static_cast<std::uint64_t>(*signals);
  if (number<std::uint64_t>(head.substr(184, 8)) != header_bytes)
    return fmt::format("the header size field \"{}\" does not match the {} bytes that {} signals need",
                       trimmed(head.substr(184, 8)), header_bytes, *signals);
  if (size < header_bytes)
    return fmt::format("truncated header: {} signals need a {}-byte header, the file has {} bytes", *signals,
                       header_bytes, size);

  std::string table(header_bytes - kFixedHeader, '\0');
  in.read(table.data(), static_cast<std::streamsize>(table.size()));
  const std::string_view t(table);
  const auto n = static_cast<std::size_t>(*signals);
  const auto field = [&](std::size_t offset, std::size_t width, std::size_t s) {
    return t.substr(offset * n + s * width, width);
  };
  const int digital_floor = bdf ? -8388608 : -32768, digital_ceiling = bdf ? 8388607 : 32767;
  std::uint64_t samples_per_record = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const std::string label(trimmed(field(0, 16, s)));
    const std::string name = fmt::format("signal {} (\"{}\")", s, label);
    const auto phys_min = number<double>(field(104, 8, s)), phys_max = number<double>(field(112, 8, s));
    const auto dig_min = number<int>(field(120, 8, s)), dig_max = number<int>(field(128, 8, s));
    const auto samples = number<int>(field(216, 8, s));
    if (!phys_min || !phys_max) return fmt::format("{}: its physical minimum or maximum is not a number", name);
    if (*phys_min == *phys_max) return fmt::format("{}: its physical minimum equals its maximum ({})", name, *phys_min);
    if (!dig_min || !dig_max) return fmt::format("{}: its digital minimum or maximum is not a whole number", name);
    if (*dig_min >= *dig_max)
      return fmt::format("{}: its digital minimum {} is not below its maximum {}", name, *dig_min, *dig_max);
    if (*dig_min < digital_floor || *dig_max > digital_ceiling)
      return fmt::format("{}: its digital range {}..{} exceeds the {} range {}..{}", name, *dig_min, *dig_max,
                         bdf ? "24-bit BDF" : "16-bit EDF", digital_floor, digital_ceiling);
    if (!samples || *samples < 1)
      return fmt::format("{}: its samples per data record \"{}\" is not a positive number", name,
                         trimmed(field(216, 8, s)));
    samples_per_record += static_cast<std::uint64_t>(*samples);
  }
  const auto records = number<std::int64_t>(head.substr(236, 8));
  if (!records || *records < 1)
    return fmt::format("the data record count \"{}\" is not a positive number (-1 means the recording was never closed)",
                       trimmed(head.substr(236, 8)));
  const std::uint64_t record_bytes = samples_per_record * (bdf ? 3 : 2);
  const std::uint64_t data = size - header_bytes;
  if (data != static_cast<std::uint64_t>(*records) * record_bytes)
    return fmt::format("the header declares {} data records of {} bytes, but the file holds {} bytes of data ({} whole "
                       "records): the file is truncated or its record count is wrong",
                       *records, record_bytes, data, data / record_bytes);
  return "";
}

}  // namespace pacflow::stages
