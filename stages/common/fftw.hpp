#pragma once
// RAII around single-precision FFTW: SIMD-aligned arrays and plans. Plans are made once per shape
// (FFTW's planner is not thread-safe, so creation is serialised); executing a plan on other arrays
// of the same alignment is thread-safe (FFTW's new-array execute functions).
#include <complex>
#include <cstddef>
#include <memory>

#include <fftw3.h>

namespace pacflow::fft {

struct FftwFree {
  void operator()(void* p) const noexcept { fftwf_free(p); }
};

template <typename T>
using Array = std::unique_ptr<T[], FftwFree>;

// Zero-initialised, SIMD-aligned array of n elements.
Array<float> real_array(std::size_t n);
Array<fftwf_complex> complex_array(std::size_t n);

enum class Kind { RealForward, RealInverse, ComplexForward, ComplexInverse };

class Plan {
 public:
  Plan() = default;
  Plan(Kind kind, std::size_t n);
  ~Plan();
  Plan(Plan&& other) noexcept;
  Plan& operator=(Plan&& other) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  std::size_t size() const { return n_; }
  // r2c: in has n floats, out n/2+1 complex. Unnormalised.
  void forward(float* in, fftwf_complex* out) const;
  // c2r: in has n/2+1 complex (destroyed), out n floats. Unnormalised.
  void inverse(fftwf_complex* in, float* out) const;
  // c2c in the plan's direction. Unnormalised.
  void complex(fftwf_complex* in, fftwf_complex* out) const;

 private:
  fftwf_plan plan_ = nullptr;
  Kind kind_ = Kind::RealForward;
  std::size_t n_ = 0;
};

}  // namespace pacflow::fft
