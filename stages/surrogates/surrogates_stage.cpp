#include "stages/surrogates/surrogates_stage.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <oneapi/tbb/parallel_for.h>

#include "engine/errors.hpp"
#include "stages/modulation_index/shifted_mi.hpp"
#include "stages/surrogates/surrogate_math.hpp"
#ifdef PACFLOW_HAVE_CUDA
#include "stages/modulation_index/shifted_mi_cuda.hpp"
#include "stages/surrogates/surrogate_stats_cuda.hpp"
#endif

namespace pacflow::stages {

namespace {
const char* const kOutputs[5] = {"pac_z", "surrogate_mean", "surrogate_std", "pvalues", "pvalues_maxstat"};
const char* const kDocs[5] = {"(MI - mean) / std of the surrogates", "mean of surrogate MI",
                              "population std of surrogate MI", "(1 + #{k: MI_k >= MI}) / (n + 1)",
                              "family-wise: (1 + #{k: max over cells of MI_k >= MI}) / (n + 1)"};
}  // namespace

ElementInfo SurrogatesStage::info() {
  ElementInfo info;
  info.kind = ElementKind::Stage;
  info.name = "surrogates";
  info.summary = "time-shift surrogates: mean, std, z-score and p-values per cell (spec §6)";
  info.params = {
      {"n", ParamType::Integer, 200, "permutations", "number of surrogates (ignored when shifts is given)"},
      {"seed", ParamType::Integer, 42, "", "key of the counter-based shift generator"},
      {"min_shift", ParamType::Duration, nullptr, "samples or s",
       "smallest shift; default one period of the lowest phase-band centre, at most T/4", true},
      {"shifts", ParamType::NumberList, nullptr, "samples", "explicit shifts [s_1, ...] replacing the generator",
       true},
      {"method", ParamType::String, "timeshift", "",
       "timeshift (shift the amplitude by s_k) or timelag (shift the phase by s_k)"},
  };
  info.make_stage = [](const Params& p) { return std::make_unique<SurrogatesStage>(p); };
  return info;
}

SurrogatesStage::SurrogatesStage(const Params& params)
    : n_perm_(params.integer("n")), explicit_min_shift_(params.has("min_shift")) {
  const std::string method = params.string("method");
  if (method == "timelag") {
    timelag_ = true;
  } else if (method != "timeshift") {
    throw ParamError("method", fmt::format("unknown method \"{}\"; this version implements timeshift and timelag{}",
                                           method, method == "swap_trials" ? " (swap_trials is not built yet)" : ""));
  }
  if (params.integer("seed") < 0) throw ParamError("seed", "must be >= 0");
  seed_ = static_cast<std::uint64_t>(params.integer("seed"));
  if (explicit_min_shift_) min_shift_ = params.duration("min_shift");
  if (params.has("shifts")) {
    for (double s : params.number_list("shifts")) {
      if (s != std::floor(s)) throw ParamError("shifts", fmt::format("shift {} is not a whole number of samples", s));
      given_shifts_.push_back(static_cast<std::int64_t>(s));
    }
    if (given_shifts_.empty()) throw ParamError("shifts", "the list is empty");
    n_perm_ = static_cast<std::int64_t>(given_shifts_.size());
  } else if (n_perm_ < 1 || n_perm_ > 1'000'000) {
    throw ParamError("n", fmt::format("must be from 1 to 1000000, got {}", n_perm_));
  }
}

void SurrogatesStage::plan(PlanContext& ctx) {
  const TensorDecl& phase = ctx.require("phase", "surrogates");
  const TensorDecl& amplitude = ctx.require("amplitude", "surrogates");
  if (!ctx.provides("pac") || !ctx.attributes().contains("mi_bins"))
    throw InputError("surrogates must come after the mi stage (it reuses its bins and definition)");
  n_pha_ = phase.per_series.at(0);
  length_ = phase.per_series.at(1);
  n_amp_ = amplitude.per_series.at(0);
  bins_ = ctx.attributes()["mi_bins"].get<int>();
  if (ctx.stream().description.value("model", "") == "tort")
    ctx.warn("the tort signal model has a pure-sine slow rhythm: every circular shift keeps the coupling, so "
             "time-shift surrogates cannot reject the null (TensorPAC issue 20); use model=driven");
  const double fs = ctx.stream().sample_rate;

  if (!given_shifts_.empty()) {
    for (auto s : given_shifts_)
      if (s <= 0 || s >= length_)
        throw ParamError("shifts", fmt::format("shift {} is outside [1, {}] (series of {} samples)", s, length_ - 1,
                                               length_));
    shifts_ = given_shifts_;
  } else {
    std::int64_t min_shift = 0;
    if (explicit_min_shift_) {
      // Checked in double before converting: absurd values must not overflow.
      const double exact = min_shift_.samples_exact(fs);
      if (!(exact >= 1) || 2 * exact > static_cast<double>(length_))
        throw ParamError("min_shift", fmt::format("{:g} samples is outside [1, T/2 = {}] for series of {} samples",
                                                  exact, length_ / 2, length_));
      min_shift = min_shift_.samples(fs);
    } else {
      // One period of the lowest phase-band centre, capped at T/4.
      double lowest = std::numeric_limits<double>::infinity();
      for (const auto& centre : ctx.attributes().value("pha_centres_hz", json::array()))
        lowest = std::min(lowest, centre.get<double>());
      min_shift = std::isfinite(lowest) ? static_cast<std::int64_t>(std::ceil(fs / lowest)) : 1;
      min_shift = std::max<std::int64_t>(1, std::min(min_shift, length_ / 4));
    }
    shifts_.clear();
    for (std::int64_t k = 0; k < n_perm_; ++k)
      shifts_.push_back(surrogates::timeshift(seed_, static_cast<std::uint64_t>(k), min_shift, length_));
    ctx.resolved()["min_shift_samples"] = min_shift;
  }
  const double workspace = static_cast<double>(n_perm_) * static_cast<double>(n_pha_ * n_amp_) * 8.0;
  if (workspace > 0x1p30)
    throw ParamError(given_shifts_.empty() ? "n" : "shifts",
                     fmt::format("{} permutations x {} cells need {:.1f} GiB per series; use fewer", n_perm_,
                                 n_pha_ * n_amp_, workspace / 0x1p30));
  if (n_perm_ < 2)
    ctx.warn("surrogates with a single permutation have no spread: every z-score is NaN and every p-value 1");
  for (int i = 0; i < 5; ++i) ctx.declare({kOutputs[i], {n_pha_, n_amp_}, DType::Float32, true, kDocs[i]});
  ctx.resolved()["n_perm"] = n_perm_;
  ctx.resolved()["shifted"] = timelag_ ? "phase (timelag)" : "amplitude (timeshift)";
  ctx.resolved()["shifts"] = shifts_;
  ctx.resolved()["shift_generator"] = "splitmix64 counter-based, keyed by (seed, k)";
  ctx.attributes()["surrogate_shifts"] = shifts_;
#ifdef PACFLOW_HAVE_CUDA
  shifts_on_gpu_.emplace(amplitude_shifts());
#endif
}

void SurrogatesStage::process_series(const float* phase, const float* amplitude, float* const outputs[5]) const {
  const auto cells = static_cast<std::size_t>(n_pha_ * n_amp_);
  const auto n = static_cast<std::size_t>(n_perm_);
  const std::vector<std::int64_t> shifts = amplitude_shifts();
  std::vector<double> mi_values((n + 1) * cells);  // [row][cell]
  mi::shifted_modulation_index({phase, amplitude, n_pha_, n_amp_, length_}, bins_, shifts, mi_values.data());
  const double* observed = mi_values.data();
  const double* surrogate = mi_values.data() + cells;
  std::vector<double> max_per_k(n);
  for (std::size_t k = 0; k < n; ++k)
    max_per_k[k] = *std::max_element(surrogate + k * cells, surrogate + (k + 1) * cells);
  for (std::size_t c = 0; c < cells; ++c) {
    const auto s = surrogates::cell_stats(observed[c], surrogate + c, n_perm_, static_cast<std::int64_t>(cells));
    const auto exceed = std::count_if(max_per_k.begin(), max_per_k.end(), [&](double m) { return m >= observed[c]; });
    outputs[0][c] = static_cast<float>(s.z);
    outputs[1][c] = static_cast<float>(s.mean);
    outputs[2][c] = static_cast<float>(s.std);
    outputs[3][c] = static_cast<float>(s.p);
    outputs[4][c] = static_cast<float>(static_cast<double>(1 + exceed) / static_cast<double>(n + 1));
  }
}

std::vector<std::int64_t> SurrogatesStage::amplitude_shifts() const {
  // Shifting the phase by s (timelag) pairs phi(t + s) with A(t), which is A shifted by T - s
  // against phi.
  std::vector<std::int64_t> shifts(shifts_.size() + 1, 0);
  for (std::size_t k = 0; k < shifts_.size(); ++k)
    shifts[k + 1] = timelag_ ? (length_ - shifts_[k]) % length_ : shifts_[k];
  return shifts;
}

void SurrogatesStage::process(Batch& batch) {
  const float* phase = batch.at("phase").values<float>().data();
  const float* amplitude = batch.at("amplitude").values<float>().data();
  float* out[5];
  for (int i = 0; i < 5; ++i) out[i] = batch.emplace(kOutputs[i], {n_pha_, n_amp_}, DType::Float32).values<float>().data();
  const auto t = static_cast<std::size_t>(length_);
  const auto cells = static_cast<std::size_t>(n_pha_ * n_amp_);
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count, [&](std::int64_t i) {
    const auto s = static_cast<std::size_t>(i);
    float* const series_out[5] = {out[0] + s * cells, out[1] + s * cells, out[2] + s * cells, out[3] + s * cells,
                                  out[4] + s * cells};
    process_series(phase + s * static_cast<std::size_t>(n_pha_) * t,
                   amplitude + s * static_cast<std::size_t>(n_amp_) * t, series_out);
  });
}

