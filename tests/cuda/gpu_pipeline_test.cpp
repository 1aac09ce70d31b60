// The PAC pipeline on GPUs (issue 5): identical numbers for any batch size and GPU count, agreement
// with the CPU within the spec's tolerances, mixed CPU/GPU placements through rings, the memory
// budget, kernel times in the report, and a failing GPU stage cancelling the run. Every test skips,
// saying why, when no GPU is visible.
#include <cmath>
#include <filesystem>
#include <functional>
#include <numbers>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/api/trace.hpp"
#include "engine/devices/cuda/kernel.hpp"
#include "engine/io/npy.hpp"
#include "engine/placement/devices.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

const char* const kOutputs[] = {"pac", "pac_z", "surrogate_mean", "surrogate_std", "pvalues", "pvalues_maxstat"};

class GpuPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_availability().count() == 0) GTEST_SKIP() << "no GPU visible: " << cuda_availability().why_none;
  }
};

// Driven synthetic data (coupled 6 -> 80 Hz), 6 x 6 bands, 40 surrogates; every stage on `device`
// unless `placement` names one per stage (bandpass, hilbert, mi, surrogates).
Pipeline pac_pipeline(const fs::path& out, const std::string& device, std::array<std::string, 4> placement = {}) {
  Pipeline p(stages::builtin_registry());
  const auto on = [&](json params, std::size_t stage) {
    params["on"] = placement[stage].empty() ? device : placement[stage];
    return params;
  };
  p.source("synthetic", {{"fs", 512}, {"epochs", 3}, {"channels", 7}, {"n_times", 1536}, {"f_pha", 6}, {"f_amp", 80}})
      .stage("bandpass", on({{"pha", "2:14:6"}, {"amp", "50:150:6"}}, 0))
      .stage("hilbert", on(json::object(), 1))
      .stage("mi", on(json::object(), 2))
      .stage("surrogates", on({{"n", 40}, {"seed", 3}}, 3))
      .sink("npy", {{"dir", out.string()}});
  return p;
}

std::vector<float> load(const fs::path& dir, const char* name) {
  const Tensor t = read_npy(dir / (std::string(name) + ".npy"));
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

void expect_identical(const fs::path& reference, const fs::path& out, const std::string& what) {
  for (const char* name : kOutputs) {
    const auto a = load(reference, name), b = load(out, name);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i])) {
        EXPECT_TRUE(std::isnan(b[i])) << name << ", " << what << ", cell " << i;
        continue;
      }
      ASSERT_EQ(a[i], b[i]) << name << ", " << what << ", cell " << i;
    }
  }
}

TEST_F(GpuPipeline, ResultsAreIdenticalForAnyBatchSizeAndGpuCount) {
  const testing::ScratchDir dir("gpu_invariance");
  const json reference = pac_pipeline(dir / "reference", "cuda:0").run({21, 0, {}}).to_json();
  EXPECT_EQ(reference["pipeline"][1]["device"], "cuda:0");
  for (std::int64_t batch : {1, 4, 9}) {
    const auto out = dir / fmt::format("b{}", batch);
    pac_pipeline(out, "cuda:0").run({batch, 0, {}});
    expect_identical(dir / "reference", out, fmt::format("cuda:0, batch {}", batch));
  }
  // Every visible GPU (replicated stages; batches move between GPUs only when a stage's replica
  // differs from the previous one's).
  const auto all = dir / "all";
  pac_pipeline(all, "cuda:*").run({2, 0, {}});
  expect_identical(dir / "reference", all, fmt::format("cuda:* ({} GPUs), batch 2", cuda_availability().count()));
  if (cuda_availability().count() < 2) std::printf("note: one GPU visible; cuda:* ran on it alone\n");
}

