// cuFFT alone under compute-sanitizer's initcheck: real transforms of 64 series (the plans'
// kTransformsPerCall) whose input is wholly written, with the work area left unwritten or zeroed.
// Any report here is cuFFT's own, so tests/cuda/compute_sanitizer.sh's initcheck findings inside
// cuFFT kernels can be told from the stages' own. Built by tools/gpu/bundle.sh; run by check.sh.
// Usage: cufft_initcheck_probe N...   (transform lengths; each is run four ways, each way named first)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cufft.h>

namespace {

constexpr int kSeries = 64;

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

bool ok(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) std::fprintf(stderr, "%s: cuFFT error %d\n", what, static_cast<int>(r));
  return r == CUFFT_SUCCESS;
}

bool probe(long long n, cufftType type, bool zero_work) {
  std::printf("probe n=%lld %s work area %s\n", n, type == CUFFT_R2C ? "R2C" : "C2R", zero_work ? "zeroed" : "unwritten");
  std::fflush(stdout);
  const long long bins = n / 2 + 1;
  const long long in_dist = type == CUFFT_C2R ? bins : n, out_dist = type == CUFFT_R2C ? bins : n;
  cufftHandle plan{};
  std::size_t work_bytes = 0;
  if (!ok(cufftCreate(&plan), "cufftCreate") || !ok(cufftSetAutoAllocation(plan, 0), "cufftSetAutoAllocation") ||
      !ok(cufftMakePlanMany64(plan, 1, &n, nullptr, 1, in_dist, nullptr, 1, out_dist, type, kSeries, &work_bytes),
          "cufftMakePlanMany64"))
    return false;
  const std::size_t in_bytes = static_cast<std::size_t>(kSeries * in_dist) * (type == CUFFT_C2R ? 8 : 4);
  const std::size_t out_bytes = static_cast<std::size_t>(kSeries * out_dist) * (type == CUFFT_R2C ? 8 : 4);
  void *in = nullptr, *out = nullptr, *work = nullptr;
  bool good = ok(cudaMalloc(&in, in_bytes), "cudaMalloc in") && ok(cudaMalloc(&out, out_bytes), "cudaMalloc out") &&
              ok(cudaMalloc(&work, work_bytes ? work_bytes : 1), "cudaMalloc work") &&
              ok(cudaMemset(in, 0, in_bytes), "cudaMemset in") &&
              (!zero_work || ok(cudaMemset(work, 0, work_bytes), "cudaMemset work")) &&
              ok(cufftSetWorkArea(plan, work), "cufftSetWorkArea");
  if (good)
    good = type == CUFFT_R2C
               ? ok(cufftExecR2C(plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)), "cufftExecR2C")
               : ok(cufftExecC2R(plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)), "cufftExecC2R");
  good = ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") && good;
  cudaFree(in);
  cudaFree(out);
  cudaFree(work);
  cufftDestroy(plan);
  return good;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s N...   (transform lengths)\n", argv[0]);
    return 2;
  }
  bool good = true;
  for (int a = 1; a < argc; ++a) {
    const long long n = std::atoll(argv[a]);
    if (n < 2) {
      std::fprintf(stderr, "not a transform length: %s\n", argv[a]);
      return 2;
    }
    for (const cufftType type : {CUFFT_R2C, CUFFT_C2R})
      for (const bool zero_work : {false, true}) good = probe(n, type, zero_work) && good;
  }
  return good ? 0 : 1;
}
