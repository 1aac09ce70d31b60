// The png sink's per-channel grid: panels named from the source's labels (or "ch k"), means over
// epochs, and outlines where the family-wise p-value beats alpha in enough epochs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/io/output_set.hpp"
#include "engine/api/stage.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/io/png/erpac_plot.hpp"
#include "stages/io/png/heatmap_panel.hpp"
#include "stages/io/png/plot_drawing.hpp"
#include "stages/io/png/png_sink.hpp"
#include "stages/surrogates/surrogates_facts.hpp"
#include "tests/support/cli_runner.hpp"


namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kEpochs = 2, kChannels = 3, kCells = 4;

plot::Image decode(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return plot::decode_png(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
                          path.string());
}

double z_of(std::int64_t epoch, std::int64_t channel, std::int64_t cell) {
  return static_cast<double>(channel * 10 + cell) + static_cast<double>(epoch);
}

struct SinkOutput {
  plot::Image grid;
  plot::GridLayout layout;
};

// Feeds the sink kEpochs x kChannels series of 2 x 2 cells in two batches; p gives each series'
// family-wise p-values.
// `trial`, when given, is each channel's trial-level p (the surrogates stage's summary), and
// `trial_z` that test's z-score.
SinkOutput run_sink(const fs::path& dir, std::vector<std::vector<std::string>> labels,
                    const std::function<float(std::int64_t, std::int64_t, std::int64_t)>& p,
                    const std::function<float(std::int64_t, std::int64_t)>& trial = {},
                    const std::function<float(std::int64_t, std::int64_t)>& trial_z = {}) {
  StreamInfo stream;
  stream.leading_dims = {kEpochs, kChannels};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = 128;
  stream.sample_rate = 128;
  stream.labels = std::move(labels);
  PlanContext ctx(stream);
  ctx.publish(kPhaseCentres, {4.0, 6.0});
  ctx.publish(kAmplitudeCentres, {60.0, 80.0});
  ctx.publish(kSurrogateShifts, std::vector<std::int64_t>(19, 1));
  ctx.declare({"pac_z", {2, 2}, DType::Float32, true, ""});
  ctx.declare({"pvalues_maxstat", {2, 2}, DType::Float32, true, ""});
  if (trial) {
    TensorDecl decl{"trial_pvalues", {2, 2}, DType::Float32, true, "", RowLayout{1, 1, {kChannels}, {"channels"}}};
    decl.summary = true;
    ctx.declare(decl);
    ctx.publish(kTrialTest, std::string("maxstat"));
  }
  if (trial_z) {
    TensorDecl decl{"trial_z", {2, 2}, DType::Float32, true, "", RowLayout{1, 1, {kChannels}, {"channels"}}};
    decl.summary = true;
    ctx.declare(decl);
  }
  const auto sink = make_element<PngSink>({{"path", (dir / "comodulogram.png").string()}, {"alpha", 0.05}});
  sink->plan(ctx);
  for (const auto& [first, count] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 4}, {4, 2}}) {
    Batch batch;
    batch.index = first == 0 ? 0 : 1;
    batch.first_series = first;
    batch.series_count = count;
    auto z = batch.emplace("pac_z", {2, 2}, DType::Float32).values<float>();
    auto pv = batch.emplace("pvalues_maxstat", {2, 2}, DType::Float32).values<float>();
    for (std::int64_t i = 0; i < count; ++i)
      for (std::int64_t k = 0; k < kCells; ++k) {
        const std::int64_t s = first + i;
        z[static_cast<std::size_t>(i * kCells + k)] = static_cast<float>(z_of(s / kChannels, s % kChannels, k));
        pv[static_cast<std::size_t>(i * kCells + k)] = p(s / kChannels, s % kChannels, k);
      }
    sink->consume(batch);
  }
  if (trial) {
    Batch summary;
    auto pv = summary.emplace_rows("trial_pvalues", kChannels, {2, 2}, DType::Float32).values<float>();
    for (std::int64_t c = 0; c < kChannels; ++c)
      for (std::int64_t k = 0; k < kCells; ++k) pv[static_cast<std::size_t>(c * kCells + k)] = trial(c, k);
    if (trial_z) {
      auto z = summary.emplace_rows("trial_z", kChannels, {2, 2}, DType::Float32).values<float>();
      for (std::int64_t c = 0; c < kChannels; ++c)
        for (std::int64_t k = 0; k < kCells; ++k) z[static_cast<std::size_t>(c * kCells + k)] = trial_z(c, k);
    }
    sink->consume_summary(summary);
  }
  OutputSet outputs;
  sink->finish(json::object(), outputs);
  EXPECT_FALSE(fs::exists(dir / "comodulogram.png")) << "a sink writes temporaries; the run moves them into place";
  outputs.commit();
  EXPECT_TRUE(fs::exists(dir / "comodulogram.png"));
  // The layout the sink's grid must have: the same panels, values (epoch means) and text lines.
  plot::HeatmapGrid expected;
  expected.x_centres = {4.0, 6.0};
  expected.y_centres = {60.0, 80.0};
  expected.title = expected.subtitle = "x";
  for (std::int64_t c = 0; c < kChannels; ++c) {
    plot::HeatmapGrid::Panel panel{"", {}, {}};
    for (std::int64_t k = 0; k < kCells; ++k)
      panel.values.push_back(trial_z ? trial_z(c, k) : (z_of(0, c, k) + z_of(1, c, k)) / 2);
    expected.panels.push_back(panel);
  }
  return {decode(PngSink::grid_path(dir / "comodulogram.png")), plot::layout_grid(expected)};
}