// Every measure with a GPU kernel is reproducible bit for bit whatever the batch size there.
TEST_F(GpuPipeline, EveryGpuMeasureIsIdenticalForAnyBatchSize) {
  const testing::ScratchDir dir("gpu_methods");
  for (const char* method : {"hr", "mvl", "ndpac"}) {
    for (std::int64_t batch : {2, 21}) {
      Pipeline p = pac_pipeline(dir / fmt::format("{}_{}", method, batch), "cuda:0");
      p.set("mi", "method", method);
      p.run({batch, 0, {}});
    }
    expect_identical(dir / fmt::format("{}_21", method), dir / fmt::format("{}_2", method), method);
  }
}

// GPU and CPU compute the same definitions: within spec §9 of each other.
TEST_F(GpuPipeline, AgreesWithTheCpuWithinSpecTolerances) {
  const testing::ScratchDir dir("gpu_vs_cpu");
  pac_pipeline(dir / "cpu", "cpu").run({4, 0, {}});
  pac_pipeline(dir / "gpu", "cuda:0").run({4, 0, {}});
  const auto near = [&](const char* name, double abs_tol, double rel_tol) {
    const auto a = load(dir / "cpu", name), b = load(dir / "gpu", name);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_NEAR(b[i], a[i], abs_tol + rel_tol * std::abs(a[i])) << name << " cell " << i;
  };
  near("pac", 2e-5, 1e-3);
  near("surrogate_mean", 2e-5, 1e-3);
  near("surrogate_std", 2e-5, 1e-2);
  near("pac_z", 1e-2, 0);
  // A surrogate within rounding of the observed MI may count on one side or the other.
  near("pvalues", 1.0 / 41 + 1e-6, 0);
}

// The wavelet stage on a GPU sums the same taps as on the CPU (morlet::morlet_sample): phases and
// amplitudes within float rounding, whatever the batch size.
TEST_F(GpuPipeline, WaveletOnTheGpuIsTheCpusDecomposition) {
  const testing::ScratchDir dir("gpu_wavelet");
  const auto run = [&](const std::string& device, std::int64_t batch, const std::string& name) {
    Pipeline p(stages::builtin_registry());
    p.source("synthetic", {{"fs", 512}, {"epochs", 3}, {"channels", 5}, {"n_times", 1024}, {"f_pha", 6}, {"f_amp", 80}})
        .stage("wavelet", {{"pha", "2:14:4"}, {"amp", "50:150:4"}, {"outputs", "phase,amplitude"}, {"on", device}})
        .stage("mi", {{"on", "cpu"}})
        .sink("npy", {{"dir", (dir / name).string()}});
    p.run({batch, 0, {}});
  };
  run("cpu", 4, "cpu");
  run("cuda:0", 4, "gpu");
  run("cuda:0", 15, "gpu_whole");
  for (const char* name : {"phase", "amplitude", "pac"}) {
    const auto a = load(dir / "cpu", name), b = load(dir / "gpu", name), c = load(dir / "gpu_whole", name);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (std::size_t i = 0; i < a.size(); ++i) {
      // Phases near ±pi may fall on either side.
      const double d = std::string(name) == "phase" ? std::abs(std::remainder(double{b[i]} - a[i], 2 * std::numbers::pi))
                                                    : std::abs(double{b[i]} - a[i]);
      ASSERT_LE(d, 1e-4 + 1e-4 * std::abs(a[i])) << name << " cell " << i;
      ASSERT_EQ(b[i], c[i]) << name << ": the GPU's numbers depend on its batch size, cell " << i;
    }
  }
}

