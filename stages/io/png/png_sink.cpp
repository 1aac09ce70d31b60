#include "stages/io/png/png_sink.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <optional>

#include "engine/api/errors.hpp"
#include "engine/io/output_set.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/io/common/output_paths.hpp"
#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/modulation_index/mi_facts.hpp"
#include "stages/surrogates/surrogates_facts.hpp"

namespace pacflow::stages {

namespace {

// ln Γ(x) for x > 0, reentrant: std::lgamma sets the global `signgam`, a data race when two runs plan
// at once in one process (threads, the Python module); glibc's lgamma_r computes the same value.
double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

constexpr const char* kSignificance = tensors::kPvaluesMaxstat;
constexpr const char* kTrialSignificance = "trial_pvalues";  // [conditions…][channels or pairs][segments…][cells]
constexpr const char* kTrialZ = "trial_z";                   // the same test's z-score, same rows
constexpr const char* kContrastZ = "contrast_z";             // [channels or pairs][segments…][cells]: first minus second condition
constexpr const char* kContrastPvalues = "contrast_pvalues";  // its test, same rows
}  // namespace

void PngSink::declare(ParamBinder<PngSink>& p) {
  p.add(&PngSink::path_, "path", "out/pac/comodulogram.png", "image file to write").as(ParamType::OutputFile);
  p.add(&PngSink::formats_text_, "formats", std::string(),
        "figure formats, comma-separated: png, svg, pdf (each file gets its extension); empty: the path's");
  p.add(&PngSink::grid_, "grid", true,
        "also write STEM_channels.png beside it: one comodulogram per channel, averaged over epochs");
  p.add(&PngSink::alpha_, "alpha", 0.05,
        "grid outlines cells whose trial-level p (trial_pvalues) < alpha, or without one, whose family-wise p (pvalues_maxstat) < alpha in enough epochs (binomial test at alpha)")
      .greater_than(0)
      .less_than(1);
}

void PngSink::configured() { formats_ = parse_formats(formats_text_, path_); }

std::vector<plot::FigureFormat> PngSink::parse_formats(const std::string& formats, const std::filesystem::path& path) {
  if (formats.empty()) {
    try {
      return {plot::format_of(path)};
    } catch (const std::invalid_argument&) {
      throw ParamError("path", fmt::format("{} does not end in .png, .svg or .pdf; name one, or the formats "
                                           "(formats=png,svg,pdf)", path.string()));
    }
  }
  std::vector<plot::FigureFormat> out;
  std::size_t at = 0;
  while (at <= formats.size()) {
    const std::size_t comma = std::min(formats.find(',', at), formats.size());
    std::string name = formats.substr(at, comma - at);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    at = comma + 1;
    std::optional<plot::FigureFormat> format;
    for (const plot::FigureFormat f : {plot::FigureFormat::kPng, plot::FigureFormat::kSvg, plot::FigureFormat::kPdf})
      if (name == plot::extension_of(f)) format = f;
    if (!format)
      throw ParamError("formats", fmt::format("\"{}\" is not a figure format: name png, svg or pdf, comma-separated", name));
    if (std::find(out.begin(), out.end(), *format) != out.end())
      throw ParamError("formats", fmt::format("{} is named twice", name));
    out.push_back(*format);
  }
  return out;
}

std::vector<std::filesystem::path> PngSink::in_each_format(const std::filesystem::path& file) const {
  std::vector<std::filesystem::path> files;
  for (const plot::FigureFormat f : formats_)
    files.push_back(std::filesystem::path(file).replace_extension(plot::extension_of(f)));
  return files;
}

ElementInfo PngSink::info() {
  return element_info<PngSink>("png",
                               "comodulogram heat map (mean over epochs and channels) and a per-channel grid, as PNG, "
                               "SVG or PDF figures (formats=); "
                               "erpac.png per phase band when erpac ran; for a dataset, group_t.png (and "
                               "group_contrast_t.png) beside it: the group tests' t, significant clusters outlined");
}

std::filesystem::path PngSink::grid_path(const std::filesystem::path& path) {
  return path.parent_path() / (path.stem().string() + "_channels" + path.extension().string());
}

std::filesystem::path PngSink::contrast_path(const std::filesystem::path& path) {
  return path.parent_path() / (path.stem().string() + "_contrast" + path.extension().string());
}

std::filesystem::path PngSink::erpac_path(const std::filesystem::path& path) {
  return path.parent_path() / ("erpac" + path.extension().string());
}

std::int64_t PngSink::epochs_needed(std::int64_t epochs, double alpha) {
  // Upper tail of Binomial(epochs, alpha), summed from the top: P[K >= k] for k = epochs, epochs - 1, …
  const auto n = static_cast<double>(epochs);
  double tail = 0;
  for (std::int64_t k = epochs; k >= 0; --k) {
    const auto kd = static_cast<double>(k);
    const double log_pmf = log_gamma(n + 1) - log_gamma(kd + 1) - log_gamma(n - kd + 1) + kd * std::log(alpha) +
                           (n - kd) * std::log1p(-alpha);
    if (tail + std::exp(log_pmf) > alpha * (1 + 1e-12)) return k + 1;  // tolerance: P[K >= 1] = alpha for 1 epoch
    tail += std::exp(log_pmf);
  }
  return 0;  // unreachable for alpha < 1: P[K >= 0] = 1
}

void PngSink::plan_erpac(const PlanContext& ctx) {
  erpac_ = ctx.provides(tensors::kErpac) && ctx.provides(tensors::kErpacPvalues);
  if (!erpac_) return;
  const TensorDecl& decl = ctx.require(tensors::kErpac, "png");
  ctx.require(tensors::kErpacPvalues, "png");
  erpac_axes_.pha_centres_hz = ctx.require(kPhaseCentres, "png");
  erpac_axes_.amp_centres_hz = ctx.require(kAmplitudeCentres, "png");
  const Shape& cell = decl.per_series;  // [n_pha][n_amp][time]
  erpac_sums_.reset(cell.at(0), cell.at(1), cell.at(2));
  erpac_axes_.times_s.clear();
  for (const Coordinate& c : ctx.coordinates())
    if (c.name == "erpac_times") erpac_axes_.times_s = c.values();
  if (static_cast<std::int64_t>(erpac_axes_.times_s.size()) != cell.at(2))
    throw InputError("the png sink draws erpac against its times, but the erpac stage published none");
  erpac_rows_ = element_count(decl.rows.leading);
  erpac_epochs_ = ctx.stream().leading_dims.at(0);
  erpac_needed_ = epochs_needed(erpac_rows_, alpha_);
}

// The run summaries it draws: the trial-level test (trial_pvalues, trial_z, per condition) and the
// contrast of two conditions. Called once sum_ is sized.
void PngSink::plan_summaries(const PlanContext& ctx) {
  trial_test_ = grid_ && ctx.provides(kTrialSignificance);
  if (trial_test_) ctx.require(kTrialSignificance, "png");
  const std::string* trial_correction = ctx.find(kTrialTest);
  trial_correction_ = trial_correction ? *trial_correction : std::string();
  if (const std::string* family = ctx.find(kTrialFamily))  // which p-values one correction covers
    trial_correction_ += fmt::format(" over {} {}'s cells", *family == "channels" ? "every" : "each", panel_kind_);
  colour_trial_ = ctx.provides(kTrialZ);
  if (colour_trial_) ctx.require(kTrialZ, "png");
  // Sized for one condition until the summary says how many it has (consume_summary).
  groups_ = 1;
  trial_hits_.assign(trial_test_ ? sum_.size() : 0, 0);
  trial_sum_.assign(colour_trial_ ? sum_.size() : 0, 0.0);
  trial_count_.assign(trial_sum_.size(), 0);
  condition_names_ = ctx.stream().condition_names;
  contrast_ = grid_ && ctx.provides(kContrastZ) && ctx.provides(kContrastPvalues);
  if (contrast_) {
    ctx.require(kContrastZ, "png");
    ctx.require(kContrastPvalues, "png");
  }
  contrast_sum_.assign(contrast_ ? sum_.size() : 0, 0.0);
  contrast_count_.assign(contrast_sum_.size(), 0);
  contrast_hits_.assign(contrast_sum_.size(), 0);
}

void PngSink::plan(const PlanContext& ctx) {
  plan_erpac(ctx);
  comodulogram_ = !erpac_ || ctx.provides(tensors::kPacZ) || ctx.provides(tensors::kPac);
  if (!comodulogram_) return;
  tensor_ = ctx.provides(tensors::kPacZ) ? tensors::kPacZ : tensors::kPac;
  const TensorDecl& decl = ctx.require(tensor_, "png");
  const std::vector<double>* pha_centres = ctx.find(kPhaseCentres);
  const std::vector<double>* amp_centres = ctx.find(kAmplitudeCentres);
  if (!pha_centres || !amp_centres || decl.per_series.size() != 2)
    throw InputError("the png sink plots a [phase band][amplitude band] result; it needs bandpass and mi before it");
  x_centres_ = *pha_centres;
  y_centres_ = *amp_centres;
  // The result's leading dims: the stream's [epochs][channels][segments…], or its own
  // [epochs][pairs][segments…] (cross-channel PAC). Panels are the second; the rest are averaged.
  layout_ = decl.rows;
  const bool pairs = !layout_.leading.empty();
  const StreamInfo& stream = ctx.stream();
  const Shape& lead = pairs ? layout_.leading : stream.leading_dims;
  const auto& names = pairs ? layout_.leading_names : stream.leading_names;
  epochs_ = lead.at(0);
  panels_ = lead.size() > 1 ? lead[1] : 1;
  inner_ = 1;
  std::vector<std::string> over;
  for (std::size_t i = 0; i < lead.size(); ++i) {
    if (i >= 2) inner_ *= lead[i];
    over.push_back(fmt::format("{} {}", lead[i], names.at(i)));
  }
  over_ = fmt::format("{}", fmt::join(over, " x "));
  const auto channel_label = [&](std::int64_t c) {
    const auto& labels = stream.labels;
    return labels.size() > 1 && static_cast<std::int64_t>(labels[1].size()) > c ? labels[1][static_cast<std::size_t>(c)]
                                                                                  : fmt::format("ch {}", c);
  };
  panel_kind_ = pairs ? "pair" : "channel";
  panel_labels_.clear();
  if (pairs) {
    for (const auto& [phase_channel, amplitude_channel] : ctx.require(kChannelPairs, "png"))
      panel_labels_.push_back(fmt::format("{} -> {}", channel_label(phase_channel), channel_label(amplitude_channel)));
  } else {
    for (std::int64_t c = 0; c < panels_; ++c) panel_labels_.push_back(channel_label(c));
  }
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  sum_.assign(static_cast<std::size_t>(panels_) * cells, 0.0);
  count_.assign(sum_.size(), 0);
  significance_ = grid_ && ctx.provides(kSignificance);
  if (significance_) ctx.require(kSignificance, "png");
  hits_.assign(significance_ ? sum_.size() : 0, 0);
  plan_summaries(ctx);
  needed_ = epochs_needed(epochs_ * inner_, alpha_);
  const std::vector<std::int64_t>* shifts = ctx.find(kSurrogateShifts);
  surrogates_ = shifts ? shifts->size() : 0;
  const std::int64_t* trial_epochs = ctx.find(kTrialEpochs);
  const std::int64_t* trial_permutations = ctx.find(kTrialPermutations);
  trial_epochs_ = trial_epochs ? *trial_epochs : epochs_;
  trial_permutations_ = trial_permutations ? *trial_permutations : static_cast<std::int64_t>(surrogates_);
  const std::string* method_name = ctx.find(kMiMethodName);
  const std::string* measure = ctx.find(kMiMeasure);
  what_ = colour_trial_ ? fmt::format("z-score of the mean over {} epochs against epoch permutations", trial_epochs_)
          : tensor_ == tensors::kPacZ ? "PAC z-score against surrogates"
          : method_name        ? *method_name
                               : "Tort modulation index";
  colorbar_ = colour_trial_ || tensor_ == tensors::kPacZ ? "z-score" : measure ? *measure : "MI";
}

// Drawing and encoding cost about 75 ms per million pixels here (pipelines/pac.pipe's two images,
// 0.63 and 1.1 million pixels, add 0.13 s to its run): the single plot is 900 x 700, the grid
// about 70 000 pixels per panel, the erpac plot like the single one.
double PngSink::finish_seconds() const {
  constexpr double kPerPixel = 75e-9, kSingle = 900.0 * 700.0, kPerPanel = 7e4;
  double pixels = 0;
  if (comodulogram_) pixels += kSingle;
  if (comodulogram_ && grid_) pixels += kPerPanel * static_cast<double>(panels_);
  if (contrast_) pixels += kPerPanel * static_cast<double>(panels_);
  if (erpac_) pixels += kSingle;
  return pixels * kPerPixel * static_cast<double>(formats_.size());
}

std::vector<std::filesystem::path> PngSink::output_files() const {
  std::vector<std::filesystem::path> files;
  const auto add = [&](const std::filesystem::path& file) {
    for (std::filesystem::path& each : in_each_format(file)) files.push_back(std::move(each));
  };
  if (comodulogram_) add(path_);
  if (comodulogram_ && grid_) add(grid_path(path_));
  if (contrast_) add(contrast_path(path_));
  if (erpac_) add(erpac_path(path_));
  return files;
}

std::string PngSink::describe_output(const std::filesystem::path& file) const {
  const auto is = [&](const std::filesystem::path& figure) {
    const std::vector<std::filesystem::path> files = in_each_format(figure);
    return std::find(files.begin(), files.end(), file) != files.end();
  };
  if (is(path_)) return "comodulogram, mean over epochs and channels (or channel pairs) and segments";
  if (is(grid_path(path_))) return "one comodulogram per " + panel_kind_ + ", mean over epochs";
  if (is(contrast_path(path_)))
    return "contrast of the two conditions (contrast_z) per " + panel_kind_ + ", outlined by contrast_pvalues";
  if (is(erpac_path(path_))) return "ERPAC per phase band (time x amplitude frequency), mean over channels";
  return "";
}

std::size_t PngSink::panel_of(std::int64_t row) const { return static_cast<std::size_t>((row / inner_) % panels_); }

void PngSink::consume(const Batch& batch) {
  if (erpac_)
    erpac_sums_.add(batch.at(tensors::kErpac).values<float>(), batch.at(tensors::kErpacPvalues).values<float>(),
                    alpha_);
  if (!comodulogram_) return;
  const auto values = batch.at(tensor_).values<float>();
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  const auto rows = static_cast<std::int64_t>(values.size() / cells);
  const std::int64_t first_row = layout_.rows(batch.first_series);  // batches start on group boundaries
  rows_seen_ += rows;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::size_t panel = panel_of(first_row + i);
    for (std::size_t k = 0; k < cells; ++k) {
      const float v = values[static_cast<std::size_t>(i) * cells + k];
      if (!std::isfinite(v)) continue;  // z is NaN where the surrogates had no spread
      sum_[panel * cells + k] += v;
      ++count_[panel * cells + k];
    }
  }
  if (!significance_) return;
  const auto p = batch.at(kSignificance).values<float>();
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::size_t panel = panel_of(first_row + i);
    for (std::size_t k = 0; k < cells; ++k)
      hits_[panel * cells + k] += double{p[static_cast<std::size_t>(i) * cells + k]} < alpha_ ? 1 : 0;
  }
}

