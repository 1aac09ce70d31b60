#include "stages/erpac/erpac_stage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/common/cell_axes.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/common/whole_input.hpp"
#include "stages/erpac/erpac_math.hpp"
#include "stages/kernels/statistics/rank_z.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::stages {

void ErpacStage::declare(ParamBinder<ErpacStage>& p) {
  p.choice(&ErpacStage::correction_, "mcp",
           {{"fdr", erpac::Correction::Fdr}, {"bonferroni", erpac::Correction::Bonferroni},
            {"none", erpac::Correction::None}},
           "fdr",
           "correction of the p-values over each channel's cells: fdr (Benjamini-Hochberg, TensorPAC's default), "
           "bonferroni or none");
  p.add(&ErpacStage::permutations_, "n", 0,
        "epoch permutations for erpac_rank_z (each cell's correlation ranked among the permutations', as a normal "
        "quantile: the value a dataset's group test takes per subject, with clusters over time); 0: none")
      .unit("permutations")
      .range(0, 100000);
  p.add(&ErpacStage::seed_, "seed", 42, "key of the counter-based epoch permutations").at_least(0);
  p.choice(&ErpacStage::method_, "method", {{"circular", Method::Circular}, {"gc", Method::GaussianCopula}},
           "circular",
           "circular: Voytek's circular-linear correlation with chi-squared p-values corrected by mcp=; gc: the "
           "Gaussian-copula mutual information in bits (Ince 2017, TensorPAC's method=\"gc\"), its p-values max-T over "
           "the channel's cells against the n= permutations (mcp= unused)");
  p.optional(&ErpacStage::smooth_, "smooth",
             "method=gc: each time's information from the epochs' samples within this many samples of it, pooled, "
             "then averaged over the windows holding it (TensorPAC's smooth=)")
      .unit("samples")
      .range(0, 100000);
}

void ErpacStage::configured() {
  if (smooth_ && method_ != Method::GaussianCopula)
    throw ParamError("smooth", "smooth= is for method=gc (the circular correlation is per time point)");
}

ElementInfo ErpacStage::info() {
  return element_info<ErpacStage>(
      "erpac", "event-related PAC (Voytek 2013): circular-linear correlation across epochs per time point");
}

void ErpacStage::plan(PlanContext& ctx) {
  const TensorDecl& phase = ctx.require(tensors::kPhase, "erpac");
  const TensorDecl& amplitude = ctx.require(tensors::kAmplitude, "erpac");
  const StreamInfo& stream = ctx.stream();
  epochs_ = epochs_of(stream, "erpac correlates across epochs: it needs an input laid out [epochs]…[time]");
  if (epochs_ < 3)
    throw InputError(fmt::format("erpac correlates phase and amplitude across epochs, but the input has {} epoch{}; "
                                 "it needs at least 3 (with 2, sin and cos of the phase are always collinear)",
                                 epochs_, epochs_ == 1 ? "" : "s"));
  n_pha_ = phase.per_series.at(0);
  length_ = phase.per_series.at(1);
  n_amp_ = amplitude.per_series.at(0);
  const std::int64_t series = stream.series_count();
  // One row per channel (and segment): the stream's leading dims without the epochs.
  RowLayout rows{series, series / epochs_, Shape(stream.leading_dims.begin() + 1, stream.leading_dims.end()),
                 std::vector<std::string>(stream.leading_names.begin() + 1, stream.leading_names.end())};
  const bool gc = method_ == Method::GaussianCopula;
  ctx.declare(over_cells({tensors::kErpac, {n_pha_, n_amp_, length_}, DType::Float32, true,
                          gc ? "Gaussian-copula mutual information (bits) across epochs of phase and amplitude"
                             : "circular-linear correlation across epochs of phase and amplitude",
                          rows},
                         {"times"}));
  ctx.declare(over_cells({tensors::kErpacPvalues, {n_pha_, n_amp_, length_}, DType::Float32, true,
                          gc ? "max-T over each channel's cells against the n epoch permutations, (1 + count) / (n + 1)"
                             : "p = exp(-E rho^2 / 2), corrected over each channel's cells",
                          rows},
                         {"times"}));
  // The time of each of the T samples (after a source's pad= is cropped), from the epoch's reference.
  ctx.publish_coordinate({tensors::kErpacTimes, stream.time_origin_s, 1.0 / stream.sample_rate, length_, "s",
                          "time of each erpac sample (last axis of erpac, erpac_pvalues) in seconds from the epoch's "
                          "reference: the event for epochs cut around events, else the epoch's first sample"});
  if (method_ == Method::GaussianCopula) {
    if (smooth_ && 2 * *smooth_ + 1 > length_)
      throw ParamError("smooth", fmt::format("a window of 2 x {} + 1 samples is longer than the series ({})", *smooth_,
                                             length_));
    gc_.emplace(epochs_, length_, smooth_);
    if (permutations_ == 0)
      ctx.warn("erpac method=gc without n= permutations: erpac_pvalues are NaN (give n=, e.g. n=200)");
  }
  if (permutations_ > 0) {
    ctx.declare(over_cells({tensors::kErpacRankZ, {n_pha_, n_amp_, length_}, DType::Float32, true,
                            "rank of rho among n epoch permutations as a normal quantile, "
                            "-Phi^-1((#{rho_k > rho} + (#{rho_k = rho} + 1) / 2) / (n + 1))",
                            rows},
                           {"times"}));
    permuted_.resize(static_cast<std::size_t>(permutations_ * epochs_));
    for (std::int64_t k = 0; k < permutations_; ++k)
      surrogates::epoch_permutation(static_cast<std::uint64_t>(seed_), static_cast<std::uint64_t>(k + 1), epochs_,
                                    permuted_.data() + k * epochs_, 0x6572706163ULL /* "erpac" */);
  }
  warn_if_whole_input_is_large(ctx, "erpac", n_pha_, n_amp_, length_);
  if (epochs_ < 10 && method_ == Method::Circular)
    ctx.warn(fmt::format("erpac with {} epochs: the chi-squared p-values assume many epochs", epochs_));
}

