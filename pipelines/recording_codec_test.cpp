#include "pipelines/recording_codec.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

#include "engine/run/batch_wire.hpp"

namespace pacflow {
namespace {

stages::ResultArrays example() {
  stages::ResultArrays r;
  r.arrays.push_back({"pac", {2, 1, 3}, {"channels", "phase_bands", "amplitude_bands"}, "Tort MI", {1, 2, 3, 4, 5, 6}});
  r.arrays.push_back({"erpac", {2, 4}, {"channels", "times"}, "", {0.5f, -1, 2, 3, 4, 5, 6, 7}});
  r.coordinates.push_back({"erpac_times", -0.5, 1.0 / 3.0, 4, "s", "each sample's time"});
  r.facts.study = {{"pha_bands_hz", {{4.0, 8.0}}}, {"pha_centres_hz", {6.0}}, {"mi_method", "tort"}, {"mi_bins", 18}};
  r.facts.channel_names = {"Fz", "C\xe9z"};  // an EDF label in Latin-1 travels as its bytes
  r.facts.condition_names = {"go", "nogo"};
  return r;
}

// Through the bytes a rank sends (and a checkpoint keeps): every field as it was.
stages::ResultArrays through_the_wire(const Batch& batch) {
  const std::vector<std::byte> bytes = detail::encode_batch(batch);
  return decode_recording(detail::decode_batch(bytes.data(), bytes.size()));
}

TEST(RecordingCodec, EveryArrayCoordinateAndSharedFactComesBackAsItWas) {
  const stages::ResultArrays sent = example();
  const stages::ResultArrays got = through_the_wire(encode_recording(7, sent));
  ASSERT_EQ(got.arrays.size(), sent.arrays.size());
  for (std::size_t a = 0; a < sent.arrays.size(); ++a) {
    EXPECT_EQ(got.arrays[a].name, sent.arrays[a].name);
    EXPECT_EQ(got.arrays[a].shape, sent.arrays[a].shape);
    EXPECT_EQ(got.arrays[a].dims, sent.arrays[a].dims);
    EXPECT_EQ(got.arrays[a].doc, sent.arrays[a].doc);
    EXPECT_EQ(got.arrays[a].values, sent.arrays[a].values);
  }
  ASSERT_EQ(got.coordinates.size(), 1u);
  EXPECT_EQ(got.coordinates[0].values(), sent.coordinates[0].values());  // start and step bit for bit
  EXPECT_EQ(got.coordinates[0].unit, "s");
  EXPECT_EQ(got.coordinates[0].doc, sent.coordinates[0].doc);
  EXPECT_EQ(got.facts, sent.facts);
}

TEST(RecordingCodec, NoArraysNoFactsIsARecordingToo) {
  const stages::ResultArrays got = through_the_wire(encode_recording(0, {}));
  EXPECT_TRUE(got.arrays.empty());
  EXPECT_TRUE(got.coordinates.empty());
  EXPECT_EQ(got.facts, stages::SharedFacts{});
}

TEST(RecordingCodec, AnotherBatchOrADamagedOneIsRefused) {
  Batch plain;
  plain.emplace("pac", {3}, DType::Float32);
  EXPECT_THROW(decode_recording(plain), std::runtime_error);  // no header

  Batch missing = encode_recording(0, example());
  missing.tensors.erase("erpac");
  EXPECT_THROW(decode_recording(missing), std::runtime_error);

  Batch reshaped = encode_recording(0, example());
  reshaped.tensors.erase("pac");
  reshaped.emplace("pac", {6}, DType::Float32);  // one axis, three names
  EXPECT_THROW(decode_recording(reshaped), std::runtime_error);

  for (const std::size_t keep : {std::size_t{0}, std::size_t{4}, std::size_t{40}}) {
    Batch cut = encode_recording(0, example());
    const Tensor& header = cut.at("@recording_results");
    ASSERT_LT(keep, static_cast<std::size_t>(header.bytes()));
    Tensor shorter({static_cast<std::int64_t>(keep)}, DType::UInt8);
    std::copy_n(static_cast<const std::byte*>(header.raw()), keep, static_cast<std::byte*>(shorter.raw()));
    cut.tensors.erase("@recording_results");
    cut.tensors.emplace("@recording_results", std::move(shorter));
    EXPECT_THROW(decode_recording(cut), std::runtime_error) << keep;
  }
}

}  // namespace
}  // namespace pacflow