double SurrogatesStage::flops_per_series() const {
  return static_cast<double>(n_perm_ + 1) * static_cast<double>(n_pha_ * n_amp_) *
         (static_cast<double>(length_) + 60.0 * bins_);
}

}  // namespace pacflow::stages

#ifdef PACFLOW_HAVE_CUDA
namespace pacflow::stages {

std::string SurrogatesStage::why_not_on_gpu() const {
  return bins_ <= mi::kMaxGpuBins ? "" : fmt::format("bins={} is above the GPU kernel's {}", bins_, mi::kMaxGpuBins);
}

void SurrogatesStage::process_cuda(Batch& batch, cuda::StageContext& ctx) {
  using cuda::StageContext;
  const mi::GpuBatchBands bands{StageContext::data<float>(batch.at("phase")),
                                StageContext::data<float>(batch.at("amplitude")), batch.series_count, n_pha_, n_amp_,
                                length_};
  const std::int64_t cells = n_pha_ * n_amp_;
  const SharedMemory values =
      ctx.scratch(static_cast<std::size_t>(batch.series_count * (n_perm_ + 1) * cells) * sizeof(double));
  auto* mi_values = reinterpret_cast<double*>(values.data);  // [series][1 + n_perm][cells]
  mi::shifted_mi_on_gpu(bands, bins_, shifts_on_gpu_->on(ctx.device()), n_perm_ + 1, mi_values, ctx);
  float* out[5];
  for (int i = 0; i < 5; ++i)
    out[i] = StageContext::data<float>(ctx.emplace(batch, kOutputs[i], {n_pha_, n_amp_}, DType::Float32));
  surrogates::surrogate_stats_on_gpu(mi_values, batch.series_count, n_perm_, cells, out, ctx);
}

double SurrogatesStage::device_workspace_bytes(std::int64_t series) const {
  const auto cells = static_cast<double>(n_pha_ * n_amp_);
  return static_cast<double>(series) * (static_cast<double>(n_perm_ + 1) * cells * 8.0 + static_cast<double>(n_perm_) * 8.0 +
                                        mi::shifted_mi_scratch_bytes_per_series(n_pha_, length_, bins_));
}

}  // namespace pacflow::stages
#endif
