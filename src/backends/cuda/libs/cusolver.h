// cuSOLVER's dense API (cusolverDn), NVIDIA's LAPACK, loaded with dlopen
// (design.md, "No vendor SDK at build time"): simt.linalg's decompositions on
// cuda devices, when the library is there.
//
// The declarations below are simt's own, written from cuSOLVER's public API
// (cusolverDn.h, cusolver_common.h of CUDA 13, and cublas_api.h's fill modes
// and operations): only what simt calls, with the C ABI libcusolver exports
// (solve and inv use the LU routines, which serve any square matrix, so
// potrs/potri are not declared). simt uses the typed routines
// (cusolverDn<S|D|C|Z><routine>), whose sizes are 32-bit ints and whose
// workspace sizes count elements of the matrix's type; the 64-bit generic API
// has no orgqr/ungqr, which QR's Q needs. No CUDA header is included anywhere
// in simt.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/libs/cublas.h"
#include "backends/cuda/libs/library_types.h"
#include "runtime/shared_library.h"

namespace simt::cuda {

class PrimaryContext;

// Status codes (values are part of cuSOLVER's ABI, cusolver_common.h).
enum cusolverStatus_t : int {
  CUSOLVER_STATUS_SUCCESS = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2,
  CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4,
  CUSOLVER_STATUS_MAPPING_ERROR = 5,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  CUSOLVER_STATUS_NOT_SUPPORTED = 9,
  CUSOLVER_STATUS_ZERO_PIVOT = 10,
  CUSOLVER_STATUS_INVALID_LICENSE = 11,
  CUSOLVER_STATUS_INVALID_WORKSPACE = 31,
};

// Whether syevd/heevd compute eigenvectors too.
enum cusolverEigMode_t : int {
  CUSOLVER_EIG_MODE_NOVECTOR = 0,
  CUSOLVER_EIG_MODE_VECTOR = 1,
};

struct cusolverDnContext;  // opaque
using cusolverDnHandle_t = cusolverDnContext*;

// The element types of the typed routines, in the order of their symbol
// tables: float, double, complex float, complex double.
enum class SolverType : int { S = 0, D = 1, C = 2, Z = 3 };
inline constexpr std::size_t kSolverTypes = 4;

// The SolverType of a cudaDataType (float32, float64, complex64, complex128);
// std::invalid_argument for any other.
SolverType solver_type(cudaDataType type);

// One typed routine's four entry points, indexed by SolverType.
template <class F>
using ByType = std::array<F, kSolverTypes>;

// The typed prototypes differ only in their element pointers' types (float*,
// double*, cuComplex*, cuDoubleComplex*; the real type's for singular values
// and eigenvalues), which share one ABI: void* here. `lwork` counts elements
// of the matrix's type; `info` is a device int.
using PotrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, cublasFillMode_t uplo,
                                               int n, void* a, int lda, int* lwork);
using PotrfFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                                     void* a, int lda, void* work, int lwork, int* info);
using GetrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, void* a,
                                               int lda, int* lwork);
using GetrfFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, void* a, int lda,
                                     void* work, int* ipiv, int* info);
using GetrsFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, cublasOperation_t trans, int n,
                                     int nrhs, const void* a, int lda, const int* ipiv, void* b,
                                     int ldb, int* info);
using GeqrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, void* a,
                                               int lda, int* lwork);
using GeqrfFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, void* a, int lda,
                                     void* tau, void* work, int lwork, int* info);
using OrgqrBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, int k,
                                               const void* a, int lda, const void* tau, int* lwork);
using OrgqrFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, int k, void* a,
                                     int lda, const void* tau, void* work, int lwork, int* info);
using GesvdBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, int m, int n, int* lwork);
using GesvdFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, signed char jobu, signed char jobvt,
                                     int m, int n, void* a, int lda, void* s, void* u, int ldu,
                                     void* vt, int ldvt, void* work, int lwork, void* rwork,
                                     int* info);
using SyevdBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                               cublasFillMode_t uplo, int n, const void* a, int lda,
                                               const void* w, int* lwork);
using SyevdFn = cusolverStatus_t (*)(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                     cublasFillMode_t uplo, int n, void* a, int lda, void* w,
                                     void* work, int lwork, int* info);

// The entry points simt uses. The untyped ones are named after their symbols;
// each typed routine is a ByType, its symbols in cusolver.cpp's table (orgqr
// and syevd are ungqr and heevd for the complex types).
struct CusolverFunctions {
  cusolverStatus_t (*cusolverDnCreate)(cusolverDnHandle_t* handle) = nullptr;
  cusolverStatus_t (*cusolverDnDestroy)(cusolverDnHandle_t handle) = nullptr;
  cusolverStatus_t (*cusolverDnSetStream)(cusolverDnHandle_t handle, cudaStream_t stream) = nullptr;
  cusolverStatus_t (*cusolverGetProperty)(libraryPropertyType type, int* value) = nullptr;
  ByType<PotrfBufferSizeFn> potrf_bufferSize{};
  ByType<PotrfFn> potrf{};
  ByType<GetrfBufferSizeFn> getrf_bufferSize{};
  ByType<GetrfFn> getrf{};
  ByType<GetrsFn> getrs{};
  ByType<GeqrfBufferSizeFn> geqrf_bufferSize{};
  ByType<GeqrfFn> geqrf{};
  ByType<OrgqrBufferSizeFn> orgqr_bufferSize{};
  ByType<OrgqrFn> orgqr{};
  ByType<GesvdBufferSizeFn> gesvd_bufferSize{};
  ByType<GesvdFn> gesvd{};
  ByType<SyevdBufferSizeFn> syevd_bufferSize{};
  ByType<SyevdFn> syevd{};
};

// The typed routines, naming the rows of cusolver.cpp's symbol table.
enum class SolverRoutine : int {
  PotrfBufferSize,
  Potrf,
  GetrfBufferSize,
  Getrf,
  Getrs,
  GeqrfBufferSize,
  Geqrf,
  OrgqrBufferSize,
  Orgqr,
  GesvdBufferSize,
  Gesvd,
  SyevdBufferSize,
  Syevd,
};

// The symbol of `routine` for `type`, e.g. "cusolverDnZungqr".
const char* cusolver_symbol(SolverRoutine routine, SolverType type);

// "CUSOLVER_STATUS_INVALID_VALUE" for a status (cuSOLVER has no function
// naming them).
std::string cusolver_status_name(cusolverStatus_t status);

class Cusolver {
 public:
  // The process-wide instance, loaded on first use (thread-safe); nullptr
  // with the reason in why_not when no usable libcusolver is found. Never
  // unloaded: handles may be destroyed late, at interpreter exit.
  static const Cusolver* get(std::string* why_not);

  // Searches and loads a fresh instance: $SIMT_CUSOLVER_PATH when set, else
  // libcusolver.so.12 / .so.11 (CUDA 13 ships cuSOLVER 12, CUDA 12 cuSOLVER
  // 11) in the toolkit directories of toolkit_library.h, then the dynamic
  // loader's search. libcusolver needs cuBLAS, cuBLASLt, cuSPARSE and
  // nvJitLink of its toolkit, which the loader finds next to it (its RUNPATH
  // is $ORIGIN). Needs no GPU.
  static std::unique_ptr<Cusolver> load(std::string* why_not);

  // "12.0.4" (cusolverGetProperty).
  const std::string& version() const { return version_; }
  const std::string& library_path() const { return library_.path(); }
  const CusolverFunctions& fn() const { return fn_; }

 private:
  Cusolver(runtime::SharedLibrary library, const CusolverFunctions& functions);

  runtime::SharedLibrary library_;
  CusolverFunctions fn_;
  std::string version_;
};

