#include "engine/run/excluded_rows.hpp"

#include <algorithm>
#include <limits>

namespace pacflow::detail {

namespace {

template <typename T>
void fill_rows(Tensor& tensor, std::int64_t first_row, std::int64_t rows, std::int64_t row_values) {
  const auto values = tensor.values<T>();
  std::fill_n(values.begin() + first_row * row_values, rows * row_values, std::numeric_limits<T>::quiet_NaN());
}

}  // namespace

void mask_excluded_rows(Batch& batch, const std::vector<TensorDecl>& results, const std::vector<std::int64_t>& excluded) {
  const auto begin = std::lower_bound(excluded.begin(), excluded.end(), batch.first_series);
  const auto end = std::lower_bound(begin, excluded.end(), batch.first_series + batch.series_count);
  if (begin == end) return;
  for (const auto& decl : results) {
    if (!batch.has(decl.name)) continue;
    Tensor& tensor = batch.at(decl.name);
    if (tensor.dtype() != DType::Float32 && tensor.dtype() != DType::Float64) continue;
    const RowLayout& layout = decl.rows;
    const std::int64_t row_values = element_count(decl.per_series);
    const std::int64_t first_group = batch.first_series / layout.group;  // batches hold whole groups
    for (auto it = begin; it != end; ++it) {
      const std::int64_t row = (*it / layout.group - first_group) * layout.rows_per_group;
      if (tensor.dtype() == DType::Float32)
        fill_rows<float>(tensor, row, layout.rows_per_group, row_values);
      else
        fill_rows<double>(tensor, row, layout.rows_per_group, row_values);
    }
  }
}

}  // namespace pacflow::detail
