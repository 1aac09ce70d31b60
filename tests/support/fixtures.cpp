#include "tests/support/fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "engine/devices/gpu_plugin.hpp"
#include "engine/io/npy.hpp"
#include "engine/placement/devices.hpp"
#include "stages/builtin.hpp"

namespace pacflow::testing {

std::filesystem::path data_dir() { return PACFLOW_TEST_DATA; }

void copy_shipped_pipelines(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  const fs::path from = fs::path(PACFLOW_SOURCE_DIR) / "pipelines";
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    if (entry.path().extension() != ".pipe") continue;
    const fs::path to = root / "pipelines" / entry.path().lexically_relative(from);
    fs::create_directories(to.parent_path());
    fs::copy_file(entry.path(), to, fs::copy_options::overwrite_existing);
  }
}

json manifest(const std::string& folder) {
  std::ifstream in(data_dir() / folder / "manifest.json");
  return json::parse(in);
}

std::vector<double> load_doubles(const std::filesystem::path& path, Shape* shape) {
  const Tensor t = read_npy(path);
  if (shape) *shape = t.shape();
  std::vector<double> out(static_cast<std::size_t>(t.size()));
  if (t.dtype() == DType::Float64) {
    auto v = t.values<double>();
    std::copy(v.begin(), v.end(), out.begin());
  } else {
    auto v = t.values<float>();
    std::copy(v.begin(), v.end(), out.begin());
  }
  return out;
}

std::vector<float> load_floats(const std::filesystem::path& path, Shape* shape) {
  const auto d = load_doubles(path, shape);
  return {d.begin(), d.end()};
}

double max_abs(const double* begin, const double* end) {
  double m = 0;
  for (const double* p = begin; p != end; ++p) m = std::max(m, std::abs(*p));
  return m;
}

// A harness on a GPU: one run's worth of the GPU backend, and each stage's kernel (null: the stage
// has none that runs it as planned, and runs on the CPU between, as with fallback=cpu).
struct StageHarness::Gpu {
  explicit Gpu(int index) : device(index), run(gpu_plugin().backend->start({{index, 0}}, failure)) {}
  int device;
  detail::FirstFailure failure;
  std::unique_ptr<GpuRun> run;
  std::vector<std::unique_ptr<StageKernel>> kernels;
};

StageHarness::StageHarness(StreamInfo stream, std::string device) : ctx_(std::move(stream)), device_(std::move(device)) {
  const std::vector<DeviceRef> parsed = parse_devices(device_);
  const std::string_view kind = parsed.front().backend->kind();
  if (parsed.size() != 1 || !(device_ == "cpu" || kind == "cuda"))
    throw std::logic_error("StageHarness runs on cpu or one cuda:K, not " + device_);
  if (kind == "cuda") gpu_ = std::make_unique<Gpu>(parsed.front().index);
}

StageHarness::~StageHarness() = default;
StageHarness::StageHarness(StageHarness&&) noexcept = default;
StageHarness& StageHarness::operator=(StageHarness&&) noexcept = default;

StageHarness& StageHarness::add(const std::string& name, json params) {
  const ElementInfo* info = stages::builtin_registry().find(ElementKind::Stage, name);
  if (!info) throw std::logic_error("no stage " + name);
  ctx_.begin_element();
  stages_.push_back(info->make_stage(Params(params, info->params)));
  stages_.back()->plan(ctx_);
  stages_.back()->prepare();
  reads_.push_back(ctx_.reads_of_current());
  if (gpu_) {
    std::string why;  // a stage without a kernel runs on the CPU
    gpu_->kernels.push_back(gpu_kernel(*info, *stages_.back(), why));
  }
  return *this;
}

Batch StageHarness::run(const std::vector<float>& signal, std::int64_t first, std::int64_t count) {
  Batch batch;
  batch.first_series = first;
  batch.series_count = count;
  const std::int64_t t = ctx_.stream().series_length;
  Tensor& in = batch.emplace(ctx_.stream().tensor, {t}, DType::Float32);
  std::copy(signal.begin() + first * t, signal.begin() + (first + count) * t, in.values<float>().begin());
  if (gpu_) {
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      if (gpu_->kernels[i]) {
        gpu_->run->queue(*gpu_->kernels[i], batch, gpu_->device, reads_[i]);
      } else {
        gpu_->run->bring_home(batch, gpu_->device);
        stages_[i]->process(batch);
      }
    }
    gpu_->run->bring_home(batch, gpu_->device);
    return batch;
  }
  for (auto& s : stages_) s->process(batch);
  return batch;
}

std::vector<std::string> test_devices() { return {"cpu", "cuda:0"}; }

std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param)
    if (c != ':') name += c;
  return name;
}

void OnDevice::SetUp() {
  if (GetParam().rfind("cuda", 0) == 0 && cuda_availability().count() == 0)
    GTEST_SKIP() << "no GPU visible: " << cuda_availability().why_none;
}

StreamInfo fixture_stream(const std::string& folder) {
  const json m = manifest(folder);
  StreamInfo s;
  s.leading_dims = {m["shape"][0].get<std::int64_t>(), m["shape"][1].get<std::int64_t>()};
  s.leading_names = {"epochs", "channels"};
  s.series_length = m["shape"][2].get<std::int64_t>();
  s.sample_rate = m["fs"].get<double>();
  return s;
}

}  // namespace pacflow::testing
