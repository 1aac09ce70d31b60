#pragma once
// The ranks of a few values by counting: each value's rank is the number of values below it,
// counted by comparing every pair in vectors (n² / lanes comparisons). Below a few hundred values
// that is quicker than sorting them (the Gaussian copula ranks 160 epochs at each of 200 000 times
// of a band in ERPAC), and it gives the sorted order's ranks exactly when no two values are equal.
#include <cstddef>
#include <cstdint>

namespace pacflow::mi {

inline constexpr std::size_t kDistinctRanksUpTo = 256;

// rank[i] = #{j : x[j] < x[i]} for n <= kDistinctRanksUpTo values (no NaN); false, leaving rank
// unspecified, when two values are equal (ties need the sort, which averages them). `simd_bytes`
// picks the vector width (16, 32 or 64 bytes; 0: the widest this CPU has), for the tests.
bool distinct_ranks(const float* x, std::size_t n, std::uint32_t* rank, int simd_bytes = 0);

}  // namespace pacflow::mi
