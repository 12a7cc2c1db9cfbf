// cuFFT, NVIDIA's FFT library, loaded with dlopen (design.md, "No vendor SDK
// at build time"): simt.fft on cuda devices, when the library is there.
//
// The declarations below are simt's own, written from cuFFT's public API
// (cufft.h of CUDA 13, library_types.h): only what simt calls, with the C ABI
// libcufft exports. Plans are made with cufftMakePlanMany64, whose sizes and
// batch are 64-bit, so no simt array is too large to describe. No CUDA header
// is included anywhere in simt.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/libs/library_types.h"
#include "runtime/shared_library.h"

namespace simt::cuda {

class PrimaryContext;

// Status codes (values are part of cuFFT's ABI).
enum cufftResult : int {
  CUFFT_SUCCESS = 0x0,
  CUFFT_INVALID_PLAN = 0x1,
  CUFFT_ALLOC_FAILED = 0x2,
  CUFFT_INVALID_TYPE = 0x3,
  CUFFT_INVALID_VALUE = 0x4,
  CUFFT_INTERNAL_ERROR = 0x5,
  CUFFT_EXEC_FAILED = 0x6,
  CUFFT_SETUP_FAILED = 0x7,
  CUFFT_INVALID_SIZE = 0x8,
  CUFFT_UNALIGNED_DATA = 0x9,
  CUFFT_INVALID_DEVICE = 0xB,
  CUFFT_NO_WORKSPACE = 0xD,
  CUFFT_NOT_IMPLEMENTED = 0xE,
  CUFFT_NOT_SUPPORTED = 0x10,
  CUFFT_MISSING_DEPENDENCY = 0x11,
  CUFFT_NVRTC_FAILURE = 0x12,
  CUFFT_NVJITLINK_FAILURE = 0x13,
  CUFFT_NVSHMEM_FAILURE = 0x14,
};

// The transform types: single precision R2C, C2R, C2C; double D2Z, Z2D, Z2Z.
enum cufftType : int {
  CUFFT_R2C = 0x2a,
  CUFFT_C2R = 0x2c,
  CUFFT_C2C = 0x29,
  CUFFT_D2Z = 0x6a,
  CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69,
};

// The sign of the exponent (direction argument of the C2C/Z2Z executions).
constexpr int CUFFT_FORWARD = -1;
constexpr int CUFFT_INVERSE = 1;

using cufftHandle = int;

// The entry points simt uses, each named after the symbol libcufft exports.
// Data pointers are void*: cufftReal/cufftComplex are float/float2 (double
// for the Z and D types), all plain device addresses here.
struct CufftFunctions {
  cufftResult (*cufftCreate)(cufftHandle* plan) = nullptr;
  cufftResult (*cufftDestroy)(cufftHandle plan) = nullptr;
  cufftResult (*cufftMakePlanMany64)(cufftHandle plan, int rank, long long* n, long long* inembed,
                                     long long istride, long long idist, long long* onembed,
                                     long long ostride, long long odist, cufftType type,
                                     long long batch, std::size_t* work_size) = nullptr;
  cufftResult (*cufftSetStream)(cufftHandle plan, cudaStream_t stream) = nullptr;
  cufftResult (*cufftExecC2C)(cufftHandle plan, void* in, void* out, int direction) = nullptr;
  cufftResult (*cufftExecZ2Z)(cufftHandle plan, void* in, void* out, int direction) = nullptr;
  cufftResult (*cufftExecR2C)(cufftHandle plan, void* in, void* out) = nullptr;
  cufftResult (*cufftExecD2Z)(cufftHandle plan, void* in, void* out) = nullptr;
  cufftResult (*cufftExecC2R)(cufftHandle plan, void* in, void* out) = nullptr;
  cufftResult (*cufftExecZ2D)(cufftHandle plan, void* in, void* out) = nullptr;
  cufftResult (*cufftGetProperty)(libraryPropertyType type, int* value) = nullptr;
};

// "CUFFT_INVALID_SIZE" for a status (cuFFT has no function naming them).
std::string cufft_result_name(cufftResult result);

class Cufft {
 public:
  // The process-wide instance, loaded on first use (thread-safe); nullptr
  // with the reason in why_not when no usable libcufft is found. Never
  // unloaded: plans may be destroyed late, at interpreter exit.
  static const Cufft* get(std::string* why_not);

  // Searches and loads a fresh instance: $SIMT_CUFFT_PATH when set, else
  // libcufft.so.12 / .so.11 in the toolkit directories of
  // toolkit_library.h (CUDA 13 ships cuFFT 12), then the dynamic loader's
  // search. Needs no GPU.
  static std::unique_ptr<Cufft> load(std::string* why_not);

  // "12.0.0" (cufftGetProperty).
  const std::string& version() const { return version_; }
  const std::string& library_path() const { return library_.path(); }
  const CufftFunctions& fn() const { return fn_; }

 private:
  Cufft(runtime::SharedLibrary library, const CufftFunctions& functions);

  runtime::SharedLibrary library_;
  CufftFunctions fn_;
  std::string version_;
};

// A cuFFT plan for `batch` transforms of sizes `n` (rank 1 to 3, the last
// axis the fastest), in the basic layout: each input and output is
// C-contiguous and they follow each other (for R2C the output's last axis,
// for C2R the input's, holds n[-1] / 2 + 1 values). Made with the device's
// primary context current (cuFFT allocates its work area through the runtime
// API); holds the context, and destroys the plan with it current.
class CufftPlan {
 public:
  CufftPlan(const Cufft& cufft, std::shared_ptr<const PrimaryContext> context, cufftType type,
            std::vector<int64_t> n, int64_t batch);
  ~CufftPlan();
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  // Queues the transform of `in` into `out` (distinct buffers; a C2R/Z2D
  // transform overwrites `in`) on `stream`. `forward` chooses the exponent's
  // sign of C2C/Z2Z; the others have one direction. Unnormalized both ways.
  // Thread-safe (a plan's work area serves one execution at a time).
  void execute(void* in, void* out, bool forward, CUstream stream);

  cufftType type() const { return type_; }
  std::size_t work_size() const { return work_size_; }

 private:
  void check(cufftResult result, const char* call) const;

  const Cufft& cufft_;
  std::shared_ptr<const PrimaryContext> context_;
  cufftType type_;
  std::vector<int64_t> n_;
  int64_t batch_;
  cufftHandle plan_ = 0;
  bool created_ = false;
  std::size_t work_size_ = 0;
  std::mutex mutex_;
};

}  // namespace simt::cuda
