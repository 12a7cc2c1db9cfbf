// Types the CUDA toolkit's libraries share (library_types.h and the runtime
// API's stream), declared by simt as it declares each library's own API: the
// values and layouts are part of their C ABI. No CUDA header is included.
#pragma once

#include "backends/cuda/cuda_driver.h"

namespace simt::cuda {

// library_types.h's cudaDataType (cuBLAS, cuSOLVER, cuFFT's Xt API).
enum cudaDataType : int {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_C_32F = 4,
  CUDA_C_64F = 5,
  CUDA_R_16BF = 14,
};

// library_types.h's libraryPropertyType, for the libraries' GetProperty.
enum libraryPropertyType : int {
  MAJOR_VERSION = 0,
  MINOR_VERSION = 1,
  PATCH_LEVEL = 2,
};

// The runtime API's stream is the driver's (cudaStream_t is CUstream_st*).
using cudaStream_t = CUstream;

}  // namespace simt::cuda
