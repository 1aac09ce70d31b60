#include "stages/modulation_index/mi_stage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/cell_axes.hpp"
#include "stages/common/output_names.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"
#include "stages/kernels/pac/run_mi_math.hpp"
#include "stages/modulation_index/mi_facts.hpp"

namespace pacflow::stages {

void ModulationIndexStage::declare(ParamBinder<ModulationIndexStage>& p) {
  std::vector<std::pair<std::string, mi::MethodKind>> methods;
  for (const std::string& name : mi::method_names()) methods.emplace_back(name, mi::parse_method(name));
  p.choice([](ModulationIndexStage& s) -> mi::MethodKind& { return s.plan_.settings.kind; }, "method", methods, "tort",
           "PAC measure: tort (Tort 2010), mvl (Canolty 2006), ndpac (Ozkurt 2012), plv (Penny 2008; needs stage "
           "envelope_phase), hr (Lakatos 2005) or gc (Ince 2017)");
  p.add([](ModulationIndexStage& s) -> int& { return s.plan_.settings.bins; }, "bins", 18,
        "phase bins over (-pi, pi] (tort, hr, outputs)")
      .unit("bins")
      .range(2, 1024);
  p.add([](ModulationIndexStage& s) -> double& { return s.plan_.settings.ndpac_p; }, "ndpac_p", 0.05,
        "ndpac: values with |S|^2 <= 2 T erfinv(1 - p)^2 are set to 0; 1 disables")
      .greater_than(0)
      .at_most(1);
  p.add([](ModulationIndexStage& s) -> bool& { return s.plan_.settings.gc_unbiased; }, "gc_unbiased", false,
        "gc: subtract the Gaussian estimator's bias (TensorPAC's MI_BIASCORRECT)");
  p.parsed(&ModulationIndexStage::pairs_spec_, "pairs", "diag", &mi::PairSpec::parse,
           "channel pairs (phase channel, amplitude channel): diag (each channel with itself), all, or [[i,j],...]; "
           "other than diag the outputs are [E][pair][...]");
  p.parsed_optional(&ModulationIndexStage::outputs_, "outputs", outputs_parser({"distributions", "preferred_phase"}),
                    "extra results: distributions (amplitude_distribution [n_pha][n_amp][bins]), preferred_phase (radians)");
}

ElementInfo ModulationIndexStage::info() {
  return element_info<ModulationIndexStage>(
      "mi", "PAC per series (or channel pair) and band pair: tort, mvl, ndpac, plv, hr or gc (docs/methods.md)");
}

void ModulationIndexStage::configured() {
  for (const auto& name : outputs_) (name == "distributions" ? plan_.distributions : plan_.preferred_phase) = true;
}

// The bandpass stage refuses series shorter than a cycle of the slowest phase band; with pad= the
// filters see the padded series, and the window analysed here may still be shorter than that.
void ModulationIndexStage::warn_of_a_short_window(PlanContext& ctx) const {
  const StreamInfo& s = ctx.stream();
  const BandEdges* bands = ctx.find(kPhaseBands);
  if (s.pad == 0 || !bands) return;
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& band : *bands) lowest = std::min(lowest, band[0]);
  const double seconds = static_cast<double>(plan_.length) / s.sample_rate;
  if (std::isfinite(lowest) && seconds * lowest < 1)
    ctx.warn(fmt::format("the window analysed ({} samples, {:g} s, once pad= is cropped) holds less than one cycle of "
                         "the lowest phase band ({:g} Hz: {:g} s), so its phase bins see part of a cycle",
                         plan_.length, seconds, lowest, 1 / lowest));
}