double ErpacStage::host_workspace_bytes(int threads) const {
  // amplitude_means: n_amp × T; correlate: eight T-long sums and sin, cos and the centred amplitude for
  // every epoch (3 × E × T).
  if (method_ == Method::GaussianCopula)  // per row: the amplitudes normalised, every cell; per band: its phases
    return threads * static_cast<double>(length_ * (epochs_ * (n_amp_ + 2) + 3 * n_amp_ + n_pha_ * n_amp_ + 12)) *
               sizeof(double) +
           static_cast<double>(permuted_.size() * sizeof(std::int64_t));
  return threads * static_cast<double>(length_ * (n_amp_ + 8 + 3 * epochs_)) * sizeof(double) +
         static_cast<double>(permuted_.size() * sizeof(std::int64_t));
}

std::vector<double> ErpacStage::amplitude_means(const float* amplitude, std::int64_t row, std::int64_t rows) const {
  const auto t = static_cast<std::size_t>(length_);
  const auto e_count = static_cast<double>(epochs_);
  std::vector<double> means(static_cast<std::size_t>(n_amp_) * t, 0.0);
  for (std::int64_t a = 0; a < n_amp_; ++a) {
    double* mean_x = means.data() + static_cast<std::size_t>(a) * t;
    for (std::int64_t e = 0; e < epochs_; ++e) {
      const float* x = amplitude + ((e * rows + row) * n_amp_ + a) * length_;
      for (std::size_t i = 0; i < t; ++i) mean_x[i] += static_cast<double>(x[i]);
    }
    for (std::size_t i = 0; i < t; ++i) mean_x[i] /= e_count;
  }
  return means;
}

void ErpacStage::correlate(const float* phase, const float* amplitude, const double* mean_x_all, std::int64_t row,
                           std::int64_t p, std::int64_t rows, float* rho, double* pvalues, float* rank_z) const {
  const auto t = static_cast<std::size_t>(length_);
  const auto e_count = static_cast<double>(epochs_);
  // Series of epoch e for this row: e · rows + row. Two passes over the epochs: means, then centred
  // sums of products.
  const auto phase_of = [&](std::int64_t e) { return phase + ((e * rows + row) * n_pha_ + p) * length_; };
  std::vector<double> mean_s(t, 0), mean_c(t, 0), ss(t, 0), cc(t, 0), sc(t, 0);
  std::vector<double> ds(t * static_cast<std::size_t>(epochs_)), dc(ds.size());  // sin, cos; then centred; [e][t]
  for (std::int64_t e = 0; e < epochs_; ++e) {
    const float* ph = phase_of(e);
    for (std::size_t i = 0; i < t; ++i) {
      const std::size_t at = static_cast<std::size_t>(e) * t + i;
      ds[at] = std::sin(static_cast<double>(ph[i]));
      dc[at] = std::cos(static_cast<double>(ph[i]));
      mean_s[i] += ds[at];
      mean_c[i] += dc[at];
    }
  }
  for (std::size_t i = 0; i < t; ++i) {
    mean_s[i] /= e_count;
    mean_c[i] /= e_count;
  }
  for (std::int64_t e = 0; e < epochs_; ++e) {
    for (std::size_t i = 0; i < t; ++i) {
      const std::size_t at = static_cast<std::size_t>(e) * t + i;
      ds[at] -= mean_s[i];
      dc[at] -= mean_c[i];
      ss[i] += ds[at] * ds[at];
      cc[i] += dc[at] * dc[at];
      sc[i] += ds[at] * dc[at];
    }
  }
  std::vector<double> xx(t), xs(t), xc(t), r(t), dx;
  for (std::int64_t a = 0; a < n_amp_; ++a) {
    centred_amplitude(amplitude, mean_x_all + static_cast<std::size_t>(a) * t, row, a, rows, dx);
    std::fill(xx.begin(), xx.end(), 0.0);
    std::fill(xs.begin(), xs.end(), 0.0);
    std::fill(xc.begin(), xc.end(), 0.0);
    for (std::int64_t e = 0; e < epochs_; ++e) {
      for (std::size_t i = 0; i < t; ++i) {
        const std::size_t at = static_cast<std::size_t>(e) * t + i;
        xx[i] += dx[at] * dx[at];
        xs[i] += dx[at] * ds[at];
        xc[i] += dx[at] * dc[at];
      }
    }
    const std::size_t first = static_cast<std::size_t>(p * n_amp_ + a) * t;
    for (std::size_t i = 0; i < t; ++i) {
      r[i] = erpac::circular_linear_correlation({xx[i], ss[i], cc[i], xs[i], xc[i], sc[i]});
      rho[first + i] = static_cast<float>(r[i]);
      pvalues[first + i] = std::isnan(r[i]) ? NAN : erpac::correlation_pvalue(r[i], epochs_);
    }
    if (rank_z)
      rank_against_permutations({ds.data(), dc.data(), dx.data(), ss.data(), cc.data(), sc.data(), xx.data()}, r.data(),
                                rank_z + first);
  }
}

