#include <cmath>
#include <filesystem>
#include <map>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/io/npy.hpp"
#include "stages/builtin.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/memory/memory_sink.hpp"
#include "stages/io/memory/memory_source.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMemoryE = 3, kMemoryC = 2, kMemoryT = 512;

// Coupled test signals: a 6 Hz rhythm whose phase modulates 70 Hz bursts, with a per-series offset.
template <class T>
std::vector<T> signals(std::int64_t e, std::int64_t c, std::int64_t t_len, double scale = 1.0) {
  std::vector<T> x(static_cast<std::size_t>(e * c * t_len));
  for (std::int64_t s = 0; s < e * c; ++s)
    for (std::int64_t t = 0; t < t_len; ++t) {
      const double tt = static_cast<double>(t) / 256.0, slow = std::sin(2 * M_PI * 6 * tt + 0.3 * static_cast<double>(s));
      x[static_cast<std::size_t>(s * t_len + t)] =
          static_cast<T>(scale * (slow + (1 + slow) * 0.3 * std::sin(2 * M_PI * 70 * tt) + 0.01 * static_cast<double>(s)));
    }
  return x;
}

template <class T>
std::shared_ptr<HostArray> host_array(const std::vector<T>& values, Shape shape) {
  auto array = std::make_shared<HostArray>();
  array->data = reinterpret_cast<const std::byte*>(values.data());
  array->dtype = dtype_of<T>();
  array->shape = std::move(shape);
  return array;
}

RunOptions in_batches_of(std::int64_t series) {
  RunOptions options;
  options.batch_size = series;
  return options;
}

std::unique_ptr<Source> memory_make_source(std::shared_ptr<const HostArray> array, json params) {
  const ElementInfo info = MemorySource::info(std::move(array));
  return info.make_source(Params(params, info.params));
}

TEST(MemorySource, ReadsFloat32InPlaceAndOtherDtypesConvertedAsTheNpyReaders) {
  const auto f32 = signals<float>(kMemoryE, kMemoryC, kMemoryT);
  auto source = memory_make_source(host_array(f32, {kMemoryE, kMemoryC, kMemoryT}), {{"fs", 256}, {"layout", "ECT"}});
  StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{kMemoryE, kMemoryC}));
  EXPECT_EQ(s.leading_names, (std::vector<std::string>{"epochs", "channels"}));
  EXPECT_EQ(s.series_length, kMemoryT);
  EXPECT_EQ(s.description["source"], "array");
  EXPECT_EQ(s.description["dtype"], "float32");
  EXPECT_EQ(s.description["sha256"], stages::sha256_bytes(f32.data(), f32.size() * sizeof(float), {}));
  // checksum=none: not hashed, and the report says so.
  EXPECT_EQ(memory_make_source(host_array(f32, {kMemoryE, kMemoryC, kMemoryT}), {{"fs", 256}, {"layout", "ECT"}, {"checksum", "none"}})
                ->open({})
                .description["sha256"],
            "not computed (checksum=none)");
  std::vector<float> rows(static_cast<std::size_t>(2 * kMemoryT));
  source->read(3, 2, rows.data());
  for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], f32[3 * kMemoryT + i]);

  const auto i16 = signals<std::int16_t>(kMemoryE, kMemoryC, kMemoryT, 1000.0);
  source = memory_make_source(host_array(i16, {kMemoryE, kMemoryC, kMemoryT}), {{"fs", 256}, {"layout", "ECT"}});
  s = source->open({});
  EXPECT_EQ(s.description["dtype"], "int16");
  source->read(0, 2, rows.data());
  for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], static_cast<float>(i16[i]));
}

// Time first (TC: samples × channels, as many recordings are held) comes out series by series.
TEST(MemorySource, NamedLayoutsPutTheSeriesInPacflowsOrder) {
  std::vector<double> tc(static_cast<std::size_t>(kMemoryT * kMemoryC));
  for (std::int64_t t = 0; t < kMemoryT; ++t)
    for (std::int64_t c = 0; c < kMemoryC; ++c) tc[static_cast<std::size_t>(t * kMemoryC + c)] = static_cast<double>(t) + 0.5 * static_cast<double>(c);
  const auto source = memory_make_source(host_array(tc, {kMemoryT, kMemoryC}), {{"fs", 256}, {"layout", "TC"}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{1, kMemoryC}));
  std::vector<float> rows(static_cast<std::size_t>(kMemoryC * kMemoryT));
  source->read(0, kMemoryC, rows.data());
  for (std::int64_t c = 0; c < kMemoryC; ++c)
    for (std::int64_t t = 0; t < kMemoryT; ++t)
      ASSERT_EQ(rows[static_cast<std::size_t>(c * kMemoryT + t)],
                static_cast<float>(static_cast<double>(t) + 0.5 * static_cast<double>(c)));
}

