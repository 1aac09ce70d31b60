#pragma once
// RAII around FFTW: SIMD-aligned arrays and plans, in single precision (the signal path) and, for sums
// that must keep double accuracy, double-precision complex transforms. Plans are made once per shape
// (FFTW's planners are not thread-safe, so creation is serialised); executing a plan on other arrays
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

// Double precision (fftw3): complex transforms only.
struct FftwFreeF64 {
  void operator()(void* p) const noexcept { fftw_free(p); }
};
using ComplexArrayF64 = std::unique_ptr<fftw_complex[], FftwFreeF64>;

// Zero-initialised, SIMD-aligned array of n double-precision complex values.
ComplexArrayF64 complex_array_f64(std::size_t n);

class ComplexPlanF64 {
 public:
  ComplexPlanF64(int sign, std::size_t n);  // sign: FFTW_FORWARD (e^-) or FFTW_BACKWARD (e^+)
  ~ComplexPlanF64();
  ComplexPlanF64(ComplexPlanF64&& other) noexcept;
  ComplexPlanF64& operator=(ComplexPlanF64&& other) noexcept;
  ComplexPlanF64(const ComplexPlanF64&) = delete;
  ComplexPlanF64& operator=(const ComplexPlanF64&) = delete;

  std::size_t size() const { return n_; }
  // Unnormalised; in and out start on complex_array_f64's alignment (the plan's).
  void execute(fftw_complex* in, fftw_complex* out) const { fftw_execute_dft(plan_, in, out); }

 private:
  fftw_plan plan_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace pacflow::fft