void ModulationIndexStage::plan(PlanContext& ctx) {
  const TensorDecl& phase = ctx.require(tensors::kPhase, "mi");
  const TensorDecl& amplitude = ctx.require(tensors::kAmplitude, "mi");
  plan_.n_pha = phase.per_series.at(0);
  plan_.length = phase.per_series.at(1);
  plan_.n_amp = amplitude.per_series.at(0);
  if (plan_.length > (std::int64_t{1} << 30))
    throw InputError(fmt::format("series of {} samples are longer than mi supports (2^30)", plan_.length));
  if (mi::needs_envelope_phase(plan_.settings.kind) && !ctx.provides(tensors::kEnvelopePhase))
    throw ParamError("method", "plv compares the phase with the phase of each amplitude envelope in the phase bands; "
                               "add \"stage envelope_phase\" between hilbert and mi");
  if (mi::needs_envelope_phase(plan_.settings.kind)) ctx.require(tensors::kEnvelopePhase, "mi");
  warn_of_a_short_window(ctx);
  plan_.pairs = mi::PairPlan(pairs_spec_, ctx.stream());
  method_ = mi::make_method(plan_.settings, plan_.length);
  const RowLayout rows = plan_.pairs.rows();
  const std::string name = mi::method_title(plan_.settings.kind);
  ctx.declare(over_cells({tensors::kPac, {plan_.n_pha, plan_.n_amp}, DType::Float32, true, name, rows}));
  if (plan_.distributions)
    ctx.declare(over_cells({"amplitude_distribution", {plan_.n_pha, plan_.n_amp, plan_.settings.bins}, DType::Float32,
                            true, "normalised mean amplitude per phase bin (sums to 1)", rows},
                           {"bins"}));
  if (plan_.preferred_phase)
    ctx.declare(over_cells({"preferred_phase", {plan_.n_pha, plan_.n_amp}, DType::Float32, true,
                            "centre of the phase bin with the largest mean amplitude (radians)", rows}));
  ctx.publish(kMiBins, plan_.settings.bins);
  ctx.publish(kMiMethod, mi::method_name(plan_.settings.kind));
  ctx.publish(kMiMethodName, name);
  ctx.publish(kMiMeasure, mi::method_measure(plan_.settings.kind));
  ctx.publish(kMiSettings, plan_.settings);
  ctx.publish(kMiPairs, pairs_spec_);
  if (!plan_.pairs.diagonal()) {
    ChannelPairs pairs;
    pairs.reserve(plan_.pairs.pairs().size());
    for (const auto& p : plan_.pairs.pairs()) pairs.push_back({p.phase_channel, p.amplitude_channel});
    ctx.publish(kChannelPairs, std::move(pairs));
  }
  ctx.resolved()["pairs_resolved"] = plan_.pairs.resolved_json();
}

void ModulationIndexStage::write_distributions(const mi::PairView& in, float* distribution, float* preferred) const {
  const int bins = plan_.settings.bins;
  const mi::PhaseRuns runs(in.phase, in.n_pha, in.length, bins);
  std::vector<double> sums(static_cast<std::size_t>(bins)), p(sums.size());
  // The observed alignment reads P[0..T] only: the first T + 1 of wrapped_prefix's 2T + 1 rows, the
  // same sums in the same order.
  std::vector<double> prefix(static_cast<std::size_t>(in.length + 1));
  for (std::int64_t a = 0; a < in.n_amp; ++a) {
    mi::wrapped_prefix_rows(in.amplitude + a * in.length, in.length, in.length + 1, prefix.data(), 1);
    for (std::int64_t band = 0; band < in.n_pha; ++band) {
      runs.bin_sums(band, prefix.data(), 0, sums.data());
      const std::int64_t cell = band * in.n_amp + a;
      if (distribution) {
        mi::amplitude_distribution(sums.data(), runs.counts(band), bins, p.data());
        for (int j = 0; j < bins; ++j) distribution[cell * bins + j] = static_cast<float>(p[static_cast<std::size_t>(j)]);
      }
      if (preferred) preferred[cell] = static_cast<float>(mi::preferred_phase(sums.data(), runs.counts(band), bins));
    }
  }
}

void ModulationIndexStage::process(Batch& batch) {
  const mi::BatchInputs inputs =
      mi::inputs_of(batch, plan_.n_pha, plan_.n_amp, plan_.length, mi::needs_envelope_phase(plan_.settings.kind));
  const std::int64_t rows = plan_.pairs.row_count(batch.series_count);
  const std::int64_t cells = plan_.n_pha * plan_.n_amp;
  float* pac =
      batch.emplace_rows(tensors::kPac, rows, {plan_.n_pha, plan_.n_amp}, DType::Float32).values<float>().data();
  const Shape cell_bins{plan_.n_pha, plan_.n_amp, plan_.settings.bins};
  float* distribution =
      plan_.distributions
          ? batch.emplace_rows("amplitude_distribution", rows, cell_bins, DType::Float32).values<float>().data()
          : nullptr;
  const Shape cells_shape{plan_.n_pha, plan_.n_amp};
  float* preferred =
      plan_.preferred_phase
          ? batch.emplace_rows("preferred_phase", rows, cells_shape, DType::Float32).values<float>().data()
          : nullptr;
  const std::int64_t observed[1] = {0};
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t r) {
    const mi::PairView in = inputs.pair(plan_.pairs.phase_series(r), plan_.pairs.amplitude_series(r));
    std::vector<double> values(static_cast<std::size_t>(cells));
    method_->evaluate(in, observed, values.data());
    for (std::int64_t c = 0; c < cells; ++c) pac[r * cells + c] = static_cast<float>(values[static_cast<std::size_t>(c)]);
    if (distribution || preferred)
      write_distributions(in, distribution ? distribution + r * cells * plan_.settings.bins : nullptr,
                          preferred ? preferred + r * cells : nullptr);
  });
}

double ModulationIndexStage::flops_per_series() const {
  return mi::alignment_work(plan_.settings, plan_.n_pha, plan_.n_amp, plan_.length);
}

double ModulationIndexStage::streamed_bytes_per_series() const {
  return mi::alignment_streamed_bytes(plan_.n_amp, plan_.length);
}

}  // namespace pacflow::stages
