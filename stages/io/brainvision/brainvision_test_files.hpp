#pragma once
// For the tests: BrainVision recordings written as the BrainVision Core Data Format 1.0 lays them
// out (a .vhdr, its .eeg and .vmrk), from stored values, so every physical value read back is known
// exactly. The header's lines are numbered below (kLine…), for the tests of malformed headers.
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <vector>

namespace pacflow::stages::bv_test {

namespace fs = std::filesystem;

struct Channel {
  std::string name;         // as written ("\1" for a comma)
  double resolution = 1.0;  // physical units per stored step
  std::string unit;         // empty: left out (µV)
};

struct Marker {
  std::string type, description;
  std::int64_t position = 1;  // 1-based sample
  std::int64_t size = 1;
};

struct Recording {
  std::vector<Channel> channels;
  std::string sampling_interval = "7812.5";  // µs: 128 Hz
  std::string format = "INT_16";             // INT_16, INT_32 or IEEE_FLOAT_32
  bool vectorized = false;
  std::vector<std::vector<double>> stored;  // [channel][sample], as the data file holds them
  std::vector<Marker> markers;
};

// Lines of the header written by header_text (1-based).
constexpr int kLineDataFile = 6, kLineDataFormat = 8, kLineOrientation = 10, kLineChannels = 11,
              kLineInterval = 13, kLineBinaryInfos = 15, kLineBinaryFormat = 16, kLineChannelInfos = 18,
              kLineFirstChannel = 21;
// Lines of the marker file written by marker_text: the first marker's.
constexpr int kLineFirstMarker = 9;

inline std::string header_text(const Recording& r, const std::string& base) {
  std::string text = fmt::format(
      "Brain Vision Data Exchange Header File Version 1.0\r\n"
      "; Data created by the pacflow tests\r\n"
      "\r\n"
      "[Common Infos]\r\n"
      "Codepage=UTF-8\r\n"
      "DataFile={0}.eeg\r\n"
      "MarkerFile={0}.vmrk\r\n"
      "DataFormat=BINARY\r\n"
      "; Data orientation: MULTIPLEXED=ch1,pt1, ch2,pt1 ...\r\n"
      "DataOrientation={1}\r\n"
      "NumberOfChannels={2}\r\n"
      "; Sampling interval in microseconds\r\n"
      "SamplingInterval={3}\r\n"
      "\r\n"
      "[Binary Infos]\r\n"
      "BinaryFormat={4}\r\n"
      "\r\n"
      "[Channel Infos]\r\n"
      "; Each entry: Ch<Channel number>=<Name>,<Reference channel name>,\r\n"
      "; <Resolution in \"Unit\">,<Unit>, Future extensions..\r\n",
      base, r.vectorized ? "VECTORIZED" : "MULTIPLEXED", r.channels.size(), r.sampling_interval, r.format);
  for (std::size_t c = 0; c < r.channels.size(); ++c) {
    const Channel& ch = r.channels[c];
    text += fmt::format("Ch{}={},,{}{}\r\n", c + 1, ch.name, ch.resolution, ch.unit.empty() ? "" : "," + ch.unit);
  }
  return text + "\r\n[Comment]\r\n\r\nA m p l i f i e r  S e t u p\r\n[Common Infos]\r\n";
}

inline std::string marker_text(const Recording& r, const std::string& base) {
  std::string text = fmt::format(
      "Brain Vision Data Exchange Marker File, Version 1.0\r\n"
      "\r\n"
      "[Common Infos]\r\n"
      "Codepage=UTF-8\r\n"
      "DataFile={}.eeg\r\n"
      "\r\n"
      "[Marker Infos]\r\n"
      "; Each entry: Mk<Marker number>=<Type>,<Description>,<Position in data points>,<Size>,<Channel>\r\n",
      base);
  for (std::size_t m = 0; m < r.markers.size(); ++m) {
    const Marker& k = r.markers[m];
    text += fmt::format("Mk{}={},{},{},{},0\r\n", m + 1, k.type, k.description, k.position, k.size);
  }
  return text;
}

// The stored values, little-endian, in the recording's orientation.
inline std::string data_bytes(const Recording& r) {
  const std::size_t n = r.channels.size(), T = r.stored.empty() ? 0 : r.stored[0].size();
  std::string bytes;
  const auto put = [&](double v) {
    std::uint32_t u = 0;
    int width = 4;
    if (r.format == "INT_16") u = static_cast<std::uint16_t>(static_cast<std::int16_t>(v)), width = 2;
    else if (r.format == "INT_32") u = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    else u = std::bit_cast<std::uint32_t>(static_cast<float>(v));
    for (int b = 0; b < width; ++b) bytes += static_cast<char>((u >> (8 * b)) & 0xff);
  };
  for (std::size_t i = 0; i < n * T; ++i) put(r.vectorized ? r.stored[i / T][i % T] : r.stored[i % n][i / n]);
  return bytes;
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes `base`.vhdr, .eeg and .vmrk into `dir`; returns the header's path.
inline fs::path write_recording(const fs::path& dir, const std::string& base, const Recording& r) {
  write_bytes(dir / (base + ".vhdr"), header_text(r, base));
  write_bytes(dir / (base + ".eeg"), data_bytes(r));
  write_bytes(dir / (base + ".vmrk"), marker_text(r, base));
  return dir / (base + ".vhdr");
}

}  // namespace pacflow::stages::bv_test