std::string param_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ParamError& e) {
    return e.param() + ": " + e.what();
  } catch (const InputError& e) {
    return std::string("input: ") + e.what();
  }
  return "(no error)";
}

TEST(MemorySource, TheLayoutIsNeverGuessedAndBadArraysAreRefusedClearly) {
  const auto x = signals<float>(kMemoryE, kMemoryC, kMemoryT);
  const auto array = host_array(x, {kMemoryE, kMemoryC, kMemoryT});
  EXPECT_EQ(param_error([&] { memory_make_source(array, {{"fs", 256}}); }).rfind("layout: ", 0), 0u);
  EXPECT_NE(param_error([&] { memory_make_source(array, {{"fs", 256}, {"layout", "ET"}})->open({}); })
                .find("the array has shape [3, 2, 512] (3 axes), layout=ET names 2"),
            std::string::npos);
  const std::vector<float> none;
  EXPECT_EQ(param_error([&] { memory_make_source(host_array(none, {kMemoryE, kMemoryC, 0}), {{"fs", 256}, {"layout", "ECT"}})->open({}); })
                .rfind("input: the array", 0),
            0u);
  auto with_nan = x;
  with_nan[static_cast<std::size_t>((1 * kMemoryC + 1) * kMemoryT + 7)] = NAN;
  EXPECT_EQ(param_error([&] {
              const auto source = memory_make_source(host_array(with_nan, {kMemoryE, kMemoryC, kMemoryT}), {{"fs", 256}, {"layout", "ECT"}});
              source->open({});
              std::vector<float> rows(x.size());
              source->read(0, kMemoryE * kMemoryC, rows.data());
            }),
            "input: the array: NaN at epoch 1, channel 1, sample 7 (nan_policy=zero or skip lets the run go on)");
}

// The array source and sink beside the npy ones: the same pipeline on the same values gives the same
// bits, with the same shapes; the arrays name their axes.
TEST(MemoryPipeline, GivesTheNpyPipelinesResultsBitwise) {
  const auto x = signals<float>(kMemoryE, kMemoryC, kMemoryT);
  const fs::path dir = fs::temp_directory_path() / ("pacflow_memory_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    NpyWriter w(dir / "x.npy", {kMemoryE, kMemoryC, kMemoryT});
    w.append(x.data(), static_cast<std::int64_t>(x.size()));
    w.commit();
  }
  const json bands = {{"pha", json::parse("[[4,8],[8,12]]")}, {"amp", json::parse("[[60,80],[80,100]]")}};
  const json surrogates = {{"n", 20}, {"min_shift", "0.5s"}};
  Pipeline(builtin_registry())
      .source("npy", {{"path", (dir / "x.npy").string()}, {"fs", 256}})
      .stage("bandpass", bands)
      .stage("hilbert")
      .stage("mi")
      .stage("surrogates", surrogates)
      .sink("npy", {{"dir", (dir / "out").string()}})
      .run();

  Registry registry = builtin_registry();
  auto results = std::make_shared<ResultArrays>();
  registry.add(MemorySource::info(host_array(x, {kMemoryE, kMemoryC, kMemoryT})));
  registry.add(MemorySink::info(results));
  const json report = Pipeline(registry)
                          .source("array", {{"fs", 256}, {"layout", "ECT"}})
                          .stage("bandpass", bands)
                          .stage("hilbert")
                          .stage("mi")
                          .stage("surrogates", surrogates)
                          .sink("arrays")
                          .run(in_batches_of(2)).to_json();
  ASSERT_GE(results->arrays.size(), 6u);
  for (const ResultArray& a : results->arrays) {
    Shape shape;
    const std::vector<float> expected = testing::load_floats(dir / "out" / (a.name + ".npy"), &shape);
    EXPECT_EQ(a.shape, shape) << a.name;
    ASSERT_EQ(a.values.size(), expected.size()) << a.name;
    for (std::size_t i = 0; i < expected.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(a.values[i]), std::bit_cast<std::uint32_t>(expected[i])) << a.name << " " << i;
    EXPECT_EQ(a.dims.size(), a.shape.size()) << a.name;
  }
  EXPECT_EQ(results->arrays.front().name, "pac");
  EXPECT_EQ(results->arrays.front().dims,
            (std::vector<std::string>{"epochs", "channels", "phase_bands", "amplitude_bands"}));
  // The facts a dataset's recordings share are the report's facts of study scope: the bands in Hz
  // and the measure, not what follows the recording's rate and length (orders, FFT length, shifts).
  const json& study = results->facts.study;
  for (const char* shared : {"pha_bands_hz", "amp_centres_hz", "mi_method", "mi_bins"})
    EXPECT_TRUE(study.contains(shared)) << shared;
  for (const char* own : {"pha_filter_orders", "hilbert_fft_length", "surrogate_shifts", "input", "run"})
    EXPECT_FALSE(study.contains(own)) << own;
  for (const auto& [key, value] : study.items()) EXPECT_EQ(report.at(key), value) << key;
  EXPECT_TRUE(results->facts.channel_names.empty());  // the array names none
  EXPECT_TRUE(results->facts.condition_names.empty());
  fs::remove_all(dir);
}


