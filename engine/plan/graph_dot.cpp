#include "engine/plan/graph_dot.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

namespace pacflow {

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

}  // namespace

std::string pipeline_dot(const json& plan) {
  const json& segments = plan.at("segments");
  std::string dot = "digraph pacflow {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n";
  dot += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  dot += fmt::format("  label={};\n  labelloc=b;\n",
                     dot_string(fmt::format("at most {} batches of {} series in flight before the first ring (back-pressure)",
                                            segments.at(0).at("max_in_flight").get<int>(),
                                            segments.at(0).at("batch_series").get<std::int64_t>())));
  std::map<std::string, std::string> producer;  // tensor -> node id
  // Edges from each tensor's producer into `id`, one per producer, labelled with the tensors.
  const auto edges_into = [&](const std::string& id, const json& tensors) {
    std::map<std::string, std::vector<std::string>> from;
    for (const auto& t : tensors) {
      const auto it = producer.find(t.get<std::string>());
      if (it != producer.end()) from[it->second].push_back(t.get<std::string>());
    }
    for (const auto& [source, names] : from)
      dot += fmt::format("  {} -> {} [label={}];\n", source, id, dot_string(fmt::format("{}", fmt::join(names, "\\n"))));
  };
  const json& elements = plan.at("pipeline");
  const auto group_of = [&](std::size_t i) {
    return i < elements.size() ? elements[i].value("branch_group", -1) : -1;
  };
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const json& e = elements[i];
    const std::string id = fmt::format("n{}", i);
    const std::string kind = e.at("kind").get<std::string>();
    // A ring before this stage: its tensors reach every later reader through it.
    for (std::size_t k = 0; k < segments.size(); ++k) {
      const json& seg = segments[k];
      if (kind != "stage" || !seg.contains("ring") || seg["ring"].at("into") != e.at("name")) continue;
      const json& ring = seg["ring"];
      const std::string ring_id = fmt::format("r{}", k);
      dot += fmt::format("  {} [label={}, shape=cylinder, style=filled, fillcolor=\"#eef3fb\"];\n", ring_id,
                         dot_string(fmt::format("ring: {} slots × {} series\\n{:.2f} MiB per slot, overflow={}",
                                                ring.at("capacity").get<std::size_t>(), seg.at("batch_series").get<std::int64_t>(),
                                                ring.at("slot_bytes").get<double>() / 0x1p20,
                                                ring.at("overflow").get<std::string>())));
      edges_into(ring_id, ring.at("tensors"));
      for (const auto& t : ring.at("tensors")) producer[t.get<std::string>()] = ring_id;
    }
    std::string label = fmt::format("{}\\n{}", e.at("name").get<std::string>(), kind);
    if (kind == "stage") {
      // "cpu:0,1" is two replicas; "cpu" (the whole machine) and "cpu:3" one.
      const std::string device = e.value("device", std::string("cpu"));
      const auto replicas = 1 + std::count(device.begin(), device.end(), ',');
      label += fmt::format(" on {}\\n{} replica{}", device, replicas, replicas == 1 ? "" : "s");
    }
    // Stages that run side by side on each batch are drawn in one box.
    const int group = group_of(i);
    if (group >= 0 && group_of(i - 1) != group)
      dot += fmt::format("  subgraph cluster_branches{} {{\n    label=\"parallel branches of each batch\";\n"
                         "    style=dashed;\n    labelloc=t;\n", group);
    dot += fmt::format("  {} [label={}{}];\n", id, dot_string(label), kind == "stage" ? "" : ", shape=ellipse");
    // Edges: one per tensor read, grouped by producer.
    json reads = e.value("reads", json::array());
    if (kind == "sink" && reads.empty())  // a sink that asks for nothing by name takes every result
      for (const auto& t : plan.value("tensors", json::array()))
        if (t.value("result", false)) reads.push_back(t.at("name"));
    edges_into(id, reads);
    for (const auto& t : e.value("writes", json::array())) producer[t.get<std::string>()] = id;
    if (group >= 0 && group_of(i + 1) != group) dot += "  }\n";
  }
  return dot + "}\n";
}

}  // namespace pacflow
