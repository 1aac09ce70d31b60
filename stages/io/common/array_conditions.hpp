#pragma once
// `conditions=` of the array sources (npy, hdf5, array; issue 38): each epoch's condition, as the
// edf source's events= gives them, so an array's epochs in two conditions get each condition's
// trial-level test and their contrast (surrogates), and `condition_names=` the conditions' order
// (the contrast is the first minus the second). MNE's epochs come with their event_id names through
// the Python module.
#include <optional>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/stage.hpp"

namespace pacflow::stages {

// A list of condition labels, names or whole numbers (MNE's event codes) alike, as text: refused
// naming `param` when it is not a list or an item is neither; condition_names= also when a name
// is given twice.
std::vector<std::string> parse_condition_labels(const std::string& param, const json& list);
std::vector<std::string> parse_condition_names(const std::string& param, const json& list);

using ConditionLabels = std::optional<std::vector<std::string>>;

template <class E, class Labels, class Names>
void declare_array_conditions(ParamBinder<E>& p, Labels labels, Names names) {
  p.parsed_optional(labels, "conditions", parse_condition_labels,
                    "each epoch's condition, in epoch order (e.g. [go, nogo, go, …]): each condition's epochs are "
                    "tested on their own and, with two, their difference (surrogates' trial-level test and contrast)");
  p.parsed_optional(names, "condition_names", parse_condition_names,
                    "the conditions' order (the contrast is the first minus the second); default: as they first "
                    "appear in conditions=");
}

// Applies conditions= and condition_names= to an array source's stream (epochs its leading
// dimension): ParamError naming the parameter when the array has no epochs axis, the labels are not
// one per epoch, a label is not among the names or a name has no epoch.
void describe_array_conditions(const ConditionLabels& labels, const ConditionLabels& names, StreamInfo& info);

}  // namespace pacflow::stages
