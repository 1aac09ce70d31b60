#include "stages/kernels/pac/methods/copula.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <numeric>

namespace pacflow::mi {

CopulaNormaliser::CopulaNormaliser(std::int64_t length) : quantiles_(static_cast<std::size_t>(length)) {
  const boost::math::normal_distribution<double> normal;
  const auto n = static_cast<double>(length);
  for (std::size_t r = 0; r < quantiles_.size(); ++r)
    quantiles_[r] = boost::math::quantile(normal, static_cast<double>(r + 1) / (n + 1.0));
}

void CopulaNormaliser::apply(const double* x, double* out) const {
  std::vector<std::int64_t> order(quantiles_.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::sort(order.begin(), order.end(), [x](std::int64_t a, std::int64_t b) { return x[a] < x[b]; });
  for (std::size_t first = 0; first < order.size();) {
    std::size_t end = first + 1;
    while (end < order.size() && x[order[end]] == x[order[first]]) ++end;
    double value = quantiles_[first];
    if (end - first > 1) {  // a tie: the mean quantile of its ranks
      value = 0;
      for (std::size_t r = first; r < end; ++r) value += quantiles_[r];
      value /= static_cast<double>(end - first);
    }
    for (std::size_t r = first; r < end; ++r) out[order[r]] = value;
    first = end;
  }
}

}  // namespace pacflow::mi