// Stages split between the CPU and a GPU cross rings both ways; the numbers are those of the same
// split with other batch sizes and ring settings.
TEST_F(GpuPipeline, MixedCpuAndGpuPlacementsCrossRingsWithoutChangingANumber) {
  const testing::ScratchDir dir("gpu_mixed");
  const std::array<std::string, 4> split = {"cuda:0", "cuda:0", "cpu", "cuda:0"};
  const json report = pac_pipeline(dir / "reference", "", split).run({5, 0, {}}).to_json();
  EXPECT_EQ(report["run"]["rings"].size(), 2u) << report["run"]["rings"];
  for (std::int64_t batch : {2, 8}) {
    const auto out = dir / fmt::format("b{}", batch);
    Pipeline p = pac_pipeline(out, "", split);
    p.set("surrogates", "ring", 2).set("surrogates", "batch", 3);
    p.run({batch, 0, {}});
    expect_identical(dir / "reference", out, fmt::format("split placement, batch {}", batch));
  }
}

TEST_F(GpuPipeline, ReportHasKernelTimesMemoryHighWaterAndTraceSpans) {
  const testing::ScratchDir dir("gpu_report");
  TraceRecorder trace;
  RunOptions options;
  options.trace = &trace;
  const json report = pac_pipeline(dir / "out", "cuda:0").run(options).to_json();
  const json& gpu = report["run"]["gpu"];
  ASSERT_EQ(gpu["devices"].size(), 1u) << gpu;
  const json& device = gpu["devices"][0];
  EXPECT_EQ(device["device"], "cuda:0");
  EXPECT_GT(device["tensors_high_water_bytes"].get<double>(), 0);
  EXPECT_LE(device["tensors_high_water_bytes"].get<double>(), device["budget_bytes"].get<double>());
  for (const char* stage : {"bandpass", "hilbert", "mi", "surrogates"}) {
    ASSERT_TRUE(device["stages"].contains(stage)) << device;
    EXPECT_GT(device["stages"][stage]["kernel_s"].get<double>(), 0) << stage;
  }
  for (const auto& row : report["run"]["stages"])
    if (row["kind"] == "stage") {
      EXPECT_GT(row.value("gpu_kernel_s", 0.0), 0) << row;
    }
  const json events = trace.to_json().at("traceEvents");
  bool gpu_span = false;
  for (const auto& e : events) gpu_span = gpu_span || e.dump().find("cuda:0") != std::string::npos;
  EXPECT_TRUE(gpu_span);
}

// The budget sizes the batches: every batch alive fits in it, and the high-water mark stays under
// it; the numbers are those of an unconstrained run.
TEST_F(GpuPipeline, MemoryBudgetSizesBatchesAndIsNeverExceeded) {
  const testing::ScratchDir dir("gpu_budget");
  const auto bigger = [&](const fs::path& out) {
    Pipeline p = pac_pipeline(out, "cuda:0");
    // No trial-level test: its blocks of 8 epochs x 16 channels would make every batch a multiple of
    // 128 series, the whole free batch, and leave the budget no smaller batch to choose.
    p.set("source", "epochs", 16).set("source", "channels", 16).set("surrogates", "trials", "none");
    return p;
  };
  const json free_run = bigger(dir / "reference").run().to_json();
  const json plan = free_run["segments"][0];
  const double per_batch = plan["gpu_bytes_per_batch"].get<double>();
  const double in_flight = plan["max_in_flight"].get<double>();
  const std::int64_t free_batch = free_run["run"]["batch_size"].get<std::int64_t>();
  // The largest budget below what the unconstrained batches need that still fits a smaller batch
  // (part of each batch's workspace does not shrink with it).
  std::int64_t budget = 0;
  for (double share : {0.8, 0.6, 0.45, 0.3}) {
    const auto candidate = static_cast<std::int64_t>(share * per_batch * in_flight);
    Pipeline probe = bigger(dir / "probe");
    probe.vram(candidate);
    try {
      if (probe.validate().to_json()["segments"][0]["batch_series"].get<std::int64_t>() < free_batch) {
        budget = candidate;
        break;
      }
    } catch (const InputError&) {
      break;  // too small even for one series per batch
    }
  }
  ASSERT_GT(budget, 0) << "no budget between one series and the free batch of " << free_batch;
  Pipeline constrained = bigger(dir / "budget");
  constrained.vram(budget);
  const json report = constrained.run().to_json();
  EXPECT_LT(report["run"]["batch_size"].get<std::int64_t>(), free_batch);
  const json& device = report["run"]["gpu"]["devices"][0];
  EXPECT_EQ(device["budget_bytes"].get<std::int64_t>(), budget);
  EXPECT_LE(device["tensors_high_water_bytes"].get<std::int64_t>(), budget);
  expect_identical(dir / "reference", dir / "budget", fmt::format("vram={} bytes", budget));
  Pipeline tiny = pac_pipeline(dir / "tiny", "cuda:0");
  tiny.vram("1MiB");
  try {
    tiny.run();
    FAIL() << "a 1 MiB budget was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget on cuda:0"), std::string::npos) << e.what();
  }
}