bool outlined(const SinkOutput& run, std::int64_t channel, std::int64_t cell) {
  const auto& box = run.layout.panels[static_cast<std::size_t>(channel)];
  const plot::PanelArea area{box.x0, box.y0, box.x1, box.y1, 2, 2};
  const auto ix = static_cast<std::size_t>(cell / 2), iy = static_cast<std::size_t>(cell % 2);
  for (int y = area.y_edge(iy + 1); y < area.y_edge(iy); ++y)
    for (int x = area.x_edge(ix); x < area.x_edge(ix + 1); ++x)
      if (run.grid.at(x, y) == plot::kSignificant) return true;
  return false;
}

bool label_drawn(const SinkOutput& run, std::int64_t channel, const std::string& label) {
  const auto& box = run.layout.panels[static_cast<std::size_t>(channel)];
  plot::Canvas drawn(run.grid.width(), run.grid.height());
  drawn.text(label, box.label_x, box.label_y, plot::Align::kCentre, plot::Align::kStart, plot::kFontSize);
  const plot::Image expected = drawn.rasterise();
  for (int y = box.label_y - 2; y < box.y0 - 2; ++y)
    for (int x = box.x0; x < box.x1; ++x)
      if (run.grid.at(x, y) != expected.at(x, y)) return false;
  return true;
}

TEST(PngSink, OutlinesCellsWhoseFamilyWisePBeatsAlphaInEnoughEpochs) {
  testing::ScratchDir dir("png_significance");
  // With 2 epochs and alpha = 0.05: P[Bin(2, 0.05) >= 1] = 0.0975 > alpha, P[>= 2] = 0.0025, so a
  // cell needs p < 0.05 in both epochs.
  const auto p = [](std::int64_t e, std::int64_t c, std::int64_t k) -> float {
    if (c == 0 && k == 0) return 0.02f;                   // both epochs: outlined
    if (c == 0 && k == 1) return e == 0 ? 0.001f : 0.9f;  // one epoch only: not outlined
    if (c == 2 && k == 3) return e == 1 ? 0.01f : 0.04f;  // both: outlined
    if (c == 1 && k == 2) return 0.05f;                   // not below alpha: not outlined
    return 1.0f;
  };
  const SinkOutput run = run_sink(dir.path(), {{}, {"Fz", "Cz", "Pz"}}, p);
  EXPECT_GE(run.grid.width(), run.layout.width) << "as wide as its panels, or its subtitle where that is wider";
  EXPECT_EQ(run.grid.height(), run.layout.height);
  for (std::int64_t c = 0; c < kChannels; ++c)
    for (std::int64_t k = 0; k < kCells; ++k)
      EXPECT_EQ(outlined(run, c, k), (c == 0 && k == 0) || (c == 2 && k == 3)) << "channel " << c << " cell " << k;
  EXPECT_TRUE(label_drawn(run, 0, "Fz"));
  EXPECT_TRUE(label_drawn(run, 1, "Cz"));
  EXPECT_TRUE(label_drawn(run, 2, "Pz"));
}

