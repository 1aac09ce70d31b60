#pragma once
// Tiny pipeline elements for engine tests: a source whose series i holds the value i, a stage that
// doubles it (with optional sleeps and an injected failure), and a sink that records what it gets
// (besides the real npy sink).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <system_error>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/api/registry.hpp"
#include "stages/io/npy/npy_sink.hpp"

namespace pacflow::testing {

// Source: series i holds the value i in every sample.
class CountingSource final : public Source {
 public:
  explicit CountingSource(const Params& p) : series_(p.integer("series")), length_(p.integer("length")) {}
  StreamInfo open(const std::stop_token&) override {
    StreamInfo s;
    s.leading_dims = {1, series_};
    s.leading_names = {"epochs", "channels"};
    s.series_length = length_;
    s.sample_rate = 100;
    return s;
  }
  void read(std::int64_t first, std::int64_t count, float* dst) override {
    for (std::int64_t i = 0; i < count * length_; ++i) dst[i] = static_cast<float>(first + i / length_);
  }

 private:
  std::int64_t series_, length_;
};

// The injected failure's type, as a stage or its library would throw it (`fail_with`).
[[noreturn]] inline void throw_injected(const std::string& kind) {
  if (kind == "input") throw InputError("injected bad input");
  if (kind == "json") const json never = json::parse("{injected");  // throws parse_error
  if (kind == "missing_file")
    throw std::filesystem::filesystem_error("injected", "absent.npy",
                                            std::make_error_code(std::errc::no_such_file_or_directory));
  if (kind == "disk_full")
    throw std::filesystem::filesystem_error("injected", "out.npy", std::make_error_code(std::errc::no_space_on_device));
  throw std::runtime_error("injected failure");
}

// Stage: doubles the signal into `twice` [1]; optional failure on one batch; counts concurrency.
struct Probe {
  std::atomic<int> alive{0};
  std::atomic<int> peak{0};
};

class DoubleStage final : public Stage {
 public:
  DoubleStage(const Params& p, Probe* probe)
      : fail_on_(p.integer("fail_on")), sleep_ms_(p.integer("sleep_ms")), fail_with_(p.string("fail_with")), probe_(probe) {}
  void plan(PlanContext& ctx) override {
    ctx.require("signal", "double");
    ctx.declare({"twice", {1}, DType::Float32, true, ""});
  }
  void process(Batch& batch) override {
    if (probe_) {
      const int now = ++probe_->alive;
      int peak = probe_->peak.load();
      while (now > peak && !probe_->peak.compare_exchange_weak(peak, now)) {}
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_ * ((batch.index * 7) % 3)));
    if (probe_) --probe_->alive;
    if (batch.index == fail_on_) throw_injected(fail_with_);
    const auto in = batch.at("signal").values<float>();
    auto out = batch.emplace("twice", {1}, DType::Float32).values<float>();
    const auto length = static_cast<std::int64_t>(in.size()) / batch.series_count;
    for (std::int64_t s = 0; s < batch.series_count; ++s) out[static_cast<std::size_t>(s)] = 2 * in[static_cast<std::size_t>(s * length)];
  }

 private:
  std::int64_t fail_on_, sleep_ms_;
  std::string fail_with_;
  Probe* probe_;
};

// Sink: records what it receives.
struct Record {
  std::vector<std::int64_t> batch_order;
  std::vector<float> values;
  bool finished = false;
  bool aborted = false;
  std::vector<std::string> tensors_seen;
};

class RecordSink final : public Sink {
 public:
  explicit RecordSink(Record* record) : record_(record) {}
  void plan(const PlanContext& ctx) override { ctx.require("twice", "record"); }
  void consume(const Batch& batch) override {
    record_->batch_order.push_back(batch.index);
    for (float v : batch.at("twice").values<float>()) record_->values.push_back(v);
    for (const auto& [name, t] : batch.tensors) record_->tensors_seen.push_back(name);
  }
  std::vector<std::filesystem::path> output_files() const override { return {}; }
  void finish(const json&, OutputSet&) override { record_->finished = true; }
  void abort() noexcept override { record_->aborted = true; }

 private:
  Record* record_;
};

struct TestRegistry {
  Record record;
  Probe probe;
  Registry registry;
  TestRegistry() {
    registry.add({ElementKind::Source, "count", "", {{"series", ParamType::Integer, 40, "", ""}, {"length", ParamType::Integer, 8, "", ""}},
                  [](const Params& p) { return std::make_unique<CountingSource>(p); }, {}, {}});
    registry.add({ElementKind::Stage, "double", "",
                  {{"fail_on", ParamType::Integer, -1, "", ""},
                   {"sleep_ms", ParamType::Integer, 0, "", ""},
                   {"fail_with", ParamType::String, "runtime", "", ""}},
                  {},
                  [this](const Params& p) { return std::make_unique<DoubleStage>(p, &probe); }, {}});
    registry.add({ElementKind::Sink, "record", "", {}, {}, {}, [this](const Params&) { return std::make_unique<RecordSink>(&record); }});
    registry.add(stages::NpySink::info());  // a real sink that can resume from a checkpoint
  }
};

}  // namespace pacflow::testing