// What the GPU cannot do is refused before anything runs, saying why.
TEST_F(GpuPipeline, BadParametersForTheGpuAreRefusedBeforeRunning) {
  const testing::ScratchDir dir("gpu_refused");
  Pipeline p = pac_pipeline(dir / "out", "cuda:0");
  p.set("mi", "bins", 300);
  try {
    p.validate();
    FAIL() << "bins=300 accepted on a GPU";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bins=300 is above the GPU kernel's 256"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pac_pipeline(dir / "out", fmt::format("cuda:{}", cuda_availability().count())).validate(), InputError);
  Pipeline gc = pac_pipeline(dir / "out", "cuda:0");
  gc.set("mi", "method", "gc");
  try {
    gc.validate();
    FAIL() << "method=gc accepted on a GPU";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("method=gc has no CUDA kernel"), std::string::npos) << e.what();
  }
  gc.set("mi", "fallback", "cpu").set("surrogates", "fallback", "cpu");
  const json plan = gc.validate().to_json();
  EXPECT_EQ(plan["pipeline"][3]["device"], "cpu");  // mi on the CPU, the filters still on the GPU
  EXPECT_EQ(plan["pipeline"][1]["device"], "cuda:0");
}

// Copies `signal` to `copied`; its CUDA kernel copies device to device and fails at batch 3.
class GpuCopy final : public Stage {
 public:
  void plan(PlanContext& ctx) override {
    length_ = ctx.require("signal", "gpu_copy").per_series.at(0);
    ctx.declare({"copied", {length_}, DType::Float32, true, "the signal, copied on the GPU"});
  }
  void process(Batch& batch) override {
    const auto in = batch.at("signal").values<float>();
    auto out = batch.emplace("copied", {length_}, DType::Float32).values<float>();
    std::copy(in.begin(), in.end(), out.begin());
  }
  std::int64_t length() const { return length_; }

 private:
  std::int64_t length_ = 0;
};

class FailingGpuCopyKernel final : public cuda::Kernel {
 public:
  using FailsOn = std::function<bool(const Batch&, const cuda::StageContext&)>;
  FailingGpuCopyKernel(const GpuCopy& stage, FailsOn fails_on) : stage_(stage), fails_on_(std::move(fails_on)) {}
  void run(Batch& batch, cuda::StageContext& ctx) override {
    if (fails_on_(batch, ctx)) throw std::runtime_error("injected failure");
    const Tensor& in = batch.at("signal");
    Tensor& out = ctx.emplace(batch, "copied", {stage_.length()}, DType::Float32);
    if (cudaMemcpyAsync(out.device_data(), in.device_data(), in.bytes(), cudaMemcpyDeviceToDevice, ctx.stream()) !=
        cudaSuccess)
      throw std::runtime_error("cudaMemcpyAsync failed");
  }

 private:
  const GpuCopy& stage_;
  FailsOn fails_on_;
};