// A channel coupled weakly in every epoch beats alpha in no single epoch, but its mean over the
// epochs does: with the trial-level test, that test outlines, and only it.
TEST(PngSink, OutlinesByTheTrialLevelTestWhenThereIsOne) {
  const testing::ScratchDir dir("png_trial");
  const auto run = run_sink(
      dir.path(), {}, [](std::int64_t c, std::int64_t k, std::int64_t) { return c == 2 && k == 3 ? 0.01f : 0.3f; },
      [](std::int64_t c, std::int64_t k) { return c == 0 && k == 1 ? 0.004f : 0.6f; });
  for (std::int64_t c = 0; c < kChannels; ++c)
    for (std::int64_t k = 0; k < kCells; ++k)
      EXPECT_EQ(outlined(run, c, k), c == 0 && k == 1) << "channel " << c << " cell " << k;
}

// With the trial-level test, the cells are coloured by its z-score (trial_z), not by the mean of
// the per-epoch pac_z: colour and outline show one statistic (issue 36).
TEST(PngSink, ColoursByTheTrialLevelZWhenThereIsOne) {
  const testing::ScratchDir dir("png_trial_z");
  const auto trial_z = [](std::int64_t c, std::int64_t k) { return static_cast<float>((kChannels - 1 - c) * kCells + k); };
  const auto run = run_sink(
      dir.path(), {}, [](std::int64_t, std::int64_t, std::int64_t) { return 0.3f; },
      [](std::int64_t c, std::int64_t k) { return c == 0 && k == 1 ? 0.004f : 0.6f; }, trial_z);
  const double top = kChannels * kCells - 1;  // trial_z runs from 0 to 11: the colour range
  for (std::int64_t c = 0; c < kChannels; ++c) {
    const auto& box = run.layout.panels[static_cast<std::size_t>(c)];
    const plot::PanelArea area{box.x0, box.y0, box.x1, box.y1, 2, 2};
    for (std::int64_t k = 0; k < kCells; ++k) {
      const auto ix = static_cast<std::size_t>(k / 2), iy = static_cast<std::size_t>(k % 2);
      const int x = (area.x_edge(ix) + area.x_edge(ix + 1)) / 2, y = (area.y_edge(iy) + area.y_edge(iy + 1)) / 2;
      const plot::Rgb expected = plot::viridis(trial_z(c, k) / top), got = run.grid.at(x, y);
      EXPECT_TRUE(got == expected) << "channel " << c << " cell " << k;
      EXPECT_EQ(outlined(run, c, k), c == 0 && k == 1) << "channel " << c << " cell " << k;
    }
  }
}

TEST(PngSink, NamesPanelsChKWhenTheSourceHasNoLabels) {
  testing::ScratchDir dir("png_unlabelled");
  const SinkOutput run = run_sink(dir.path(), {}, [](std::int64_t, std::int64_t, std::int64_t) { return 1.0f; });
  for (std::int64_t c = 0; c < kChannels; ++c) EXPECT_TRUE(label_drawn(run, c, "ch " + std::to_string(c)));
  for (std::int64_t k = 0; k < kCells; ++k) EXPECT_FALSE(outlined(run, 0, k));
}