// outputs= of bandpass, hilbert and surrogates make what they keep to themselves results: the
// surrogates' values are those their statistics summarise; phase and amplitude have their axes.
TEST(MemoryPipeline, OutputsAskedForReachTheSinks) {
  const auto x = signals<float>(kMemoryE, kMemoryC, kMemoryT);
  Registry registry = builtin_registry();
  auto results = std::make_shared<ResultArrays>();
  registry.add(MemorySource::info(host_array(x, {kMemoryE, kMemoryC, kMemoryT})));
  registry.add(MemorySink::info(results));
  constexpr std::int64_t kPerm = 12;
  Pipeline(registry)
      .source("array", {{"fs", 256}, {"layout", "ECT"}})
      .stage("bandpass", {{"pha", json::parse("[[4,8]]")}, {"amp", json::parse("[[60,80],[80,100]]")},
                          {"outputs", "filtered"}})
      .stage("hilbert", {{"outputs", "phase,amplitude"}})
      .stage("mi")
      .stage("surrogates", {{"n", kPerm}, {"min_shift", "0.5s"}, {"outputs", json::array({"values"})}})
      .sink("arrays")
      .run();
  std::map<std::string, const ResultArray*> by_name;
  for (const auto& a : results->arrays) by_name[a.name] = &a;
  ASSERT_TRUE(by_name.count("phase") && by_name.count("amplitude") && by_name.count("filtered_pha") &&
              by_name.count("surrogate_values"));
  EXPECT_EQ(by_name["phase"]->shape, (Shape{kMemoryE, kMemoryC, 1, kMemoryT}));
  EXPECT_EQ(by_name["phase"]->dims, (std::vector<std::string>{"epochs", "channels", "phase_bands", "times"}));
  EXPECT_EQ(by_name["filtered_amp"]->shape, (Shape{kMemoryE, kMemoryC, 2, kMemoryT}));
  for (float p : by_name["phase"]->values) ASSERT_TRUE(p >= -M_PI - 1e-6 && p <= M_PI + 1e-6);
  const ResultArray& values = *by_name["surrogate_values"];
  EXPECT_EQ(values.shape, (Shape{kMemoryE, kMemoryC, kPerm, 1, 2}));
  EXPECT_EQ(values.dims[2], "permutations");
  const std::vector<float>& mean = by_name["surrogate_mean"]->values;
  for (std::size_t row = 0; row < static_cast<std::size_t>(kMemoryE * kMemoryC); ++row)
    for (std::size_t cell = 0; cell < 2; ++cell) {
      double sum = 0;
      for (std::size_t k = 0; k < kPerm; ++k) sum += values.values[(row * kPerm + k) * 2 + cell];
      EXPECT_NEAR(sum / kPerm, mean[row * 2 + cell], 1e-6 * std::abs(mean[row * 2 + cell]) + 1e-9);
    }
  EXPECT_THROW(Pipeline(registry).source("array", {{"fs", 256}, {"layout", "ECT"}}).stage("bandpass", {{"outputs", "phase"}})
                   .stage("hilbert").stage("mi").sink("arrays").validate(),
               InputError);
}

}  // namespace
}  // namespace pacflow::stages