void ErpacStage::centred_amplitude(const float* amplitude, const double* mean_x, std::int64_t row, std::int64_t a,
                                   std::int64_t rows, std::vector<double>& dx) const {
  const auto t = static_cast<std::size_t>(length_);
  dx.resize(t * static_cast<std::size_t>(epochs_));
  for (std::int64_t e = 0; e < epochs_; ++e) {
    const float* x = amplitude + ((e * rows + row) * n_amp_ + a) * length_;
    for (std::size_t i = 0; i < t; ++i) dx[static_cast<std::size_t>(e) * t + i] = static_cast<double>(x[i]) - mean_x[i];
  }
}

void ErpacStage::rank_against_permutations(const Centred& v, const double* r, float* rank_z) const {
  const auto t = static_cast<std::size_t>(length_);
  std::vector<double> above(t, 0.0), tied(t, 0.0), xs(t), xc(t);
  for (std::int64_t k = 0; k < permutations_; ++k) {
    // Epoch e's phase with epoch permuted[e]'s amplitude: the phase's and the amplitude's own sums
    // stay; their products change.
    const std::int64_t* permuted = permuted_.data() + k * epochs_;
    std::fill(xs.begin(), xs.end(), 0.0);
    std::fill(xc.begin(), xc.end(), 0.0);
    for (std::int64_t e = 0; e < epochs_; ++e) {
      const double* x = v.dx + static_cast<std::size_t>(permuted[e]) * t;
      const double* s = v.ds + static_cast<std::size_t>(e) * t;
      const double* c = v.dc + static_cast<std::size_t>(e) * t;
      for (std::size_t i = 0; i < t; ++i) {
        xs[i] += x[i] * s[i];
        xc[i] += x[i] * c[i];
      }
    }
    for (std::size_t i = 0; i < t; ++i) {
      const double rk = erpac::circular_linear_correlation({v.xx[i], v.ss[i], v.cc[i], xs[i], xc[i], v.sc[i]});
      above[i] += rk > r[i] ? 1 : 0;
      tied[i] += rk == r[i] ? 1 : 0;
    }
  }
  for (std::size_t i = 0; i < t; ++i)
    rank_z[i] = std::isnan(r[i]) ? NAN : static_cast<float>(statistics::rank_z(above[i], tied[i], permutations_));
}

