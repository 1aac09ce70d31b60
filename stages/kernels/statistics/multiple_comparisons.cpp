#include "stages/kernels/statistics/multiple_comparisons.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace pacflow::erpac {

void correct(std::span<double> p, Correction correction) {
  if (correction == Correction::None) return;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  const auto m = static_cast<double>(order.size());
  if (correction == Correction::Bonferroni) {
    for (std::size_t i : order) p[i] = std::min(p[i] * m, 1.0);
    return;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  double running = 1.0;
  for (std::size_t r = order.size(); r-- > 0;) {
    running = std::min(running, p[order[r]] * m / static_cast<double>(r + 1));
    p[order[r]] = running;
  }
}

}  // namespace pacflow::erpac