// P[Binomial(E, alpha) >= k] by hand: E = 10, alpha = 0.05: P[>= 2] = 1 - 0.95^10 - 10 * 0.05 * 0.95^9
// = 0.0861 > 0.05, P[>= 3] = 0.0861 - 45 * 0.05^2 * 0.95^8 = 0.0115, so 3 epochs.
TEST(PngSink, NeedsTheEpochCountWhoseBinomialTailIsBelowAlpha) {
  EXPECT_EQ(PngSink::epochs_needed(1, 0.05), 1);
  EXPECT_EQ(PngSink::epochs_needed(2, 0.05), 2);
  EXPECT_EQ(PngSink::epochs_needed(10, 0.05), 3);
  EXPECT_EQ(PngSink::epochs_needed(10, 0.01), 2);  // P[>= 1] = 0.0956, P[>= 2] = 0.0043
  const std::int64_t many = PngSink::epochs_needed(1000, 0.05);
  EXPECT_GT(many, 50);  // above the mean of 50
  EXPECT_LT(many, 70);
}

// ERPAC: one panel per phase band, time across, amplitude frequency up; a strong ρ (both channels
// significant) in phase band 1, amplitude band 2, from the 6th sample on, shows there and only there.
TEST(PngSink, DrawsErpacPerPhaseBandWithTimeAcrossAndAmplitudeUp) {
  testing::ScratchDir dir("png_erpac");
  constexpr std::int64_t kE = 4, kC = 2, kPha = 2, kAmp = 3, kT = 10;
  StreamInfo stream;
  stream.leading_dims = {kE, kC};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = kT;
  stream.sample_rate = 10;
  PlanContext ctx(stream);
  ctx.publish(kPhaseCentres, {5.0, 7.0});
  ctx.publish(kAmplitudeCentres, {60.0, 80.0, 100.0});
  ctx.publish_coordinate({"erpac_times", -0.5, 0.1, kT, "s", "time"});
  const RowLayout rows{kE * kC, kC, {kC}, {"channels"}};
  ctx.declare({"erpac", {kPha, kAmp, kT}, DType::Float32, true, "", rows});
  ctx.declare({"erpac_pvalues", {kPha, kAmp, kT}, DType::Float32, true, "", rows});
  const auto sink = make_element<PngSink>({{"path", (dir.path() / "comodulogram.png").string()}});
  sink->plan(ctx);
  ASSERT_EQ(sink->output_files(), std::vector<fs::path>{dir.path() / "erpac.png"}) << "no mi: erpac only";

  const auto strong = [](std::int64_t p, std::int64_t a, std::int64_t t) { return p == 1 && a == 2 && t >= 5; };
  std::vector<float> rho, pv;
  for (std::int64_t c = 0; c < kC; ++c)
    for (std::int64_t p = 0; p < kPha; ++p)
      for (std::int64_t a = 0; a < kAmp; ++a)
        for (std::int64_t t = 0; t < kT; ++t) {
          rho.push_back(strong(p, a, t) ? 0.9f : 0.1f);
          pv.push_back(strong(p, a, t) ? 0.001f : 1.0f);
        }
  Batch batch;
  batch.series_count = kE * kC;
  std::copy(rho.begin(), rho.end(), batch.emplace_rows("erpac", kC, {kPha, kAmp, kT}, DType::Float32).values<float>().begin());
  std::copy(pv.begin(), pv.end(), batch.emplace_rows("erpac_pvalues", kC, {kPha, kAmp, kT}, DType::Float32).values<float>().begin());
  sink->consume(batch);
  OutputSet outputs;
  sink->finish(json::object(), outputs);
  outputs.commit();
  ASSERT_FALSE(fs::exists(dir.path() / "comodulogram.png"));
  const plot::Image image = decode(dir.path() / "erpac.png");

  plot::ErpacSums sums;
  sums.reset(kPha, kAmp, kT);
  sums.add(rho, pv, 0.05);
  plot::ErpacAxes axes{{}, {5.0, 7.0}, {60.0, 80.0, 100.0}};
  for (std::int64_t t = 0; t < kT; ++t) axes.times_s.push_back(-0.5 + 0.1 * static_cast<double>(t));
  plot::HeatmapGrid expected = plot::erpac_grid(sums, axes, 2, 120);
  expected.title = expected.subtitle = "x";  // the layout depends on whether there are such lines, not on them
  const plot::GridLayout layout = plot::layout_grid(expected, 360, 180);
  ASSERT_EQ(layout.panels.size(), 2u) << "one panel per phase band";
  EXPECT_EQ(image.width(), layout.width);
  EXPECT_EQ(image.height(), layout.height);
  for (std::int64_t p = 0; p < kPha; ++p) {
    const auto& box = layout.panels[static_cast<std::size_t>(p)];
    const plot::PanelArea area{box.x0, box.y0, box.x1, box.y1, kT, kAmp};
    for (std::int64_t t = 0; t < kT; ++t)
      for (std::int64_t a = 0; a < kAmp; ++a) {
        const auto ix = static_cast<std::size_t>(t), iy = static_cast<std::size_t>(a);
        int x = (area.x_edge(ix) + area.x_edge(ix + 1)) / 2;
        const int y = (area.y_edge(iy) + area.y_edge(iy + 1)) / 2;
        if (axes.times_s[ix] == 0.0) {  // the event: a white line through the sample at t = 0
          EXPECT_EQ(image.at(x, y), plot::kMarker) << "the event line: phase " << p << " amp " << a;
          x += plot::kMarkerWidth + 1;
        }
        EXPECT_EQ(image.at(x, y), plot::viridis(strong(p, a, t) ? 1.0 : 0.0)) << "phase " << p << " amp " << a << " t " << t;
        // The contour runs along the region's left side only (none between two significant samples).
        const bool left_side = strong(p, a, t) && !strong(p, a, t - 1);
        EXPECT_EQ(image.at(area.x_edge(ix) + 1, y), left_side ? plot::kSignificant : image.at(x, y))
            << "outline: phase " << p << " amp " << a << " t " << t;
      }
  }
}

