#pragma once
// A BrainVision header (.vhdr), BrainVision Core Data Format 1.0: what the recording's data file
// holds and how. Read from [Common Infos] (DataFile, MarkerFile, DataFormat=BINARY, DataOrientation
// MULTIPLEXED or VECTORIZED, NumberOfChannels, SamplingInterval in µs, DataPoints when given),
// [Binary Infos] (BinaryFormat INT_16, INT_32 or IEEE_FLOAT_32, little-endian) and [Channel Infos]
// (ChN=<Name>,<Reference>,<Resolution>,<Unit>: resolution 1 and unit µV when left out, "\1" in a
// name for a comma). Anything else the format allows (ASCII data, big-endian, segmented exports) is
// refused by name; every error names the file and the line.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacflow::stages {

enum class BinaryFormat { Int16, Int32, Float32 };

struct BrainVisionChannel {
  std::string name;         // "\1" turned into ','
  double resolution = 1.0;  // physical units per stored step
  std::string unit;         // UTF-8, "µV" when left out
};

struct BrainVisionHeader {
  std::string data_file;  // as written, relative to the header's folder
  int data_file_line = 0;
  std::optional<std::string> marker_file;
  int marker_file_line = 0;
  bool vectorized = false;  // channel after channel; else multiplexed: sample after sample
  BinaryFormat format = BinaryFormat::Int16;
  std::string format_name;  // as written, e.g. "INT_16"
  int bytes_per_sample = 2;
  double fs = 0;            // Hz: 1e6 / SamplingInterval
  std::optional<std::int64_t> data_points;  // samples per channel, when the header says
  int data_points_line = 0;
  std::vector<BrainVisionChannel> channels;
};

// Parses the bytes of the header file at `path` (named in errors). Throws InputError
// "PATH:LINE: what is wrong".
BrainVisionHeader parse_vhdr(std::string_view bytes, const std::string& path);

}  // namespace pacflow::stages
