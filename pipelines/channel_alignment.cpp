#include "pipelines/channel_alignment.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>

namespace pacflow {

std::optional<std::vector<std::size_t>> channel_order(const stages::ResultArrays& results,
                                                      const std::vector<std::string>& first) {
  const std::vector<std::string>& names = results.facts.channel_names;
  if (names.empty() || names.size() != first.size()) return std::nullopt;
  for (const stages::ResultArray& a : results.arrays)
    if (std::find(a.dims.begin(), a.dims.end(), "pairs") != a.dims.end()) return std::nullopt;
  if (std::set<std::string>(first.begin(), first.end()).size() != first.size()) return std::nullopt;
  std::vector<std::size_t> order;
  for (const std::string& name : first) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    order.push_back(static_cast<std::size_t>(it - names.begin()));
  }
  return order;
}

stages::ResultArrays reordered_channels(const stages::ResultArrays& results, const std::vector<std::size_t>& order) {
  stages::ResultArrays out = results;
  for (stages::ResultArray& a : out.arrays) {
    const auto axis = std::find(a.dims.begin(), a.dims.end(), "channels") - a.dims.begin();
    if (axis == static_cast<std::ptrdiff_t>(a.dims.size())) continue;
    const auto channels = static_cast<std::size_t>(a.shape[static_cast<std::size_t>(axis)]);
    if (channels != order.size()) throw std::logic_error("reordered_channels: an array with another channel count");
    const auto product = [&](std::ptrdiff_t from, std::ptrdiff_t to) {
      return static_cast<std::size_t>(
          std::accumulate(a.shape.begin() + from, a.shape.begin() + to, std::int64_t{1}, std::multiplies<>()));
    };
    const std::size_t outer = product(0, axis), inner = product(axis + 1, static_cast<std::ptrdiff_t>(a.shape.size()));
    const std::vector<float>& from = results.arrays[static_cast<std::size_t>(&a - out.arrays.data())].values;
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t c = 0; c < channels; ++c)
        std::copy_n(from.begin() + static_cast<std::ptrdiff_t>((o * channels + order[c]) * inner),
                    static_cast<std::ptrdiff_t>(inner),
                    a.values.begin() + static_cast<std::ptrdiff_t>((o * channels + c) * inner));
  }
  std::vector<std::string> names;
  for (const std::size_t c : order) names.push_back(results.facts.channel_names[c]);
  out.facts.channel_names = std::move(names);
  return out;
}

}  // namespace pacflow