// The built-in stages and gpu_copy, whose kernel fails where `fails_on` says (a stage from outside
// the plugin brings its own kernel).
Registry with_gpu_copy(FailingGpuCopyKernel::FailsOn fails_on) {
  Registry registry = stages::builtin_registry();
  ElementInfo info{ElementKind::Stage, "gpu_copy", "test stage", {}, {},
                   [](const Params&) { return std::make_unique<GpuCopy>(); }, {}};
  info.kernels["cuda"] = [fails_on](const Stage& stage) {
    return std::make_unique<FailingGpuCopyKernel>(dynamic_cast<const GpuCopy&>(stage), fails_on);
  };
  registry.add(std::move(info));
  return registry;
}

TEST_F(GpuPipeline, FailingGpuStageCancelsTheRunNamingStageBatchAndDevice) {
  const testing::ScratchDir dir("gpu_failure");
  const Registry registry = with_gpu_copy([](const Batch& batch, const cuda::StageContext&) { return batch.index == 3; });
  Pipeline p(registry);
  p.source("synthetic", {{"fs", 512}, {"epochs", 4}, {"channels", 5}, {"n_times", 256}})
      .stage("gpu_copy", {{"on", "cuda:0"}})
      .sink("npy", {{"dir", (dir / "out").string()}});
  try {
    p.run({2, 4, {}});
    FAIL() << "the injected failure did not stop the run";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "gpu_copy");
    EXPECT_EQ(e.batch(), 3);
    EXPECT_NE(std::string(e.what()).find("on cuda:0: injected failure"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out" / "copied.npy"));  // the sink aborted: no partial output
  // Batches 0-2 only: no failure, and the copies arrive intact (as the CPU makes them).
  for (const char* device : {"cuda:0", "cpu"}) {
    Pipeline ok(registry);
    ok.source("synthetic", {{"fs", 512}, {"epochs", 1}, {"channels", 3}, {"n_times", 256}})
        .stage("gpu_copy", {{"on", device}})
        .sink("npy", {{"dir", (dir / device).string()}});
    ok.run({1, 2, {}});
  }
  const auto gpu = load(dir / "cuda:0", "copied"), cpu = load(dir / "cpu", "copied");
  ASSERT_EQ(gpu.size(), 3u * 256);
  EXPECT_EQ(gpu, cpu);
}

TEST_F(GpuPipeline, CliRunsOnTheGpuAndListsIt) {
  const testing::ScratchDir dir("gpu_cli");
  const auto devices = testing::run_cli("devices", dir.path());
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find("cuda:0"), std::string::npos) << devices.out;
  dir.write("gpu.pipe",
            "devices cuda:*\n"
            "source synthetic fs=512 epochs=2 channels=4 n_times=1024\n"
            "stage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\nstage surrogates n=10\n"
            "sink npy dir=out\n");
  const auto run = testing::run_cli("run -q gpu.pipe --vram 0.5", dir.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "pac_z.npy"));
}

// ---- several GPUs: on a machine with one, as logical GPUs (PACFLOW_LOGICAL_GPUS=4, which CTest's
// cuda_tests .logical4 copies set) ----

class ManyGpus : public GpuPipeline {
 protected:
  void SetUp() override {
    GpuPipeline::SetUp();
    if (IsSkipped()) return;
    if (cuda_availability().count() < 4)
      GTEST_SKIP() << cuda_availability().count() << " GPU(s) visible, 4 needed: run with PACFLOW_LOGICAL_GPUS=4";
  }
};