// trial_pvalues and trial_z: one row per condition (when several), panel and segment; contrast_z and
// contrast_pvalues: one per panel and segment.
std::size_t PngSink::summary_slot(std::int64_t row) const {
  const std::int64_t group = row / (panels_ * inner_);
  return static_cast<std::size_t>(group * panels_ + (row / inner_) % panels_);
}

void PngSink::consume_summary(const Batch& summary) {
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  const auto add_hits = [&](const char* name, std::vector<std::int64_t>& hits) {
    const auto p = summary.at(name).values<float>();
    const auto rows = static_cast<std::int64_t>(p.size() / cells);
    hits.assign(static_cast<std::size_t>(rows / inner_) * cells, 0);
    for (std::int64_t row = 0; row < rows; ++row)
      for (std::size_t k = 0; k < cells; ++k)
        hits[summary_slot(row) * cells + k] += double{p[static_cast<std::size_t>(row) * cells + k]} < alpha_ ? 1 : 0;
    return rows;
  };
  const auto add_values = [&](const char* name, std::vector<double>& sums, std::vector<std::int64_t>& counts) {
    const auto z = summary.at(name).values<float>();
    const auto rows = static_cast<std::int64_t>(z.size() / cells);
    sums.assign(static_cast<std::size_t>(rows / inner_) * cells, 0.0);
    counts.assign(sums.size(), 0);
    for (std::int64_t row = 0; row < rows; ++row)
      for (std::size_t k = 0; k < cells; ++k) {
        const float v = z[static_cast<std::size_t>(row) * cells + k];
        if (!std::isfinite(v)) continue;
        sums[summary_slot(row) * cells + k] += v;
        ++counts[summary_slot(row) * cells + k];
      }
    return rows;
  };
  if (trial_test_) groups_ = std::max<std::int64_t>(1, add_hits(kTrialSignificance, trial_hits_) / (panels_ * inner_));
  if (colour_trial_) groups_ = std::max<std::int64_t>(1, add_values(kTrialZ, trial_sum_, trial_count_) / (panels_ * inner_));
  if (contrast_) {
    add_hits(kContrastPvalues, contrast_hits_);
    add_values(kContrastZ, contrast_sum_, contrast_count_);
  }
}

