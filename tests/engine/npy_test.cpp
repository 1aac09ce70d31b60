#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "engine/io/mapped_file.hpp"
#include "engine/io/npy.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("pacflow_npy_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void write_raw(const fs::path& path, const std::string& header_dict, const std::string& data) {
  std::string dict = header_dict;
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out << std::string("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(dict.size() & 0xff));
  out.put(static_cast<char>(dict.size() >> 8));
  out << dict << data;
}

TEST(Npy, WriterRoundTripsThroughReaderAndLeavesNoTempFile) {
  const auto path = scratch("round.npy");
  {
    NpyWriter w(path, {2, 3});
    const float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    w.append(a, 3);
    EXPECT_FALSE(fs::exists(path));  // not visible before commit
    w.append(b, 3);
    w.commit();
  }
  const Tensor t = read_npy(path);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.values<float>()[5], 6.0f);
  for (const auto& e : fs::directory_iterator(path.parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(Npy, UncommittedWriterLeavesNoFile) {
  const auto path = scratch("never.npy");
  {
    NpyWriter w(path, {4});
    const float a[2] = {1, 2};
    w.append(a, 2);
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(Npy, ReadsInt16AndBigEndianAsFloat) {
  const auto path = scratch("i2.npy");
  write_raw(path, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", std::string("\x01\x00\xff\xff\x00\x01", 6));
  float out[3];
  NpyRowReader(path).read_as_float(0, 1, 3, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -1.0f);
  EXPECT_EQ(out[2], 256.0f);
  const auto big = scratch("be.npy");
  write_raw(big, "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", std::string("\x00\x00\x01\x02", 4));
  NpyRowReader(big).read_as_float(0, 1, 1, out);
  EXPECT_EQ(out[0], 258.0f);
}

// A big-endian float64 array of 37 rows x 1000 values, read through the map in batches of 5 rows
// (batches straddle page boundaries), each value converted exactly as a per-element formula says.
TEST(Npy, RowReaderReadsEveryBatchOfAMappedBigEndianFileExactly) {
  constexpr int kRows = 37, kRow = 1000;
  const auto value = [](int r, int i) { return (r * 1000.0 + i) / 8.0 - 2000.0; };  // exact in float32
  std::string data;
  for (int r = 0; r < kRows; ++r)
    for (int i = 0; i < kRow; ++i) {
      const double v = value(r, i);
      char bytes[8];
      std::memcpy(bytes, &v, 8);
      std::reverse(bytes, bytes + 8);  // the host is little-endian (static_assert in npy.cpp)
      data.append(bytes, 8);
    }
  const auto path = scratch("be_rows.npy");
  write_raw(path, "{'descr': '>f8', 'fortran_order': False, 'shape': (37, 1000), }", data);
  const NpyRowReader reader(path);
  EXPECT_EQ(reader.header().shape, (Shape{kRows, kRow}));
  std::vector<float> out(5 * kRow);
  for (int first = 0; first < kRows; first += 5) {
    const int count = std::min(5, kRows - first);
    reader.read_as_float(first, count, kRow, out.data(), /*release_read=*/true);
    for (int r = 0; r < count; ++r)
      for (int i = 0; i < kRow; ++i)
        ASSERT_EQ(out[static_cast<std::size_t>(r * kRow + i)], static_cast<float>(value(first + r, i)));
  }
  // Released pages are read again from the file when touched later.
  reader.read_as_float(0, 1, kRow, out.data());
  EXPECT_EQ(out[999], static_cast<float>(value(0, 999)));
  EXPECT_THROW(reader.read_as_float(36, 2, kRow, out.data()), std::out_of_range);
}

TEST(MappedFile, MapsBytesReleasesPagesAsAHintAndNamesMissingFiles) {
  const auto path = scratch("mapped.bin");
  std::string bytes(3 * 4096 + 17, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::ofstream(path, std::ios::binary) << bytes;
  const MappedFile map(path);
  ASSERT_EQ(map.bytes().size(), bytes.size());
  EXPECT_EQ(std::memcmp(map.bytes().data(), bytes.data(), bytes.size()), 0);
  map.release(0, bytes.size());
  EXPECT_EQ(std::memcmp(map.bytes().data(), bytes.data(), bytes.size()), 0);
  std::ofstream(scratch("empty.bin"));
  EXPECT_TRUE(MappedFile(scratch("empty.bin")).bytes().empty());
  try {
    MappedFile missing(scratch("missing.bin"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.bin: no such file"), std::string::npos) << e.what();
  }
}

TEST(Npy, RejectsMalformedFilesNamingTheProblem) {
  const auto bad_magic = scratch("magic.npy");
  std::ofstream(bad_magic) << "hello world, not numpy";
  EXPECT_THROW(read_npy_header(bad_magic), InputError);
  const auto fortran = scratch("fortran.npy");
  write_raw(fortran, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0'));
  try {
    read_npy_header(fortran);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Fortran"), std::string::npos);
  }
  const auto truncated = scratch("short.npy");
  write_raw(truncated, "{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }", std::string(8, '\0'));
  EXPECT_THROW(read_npy_header(truncated), InputError);
  const auto complex = scratch("c8.npy");
  write_raw(complex, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'));
  EXPECT_THROW(read_npy_header(complex), InputError);
  EXPECT_THROW(read_npy_header(scratch("missing.npy")), InputError);
}

}  // namespace
}  // namespace pacflow
