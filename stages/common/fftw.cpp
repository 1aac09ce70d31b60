#include "stages/common/fftw.hpp"

#include <mutex>
#include <algorithm>
#include <new>
#include <utility>
#include <stdexcept>
#include <string>

namespace pacflow::fft {

namespace {
// FFTW's planner keeps global state and is not thread-safe; this lock is the one place we touch it.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

Array<float> real_array(std::size_t n) {
  auto* p = static_cast<float*>(fftwf_malloc(sizeof(float) * std::max<std::size_t>(n, 1)));
  if (!p) throw std::bad_alloc();
  std::fill(p, p + n, 0.0f);
  return Array<float>(p);
}

Array<fftwf_complex> complex_array(std::size_t n) {
  auto* p = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * std::max<std::size_t>(n, 1)));
  if (!p) throw std::bad_alloc();
  for (std::size_t i = 0; i < n; ++i) p[i][0] = p[i][1] = 0.0f;
  return Array<fftwf_complex>(p);
}

Plan::Plan(Kind kind, std::size_t n) : kind_(kind), n_(n) {
  if (n == 0) throw std::invalid_argument("FFT size must be > 0");
  const int size = static_cast<int>(n);
  auto real = real_array(n);
  auto spectrum = complex_array(n);
  auto other = complex_array(n);
  const unsigned flags = FFTW_ESTIMATE;
  std::lock_guard lock(planner_mutex());
  switch (kind) {
    case Kind::RealForward: plan_ = fftwf_plan_dft_r2c_1d(size, real.get(), spectrum.get(), flags); break;
    case Kind::RealInverse: plan_ = fftwf_plan_dft_c2r_1d(size, spectrum.get(), real.get(), flags); break;
    case Kind::ComplexForward:
      plan_ = fftwf_plan_dft_1d(size, spectrum.get(), other.get(), FFTW_FORWARD, flags);
      break;
    case Kind::ComplexInverse:
      plan_ = fftwf_plan_dft_1d(size, spectrum.get(), other.get(), FFTW_BACKWARD, flags);
      break;
  }
  if (!plan_) throw std::runtime_error("FFTW could not plan a transform of size " + std::to_string(n));
}

Plan::~Plan() {
  if (plan_) {
    std::lock_guard lock(planner_mutex());
    fftwf_destroy_plan(plan_);
  }
}

Plan::Plan(Plan&& other) noexcept
    : plan_(std::exchange(other.plan_, nullptr)), kind_(other.kind_), n_(other.n_) {}

Plan& Plan::operator=(Plan&& other) noexcept {
  if (this != &other) {
    Plan dying(std::move(*this));
    plan_ = std::exchange(other.plan_, nullptr);
    kind_ = other.kind_;
    n_ = other.n_;
  }
  return *this;
}

void Plan::forward(float* in, fftwf_complex* out) const {
  if (kind_ != Kind::RealForward) throw std::logic_error("not a real forward plan");
  fftwf_execute_dft_r2c(plan_, in, out);
}

void Plan::inverse(fftwf_complex* in, float* out) const {
  if (kind_ != Kind::RealInverse) throw std::logic_error("not a real inverse plan");
  fftwf_execute_dft_c2r(plan_, in, out);
}

void Plan::complex(fftwf_complex* in, fftwf_complex* out) const {
  if (kind_ != Kind::ComplexForward && kind_ != Kind::ComplexInverse)
    throw std::logic_error("not a complex plan");
  fftwf_execute_dft(plan_, in, out);
}

ComplexArrayF64 complex_array_f64(std::size_t n) {
  auto* p = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * std::max<std::size_t>(n, 1)));
  if (!p) throw std::bad_alloc();
  for (std::size_t i = 0; i < n; ++i) p[i][0] = p[i][1] = 0.0;
  return ComplexArrayF64(p);
}

ComplexPlanF64::ComplexPlanF64(int sign, std::size_t n) : n_(n) {
  if (n == 0) throw std::invalid_argument("FFT size must be > 0");
  auto in = complex_array_f64(n);
  auto out = complex_array_f64(n);
  std::lock_guard lock(planner_mutex());
  plan_ = fftw_plan_dft_1d(static_cast<int>(n), in.get(), out.get(), sign, FFTW_ESTIMATE);
  if (!plan_) throw std::runtime_error("FFTW could not plan a transform of size " + std::to_string(n));
}

ComplexPlanF64::~ComplexPlanF64() {
  if (plan_) {
    std::lock_guard lock(planner_mutex());
    fftw_destroy_plan(plan_);
  }
}

ComplexPlanF64::ComplexPlanF64(ComplexPlanF64&& other) noexcept
    : plan_(std::exchange(other.plan_, nullptr)), n_(other.n_) {}

ComplexPlanF64& ComplexPlanF64::operator=(ComplexPlanF64&& other) noexcept {
  if (this != &other) {
    ComplexPlanF64 dying(std::move(*this));
    plan_ = std::exchange(other.plan_, nullptr);
    n_ = other.n_;
  }
  return *this;
}

}  // namespace pacflow::fft
