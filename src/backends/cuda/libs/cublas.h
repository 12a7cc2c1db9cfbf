// cuBLAS, NVIDIA's BLAS, loaded with dlopen (design.md, "No vendor SDK at
// build time"): simt's matmul on cuda devices, when the library is there.
//
// The declarations below are simt's own, written from cuBLAS's public API
// (cublas_api.h, library_types.h of CUDA 13): only what simt calls, with the
// C ABI libcublas exports. The `_v2` names are the exported symbols behind
// cublas_v2.h's macros; the `_64` GEMMs (CUDA 12+) take 64-bit sizes, so no
// dimension of a simt array needs checking against INT_MAX. No CUDA header is
// included anywhere in simt.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/libs/library_types.h"
#include "runtime/shared_library.h"

namespace simt::cuda {

class PrimaryContext;

// Status codes (values are part of cuBLAS's ABI).
enum cublasStatus_t : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16,
};

enum cublasOperation_t : int {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_OP_C = 2,
};

// Which triangle of a symmetric or Hermitian matrix is read (cuSOLVER takes it too).
enum cublasFillMode_t : int {
  CUBLAS_FILL_MODE_LOWER = 0,
  CUBLAS_FILL_MODE_UPPER = 1,
};

enum cublasComputeType_t : int {
  CUBLAS_COMPUTE_32F = 68,  // float accumulation, no TF32 or half down-conversion
  CUBLAS_COMPUTE_64F = 70,
};

enum cublasGemmAlgo_t : int {
  CUBLAS_GEMM_DEFAULT = -1,  // cuBLAS's heuristics (tensor cores where the types allow)
};

struct cublasContext;  // opaque
using cublasHandle_t = cublasContext*;

// The entry points simt uses, each named after the symbol libcublas exports.
struct CublasFunctions {
  cublasStatus_t (*cublasCreate_v2)(cublasHandle_t* handle) = nullptr;
  cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t handle) = nullptr;
  cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t handle, cudaStream_t stream) = nullptr;
  cublasStatus_t (*cublasGetProperty)(libraryPropertyType type, int* value) = nullptr;
  const char* (*cublasGetStatusName)(cublasStatus_t status) = nullptr;
  const char* (*cublasGetStatusString)(cublasStatus_t status) = nullptr;
  cublasStatus_t (*cublasGemmEx_64)(cublasHandle_t handle, cublasOperation_t transa,
                                    cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                    const void* alpha, const void* a, cudaDataType a_type,
                                    int64_t lda, const void* b, cudaDataType b_type, int64_t ldb,
                                    const void* beta, void* c, cudaDataType c_type, int64_t ldc,
                                    cublasComputeType_t compute_type,
                                    cublasGemmAlgo_t algo) = nullptr;
  cublasStatus_t (*cublasGemmStridedBatchedEx_64)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
      int64_t n, int64_t k, const void* alpha, const void* a, cudaDataType a_type, int64_t lda,
      long long stride_a, const void* b, cudaDataType b_type, int64_t ldb, long long stride_b,
      const void* beta, void* c, cudaDataType c_type, int64_t ldc, long long stride_c,
      int64_t batch_count, cublasComputeType_t compute_type, cublasGemmAlgo_t algo) = nullptr;
};

class Cublas {
 public:
  // The process-wide instance, loaded on first use (thread-safe); nullptr
  // with the reason in why_not when no usable libcublas is found. Never
  // unloaded: handles may be destroyed late, at interpreter exit.
  static const Cublas* get(std::string* why_not);

  // Searches and loads a fresh instance (get() uses it once; tests use it to
  // try other settings): $SIMT_CUBLAS_PATH when set, else libcublas.so.13 /
  // .so.12 in the toolkit directories of toolkit_library.h, then the
  // dynamic loader's search. Needs no GPU.
  static std::unique_ptr<Cublas> load(std::string* why_not);

  // "13.1.0" (cublasGetProperty).
  const std::string& version() const { return version_; }
  const std::string& library_path() const { return library_.path(); }
  const CublasFunctions& fn() const { return fn_; }

  // "CUBLAS_STATUS_INVALID_VALUE (an invalid value was used as an argument)".
  std::string describe(cublasStatus_t status) const;

 private:
  Cublas(runtime::SharedLibrary library, const CublasFunctions& functions);

  runtime::SharedLibrary library_;
  CublasFunctions fn_;
  std::string version_;
};

// One operand of a GEMM as cuBLAS sees it (column-major): the matrix at
// `data`, or its transpose, `ld` elements between columns, `batch_stride`
// elements between the matrices of a batch (0: one matrix for all).
struct GemmOperand {
  const void* data = nullptr;
  bool transposed = false;
  int64_t ld = 1;
  int64_t batch_stride = 0;
};

// C[i] = op(A[i]) op(B[i]) for i < batch, C column-major with ldc and
// stride_c; m x n results, k the reduced extent. `type` is the element type
// of all three (float32 and complex64 accumulate in float32, float16 too).
struct GemmCall {
  cudaDataType type = CUDA_R_32F;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  GemmOperand a, b;
  void* c = nullptr;
  int64_t ldc = 1;
  int64_t stride_c = 0;
};

// A cuBLAS handle bound to one device's primary context (the runtime API,
// which cuBLAS calls, uses the context current on the thread; simt makes its
// primary context current first). Not thread-safe: the Python side keeps one
// per (device, thread). Destroyed with its context current; holds the
// context, so the context outlives it.
class CublasHandle {
 public:
  CublasHandle(const Cublas& cublas, std::shared_ptr<const PrimaryContext> context);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  // Queues `call` on `stream` (asynchronous, as a kernel launch). Throws
  // runtime::DeviceError naming the device and cuBLAS's status.
  void gemm(const GemmCall& call, CUstream stream) const;

 private:
  void check(cublasStatus_t status, const char* call) const;

  const Cublas& cublas_;
  std::shared_ptr<const PrimaryContext> context_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace simt::cuda
