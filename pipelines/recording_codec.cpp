#include "pipelines/recording_codec.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "engine/api/byte_wire.hpp"
#include "engine/api/json_text.hpp"

namespace pacflow {

namespace {

// The tensor of what the arrays' shapes do not say; '@' keeps it apart from any result's name.
constexpr const char* kHeader = "@recording_results";
constexpr std::uint32_t kMagic = 0x50465252;  // "PFRR"
constexpr std::uint32_t kRecordingFormat = 1;

void put_facts(ByteWriter& w, const stages::SharedFacts& facts) {
  w.text(json_text(facts.study));  // each fact's value as the report shows it
  w.texts(facts.channel_names);
  w.texts(facts.condition_names);
}

stages::SharedFacts get_facts(ByteReader& r) {
  stages::SharedFacts facts;
  facts.study = parse_json_record(r.text());
  if (!facts.study.is_object()) throw std::runtime_error("recording results: the study facts are not an object");
  facts.channel_names = r.texts();
  facts.condition_names = r.texts();
  return facts;
}

}  // namespace

Batch encode_recording(std::int64_t index, const stages::ResultArrays& results) {
  Batch batch;
  batch.index = index;
  batch.series_count = 1;
  ByteWriter w;
  w.put(kMagic);
  w.put(kRecordingFormat);
  w.put(static_cast<std::uint32_t>(results.arrays.size()));
  for (const auto& array : results.arrays) {
    Tensor& t = batch.emplace(array.name, array.shape, DType::Float32);
    std::copy(array.values.begin(), array.values.end(), t.values<float>().begin());
    w.text(array.name);
    w.texts(array.dims);
    w.text(array.doc);
  }
  w.put(static_cast<std::uint32_t>(results.coordinates.size()));
  for (const auto& c : results.coordinates) {
    w.text(c.name);
    w.put(c.start);
    w.put(c.step);
    w.put(c.count);
    w.text(c.unit);
    w.text(c.doc);
  }
  put_facts(w, results.facts);
  const std::vector<std::byte> header = w.take();
  Tensor& t = batch.emplace(kHeader, {static_cast<std::int64_t>(header.size())}, DType::UInt8);
  std::copy(header.begin(), header.end(), static_cast<std::byte*>(t.raw()));
  return batch;
}

stages::ResultArrays decode_recording(const Batch& batch) {
  const auto header = batch.tensors.find(kHeader);
  if (header == batch.tensors.end() || header->second.dtype() != DType::UInt8)
    throw std::runtime_error("not a recording's results (no header)");
  const Tensor& h = header->second;
  ByteReader r(static_cast<const std::byte*>(h.raw()), h.bytes(), "recording results");
  if (r.get<std::uint32_t>() != kMagic || r.get<std::uint32_t>() != kRecordingFormat)
    throw std::runtime_error("recording results of another format");
  stages::ResultArrays results;
  const auto arrays = r.get<std::uint32_t>();
  for (std::uint32_t a = 0; a < arrays; ++a) {
    stages::ResultArray array;
    array.name = r.text();
    array.dims = r.texts();
    array.doc = r.text();
    const auto it = batch.tensors.find(array.name);
    if (it == batch.tensors.end() || it->second.dtype() != DType::Float32 || it->second.rank() < 1)
      throw std::runtime_error(fmt::format("recording results: array \"{}\" missing", array.name));
    // The batch's own axis (one series) first, then the array's.
    array.shape.assign(it->second.shape().begin() + 1, it->second.shape().end());
    if (array.dims.size() != array.shape.size())
      throw std::runtime_error(fmt::format("recording results: array \"{}\" has {} axes and {} axis names", array.name,
                                           array.shape.size(), array.dims.size()));
    const auto values = it->second.values<float>();
    array.values.assign(values.begin(), values.end());
    results.arrays.push_back(std::move(array));
  }
  const auto coordinates = r.get<std::uint32_t>();
  for (std::uint32_t k = 0; k < coordinates; ++k) {
    Coordinate c;
    c.name = r.text();
    c.start = r.get<double>();
    c.step = r.get<double>();
    c.count = r.get<std::int64_t>();
    c.unit = r.text();
    c.doc = r.text();
    results.coordinates.push_back(std::move(c));
  }
  results.facts = get_facts(r);
  if (!r.done()) throw std::runtime_error("recording results: trailing bytes");
  return results;
}

}  // namespace pacflow
