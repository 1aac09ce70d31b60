#include "stages/cuda_kernels.hpp"

namespace pacflow::stages {

std::map<std::string, KernelFactory> cuda_kernels() {
  return {{"bandpass", make_bandpass_cuda_kernel},
          {"hilbert", make_hilbert_cuda_kernel},
          {"mi", make_mi_cuda_kernel},
          {"surrogates", make_surrogates_cuda_kernel}};
}

}  // namespace pacflow::stages
