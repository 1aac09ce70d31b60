#pragma once
// Element registry: every source, stage and sink by name, with its parameter schema and factory.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/params.hpp"
#include "engine/api/stage.hpp"
#include "engine/api/stage_kernel.hpp"
#include "engine/api/transform.hpp"

namespace pacflow {

enum class ElementKind { Source, Stage, Sink };
const char* kind_name(ElementKind kind);  // "source", "stage" or "sink"

struct ElementInfo {
  ElementKind kind = ElementKind::Stage;
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Source>(const Params&)> make_source;
  std::function<std::unique_ptr<Stage>(const Params&)> make_stage;
  std::function<std::unique_ptr<Sink>(const Params&)> make_sink;
  // A preprocessing stage (engine/api/transform.hpp) has this instead of make_stage: it runs as the
  // source reads, right after it, and takes no placement parameters.
  std::function<std::unique_ptr<Transform>(const Params&)> make_transform = {};
  // The stage's kernels by backend ("cuda"), for a stage whose backend plugin does not bring them (a
  // stage defined outside this repository's stage folders, a test's); these come first.
  std::map<std::string, KernelFactory> kernels = {};
};

// The parameters the engine owns and every stage takes besides its own (not a preprocessing stage,
// which runs as the source reads): where it runs (`on`, `fallback`, `vram`) and the edge into it
// (`ring`, `batch`, `overflow`). Listed once, checked by the builder, never part of a stage's
// ElementInfo::params.
const std::vector<ParamSpec>& placement_params();
bool is_placement_param(const std::string& name);

class Registry {
 public:
  // Adds an element. Throws std::logic_error for a name taken, or a stage that declares a placement
  // parameter.
  void add(ElementInfo info);
  const ElementInfo* find(ElementKind kind, const std::string& name) const;
  std::vector<std::string> names(ElementKind kind) const;
  const std::vector<ElementInfo>& all() const { return elements_; }

  // Names users of other tools type for parameters (TensorPAC's n_perm, MNE's tmin, …), each with
  // where its meaning lives here: an unknown parameter of that name is answered with `hint`
  // rather than a spelling suggestion.
  void add_foreign_name(std::string name, std::string hint);
  // The hint for `name`, or null.
  const std::string* foreign_name_hint(const std::string& name) const;

 private:
  std::vector<ElementInfo> elements_;
  std::vector<std::pair<std::string, std::string>> foreign_names_;
};

}  // namespace pacflow
