#pragma once
// FIR design and zero-phase application exactly as spec §3 defines them.
#include <cstdint>
#include <vector>

namespace pacflow::fir {

// Python's float floor division `a // b`: the floor of the exact quotient a / b (TensorPAC's
// fir_order computes `fs // f_lo`).
double floor_divide(double a, double b);

// Filter order for a band: cycles · (fs // f_lo), reduced to floor((T − 1) / 3) when T < 3·n.
std::int64_t filter_order(double fs, double f_lo, int cycles, std::int64_t series_length);

// MATLAB fir1(order, [lo hi] / (fs/2)) band-pass: windowed (Hamming) least-squares ideal band-pass,
// scaled to unit magnitude at the band centre. Returns order + 1 coefficients (double precision).
std::vector<double> fir1_bandpass(std::int64_t order, double f_lo, double f_hi, double fs);

// Reference filtfilt(b, [1], x, padtype="odd", padlen=order) in double precision, direct form;
// used by tests and as the definition the FFT path is checked against.
std::vector<double> filtfilt_reference(const std::vector<double>& b, const std::vector<double>& x);

}  // namespace pacflow::fir
