#pragma once
// Results of excluded series (StreamInfo::excluded_series) are NaN: the source delivered stand-ins
// for them, so nothing computed from them means anything.
#include <cstdint>
#include <vector>

#include "engine/api/batch.hpp"
#include "engine/api/stage.hpp"

namespace pacflow::detail {

// Sets to NaN, in each of `results` that `batch` holds (float32 or float64), every row computed from
// an excluded series: its own row, or, for a tensor with rows per group of series, every row of the
// group that holds it. `excluded` is ascending.
void mask_excluded_rows(Batch& batch, const std::vector<TensorDecl>& results, const std::vector<std::int64_t>& excluded);

}  // namespace pacflow::detail
