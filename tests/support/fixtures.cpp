#include "tests/support/fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "engine/npy.hpp"
#include "stages/builtin.hpp"

namespace pacflow::testing {

std::filesystem::path data_dir() { return PACFLOW_TEST_DATA; }

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

StageHarness::StageHarness(StreamInfo stream) : ctx_(std::move(stream)) {}

StageHarness& StageHarness::add(const std::string& name, json params) {
  const ElementInfo* info = stages::builtin_registry().find(ElementKind::Stage, name);
  if (!info) throw std::logic_error("no stage " + name);
  ctx_.begin_element();
  stages_.push_back(info->make_stage(Params(params, info->params)));
  stages_.back()->plan(ctx_);
  return *this;
}

Batch StageHarness::run(const std::vector<float>& signal, std::int64_t first, std::int64_t count) {
  Batch batch;
  batch.first_series = first;
  batch.series_count = count;
  const std::int64_t t = ctx_.stream().series_length;
  Tensor& in = batch.emplace(ctx_.stream().tensor, {t}, DType::Float32);
  std::copy(signal.begin() + first * t, signal.begin() + (first + count) * t, in.values<float>().begin());
  for (auto& s : stages_) s->process(batch);
  return batch;
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
