#include "stages/kernels/pac/methods/copula.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <iterator>
#include <numbers>
#include <boost/math/distributions/normal.hpp>
#include <numeric>
#include <utility>

#include "stages/kernels/pac/methods/distinct_ranks.hpp"

namespace pacflow::mi {

namespace {

// An unsigned key that orders as the value does (-0 just below +0; no NaN): the sign bit flipped
// for positive values, every bit flipped for negative ones.
std::uint64_t ordered_key(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}
std::uint64_t ordered_key(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  return (bits >> 31) != 0 ? ~bits : bits | (std::uint32_t{1} << 31);
}

// Below this many values a comparison sort of the keys is quicker than the radix passes.
constexpr std::size_t kRadixFrom = 64;
constexpr int kDigitBits = 8;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

// The indices of x in ascending order of value: an LSD radix sort of the ordered keys, a byte a
// pass (4 for floats, 8 for doubles), skipping the bytes every key shares. The sort is stable, so
// equal values keep their index order (ties are averaged anyway).
template <typename Value>
void ascending_order(const Value* x, std::size_t n, std::vector<std::uint64_t>& keys,
                     std::vector<std::uint32_t>& order) {
  constexpr int kDigits = sizeof(Value);
  keys.resize(2 * n);
  order.resize(2 * n);
  std::uint64_t* key = keys.data();
  std::uint32_t* index = order.data();
  for (std::size_t i = 0; i < n; ++i) {
    key[i] = ordered_key(x[i]);
    index[i] = static_cast<std::uint32_t>(i);
  }
  if (n < kRadixFrom) {
    std::sort(index, index + n, [key](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
    return;
  }
  std::array<std::array<std::uint32_t, kBuckets>, kDigits> counts{};
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < kDigits; ++d) ++counts[static_cast<std::size_t>(d)][(key[i] >> (d * kDigitBits)) & (kBuckets - 1)];
  std::uint64_t* key_out = key + n;
  std::uint32_t* index_out = index + n;
  for (int d = 0; d < kDigits; ++d) {
    auto& count = counts[static_cast<std::size_t>(d)];
    if (count[(key[0] >> (d * kDigitBits)) & (kBuckets - 1)] == n) continue;  // every key has this byte
    std::uint32_t start = 0;
    for (auto& c : count) start += std::exchange(c, start);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t slot = count[(key[i] >> (d * kDigitBits)) & (kBuckets - 1)]++;
      key_out[slot] = key[i];
      index_out[slot] = index[i];
    }
    std::swap(key, key_out);
    std::swap(index, index_out);
  }
  if (index != order.data()) std::copy(index, index + n, order.data());
}

}  // namespace

CopulaNormaliser::CopulaNormaliser(std::int64_t length) : quantiles_(static_cast<std::size_t>(length)) {
  const boost::math::normal_distribution<double> normal;
  const auto n = static_cast<double>(length);
  for (std::size_t r = 0; r < quantiles_.size(); ++r)
    quantiles_[r] = boost::math::quantile(normal, static_cast<double>(r + 1) / (n + 1.0));
}

template <typename Value>
void CopulaNormaliser::assign(const Value* x, const std::uint32_t* order, double* out) const {
  const std::size_t n = quantiles_.size();
  for (std::size_t first = 0; first < n;) {
    std::size_t end = first + 1;
    while (end < n && x[order[end]] == x[order[first]]) ++end;
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

void CopulaNormaliser::apply(const double* x, double* out) const {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> order;
  ascending_order(x, quantiles_.size(), keys, order);
  assign(x, order.data(), out);
}

void CopulaNormaliser::apply(const float* x, double* out) const {
  const std::size_t n = quantiles_.size();
  if (n <= kDistinctRanksUpTo) {  // no ties: value i's quantile is that of its count of smaller values
    std::array<std::uint32_t, kDistinctRanksUpTo> rank;
    if (distinct_ranks(x, n, rank.data())) {
      for (std::size_t i = 0; i < n; ++i) out[i] = quantiles_[rank[i]];
      return;
    }
  }
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> order;
  ascending_order(x, quantiles_.size(), keys, order);
  assign(x, order.data(), out);
}

void CopulaNormaliser::apply_sin_cos(const float* phase, double* sines, double* cosines) const {
  const std::size_t n = quantiles_.size();
  std::vector<double> angle(n), sin_value(n), cos_value(n);
  for (std::size_t i = 0; i < n; ++i) {
    angle[i] = static_cast<double>(phase[i]);
    sin_value[i] = std::sin(angle[i]);
    cos_value[i] = std::cos(angle[i]);
  }
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> by_angle, order(n);
  ascending_order(phase, n, keys, by_angle);
  // In angle order, sin falls on [-π, -π/2), rises on [-π/2, π/2] and falls on (π/2, π]; cos rises
  // on [-π, 0] and falls on (0, π]. Walking the falling stretches backwards gives rising runs, and
  // merging them sorts the values in linear time. Angles outside [-π, π] break the runs: checked.
  const double half_pi = std::numbers::pi / 2;
  const std::uint32_t* first = by_angle.data();
  const std::size_t rise = static_cast<std::size_t>(std::lower_bound(first, first + n, -half_pi,
      [&](std::uint32_t i, double v) { return angle[i] < v; }) - first);
  const std::size_t fall = static_cast<std::size_t>(std::upper_bound(first, first + n, half_pi,
      [&](double v, std::uint32_t i) { return v < angle[i]; }) - first);
  const std::size_t positive = static_cast<std::size_t>(std::upper_bound(first, first + n, 0.0,
      [&](double v, std::uint32_t i) { return v < angle[i]; }) - first);
  std::vector<std::uint32_t> outer(n);
  const auto sorted = [&](const std::vector<double>& value) {
    for (std::size_t i = 1; i < n; ++i)
      if (value[order[i]] < value[order[i - 1]]) return false;
    return true;
  };
  const auto backwards = [](const std::uint32_t* begin) { return std::make_reverse_iterator(begin); };
  // sin: [0, rise) backwards with [fall, n) backwards, then with [rise, fall) forwards.
  const auto by_sin = [&](std::uint32_t a, std::uint32_t b) { return sin_value[a] < sin_value[b]; };
  const auto middle = std::merge(backwards(first + rise), backwards(first), backwards(first + n),
                                 backwards(first + fall), outer.begin(), by_sin);
  std::merge(outer.begin(), middle, first + rise, first + fall, order.begin(), by_sin);
  if (!sorted(sin_value)) ascending_order(sin_value.data(), n, keys, order);
  assign(sin_value.data(), order.data(), sines);
  // cos: [0, positive) forwards with [positive, n) backwards.
  const auto by_cos = [&](std::uint32_t a, std::uint32_t b) { return cos_value[a] < cos_value[b]; };
  std::merge(first, first + positive, backwards(first + n), backwards(first + positive), order.begin(), by_cos);
  if (!sorted(cos_value)) ascending_order(cos_value.data(), n, keys, order);
  assign(cos_value.data(), order.data(), cosines);
}

}  // namespace pacflow::mi
