#include "pipelines/group/group_figure.hpp"

#include <array>
#include <fmt/format.h>

#include "stages/io/png/comodulogram_plot.hpp"

namespace pacflow::group {

namespace {

const GroupArray* find(const GroupOutcome& outcome, const std::string& name) {
  for (const GroupArray& a : outcome.arrays)
    if (a.name == name) return &a;
  return nullptr;
}

// The name of index `i` along `dim`: a channel's or condition's name where the axes have it.
std::string index_name(const std::string& dim, std::size_t i, const FigureAxes& axes) {
  if (dim == "channels" && i < axes.channel_names.size()) return axes.channel_names[i];
  if (dim == "conditions" && i < axes.condition_names.size()) return axes.condition_names[i];
  return fmt::format("{} {}", dim, i);
}

// Panel p's label: its index along each axis before the bands, named ("nogo, Cz").
std::string panel_label(const GroupArray& t, std::size_t panel, const FigureAxes& axes) {
  const std::size_t leading = t.shape.size() - 2;
  std::string label;
  std::size_t rest = panel;
  std::vector<std::string> parts(leading);
  for (std::size_t d = leading; d-- > 0;) {
    parts[d] = index_name(t.dims[d], rest % t.shape[d], axes);
    rest /= t.shape[d];
  }
  for (const std::string& part : parts) label += (label.empty() ? "" : ", ") + part;
  return label;
}

std::string title_of(const std::string& prefix, const std::string& statistic, std::int64_t subjects,
                     const FigureAxes& axes) {
  if (prefix == "group")
    return fmt::format("group t over {} subjects: coupling above each subject's own null ({})", subjects, statistic);
  const auto name = [&](std::size_t i) { return index_name("conditions", i, axes); };
  return fmt::format("group t over {} subjects: {} against {} (paired)", subjects, name(0), name(1));
}

constexpr std::array<const char*, 2> kTests{"group", "group_contrast"};

std::string figure_name(const std::string& prefix) { return prefix + "_t.png"; }

}  // namespace

std::vector<std::string> group_figure_names() {
  std::vector<std::string> names;
  for (const char* prefix : kTests) names.push_back(figure_name(prefix));
  return names;
}

std::vector<Figure> group_figures(const GroupOutcome& outcome, const FigureAxes& axes, std::int64_t subjects,
                                  double alpha, const std::filesystem::path& folder) {
  std::vector<Figure> figures;
  for (const std::string prefix : kTests) {
    const GroupArray* t = find(outcome, prefix + "_t");
    const GroupArray* p = find(outcome, prefix + "_cluster_pvalues");
    // ERPAC's statistic has a time axis after the bands: not drawn as comodulograms.
    if (!t || t->shape.size() < 2 || t->dims.back() == "times") continue;
    const std::size_t cells = t->shape[t->shape.size() - 2] * t->shape.back();
    const std::size_t panels = t->values.size() / cells;
    plot::HeatmapGrid grid;
    grid.x_centres = axes.pha_centres_hz;
    grid.y_centres = axes.amp_centres_hz;
    grid.title = title_of(prefix, outcome.report.statistic, subjects, axes);
    grid.subtitle = fmt::format("outlined: clusters with p < {:g} ({}_cluster_pvalues, cluster mass over sign flips)",
                                alpha, prefix);
    grid.x_label = "phase frequency (Hz)";
    grid.y_label = "amplitude frequency (Hz)";
    grid.colorbar_label = "t";
    for (std::size_t k = 0; k < panels; ++k) {
      plot::HeatmapGrid::Panel panel;
      panel.label = panel_label(*t, k, axes);
      panel.values.assign(t->values.begin() + static_cast<std::ptrdiff_t>(k * cells),
                          t->values.begin() + static_cast<std::ptrdiff_t>((k + 1) * cells));
      if (p && p->values.size() == t->values.size())
        for (std::size_t c = 0; c < cells; ++c) panel.outlined.push_back(p->values[k * cells + c] < alpha);
      grid.panels.push_back(std::move(panel));
    }
    const std::filesystem::path file = folder / figure_name(prefix);
    figures.push_back({file, plot::png_bytes(plot::render_grid(grid), file.string())});
  }
  return figures;
}

}  // namespace pacflow::group
