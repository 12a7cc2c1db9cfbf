#include "backends/cuda/libs/cublas.h"

#include <stdexcept>
#include <tuple>
#include <utility>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/libs/toolkit_library.h"

namespace simt::cuda {

namespace {

constexpr const char* kCublasSonames[] = {"libcublas.so.13", "libcublas.so.12"};

constexpr ToolkitLibrary kCublasLibrary{
    "cuBLAS", kCublasSonames, "SIMT_CUBLAS_PATH",
    "pip install nvidia-cublas (CUDA 13) or nvidia-cublas-cu12, or install the CUDA toolkit"};

// How each element type multiplies: the accumulation cuBLAS is asked for, and
// whether alpha and beta are doubles (they have the compute type's precision,
// complex for complex types).
struct GemmTypeRow {
  cudaDataType type;
  cublasComputeType_t compute;
  bool double_scalars;
};

constexpr GemmTypeRow kGemmTypes[] = {
    {CUDA_R_32F, CUBLAS_COMPUTE_32F, false}, {CUDA_R_64F, CUBLAS_COMPUTE_64F, true},
    {CUDA_R_16F, CUBLAS_COMPUTE_32F, false}, {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false},
    {CUDA_C_32F, CUBLAS_COMPUTE_32F, false}, {CUDA_C_64F, CUBLAS_COMPUTE_64F, true},
};

const GemmTypeRow& gemm_type(cudaDataType type) {
  for (const GemmTypeRow& row : kGemmTypes)
    if (row.type == type) return row;
  throw std::invalid_argument("cuBLAS GEMM: unsupported element type " + std::to_string(type));
}

cublasOperation_t operation(const GemmOperand& operand) {
  return operand.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
}

constexpr auto kCublasEntries = std::tuple{
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasCreate_v2),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasDestroy_v2),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasSetStream_v2),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasGetProperty),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasGetStatusName),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasGetStatusString),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasGemmEx_64),
    SIMT_LIBRARY_ENTRY(CublasFunctions, cublasGemmStridedBatchedEx_64),
};

}  // namespace

Cublas::Cublas(runtime::SharedLibrary library, const CublasFunctions& functions)
    : library_(std::move(library)),
      fn_(functions),
      version_(property_version(fn_.cublasGetProperty)) {}

std::unique_ptr<Cublas> Cublas::load(std::string* why_not) {
  auto loaded = load_toolkit_library<CublasFunctions>(kCublasLibrary, kCublasEntries, why_not);
  if (!loaded) return nullptr;
  return std::unique_ptr<Cublas>(new Cublas(std::move(loaded->library), loaded->fn));
}

const Cublas* Cublas::get(std::string* why_not) { return runtime::load_once<Cublas>(why_not); }

std::string Cublas::describe(cublasStatus_t status) const {
  const char* name = fn_.cublasGetStatusName(status);
  const char* text = fn_.cublasGetStatusString(status);
  std::string out = name != nullptr ? name : "CUBLAS_STATUS_" + std::to_string(status);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

CublasHandle::CublasHandle(const Cublas& cublas, std::shared_ptr<const PrimaryContext> context)
    : cublas_(cublas), context_(std::move(context)) {
  context_->make_current();
  check(cublas_.fn().cublasCreate_v2(&handle_), "cublasCreate");
}

CublasHandle::~CublasHandle() {
  // Errors are ignored: nothing can be done about them in a destructor.
  context_->make_current_noexcept();
  cublas_.fn().cublasDestroy_v2(handle_);
}

void CublasHandle::check(cublasStatus_t status, const char* call) const {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw runtime::DeviceError(std::string(call) + " failed on " + context_->label() + ": " +
                               cublas_.describe(status) + " [" + cublas_.library_path() + "]");
  }
}

void CublasHandle::gemm(const GemmCall& call, CUstream stream) const {
  const GemmTypeRow& row = gemm_type(call.type);
  const double one_d[2] = {1.0, 0.0};
  const double zero_d[2] = {0.0, 0.0};
  const float one_f[2] = {1.0f, 0.0f};
  const float zero_f[2] = {0.0f, 0.0f};
  const void* alpha = row.double_scalars ? static_cast<const void*>(one_d) : one_f;
  const void* beta = row.double_scalars ? static_cast<const void*>(zero_d) : zero_f;

  context_->make_current();
  const CublasFunctions& fn = cublas_.fn();
  check(fn.cublasSetStream_v2(handle_, stream), "cublasSetStream");
  if (call.batch == 1) {
    check(fn.cublasGemmEx_64(handle_, operation(call.a), operation(call.b), call.m, call.n, call.k,
                             alpha, call.a.data, call.type, call.a.ld, call.b.data, call.type,
                             call.b.ld, beta, call.c, call.type, call.ldc, row.compute,
                             CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx_64");
    return;
  }
  check(fn.cublasGemmStridedBatchedEx_64(
            handle_, operation(call.a), operation(call.b), call.m, call.n, call.k, alpha,
            call.a.data, call.type, call.a.ld, call.a.batch_stride, call.b.data, call.type,
            call.b.ld, call.b.batch_stride, beta, call.c, call.type, call.ldc, call.stride_c,
            call.batch, row.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx_64");
}

}  // namespace simt::cuda
