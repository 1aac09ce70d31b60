#pragma once
// Element registry: every source, stage and sink by name, with its parameter schema and factory.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/params.hpp"
#include "engine/stage.hpp"

namespace pacflow {

enum class ElementKind { Source, Stage, Sink };
std::string kind_name(ElementKind kind);

struct ElementInfo {
  ElementKind kind = ElementKind::Stage;
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Source>(const Params&)> make_source;
  std::function<std::unique_ptr<Stage>(const Params&)> make_stage;
  std::function<std::unique_ptr<Sink>(const Params&)> make_sink;
};

class Registry {
 public:
  // Adds an element; stages also get the engine's placement parameter `on`.
  void add(ElementInfo info);
  const ElementInfo* find(ElementKind kind, const std::string& name) const;
  std::vector<std::string> names(ElementKind kind) const;
  const std::vector<ElementInfo>& all() const { return elements_; }

 private:
  std::vector<ElementInfo> elements_;
};

}  // namespace pacflow
