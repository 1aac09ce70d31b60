// The methods paragraph's sentences on the data, its preprocessing, the filters and the measure.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "pipelines/report/methods_sentences.hpp"

namespace pacflow::report {

namespace {

// "1.5 s", "−0.5 s" (a minus sign, not a hyphen).
std::string seconds(double s) { return (s < 0 ? "−" + number(-s) : number(s)) + " s"; }

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& i : items) quoted.push_back("“" + i + "”");
  return list_and(quoted);
}

// "9 phase bands (centres 4–20 Hz, each as wide as half its centre; 3–25 Hz in all)" or, for a
// few bands, each one's edges.
std::string bands_text(const BandSet& b, const std::string& kind, double width_share) {
  const auto n = static_cast<std::int64_t>(b.edges.size());
  if (n <= 3) {
    std::vector<std::string> each;
    for (const auto& [lo, hi] : b.edges) each.push_back(hz_range(lo, hi));
    return fmt::format("{} ({})", plural(n, kind + " band"), list_and(each));
  }
  bool rule = true;  // lo:hi:n bands: centre ± share/2 of the centre
  for (std::size_t i = 0; i < b.edges.size(); ++i)
    rule = rule && std::abs((b.edges[i][1] - b.edges[i][0]) - width_share * b.centres[i]) < 1e-6 * b.centres[i];
  double low = b.edges[0][0], high = b.edges[0][1];
  for (const auto& [lo, hi] : b.edges) low = std::min(low, lo), high = std::max(high, hi);
  return fmt::format(
      "{} (centres {}{}; {} in all)", plural(n, kind + " band"), hz_range(b.centres.front(), b.centres.back()),
      rule ? fmt::format(", each as wide as {} its centre frequency", width_share == 0.5 ? "half" : "a quarter of")
           : "",
      hz_range(low, high));
}

// "3 periods of the band's lower edge for the phase bands (510–102)": spec §3's order,
// cycles × (fs // f_lo), and where a short series made it smaller, (T − 1) / 3, said so.
std::string orders_text(const BandSet& b, const std::string& kind, double fs, bool first) {
  if (b.orders.empty()) return "";
  const auto [lo, hi] = std::minmax_element(b.orders.begin(), b.orders.end());
  const std::string orders = *lo == *hi ? fmt::format("{}", *lo) : fmt::format("{}–{}", *hi, *lo);
  if (b.cycles <= 0) return fmt::format("{} for the {} band{}", orders, kind, b.orders.size() == 1 ? "" : "s");
  bool shortened = false;
  for (std::size_t i = 0; i < b.orders.size() && i < b.edges.size(); ++i)
    shortened = shortened || static_cast<double>(b.orders[i]) < b.cycles * std::floor(fs / b.edges[i][0]);
  return fmt::format("{}{} for the {} band{} ({}{})", number(b.cycles),
                     first ? " periods of the band's lower edge" : "", kind, b.orders.size() == 1 ? "" : "s", orders,
                     shortened ? ", shortened to a third of the series where that was longer" : "");
}

}  // namespace

std::string data_sentences(const RunFacts& f) {
  const InputFacts& in = f.input;
  const double duration = static_cast<double>(in.samples) / in.sample_rate_hz;
  std::string shape = fmt::format("{} of {}", plural(in.epochs, "epoch"), plural(in.channels, "channel"));
  if (!in.channel_labels.empty() && in.channel_labels.size() <= 12)
    shape += fmt::format(" ({})", fmt::join(in.channel_labels, ", "));
  const std::string series =
      fmt::format("{} long ({} samples at {} Hz)", seconds(duration), in.samples, number(in.sample_rate_hz));
  std::string out;
  if (in.source == "synthetic") {
    out = fmt::format(
        "The data were synthetic: {}, each {}, in which the amplitude at {} followed the phase at {} (pacflow's {} "
        "model).",
        shape, series, hz_range(in.f_amp.value_or(0), in.f_amp.value_or(0)),
        hz_range(in.f_pha.value_or(0), in.f_pha.value_or(0)), in.model);
  } else {
    const std::string file = std::filesystem::path(in.path).filename().string();
    const bool recording = in.source == "edf" || in.source == "brainvision";
    const std::string from = recording              ? fmt::format(" from the {} recording {}", in.format, file)
                             : in.source == "array" ? std::string(" from an array in memory")
                             : file.empty()         ? std::string()
                                                    : fmt::format(" from {}", file);
    out = fmt::format("The data were {}, each {}{}.", shape, series, from);
  }
  if (in.epoching == "fixed windows" && in.epochs > 1)
    out += fmt::format(" The recording was cut into windows of {} starting every {}{}.", seconds(duration),
                       seconds(static_cast<double>(in.epoch_step_samples) / in.sample_rate_hz),
                       in.overlapping_pairs > 0 ? ", which overlap" : "");
  else if (in.epoching == "event windows")
    out += fmt::format(" Epochs spanned {} to {} around each {} event.", seconds(in.window_start_s),
                       seconds(in.window_end_s), quoted_list(in.events));
  if (in.rejected_epochs > 0)
    out += fmt::format(" {} overlapping BAD annotations or exceeding the peak-to-peak limit were left out.",
                       plural(in.rejected_epochs, "epoch"));
  if (in.segments > 1)
    out += fmt::format(" Each series was split into {}, each analysed on its own.", plural(in.segments, "segment"));
  if (in.pad_samples > 0)
    out += fmt::format(" Each epoch was filtered with {} of signal on either side, dropped before the measure.",
                       seconds(static_cast<double>(in.pad_samples) / in.sample_rate_hz));
  return out;
}

