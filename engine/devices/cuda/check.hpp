#pragma once
// CUDA runtime errors as exceptions: every call the engine makes is checked, and the message says
// which call failed and why, on which device.
#include <cuda_runtime_api.h>
#include <stdexcept>
#include <string>

namespace pacflow::cuda {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws Error("<what>: <CUDA's message> (<error name>)") unless status is cudaSuccess.
void check(cudaError_t status, const char* what);
// Throws if a kernel launch failed (cudaGetLastError), naming the kernel.
void check_launch(const char* kernel);

}  // namespace pacflow::cuda