void PngSink::resume(const std::filesystem::path& /*dir*/, const json& state, std::int64_t series_done) {
  if (erpac_ && !state.is_null() && state.contains("erpac")) {
    const json& e = state["erpac"];
    auto sum = e.at("sum").get<std::vector<double>>();
    auto count = e.at("count").get<std::vector<std::int64_t>>();
    auto hits = e.at("hits").get<std::vector<std::int64_t>>();
    if (sum.size() != erpac_sums_.sum.size() || count.size() != sum.size() || hits.size() != sum.size())
      throw InputError("--checkpoint: its png erpac state does not fit this plot; remove the checkpoint to start afresh");
    erpac_sums_.sum = std::move(sum);
    erpac_sums_.count = std::move(count);
    erpac_sums_.hits = std::move(hits);
    erpac_sums_.rows = e.at("rows").get<std::int64_t>();
  }
  if (!comodulogram_) return;
  const std::int64_t rows = layout_.rows(series_done);
  if (state.is_null()) {
    if (rows != 0) throw InputError("--checkpoint: it records series done but no png state; remove it to start afresh");
    return;
  }
  auto sum = state.at("sum").get<std::vector<double>>();
  auto count = state.at("count").get<std::vector<std::int64_t>>();
  auto hits = state.at("hits").get<std::vector<std::int64_t>>();
  const std::int64_t rows_seen = state.value("rows", std::int64_t{-1});
  if (sum.size() != sum_.size() || count.size() != count_.size() || hits.size() != hits_.size())
    throw InputError("--checkpoint: its png state does not fit this plot; remove the checkpoint to start afresh");
  if (rows_seen != rows)
    throw InputError(fmt::format("--checkpoint: its png record sums {} result rows, but the {} series it records done "
                                 "make {}; the checkpoint is inconsistent: remove it to start afresh",
                                 rows_seen, series_done, rows));
  sum_ = std::move(sum);
  count_ = std::move(count);
  hits_ = std::move(hits);
  rows_seen_ = rows_seen;
}

// JSON keeps every double exactly (shortest round-trip form), so a resumed plot is the uninterrupted one.
json PngSink::checkpoint() {
  json state = {{"sum", sum_}, {"count", count_}, {"hits", hits_}, {"rows", rows_seen_}};
  if (erpac_)
    state["erpac"] = {{"sum", erpac_sums_.sum}, {"count", erpac_sums_.count}, {"hits", erpac_sums_.hits},
                      {"rows", erpac_sums_.rows}};
  return state;
}

void PngSink::finish(const json& /*report*/, OutputSet& outputs) {
  for (const Figure& figure : figures())
    for (const std::filesystem::path& each : in_each_format(figure.file))
      outputs.add_content(each, figure.drawing.encode(plot::format_of(each), each.string()));
}

}  // namespace pacflow::stages