TEST(PngSink, PutsTheGridBesideThePlot) {
  EXPECT_EQ(PngSink::grid_path("out/pac/comodulogram.png"), fs::path("out/pac/comodulogram_channels.png"));
  EXPECT_EQ(PngSink::grid_path("plot.png"), fs::path("plot_channels.png"));
  EXPECT_EQ(PngSink::erpac_path("out/pac/comodulogram.png"), fs::path("out/pac/erpac.png"));
  for (const double alpha : {0.0, 1.0, 1.5}) {
    try {
      make_element<PngSink>({{"alpha", alpha}});
      ADD_FAILURE() << "alpha=" << alpha << " accepted";
    } catch (const ParamError& e) {
      EXPECT_EQ(e.param(), "alpha");
      EXPECT_EQ(std::string(e.what()), fmt::format("must be from 0 to 1 (both excluded), got {}", json(alpha).dump()));
    }
  }
}

// With two conditions the trial-level figures get a panel per condition (and channel), each outlined
// by that condition's own trial_pvalues, and the contrast its own figure, coloured by contrast_z and
// outlined by contrast_pvalues: one statistic per picture (issue 40).
TEST(PngSink, ConditionsGetTheirOwnPanelsAndTheContrastItsOwnFigure) {
  const testing::ScratchDir dir("png_conditions");
  StreamInfo stream;
  stream.leading_dims = {4, kChannels};
  stream.leading_names = {"epochs", "channels"};
  stream.series_length = 128;
  stream.sample_rate = 128;
  stream.labels = {{}, {"Fz", "Cz", "Pz"}};
  stream.condition_names = {"go", "nogo"};
  stream.epoch_conditions = {0, 0, 1, 1};
  PlanContext ctx(stream);
  ctx.publish(kPhaseCentres, {4.0, 6.0});
  ctx.publish(kAmplitudeCentres, {60.0, 80.0});
  ctx.publish(kSurrogateShifts, std::vector<std::int64_t>(19, 1));
  ctx.publish(kTrialTest, std::string("maxstat"));
  ctx.declare({"pac_z", {2, 2}, DType::Float32, true, ""});
  ctx.declare({"pvalues_maxstat", {2, 2}, DType::Float32, true, ""});
  for (const char* name : {"trial_pvalues", "trial_z", "contrast_z", "contrast_pvalues"}) {
    const bool per_condition = std::string(name).rfind("trial", 0) == 0;
    TensorDecl decl{name, {2, 2}, DType::Float32, true, "",
                    per_condition ? RowLayout{1, 1, {2, kChannels}, {"conditions", "channels"}}
                                  : RowLayout{1, 1, {kChannels}, {"channels"}}};
    decl.summary = true;
    ctx.declare(decl);
  }
  const auto sink = make_element<PngSink>({{"path", (dir.path() / "comodulogram.png").string()}});
  sink->plan(ctx);
  EXPECT_EQ(sink->output_files().size(), 3u) << "the mean, the grid and the contrast";
  Batch batch;
  batch.series_count = 4 * kChannels;
  std::fill_n(batch.emplace("pac_z", {2, 2}, DType::Float32).values<float>().begin(), 4 * kChannels * kCells, 1.0f);
  std::fill_n(batch.emplace("pvalues_maxstat", {2, 2}, DType::Float32).values<float>().begin(), 4 * kChannels * kCells,
              1.0f);
  sink->consume(batch);
  Batch summary;
  const auto fill = [&](const char* name, std::int64_t rows, const std::function<float(std::int64_t, std::int64_t)>& f) {
    auto v = summary.emplace_rows(name, rows, {2, 2}, DType::Float32).values<float>();
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < kCells; ++k) v[static_cast<std::size_t>(r * kCells + k)] = f(r, k);
  };
  // Rows [condition][channel]: go's Cz beats alpha at cell 1; the contrast at Pz, cell 2.
  fill("trial_pvalues", 2 * kChannels, [](std::int64_t r, std::int64_t k) { return r == 1 && k == 1 ? 0.01f : 0.5f; });
  fill("trial_z", 2 * kChannels, [](std::int64_t r, std::int64_t k) { return static_cast<float>(r * kCells + k); });
  fill("contrast_pvalues", kChannels, [](std::int64_t r, std::int64_t k) { return r == 2 && k == 2 ? 0.001f : 0.7f; });
  fill("contrast_z", kChannels, [](std::int64_t r, std::int64_t k) { return static_cast<float>(k - r); });
  sink->consume_summary(summary);
  const std::vector<PngSink::Figure> figures = sink->figures();
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_EQ(figures[2].file, PngSink::contrast_path(dir.path() / "comodulogram.png"));
  const auto texts = [](const plot::Canvas& c) {
    std::vector<std::string> out;
    for (const plot::Label& l : c.labels()) out.push_back(l.text);
    return out;
  };
  const auto has = [&](const plot::Canvas& c, const std::string& text) {
    const std::vector<std::string> all = texts(c);
    return std::find(all.begin(), all.end(), text) != all.end();
  };
  EXPECT_TRUE(has(figures[0].drawing, "go · mean over 3 channels"));
  EXPECT_TRUE(has(figures[0].drawing, "nogo · mean over 3 channels"));
  for (const char* panel : {"go · Fz", "go · Cz", "go · Pz", "nogo · Fz", "nogo · Cz", "nogo · Pz"})
    EXPECT_TRUE(has(figures[1].drawing, panel)) << panel;
  EXPECT_TRUE(has(figures[2].drawing, "z-score of the contrast go minus nogo per channel (contrast_z)"));
  EXPECT_TRUE(has(figures[2].drawing, "outlined: contrast_pvalues < 0.05"));
  // Outlines: only go's Cz in the grid, only Pz in the contrast; found by their colour inside each panel.
  const auto outlined_panels = [](const plot::Canvas& figure, std::size_t panels) {
    plot::HeatmapGrid shape;
    shape.x_centres = {4.0, 6.0};
    shape.y_centres = {60.0, 80.0};
    shape.title = shape.subtitle = "x";
    shape.panels.assign(panels, {"", std::vector<double>(4, 0.0), {}});
    const plot::GridLayout layout = plot::layout_grid(shape);
    const plot::Image image = figure.rasterise();
    std::vector<std::size_t> out;
    for (std::size_t p = 0; p < panels; ++p) {
      const auto& box = layout.panels[p];
      bool framed = false;
      for (int y = box.y0; y < box.y1; ++y)
        for (int x = box.x0; x < box.x1; ++x) framed = framed || image.at(x, y) == plot::kSignificant;
      if (framed) out.push_back(p);
    }
    return out;
  };
  EXPECT_EQ(outlined_panels(figures[1].drawing, 6), std::vector<std::size_t>{1});
  EXPECT_EQ(outlined_panels(figures[2].drawing, 3), std::vector<std::size_t>{2});
}

