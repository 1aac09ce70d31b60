#include "engine/plan/graph_dot.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace pacflow::detail {

namespace {

// DOT string literal with its quotes escaped; "\\n" sequences stay line breaks.
std::string dot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The digraph being written: nodes, and edges from each tensor's latest producer.
class DotWriter {
 public:
  void line(const std::string& text) { dot_ += "  " + text + "\n"; }
  void node(const std::string& id, const std::string& label, const std::string& style = "") {
    line(fmt::format("{} [label={}{}];", id, dot_string(label), style));
  }
  // Edges from each tensor's producer into `id`, one per producer, labelled with the tensors.
  void edges_into(const std::string& id, const std::vector<std::string>& tensors) {
    std::map<std::string, std::vector<std::string>> from;
    for (const auto& t : tensors)
      if (const auto it = producer_.find(t); it != producer_.end()) from[it->second].push_back(t);
    for (const auto& [source, names] : from)
      line(fmt::format("{} -> {} [label={}];", source, id, dot_string(fmt::format("{}", fmt::join(names, "\\n")))));
  }
  void produced_by(const std::string& id, const std::vector<std::string>& tensors) {
    for (const auto& t : tensors) producer_[t] = id;
  }
  std::string take() { return std::move(dot_); }

 private:
  std::string dot_;
  std::map<std::string, std::string> producer_;  // tensor -> node id
};

// The ring into a segment's first stage: its tensors reach every later reader through it.
void draw_ring(DotWriter& dot, const BuiltPipeline& built, const Segment& seg, std::size_t k) {
  const BuiltStage& into = built.stages[seg.first_stage];
  std::vector<SlotTensor> layout = into.crossing;
  std::vector<std::string> tensors;
  for (const auto& t : layout) tensors.push_back(t.name);
  const std::string id = fmt::format("r{}", k);
  dot.node(id,
           fmt::format("ring: {} slots × {} series\\n{:.2f} MiB per slot, overflow={}", seg.slots, seg.batch_series,
                       static_cast<double>(lay_out_slot(layout, seg.batch_series)) / 0x1p20, overflow_name(seg.overflow)),
           ", shape=cylinder, style=filled, fillcolor=\"#eef3fb\"");
  dot.edges_into(id, tensors);
  dot.produced_by(id, tensors);
}

}  // namespace

std::string pipeline_dot(const BuiltPipeline& built, const std::vector<Segment>& segments) {
  DotWriter dot;
  dot.line("rankdir=LR;");
  dot.line("node [shape=box, style=rounded, fontname=\"Helvetica\"];");
  dot.line("edge [fontname=\"Helvetica\", fontsize=10];");
  dot.line(fmt::format("label={};", dot_string(fmt::format("at most {} batches of {} series in flight before the first "
                                                           "ring (back-pressure)",
                                                           segments.front().slots, segments.front().batch_series))));
  dot.line("labelloc=b;");
  std::size_t id = 0;
  const auto next_id = [&] { return fmt::format("n{}", id++); };
  const std::string source = next_id();
  dot.node(source, built.source_name + "\\nsource", ", shape=ellipse");
  dot.produced_by(source, built.source_writes);
  for (const auto& p : built.preprocessing) dot.node(next_id(), p.name + "\\nstage on cpu, as the source reads\\n1 replica");
  for (std::size_t s = 0; s < built.stages.size(); ++s) {
    for (std::size_t k = 1; k < segments.size(); ++k)
      if (segments[k].first_stage == s) draw_ring(dot, built, segments[k], k);
    const BuiltStage& stage = built.stages[s];
    // Stages that run side by side on each batch are drawn in one box.
    const std::optional<std::size_t> group = group_containing(built.branches, s);
    if (group && built.branches[*group].first == s)
      dot.line(fmt::format("subgraph cluster_branches{} {{\n    label=\"parallel branches of each batch\";\n"
                           "    style=dashed;\n    labelloc=t;", *group));
    const std::string node = next_id();
    const std::size_t replicas = stage.devices.size();
    dot.node(node, fmt::format("{}\\nstage on {}\\n{} replica{}", stage.name, stage.device, replicas,
                               replicas == 1 ? "" : "s"));
    dot.edges_into(node, stage.reads);
    dot.produced_by(node, stage.writes);
    if (group && built.branches[*group].end == s + 1) dot.line("}");
  }
  for (const auto& sink : built.sinks) {
    const std::string node = next_id();
    dot.node(node, sink.name + "\\nsink", ", shape=ellipse");
    std::vector<std::string> reads = sink.reads;
    if (reads.empty())  // a sink that asks for nothing by name takes every result
      for (const auto& t : built.results) reads.push_back(t.name);
    dot.edges_into(node, reads);
  }
  return "digraph pacflow {\n" + dot.take() + "}\n";
}

}  // namespace pacflow::detail
