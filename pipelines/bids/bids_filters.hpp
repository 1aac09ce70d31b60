#pragma once
// The bids source's subjects=, sessions= and runs=: the labels kept, given as a label or a list of
// them. A number matches the label of its value ([01, 2] keeps sub-01 and sub-2: a .pipe file reads
// 01 as the number 1), and a label may carry its entity's prefix (sub-01).
#include <optional>
#include <string>
#include <vector>

#include "engine/api/params.hpp"
#include "stages/io/bids/bids_labels.hpp"

namespace pacflow::bids {

class LabelFilter {
 public:
  // `given`: the parameter's value (nothing: every label is kept); `entity`: "sub", "ses" or "run".
  // Throws ParamError(param) for a value that is not a label, a number or a list of them
  // (stages::parse_entity_labels).
  LabelFilter(const std::optional<json>& given, std::string param, std::string entity);

  // Whether a recording with this label (nothing: the name has no such entity) is selected.
  bool selects(const std::optional<std::string>& label) const;
  // selects(), noting the given values that kept a recording (for check_all_used).
  bool keeps(const std::optional<std::string>& label);
  // Throws ParamError(param) naming the given values that kept no recording, and `labels` (the
  // labels the task's recordings have).
  void check_all_used(const std::vector<std::string>& labels) const;

 private:
  std::string param_, entity_;
  std::vector<stages::EntityLabel> values_;  // empty: no filter
  std::vector<bool> used_;
};

}  // namespace pacflow::bids
