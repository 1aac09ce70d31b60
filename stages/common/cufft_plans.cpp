#include "stages/common/cufft_plans.hpp"

#include <fmt/format.h>

#include "engine/devices/cuda/check.hpp"
#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cufft {

void check(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS) throw cuda::Error(fmt::format("{}: cuFFT error {}", what, static_cast<int>(status)));
}

namespace {
cufftType type_of(Kind kind) {
  switch (kind) {
    case Kind::RealToComplex: return CUFFT_R2C;
    case Kind::ComplexToReal: return CUFFT_C2R;
    case Kind::ComplexInverse: return CUFFT_C2C;
  }
  return CUFFT_C2C;
}
}  // namespace

Plan::Plan(int ordinal, Kind kind, std::int64_t n) : kind_(kind), n_(n) {
  const cuda::DeviceScope on(ordinal);
  check(cufftCreate(&handle_), "cufftCreate");
  check(cufftSetAutoAllocation(handle_, 0), "cufftSetAutoAllocation");
  long long length = n;
  const long long complex_length = n / 2 + 1;
  // Distances between consecutive series: real transforms read or write n reals on one side and
  // n/2 + 1 complex values on the other.
  const long long in_dist = kind == Kind::ComplexToReal ? complex_length : length;
  const long long out_dist = kind == Kind::RealToComplex ? complex_length : length;
  check(cufftMakePlanMany64(handle_, 1, &length, nullptr, 1, in_dist, nullptr, 1, out_dist, type_of(kind),
                            kTransformsPerCall, &work_bytes_),
        fmt::format("cufftMakePlanMany64 (length {}, {} transforms)", n, kTransformsPerCall).c_str());
}

Plan::~Plan() {
  if (handle_) cufftDestroy(handle_);
}

void Plan::execute(const cuda::StageContext& ctx, void* in, void* out, std::int64_t count) {
  if (count % kTransformsPerCall != 0) throw std::logic_error("cuFFT plan run on a partial chunk");
  const SharedMemory work = ctx.scratch(work_bytes_);  // this stream's own, released after its calls
  const std::lock_guard lock(mutex_);
  check(cufftSetStream(handle_, ctx.stream()), "cufftSetStream");
  check(cufftSetWorkArea(handle_, work.data), "cufftSetWorkArea");
  const auto in_step = static_cast<std::size_t>(kind_ == Kind::ComplexToReal ? n_ / 2 + 1 : n_);
  const auto out_step = static_cast<std::size_t>(kind_ == Kind::RealToComplex ? n_ / 2 + 1 : n_);
  for (std::int64_t first = 0; first < count; first += kTransformsPerCall) {
    const auto offset = static_cast<std::size_t>(first);
    switch (kind_) {
      case Kind::RealToComplex:
        check(cufftExecR2C(handle_, static_cast<cufftReal*>(in) + offset * in_step,
                           static_cast<cufftComplex*>(out) + offset * out_step),
              "cufftExecR2C");
        break;
      case Kind::ComplexToReal:
        check(cufftExecC2R(handle_, static_cast<cufftComplex*>(in) + offset * in_step,
                           static_cast<cufftReal*>(out) + offset * out_step),
              "cufftExecC2R");
        break;
      case Kind::ComplexInverse:
        check(cufftExecC2C(handle_, static_cast<cufftComplex*>(in) + offset * in_step,
                           static_cast<cufftComplex*>(out) + offset * out_step, CUFFT_INVERSE),
              "cufftExecC2C");
        break;
    }
  }
}

Plan& PlanCache::get(const cuda::StageContext& ctx, Kind kind, std::int64_t n) {
  const std::lock_guard lock(mutex_);
  auto& plan = plans_[{ctx.device(), kind, n}];
  if (!plan) plan = std::make_unique<Plan>(ctx.ordinal(), kind, n);
  return *plan;
}

}  // namespace pacflow::cufft
