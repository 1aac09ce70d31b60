#include "stages/bandpass/bandpass_stage.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/output_names.hpp"
#include "stages/common/sample_range.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/kernels/filters/fir1.hpp"

namespace pacflow::stages {

void BandpassStage::declare(ParamBinder<BandpassStage>& p) {
  p.parsed(&BandpassStage::pha_spec_, "pha", "2:20:10", bands::parser(bands::Role::Phase),
           "phase bands: lo:hi:n, log:lo:hi:n, start:stop:width:step, a preset or [[lo,hi],...]")
      .unit("Hz");
  p.parsed(&BandpassStage::amp_spec_, "amp", "60:160:10", bands::parser(bands::Role::Amplitude),
           "amplitude bands, same forms as pha")
      .unit("Hz");
  p.add(&BandpassStage::clamp_, "clamp", false, "clamp centred band edges to [max(lo, 0.5), hi] (gPAC's rule)");
  p.add(&BandpassStage::pha_cycles_, "pha_cycles", 3, "filter order = cycles * (fs // f_lo) for phase bands (spec §3)")
      .unit("cycles")
      .range(1, 1000);
  p.add(&BandpassStage::amp_cycles_, "amp_cycles", 6, "same for amplitude bands").unit("cycles").range(1, 1000);
  p.parsed_optional(&BandpassStage::outputs_, "outputs", outputs_parser({"filtered"}),
                    "also keep as results: filtered (filtered_pha [n_pha][T], filtered_amp [n_amp][T], the band-passed "
                    "signals, padding included); as TensorPAC's Pac.filter(keepfilt=True)");
}

void BandpassStage::configured() {
  filtered_results_ = asks_for(outputs_, "filtered");
}

ElementInfo BandpassStage::info() {
  return element_info<BandpassStage>("bandpass", "zero-phase fir1 band-pass into phase and amplitude bands (spec §2-§3)");
}

void BandpassStage::plan_bank(BandpassBank& bank, const std::string& param, bands::Role role, int cycles,
                              const StreamInfo& s) {
  bank.bands = (role == bands::Role::Phase ? pha_spec_ : amp_spec_).resolved(clamp_);
  bank.orders.clear();
  bands::check_against_nyquist(param, bank.bands, s.sample_rate);
  for (const auto& b : bank.bands) {
    const std::int64_t order = fir::filter_order(s.sample_rate, b.lo, cycles, s.series_length);
    if (order < 1)
      throw ParamError(param, fmt::format("series of {} samples are too short to filter band [{:g}, {:g}] Hz",
                                          s.series_length, b.lo, b.hi));
    // Compared in double: a tiny low edge makes the unreduced order too large for any integer.
    const double full = cycles * fir::floor_divide(s.sample_rate, b.lo);
    if (static_cast<double>(order) < full) reduced_.push_back(fmt::format("{} [{:g}, {:g}] Hz ({:g})", param, b.lo, b.hi, full));
    ++bands_planned_;
    bank.orders.push_back(order);
  }
  const std::int64_t largest = bank.orders.empty() ? 1 : *std::max_element(bank.orders.begin(), bank.orders.end());
  bank.fft_size = fir::FiltFiltBank::fft_size_for(s.series_length, largest);
}

void BandpassStage::refuse_short_series(const StreamInfo& s) const {
  // Not one cycle of the slowest phase rhythm: no phase to speak of.
  const auto slowest = std::min_element(plan_.pha.bands.begin(), plan_.pha.bands.end(),
                                        [](const bands::Band& a, const bands::Band& b) { return a.lo < b.lo; });
  const double seconds = static_cast<double>(s.series_length) / s.sample_rate;
  if (slowest != plan_.pha.bands.end() && seconds < 1.0 / slowest->lo)
    throw ParamError("pha", fmt::format("series of {} samples ({:g} s at {:g} Hz) are shorter than one cycle of the "
                                        "lowest phase band [{:g}, {:g}] Hz (1 / {:g} Hz = {:g} s); use longer series "
                                        "(or pad= on the source) or higher phase bands",
                                        s.series_length, seconds, s.sample_rate, slowest->lo, slowest->hi, slowest->lo,
                                        1.0 / slowest->lo));
  // Every filter cut short: none of the bands has the filter it asked for.
  if (bands_planned_ > 0 && reduced_.size() == bands_planned_)
    throw InputError(fmt::format("series of {} samples are shorter than 3 filter orders of every band ({}); every "
                                 "filter would be cut to order {}: use longer series, fewer cycles (pha_cycles=, "
                                 "amp_cycles=) or higher bands",
                                 s.series_length, fmt::join(reduced_, ", "), (s.series_length - 1) / 3));
}

void BandpassStage::prepare_bank(BandpassBank& bank, std::unique_ptr<Workspaces>& workspaces) const {
  if (bank.filters) return;
  bank.filters.emplace(bank.orders, plan_.length, [&](std::size_t b) {
    return fir::fir1_bandpass(bank.orders[b], bank.bands[b].lo, bank.bands[b].hi, sample_rate_);
  });
  const auto* filters = &*bank.filters;
  workspaces = std::make_unique<Workspaces>([filters] { return filters->make_workspace(); });
}

void BandpassStage::prepare() {
  prepare_bank(plan_.pha, pha_workspaces_);
  prepare_bank(plan_.amp, amp_workspaces_);
}

void BandpassStage::plan(PlanContext& ctx) {
  const StreamInfo& s = ctx.stream();
  ctx.require(plan_.signal, "bandpass");
  plan_.length = s.series_length;
  sample_rate_ = s.sample_rate;
  leading_dims_ = s.leading_dims;
  leading_names_ = s.leading_names;
  input_path_ = s.description.is_object() && s.description.contains("path") && s.description["path"].is_string()
                    ? s.description["path"].get<std::string>()
                    : "";
  plan_.pha.filters.reset();
  plan_.amp.filters.reset();
  reduced_.clear();
  bands_planned_ = 0;
  plan_bank(plan_.pha, "pha", bands::Role::Phase, pha_cycles_, s);
  plan_bank(plan_.amp, "amp", bands::Role::Amplitude, amp_cycles_, s);
  refuse_short_series(s);
  if (!reduced_.empty())
    ctx.warn(fmt::format("series of {} samples are shorter than 3 filter orders of {} band{}, whose order{} {} reduced "
                         "to floor((T - 1) / 3) = {} (spec §3): {}",
                         s.series_length, reduced_.size(), reduced_.size() == 1 ? "" : "s",
                         reduced_.size() == 1 ? "" : "s", reduced_.size() == 1 ? "is" : "are",
                         (s.series_length - 1) / 3, fmt::join(reduced_, ", ")));

  const auto n_pha = static_cast<std::int64_t>(plan_.pha.bands.size());
  const auto n_amp = static_cast<std::int64_t>(plan_.amp.bands.size());
  TensorDecl filtered_pha{tensors::kFilteredPha, {n_pha, plan_.length}, DType::Float32, filtered_results_,
                          "band-passed signal, phase bands"};
  filtered_pha.axes = {"phase_bands", "times"};
  TensorDecl filtered_amp{tensors::kFilteredAmp, {n_amp, plan_.length}, DType::Float32, filtered_results_,
                          "band-passed signal, amplitude bands"};
  filtered_amp.axes = {"amplitude_bands", "times"};
  ctx.declare(std::move(filtered_pha));
  ctx.declare(std::move(filtered_amp));
  publish_bands(ctx, plan_.pha.bands, plan_.amp.bands);
  ctx.publish(kPhaseFilterOrders, plan_.pha.orders);
  ctx.resolved()["pha_filter_orders"] = plan_.pha.orders;
  ctx.resolved()["amp_filter_orders"] = plan_.amp.orders;
  ctx.resolved()["filter"] = "fir1 (Hamming), filtfilt padtype=odd padlen=order";
}

void BandpassStage::run_bank(const BandpassBank& bank, Workspaces& workspaces, const float* signal, std::int64_t series,
                             float* out) const {
  const auto t = static_cast<std::size_t>(plan_.length);
  const std::size_t per_series = bank.bands.size() * t;
  oneapi::tbb::parallel_for(std::int64_t{0}, series, [&](std::int64_t i) {
    auto& ws = workspaces.local();
    bank.filters->apply({signal + static_cast<std::size_t>(i) * t, t}, ws,
                        out + static_cast<std::size_t>(i) * per_series, t);
  });
}

void BandpassStage::refuse_tiny_series(const float* signal, const Batch& batch) const {
  const auto peak_of = [&](std::int64_t i) {
    return peak_magnitude(signal + static_cast<std::size_t>(i) * static_cast<std::size_t>(plan_.length), plan_.length);
  };
  std::atomic<std::int64_t> first{batch.series_count};  // the lowest index found, for a stable message
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count, [&](std::int64_t i) {
    if (!too_small_series(peak_of(i))) return;
    for (std::int64_t seen = first.load(); i < seen && !first.compare_exchange_weak(seen, i);) {
    }
  });
  const std::int64_t i = first.load();
  if (i == batch.series_count) return;
  const float peak = peak_of(i);
  throw InputError(fmt::format("{}{} is too small to filter: its largest sample magnitude is {:g}, below {:g}, where "
                               "pacflow's float32 filters underflow to 0 (its MI would be exactly 0 or 1 and its "
                               "z-scores NaN); rescale the recording (e.g. volts to microvolts)",
                               input_path_.empty() ? "" : input_path_ + ": ",
                               series_label(batch.first_series + i, leading_dims_, leading_names_), peak,
                               kSmallestPeak));
}