// formats= names the figure formats; without it the path's extension does; anything else is named.
TEST(PngSink, FormatsComeFromFormatsOrThePathsExtensionAndAnythingElseIsNamed) {
  using plot::FigureFormat;
  EXPECT_EQ(PngSink::parse_formats("", "a/b.png"), std::vector<FigureFormat>{FigureFormat::kPng});
  EXPECT_EQ(PngSink::parse_formats("", "a/b.PDF"), std::vector<FigureFormat>{FigureFormat::kPdf});
  EXPECT_EQ(PngSink::parse_formats("svg, pdf,png", "a/b.png"),
            (std::vector<FigureFormat>{FigureFormat::kSvg, FigureFormat::kPdf, FigureFormat::kPng}));
  const auto refused = [](const std::string& formats, const std::string& path, const std::string& param,
                          const std::string& says) {
    try {
      PngSink::parse_formats(formats, path);
      ADD_FAILURE() << formats << " " << path << " accepted";
    } catch (const ParamError& e) {
      EXPECT_EQ(e.param(), param);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("", "out/figure.jpg", "path", "out/figure.jpg does not end in .png, .svg or .pdf");
  refused("png,eps", "a.png", "formats", "\"eps\" is not a figure format");
  refused("png,", "a.png", "formats", "\"\" is not a figure format");
  refused("pdf,pdf", "a.png", "formats", "pdf is named twice");
}

// A run with formats=png,svg,pdf writes every figure in each and lists each in result.json.
TEST(PngSink, WritesEveryFigureInEachFormatAskedFor) {
  const testing::ScratchDir dir("png_formats");
  const auto pipe = dir.write("p.pipe",
                              "source synthetic fs=256 epochs=2 channels=2 seconds=2 f_pha=6 f_amp=60 seed=1\n"
                              "stage bandpass pha=4:8:3 amp=50:70:3\nstage hilbert\nstage mi bins=18\n"
                              "stage surrogates n=20 seed=1\nsink npy dir=out\n"
                              "sink png path=out/comodulogram.png formats=png,svg,pdf\n");
  const testing::CliResult run = testing::run_cli("run -q " + pipe.string(), dir.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string listed = testing::read_file(dir / "out/result.json");
  for (const char* stem : {"comodulogram", "comodulogram_channels"})
    for (const char* ext : {".png", ".svg", ".pdf"}) {
      const std::string name = std::string(stem) + ext;
      EXPECT_TRUE(fs::exists(dir / "out" / name)) << name;
      EXPECT_NE(listed.find("\"" + name + "\""), std::string::npos) << name << " in result.json";
    }
  EXPECT_EQ(testing::read_file(dir / "out/comodulogram.pdf").substr(0, 5), "%PDF-");
  EXPECT_NE(testing::read_file(dir / "out/comodulogram.svg").find("<svg"), std::string::npos);
  const testing::CliResult bad =
      testing::run_cli("run -q " + dir.write("bad.pipe", "source synthetic\nstage bandpass\nstage hilbert\nstage mi\n"
                                                         "sink png path=out2/c.png formats=png,gif\n").string(),
                       dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("formats"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("gif"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "out2"));
}

}  // namespace
}  // namespace pacflow::stages