std::string preprocessing_sentences(const RunFacts& f, Citations& cite) {
  std::string out;
  for (const PreprocessingFacts& p : f.preprocessing) {
    const json& q = p.params;
    if (p.name == "notch") {
      std::vector<std::string> freqs;
      for (const auto& v : q.value("frequencies_hz", json::array())) freqs.push_back(number(v.get<double>()));
      out += fmt::format(
          " Line noise was removed at {} Hz by IIR notch filters (quality factor {}) applied forward and "
          "backward.",
          list_and(freqs), number(q.value("q", 30.0)));
    } else if (p.name == "evoked") {
      const bool regress = q.value("mode", std::string("regress")) == "regress";
      out += fmt::format(
          " The evoked response (the mean over the epochs{}) was removed from every epoch before "
          "filtering{}, leaving the activity not phase-locked to the events ({}).",
          f.input.conditions.size() > 1 ? " of each condition" : "",
          regress ? ", scaled to the epoch by least squares" : "", cite.cite(Work::Aru2015));
    } else if (p.name == "reref" && q.contains("bipolar")) {
      out += fmt::format(" The channels were re-referenced as bipolar derivations ({}).",
                         fmt::join(q["bipolar"].get<std::vector<std::string>>(), ", "));
    } else if (p.name == "reref") {
      const bool average = !q.contains("ref") || (q["ref"].is_string() && q["ref"] == "average");
      out += average ? std::string(" The channels were re-referenced to their average.")
                     : fmt::format(" The channels were re-referenced to {}.",
                                   q["ref"].is_string() ? q["ref"].get<std::string>() : "channel " + q["ref"].dump());
    }
  }
  return out.empty() ? out : out.substr(1);
}

std::string filter_sentences(const RunFacts& f, Citations& cite) {
  if (!f.filters) return "";
  const FilterFacts& x = *f.filters;
  const std::string bands =
      fmt::format("{} and {}", bands_text(x.phase, "phase", 0.5), bands_text(x.amplitude, "amplitude", 0.25));
  if (x.given) return fmt::format("Phases and amplitudes were computed outside pacflow and given to it for {}.", bands);
  std::string design = x.design;
  if (design == "fir1 (Hamming), filtfilt padtype=odd padlen=order")
    design =
        "zero-phase FIR band-pass filters (least-squares ideal band-pass with a Hamming window, as MATLAB's fir1) "
        "applied forward and backward with odd-reflection padding of one filter order";
  std::string out = fmt::format("Each series was filtered into {} by {}, following TensorPAC's definitions ({}).",
                                bands, design, cite.cite(Work::Combrisson2020));
  std::vector<std::string> orders;
  const double fs = f.input.sample_rate_hz;
  const bool phase_orders = !x.phase.orders.empty() && x.phase.cycles > 0;
  for (const auto& o :
       {orders_text(x.phase, "phase", fs, true), orders_text(x.amplitude, "amplitude", fs, !phase_orders)})
    if (!o.empty()) orders.push_back(o);
  if (!orders.empty()) out += fmt::format(" The filter order was {}.", list_and(orders));
  if (!x.hilbert_pad.empty()) {
    const std::int64_t samples = f.input.samples + 2 * f.input.pad_samples;
    out += fmt::format(
        " The instantaneous phase and amplitude envelope were taken from the analytic signal (Hilbert "
        "transform by FFT{}).",
        x.fft_length > samples ? fmt::format(", zero-padded to {} samples", x.fft_length) : "");
  }
  return out;
}

std::string measure_sentence(const RunFacts& f, Citations& cite) {
  if (!f.measure) return "";
  const MeasureFacts& m = *f.measure;
  std::string what;
  if (m.method == "tort")
    what = fmt::format(
        "the modulation index, the Kullback–Leibler divergence of the mean amplitude over {} phase bins "
        "from a uniform distribution, normalised by log {} ({})",
        m.bins, m.bins, cite.cite(Work::Tort2010));
  else if (m.method == "mvl")
    what = fmt::format("the mean vector length, |Σ A(t) e^(iφ(t))| / T ({})", cite.cite(Work::Canolty2006));
  else if (m.method == "ndpac")
    what = fmt::format("the normalised direct PAC, with values below its threshold at p = {} set to 0 ({})",
                       number(m.ndpac_p), cite.cite(Work::Ozkurt2012));
  else if (m.method == "plv")
    what = fmt::format(
        "the phase-locking value between the phase and the phase of the amplitude envelope filtered in "
        "the phase band ({})",
        cite.cite({Work::Penny2008, Work::Lachaux1999}));
  else if (m.method == "hr")
    what = fmt::format("the heights ratio of the mean amplitude over {} phase bins ({})", m.bins,
                       cite.cite(Work::Lakatos2005));
  else if (m.method == "gc")
    what = fmt::format("the Gaussian-copula mutual information between phase and amplitude, in bits{} ({})",
                       m.gc_unbiased ? ", bias-corrected" : "", cite.cite(Work::Ince2017));
  else
    what = "the " + m.method + " measure";
  const std::string over = m.pairs == "diag"
                               ? std::string("for every epoch, channel and pair of bands")
                               : fmt::format(
                                     "between the phase of one channel and the amplitude of the same or another, for "
                                     "{} (phase channel, amplitude channel) and every epoch and pair of bands",
                                     plural(m.pair_count, "channel pair"));
  return fmt::format("Coupling was measured by {}, {}.", what, over);
}

}  // namespace pacflow::report
