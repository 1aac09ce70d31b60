#pragma once
// Sink `png`: figures, written as PNG, SVG or PDF from one drawing (formats=; default: the path's
// extension). The comodulogram (mean over every leading dim: epochs and channels, or epochs and
// channel pairs, and segments) as a heat map with axes in Hz and a colour bar, plus (grid=true)
// STEM_channels.png beside it: one panel per channel (or channel pair), labelled with its name,
// averaged over epochs (and segments), on a shared colour scale. Plots z-scores when surrogates
// ran, else the PAC measure. With surrogates, a panel's cell is outlined when its family-wise
// p-value (pvalues_maxstat) is below alpha in at least k of the E epochs, k the smallest count with
// P[Binomial(E, alpha) >= k] <= alpha: each epoch's max-statistic test has family-wise level alpha,
// so for independent epochs the chance of outlining any cell of an uncoupled channel is at most
// alpha (with one epoch: p < alpha). When the surrogates stage ran its trial-level test
// (trial_pvalues: the mean over epochs, corrected across its family's cells), cells are outlined
// by it instead: trial p < alpha (with segments, in at least k of them, k as above), and the cells
// are coloured by the same test's z-score (trial_z: each channel's mean over epochs against its
// epoch permutations), so colour and outline show one statistic. With two conditions or more the
// trial-level figures have a panel per condition ("go · mean over 16 channels"; "go · Fz"), each
// outlined by that condition's own p-values, and STEM_contrast.png draws the contrast of the first
// two: contrast_z per channel, outlined where contrast_pvalues < alpha.
// When the erpac stage ran it also writes erpac.png beside PATH
// (stages/io/png/erpac_plot.hpp); a pipeline with erpac and no mi gets erpac.png only.
#include <filesystem>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/io/png/erpac_plot.hpp"

namespace pacflow::stages {

class PngSink final : public Sink {
 public:
  void plan(const PlanContext& ctx) override;
  std::vector<std::filesystem::path> output_files() const override;
  double finish_seconds() const override;
  std::string describe_output(const std::filesystem::path& file) const override;
  void consume(const Batch& batch) override;
  void consume_summary(const Batch& summary) override;
  void finish(const json& report, OutputSet& outputs) override;
  // Its state is small (sums and counts per panel and cell): a checkpoint holds it whole.
  std::string why_not_checkpointable() const override { return ""; }
  void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) override;
  json checkpoint() override;

  static ElementInfo info();
  static void declare(ParamBinder<PngSink>& p);
  void configured();  // reads formats= (or the path's extension)
  // Where the per-channel grid goes for a plot at `path`: comodulogram.png -> comodulogram_channels.png.
  static std::filesystem::path grid_path(const std::filesystem::path& path);
  // Where the contrast of two conditions goes: comodulogram.png -> comodulogram_contrast.png.
  static std::filesystem::path contrast_path(const std::filesystem::path& path);
  // Where the ERPAC plot goes for a plot at `path`: out/pac/comodulogram.png -> out/pac/erpac.png.
  static std::filesystem::path erpac_path(const std::filesystem::path& path);
  // The smallest k with P[Binomial(epochs, alpha) >= k] <= alpha.
  static std::int64_t epochs_needed(std::int64_t epochs, double alpha);
  // The formats a `formats=` value names ("png,pdf"); empty: the one `path`'s extension names.
  // Throws ParamError naming formats= or path= for anything else.
  static std::vector<plot::FigureFormat> parse_formats(const std::string& formats, const std::filesystem::path& path);

  // The figures finish() writes, drawn (valid once every batch and summary is consumed): each with
  // its file (in the path's format; formats= writes it in each) and what it shows. The report sink
  // draws its pages from them.
  struct Figure {
    std::filesystem::path file;
    std::string what;
    plot::Canvas drawing;
  };
  std::vector<Figure> figures() const;

 private:
  // `file` in every format asked for (its extension replaced), each figure's files together.
  std::vector<std::filesystem::path> in_each_format(const std::filesystem::path& file) const;
  plot::Canvas mean_figure() const;
  plot::Canvas grid_figure() const;
  plot::Canvas erpac_figure() const;
  // Outlines of the panel (or condition and panel) at `slot`: group * panels + panel.
  std::vector<bool> significant_cells(std::size_t slot) const;
  // The slot of summary row `row` ([conditions][panels][segments] rows).
  std::size_t summary_slot(std::int64_t row) const;
  std::string condition_name(std::int64_t group) const;
  std::string grid_subtitle() const;
  plot::Canvas contrast_figure() const;
  void plan_erpac(const PlanContext& ctx);
  void plan_summaries(const PlanContext& ctx);
  // The panel (channel or pair) of global result row `row`.
  std::size_t panel_of(std::int64_t row) const;

  std::filesystem::path path_;
  std::string formats_text_;
  std::vector<plot::FigureFormat> formats_;
  bool grid_ = true;
  double alpha_ = 0.05;
  std::string tensor_;
  std::vector<double> x_centres_;
  std::vector<double> y_centres_;
  RowLayout layout_;                 // of the plotted result: per series, or per channel pair
  std::int64_t epochs_ = 0;
  std::int64_t panels_ = 0;          // channels, or channel pairs
  std::int64_t inner_ = 1;           // rows per panel and epoch (segments)
  std::string over_;                 // "8 epochs x 16 channels"
  std::string panel_kind_;           // "channel" or "pair"
  std::vector<std::string> panel_labels_;
  std::vector<double> sum_;          // [panel][cell], finite values only
  std::vector<std::int64_t> count_;  // [panel][cell]
  std::int64_t rows_seen_ = 0;       // result rows consumed (a checkpoint's record is checked against it)
  bool significance_ = false;        // pvalues_maxstat is available
  std::vector<std::int64_t> hits_;   // [panel][cell]: epochs (and segments) whose family-wise p < alpha
  std::int64_t needed_ = 1;          // epochs_needed(epochs_ * inner_, alpha_)
  std::string what_;                 // "PAC z-score against surrogates", or the measure's name
  std::string colorbar_;             // "z-score", or the measure ("MI", "MVL", …)
  std::size_t surrogates_ = 0;
  std::int64_t trial_epochs_ = 0, trial_permutations_ = 0;  // of the trial-level test, when there is one
  bool trial_test_ = false;          // trial_pvalues is available: it outlines the cells
  std::string trial_correction_;     // "maxstat", "fdr", …
  std::vector<std::int64_t> trial_hits_;  // [condition][panel][cell]: segments whose trial-level p < alpha
  std::int64_t groups_ = 1;          // conditions of the trial-level rows (1 without conditions)
  std::vector<std::string> condition_names_;
  bool colour_trial_ = false;        // trial_z is available: it colours the cells instead of pac_z
  std::vector<double> trial_sum_;    // [condition][panel][cell]: trial_z over segments, finite values
  std::vector<std::int64_t> trial_count_;
  bool contrast_ = false;            // contrast_z and contrast_pvalues: the contrast figure
  std::vector<double> contrast_sum_;  // [panel][cell] over segments
  std::vector<std::int64_t> contrast_count_, contrast_hits_;
  bool comodulogram_ = true;         // pac_z or pac is there (else only erpac.png is drawn)
  bool erpac_ = false;               // the erpac stage ran
  plot::ErpacSums erpac_sums_;
  plot::ErpacAxes erpac_axes_;
  std::int64_t erpac_rows_ = 0;      // channels (x segments) per erpac result
  std::int64_t erpac_epochs_ = 0;
  std::int64_t erpac_needed_ = 1;    // epochs_needed(erpac_rows_, alpha_)
};

}  // namespace pacflow::stages