void BandpassStage::process(Batch& batch) {
  const float* signal = batch.at(plan_.signal).values<float>().data();
  refuse_tiny_series(signal, batch);
  const auto n_pha = static_cast<std::int64_t>(plan_.pha.bands.size());
  const auto n_amp = static_cast<std::int64_t>(plan_.amp.bands.size());
  float* pha = batch.emplace(tensors::kFilteredPha, {n_pha, plan_.length}, DType::Float32).values<float>().data();
  float* amp = batch.emplace(tensors::kFilteredAmp, {n_amp, plan_.length}, DType::Float32).values<float>().data();
  // The two banks are independent (each has its own filters and per-thread workspaces): they run
  // side by side, which keeps every thread busy when a batch holds fewer series than threads.
  oneapi::tbb::parallel_invoke([&] { run_bank(plan_.pha, *pha_workspaces_, signal, batch.series_count, pha); },
                               [&] { run_bank(plan_.amp, *amp_workspaces_, signal, batch.series_count, amp); });
}

double BandpassStage::host_workspace_bytes(int threads) const {
  double bytes = 0;
  for (const BandpassBank* bank : {&plan_.pha, &plan_.amp})
    bytes += fir::FiltFiltBank::spectra_bytes(bank->bands.size(), bank->fft_size) +
             threads * fir::FiltFiltBank::workspace_bytes_for(bank->fft_size);
  return bytes;
}

double BandpassStage::flops_per_series() const {
  const double n = 2.0 * static_cast<double>(plan_.length);
  const double bands = static_cast<double>(plan_.pha.bands.size() + plan_.amp.bands.size());
  return bands * 2.0 * 5.0 * n * std::log2(std::max(n, 2.0));
}

}  // namespace pacflow::stages
