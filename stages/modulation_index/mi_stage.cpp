#include "stages/modulation_index/mi_stage.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/errors.hpp"
#include "stages/modulation_index/shifted_mi.hpp"
#ifdef PACFLOW_HAVE_CUDA
#include "stages/common/narrow_cuda.hpp"
#include "stages/modulation_index/shifted_mi_cuda.hpp"
#endif

namespace pacflow::stages {

ElementInfo ModulationIndexStage::info() {
  ElementInfo info;
  info.kind = ElementKind::Stage;
  info.name = "mi";
  info.summary = "Tort modulation index per series and band pair (spec §5)";
  info.params = {
      {"bins", ParamType::Integer, 18, "bins", "phase bins over (-pi, pi]"},
      {"method", ParamType::String, "tort", "", "PAC measure: tort (Tort et al. 2010)"},
  };
  info.make_stage = [](const Params& p) { return std::make_unique<ModulationIndexStage>(p); };
  return info;
}

ModulationIndexStage::ModulationIndexStage(const Params& params)
    : bins_(static_cast<int>(params.integer("bins"))) {
  if (params.integer("bins") < 2 || params.integer("bins") > 1024)
    throw ParamError("bins", fmt::format("must be from 2 to 1024, got {}", params.integer("bins")));
  if (params.string("method") != "tort")
    throw ParamError("method", fmt::format("unknown method \"{}\"; this version computes tort", params.string("method")));
}

void ModulationIndexStage::plan(PlanContext& ctx) {
  const TensorDecl& phase = ctx.require("phase", "mi");
  const TensorDecl& amplitude = ctx.require("amplitude", "mi");
  n_pha_ = phase.per_series.at(0);
  length_ = phase.per_series.at(1);
  n_amp_ = amplitude.per_series.at(0);
  if (length_ > (std::int64_t{1} << 30))
    throw InputError(fmt::format("series of {} samples are longer than mi supports (2^30)", length_));
  ctx.declare({"pac", {n_pha_, n_amp_}, DType::Float32, true, "Tort modulation index"});
  ctx.attributes()["mi_bins"] = bins_;
  ctx.attributes()["mi_method"] = "tort";
}

void ModulationIndexStage::process(Batch& batch) {
  const float* phase = batch.at("phase").values<float>().data();
  const float* amplitude = batch.at("amplitude").values<float>().data();
  float* pac = batch.emplace("pac", {n_pha_, n_amp_}, DType::Float32).values<float>().data();
  const auto t = static_cast<std::size_t>(length_);
  const std::int64_t observed[1] = {0};
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count, [&](std::int64_t i) {
    const auto s = static_cast<std::size_t>(i);
    std::vector<double> cells(static_cast<std::size_t>(n_pha_ * n_amp_));
    const mi::SeriesBands series{phase + s * static_cast<std::size_t>(n_pha_) * t,
                                 amplitude + s * static_cast<std::size_t>(n_amp_) * t, n_pha_, n_amp_, length_};
    mi::shifted_modulation_index(series, bins_, observed, cells.data());
    for (std::size_t c = 0; c < cells.size(); ++c) pac[s * cells.size() + c] = static_cast<float>(cells[c]);
  });
}

double ModulationIndexStage::flops_per_series() const {
  return static_cast<double>(n_pha_ * n_amp_) * (static_cast<double>(length_) + 60.0 * bins_);
}

}  // namespace pacflow::stages

#ifdef PACFLOW_HAVE_CUDA
namespace pacflow::stages {

std::string ModulationIndexStage::why_not_on_gpu() const {
  return bins_ <= mi::kMaxGpuBins ? "" : fmt::format("bins={} is above the GPU kernel's {}", bins_, mi::kMaxGpuBins);
}

void ModulationIndexStage::process_cuda(Batch& batch, cuda::StageContext& ctx) {
  using cuda::StageContext;
  const mi::GpuBatchBands bands{StageContext::data<float>(batch.at("phase")),
                                StageContext::data<float>(batch.at("amplitude")), batch.series_count, n_pha_, n_amp_,
                                length_};
  const std::int64_t cells = batch.series_count * n_pha_ * n_amp_;
  const SharedMemory values = ctx.scratch(static_cast<std::size_t>(cells) * sizeof(double));
  auto* mi_values = reinterpret_cast<double*>(values.data);
  mi::shifted_mi_on_gpu(bands, bins_, observed_shift_.on(ctx.device()), 1, mi_values, ctx);
  float* pac = StageContext::data<float>(ctx.emplace(batch, "pac", {n_pha_, n_amp_}, DType::Float32));
  cuda::narrow_to_float(mi_values, cells, pac, ctx);
}

double ModulationIndexStage::device_workspace_bytes(std::int64_t series) const {
  return static_cast<double>(series) *
         (static_cast<double>(n_pha_ * n_amp_) * 8.0 + mi::shifted_mi_scratch_bytes_per_series(n_pha_, length_, bins_));
}

}  // namespace pacflow::stages
#endif
