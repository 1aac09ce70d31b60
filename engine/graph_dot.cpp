#include "engine/graph_dot.hpp"

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

std::string pipeline_dot(const json& plan, int max_in_flight) {
  std::string dot = "digraph pacflow {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n";
  dot += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  dot += fmt::format("  label={};\n  labelloc=b;\n",
                     dot_string(fmt::format("at most {} batches in flight between elements (back-pressure)", max_in_flight)));
  std::map<std::string, std::string> producer;  // tensor -> node id
  const json& elements = plan.at("pipeline");
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const json& e = elements[i];
    const std::string id = fmt::format("n{}", i);
    const std::string kind = e.at("kind").get<std::string>();
    std::string label = fmt::format("{}\\n{}", e.at("name").get<std::string>(), kind);
    if (kind == "stage") {
      // "cpu:0,1" is two replicas; "cpu" (the whole machine) and "cpu:3" one.
      const std::string device = e.value("device", std::string("cpu"));
      const auto replicas = 1 + std::count(device.begin(), device.end(), ',');
      label += fmt::format(" on {}\\n{} replica{}", device, replicas, replicas == 1 ? "" : "s");
    }
    dot += fmt::format("  {} [label={}{}];\n", id, dot_string(label), kind == "stage" ? "" : ", shape=ellipse");
    // Edges: one per tensor read, grouped by producer.
    std::map<std::string, std::vector<std::string>> from;
    json reads = e.value("reads", json::array());
    if (kind == "sink" && reads.empty())  // a sink that asks for nothing by name takes every result
      for (const auto& t : plan.value("tensors", json::array()))
        if (t.value("result", false)) reads.push_back(t.at("name"));
    for (const auto& t : reads) {
      const auto it = producer.find(t.get<std::string>());
      if (it != producer.end()) from[it->second].push_back(t.get<std::string>());
    }
    for (const auto& [source, tensors] : from)
      dot += fmt::format("  {} -> {} [label={}];\n", source, id, dot_string(fmt::format("{}", fmt::join(tensors, "\\n"))));
    for (const auto& t : e.value("writes", json::array())) producer[t.get<std::string>()] = id;
  }
  return dot + "}\n";
}

}  // namespace pacflow
