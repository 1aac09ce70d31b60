#pragma once
// cuFFT plans for the GPU stages, made once per (stream, shape) and reused for every batch.
//
// Every plan transforms a fixed number of series at a time (kTransformsPerCall) and callers run it
// over their series in chunks of that size, on buffers rounded up to whole chunks: the arithmetic
// applied to one series is then the same whatever the batch size, so results never depend on
// batching. A plan's work area comes from the stage's stream-ordered device memory at each call, so
// one plan serves every stream of its device (its host calls are serialised; on the GPU, calls from
// different streams use different work areas).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <cufft.h>

#include "engine/devices/cuda/stage_context.hpp"

namespace pacflow::cufft {

inline constexpr std::int64_t kTransformsPerCall = 64;

// Whole chunks of kTransformsPerCall transforms covering `count`.
inline std::int64_t padded_count(std::int64_t count) {
  return (count + kTransformsPerCall - 1) / kTransformsPerCall * kTransformsPerCall;
}

enum class Kind { RealToComplex, ComplexToReal, ComplexInverse };

// An upper bound on a plan's work area for transforms of length n: cuFFT needs at most about one
// copy of the data of a call (kTransformsPerCall complex series).
inline double work_area_bound(std::int64_t n) {
  return static_cast<double>(kTransformsPerCall) * static_cast<double>(n) * 8.0;
}

// Throws cuda::Error naming the call unless status is CUFFT_SUCCESS.
void check(cufftResult status, const char* what);

class Plan {
 public:
  Plan(int ordinal, Kind kind, std::int64_t n);  // on CUDA device `ordinal`
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Transforms `count` (a multiple of kTransformsPerCall) series of the plan's length, packed one
  // after the other (n reals or n/2 + 1 complex for real transforms, n complex otherwise), queued on
  // ctx's stream. `in` may be overwritten (c2r).
  void execute(const cuda::StageContext& ctx, void* in, void* out, std::int64_t count);

 private:
  std::mutex mutex_;  // cuFFT plans are not thread-safe: one caller queues its calls at a time
  Kind kind_;
  std::int64_t n_;
  cufftHandle handle_ = 0;
  std::size_t work_bytes_ = 0;
};

// Plans by (the run's device, kind, length), made on first use (making one costs milliseconds).
class PlanCache {
 public:
  Plan& get(const cuda::StageContext& ctx, Kind kind, std::int64_t n);

 private:
  std::mutex mutex_;
  std::map<std::tuple<int, Kind, std::int64_t>, std::unique_ptr<Plan>> plans_;
};

}  // namespace pacflow::cufft