// A cuSOLVER dense handle bound to one device's primary context (cuSOLVER
// calls the runtime API, which uses the context current on the thread). Not
// thread-safe: the Python side keeps one per (device, thread). Destroyed with
// its context current; holds the context, so the context outlives it.
//
// Each method is one cuSOLVER call, column-major in LAPACK's terms: sizes and
// leading dimensions in elements (checked to fit cuSOLVER's int), `type` the
// matrix's element type, pointers device addresses. The buffer-size queries
// return `lwork` in elements of that type; the others are queued on `stream`
// (asynchronous: `info` is written on the device and read by the caller after
// the stream's work). A bad argument cuSOLVER sees at once throws
// runtime::DeviceError naming the routine, the device and the status.
class CusolverHandle {
 public:
  CusolverHandle(const Cusolver& cusolver, std::shared_ptr<const PrimaryContext> context);
  ~CusolverHandle();
  CusolverHandle(const CusolverHandle&) = delete;
  CusolverHandle& operator=(const CusolverHandle&) = delete;

  int potrf_buffer_size(SolverType type, cublasFillMode_t uplo, int64_t n, void* a,
                        int64_t lda) const;
  void potrf(SolverType type, cublasFillMode_t uplo, int64_t n, void* a, int64_t lda, void* work,
             int64_t lwork, int* info, CUstream stream) const;

  int getrf_buffer_size(SolverType type, int64_t m, int64_t n, void* a, int64_t lda) const;
  void getrf(SolverType type, int64_t m, int64_t n, void* a, int64_t lda, void* work, int* ipiv,
             int* info, CUstream stream) const;
  void getrs(SolverType type, cublasOperation_t trans, int64_t n, int64_t nrhs, const void* a,
             int64_t lda, const int* ipiv, void* b, int64_t ldb, int* info, CUstream stream) const;

  int geqrf_buffer_size(SolverType type, int64_t m, int64_t n, void* a, int64_t lda) const;
  void geqrf(SolverType type, int64_t m, int64_t n, void* a, int64_t lda, void* tau, void* work,
             int64_t lwork, int* info, CUstream stream) const;
  // orgqr for real types, ungqr for complex ones.
  int orgqr_buffer_size(SolverType type, int64_t m, int64_t n, int64_t k, const void* a,
                        int64_t lda, const void* tau) const;
  void orgqr(SolverType type, int64_t m, int64_t n, int64_t k, void* a, int64_t lda,
             const void* tau, void* work, int64_t lwork, int* info, CUstream stream) const;

  // gesvd needs m >= n (cuSOLVER's restriction, not LAPACK's).
  int gesvd_buffer_size(SolverType type, int64_t m, int64_t n) const;
  void gesvd(SolverType type, char jobu, char jobvt, int64_t m, int64_t n, void* a, int64_t lda,
             void* s, void* u, int64_t ldu, void* vt, int64_t ldvt, void* work, int64_t lwork,
             void* rwork, int* info, CUstream stream) const;

  // syevd for real types, heevd for complex ones; eigenvalues ascending.
  int syevd_buffer_size(SolverType type, cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                        const void* a, int64_t lda, const void* w) const;
  void syevd(SolverType type, cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n, void* a,
             int64_t lda, void* w, void* work, int64_t lwork, int* info, CUstream stream) const;

 private:
  template <class F, class... Args>
  void call(const ByType<F>& table, SolverRoutine routine, SolverType type, Args... args) const;
  template <class F, class... Args>
  void call_on(CUstream stream, const ByType<F>& table, SolverRoutine routine, SolverType type,
               Args... args) const;
  void check(cusolverStatus_t status, const char* call) const;

  const Cusolver& cusolver_;
  std::shared_ptr<const PrimaryContext> context_;
  cusolverDnHandle_t handle_ = nullptr;
};

}  // namespace simt::cuda