void ErpacStage::process(Batch& batch) {
  const float* phase = batch.at(tensors::kPhase).values<float>().data();
  const float* amplitude = batch.at(tensors::kAmplitude).values<float>().data();
  const std::int64_t rows = batch.series_count / epochs_;
  const std::int64_t cells = n_pha_ * n_amp_ * length_;
  const Shape per_row{n_pha_, n_amp_, length_};
  float* rho = batch.emplace_rows(tensors::kErpac, rows, per_row, DType::Float32).values<float>().data();
  float* p_out = batch.emplace_rows(tensors::kErpacPvalues, rows, per_row, DType::Float32).values<float>().data();
  float* rank_z = permutations_ > 0
                      ? batch.emplace_rows(tensors::kErpacRankZ, rows, per_row, DType::Float32).values<float>().data()
                      : nullptr;
  if (method_ == Method::GaussianCopula) return process_gc(phase, amplitude, rows, rho, p_out, rank_z);
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t row) {
    std::vector<double> pvalues(static_cast<std::size_t>(cells));
    const std::vector<double> mean_x = amplitude_means(amplitude, row, rows);
    oneapi::tbb::parallel_for(std::int64_t{0}, n_pha_, [&](std::int64_t p) {
      correlate(phase, amplitude, mean_x.data(), row, p, rows, rho + row * cells, pvalues.data(),
                rank_z ? rank_z + row * cells : nullptr);
    });
    erpac::correct(pvalues, correction_);  // the family: every cell of this channel
    for (std::int64_t c = 0; c < cells; ++c) p_out[row * cells + c] = static_cast<float>(pvalues[static_cast<std::size_t>(c)]);
  });
}

void ErpacStage::process_gc(const float* phase, const float* amplitude, std::int64_t rows, float* information,
                            float* pvalues, float* rank_z) const {
  const std::int64_t cells = n_pha_ * n_amp_ * length_;
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t row) {
    std::vector<erpac::Normalised> phases(static_cast<std::size_t>(n_pha_));
    oneapi::tbb::parallel_for(std::int64_t{0}, n_pha_, [&](std::int64_t p) {
      phases[static_cast<std::size_t>(p)] = gc_->phases(phase + (row * n_pha_ + p) * length_, rows * n_pha_ * length_);
    });
    // One amplitude band's normalised values at a time per thread (5 MB for 160 epochs of 4000
    // samples), not every band's at once.
    std::vector<double> observed(static_cast<std::size_t>(cells));
    std::vector<std::vector<double>> maxima(static_cast<std::size_t>(n_pha_ * n_amp_));
    oneapi::tbb::parallel_for(std::int64_t{0}, n_amp_, [&](std::int64_t a) {
      const erpac::Normalised normalised =
          gc_->amplitudes(amplitude + (row * n_amp_ + a) * length_, rows * n_amp_ * length_);
      for (std::int64_t p = 0; p < n_pha_; ++p)
        maxima[static_cast<std::size_t>(p * n_amp_ + a)] =
            gc_cell(phases[static_cast<std::size_t>(p)], normalised, p * n_amp_ + a, observed.data(),
                    rank_z ? rank_z + row * cells : nullptr);
    });
    // Max-T over the channel's cells: each permutation's largest information, against every cell's.
    std::vector<double> largest(static_cast<std::size_t>(permutations_), -std::numeric_limits<double>::infinity());
    for (const auto& m : maxima)
      for (std::size_t k = 0; k < m.size(); ++k) largest[k] = std::max(largest[k], m[k]);
    for (std::int64_t c = 0; c < cells; ++c) {
      const double v = observed[static_cast<std::size_t>(c)];
      information[row * cells + c] = static_cast<float>(v);
      double reached = 0;
      for (const double m : largest) reached += m >= v ? 1 : 0;
      pvalues[row * cells + c] = std::isnan(v) || permutations_ == 0
                                     ? NAN
                                     : static_cast<float>((1 + reached) / static_cast<double>(permutations_ + 1));
    }
  });
}

std::vector<double> ErpacStage::gc_cell(const erpac::Normalised& phases, const erpac::Normalised& amplitudes,
                                        std::int64_t cell, double* information, float* rank_z) const {
  const auto t = static_cast<std::size_t>(length_);
  std::vector<double> largest(static_cast<std::size_t>(permutations_), -std::numeric_limits<double>::infinity());
  std::vector<double> permuted(t), above(t, 0.0), tied(t, 0.0);
  double* observed = information + static_cast<std::size_t>(cell) * t;
  gc_->information(phases, amplitudes, nullptr, observed);
  for (std::int64_t k = 0; k < permutations_; ++k) {
    gc_->information(phases, amplitudes, permuted_.data() + k * epochs_, permuted.data());
    double& most = largest[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < t; ++i) {
      above[i] += permuted[i] > observed[i] ? 1 : 0;
      tied[i] += permuted[i] == observed[i] ? 1 : 0;
      if (!std::isnan(permuted[i])) most = std::max(most, permuted[i]);
    }
  }
  if (rank_z)
    for (std::size_t i = 0; i < t; ++i)
      rank_z[static_cast<std::size_t>(cell) * t + i] =
          std::isnan(observed[i]) ? NAN : static_cast<float>(statistics::rank_z(above[i], tied[i], permutations_));
  return largest;
}

double ErpacStage::flops_per_series() const {
  return static_cast<double>(length_) * (static_cast<double>(n_pha_) * 40.0 + static_cast<double>(n_pha_ * n_amp_) * 12.0);
}

}  // namespace pacflow::stages
