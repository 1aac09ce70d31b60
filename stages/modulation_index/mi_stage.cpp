#include "stages/modulation_index/mi_stage.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/errors.hpp"
#include "stages/modulation_index/binned_amplitude.hpp"
#include "stages/modulation_index/mi_math.hpp"

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

void modulation_index_cells(const float* phase, const float* amplitude, std::int64_t n_pha, std::int64_t n_amp,
                            std::int64_t length, int bins, double* out) {
  const auto t = static_cast<std::size_t>(length);
  const auto prefix = mi::wrapped_prefix_sums(amplitude, n_amp, length);
  mi::PhaseRuns runs;
  std::vector<double> sums(static_cast<std::size_t>(bins));
  for (std::int64_t p = 0; p < n_pha; ++p) {
    mi::phase_runs({phase + static_cast<std::size_t>(p) * t, t}, bins, runs);
    for (std::int64_t a = 0; a < n_amp; ++a) {
      mi::binned_sums(runs, prefix[static_cast<std::size_t>(a)].data(), 0, sums.data(), bins);
      out[p * n_amp + a] = mi::tort_mi(sums.data(), runs.counts.data(), bins);
    }
  }
}

void ModulationIndexStage::process(Batch& batch) {
  const float* phase = batch.at("phase").values<float>().data();
  const float* amplitude = batch.at("amplitude").values<float>().data();
  float* pac = batch.emplace("pac", {n_pha_, n_amp_}, DType::Float32).values<float>().data();
  const auto t = static_cast<std::size_t>(length_);
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count, [&](std::int64_t i) {
    const auto s = static_cast<std::size_t>(i);
    std::vector<double> cells(static_cast<std::size_t>(n_pha_ * n_amp_));
    modulation_index_cells(phase + s * static_cast<std::size_t>(n_pha_) * t,
                           amplitude + s * static_cast<std::size_t>(n_amp_) * t, n_pha_, n_amp_, length_, bins_,
                           cells.data());
    for (std::size_t c = 0; c < cells.size(); ++c)
      pac[s * cells.size() + c] = static_cast<float>(cells[c]);
  });
}

}  // namespace pacflow::stages