// Each stage pinned to its own GPU: every batch moves from GPU to GPU (device-to-device copies,
// each GPU's stream waiting on the last one's), and the numbers are those of one GPU.
TEST_F(ManyGpus, FourStagesPinnedToFourGpusGiveOneGpusNumbers) {
  const testing::ScratchDir dir("gpu_pinned_four");
  pac_pipeline(dir / "reference", "cuda:0").run({3, 0, {}});
  for (std::int64_t batch : {1, 3, 8}) {
    const auto out = dir / fmt::format("b{}", batch);
    const json report = pac_pipeline(out, "", {"cuda:0", "cuda:1", "cuda:2", "cuda:3"}).run({batch, 0, {}}).to_json();
    expect_identical(dir / "reference", out, fmt::format("one stage per GPU, batch {}", batch));
    const json& devices = report["run"]["gpu"]["devices"];
    ASSERT_EQ(devices.size(), 4u) << report["run"]["gpu"];
    const char* stage_of[] = {"bandpass", "hilbert", "mi", "surrogates"};
    for (std::size_t d = 0; d < 4; ++d) {
      EXPECT_EQ(devices[d]["device"], fmt::format("cuda:{}", d));
      ASSERT_EQ(devices[d]["stages"].size(), 1u) << devices[d];
      EXPECT_TRUE(devices[d]["stages"].contains(stage_of[d])) << devices[d];
      EXPECT_GT(devices[d]["tensors_high_water_bytes"].get<double>(), 0) << devices[d];
    }
  }
}

// Replicated over four GPUs: the work is spread over all of them, the numbers are one GPU's.
TEST_F(ManyGpus, ReplicatedOverFourGpusGivesOneGpusNumbers) {
  const testing::ScratchDir dir("gpu_replicated_four");
  pac_pipeline(dir / "reference", "cuda:0").run({2, 0, {}});
  const json report = pac_pipeline(dir / "four", "cuda:0,1,2,3").run({1, 0, {}}).to_json();
  expect_identical(dir / "reference", dir / "four", "replicated over cuda:0-3, batch 1");
  const json& devices = report["run"]["gpu"]["devices"];
  ASSERT_EQ(devices.size(), 4u) << report["run"]["gpu"];
  for (const auto& device : devices) EXPECT_FALSE(device["stages"].empty()) << device;  // each did some
}

// Logical GPUs say what they share; each has its own memory budget, a share of the device's.
TEST_F(ManyGpus, LogicalGpusReportTheirDeviceAndTheirShareOfItsMemory) {
  const GpuAvailability& gpus = cuda_availability();
  if (gpus.devices.front().shares == 1) GTEST_SKIP() << "physical GPUs: nothing shared";
  const testing::ScratchDir dir("gpu_logical_report");
  const json report = pac_pipeline(dir / "out", "cuda:0,1").run({2, 0, {}}).to_json();
  const json& gpu = report["run"]["gpu"];
  for (const auto& device : gpu["devices"]) {
    EXPECT_EQ(device["logical_per_gpu"], gpus.devices.front().shares) << device;
    EXPECT_GT(device["budget_bytes"].get<std::size_t>(), 0u) << device;  // 90 % of its share by default
    EXPECT_LE(device["budget_bytes"].get<std::size_t>(), gpus.devices.front().memory_bytes) << device;
  }
  EXPECT_EQ(gpu["same_gpu_links"].size(), 2u) << gpu;  // cuda:0 -> 1 and 1 -> 0
}

// A failure on one of the GPUs cancels the run, naming that GPU, and leaves no output.
TEST_F(ManyGpus, AFailureOnOneGpuCancelsTheRunNamingIt) {
  const testing::ScratchDir dir("gpu_failure_on_one");
  const Registry registry = with_gpu_copy([](const Batch&, const cuda::StageContext& ctx) { return ctx.device() == 2; });
  Pipeline p(registry);
  p.source("synthetic", {{"fs", 512}, {"epochs", 4}, {"channels", 5}, {"n_times", 256}})
      .stage("gpu_copy", {{"on", "cuda:0,1,2,3"}})
      .sink("npy", {{"dir", (dir / "out").string()}});
  try {
    p.run({1, 0, {}});
    FAIL() << "the failure on cuda:2 did not stop the run";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "gpu_copy");
    EXPECT_NE(std::string(e.what()).find("on cuda:2: injected failure"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out" / "copied.npy"));
}

}  // namespace
}  // namespace pacflow
