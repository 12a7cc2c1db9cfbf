#include "backends/cuda/libs/cusolver.h"

#include <climits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/libs/toolkit_library.h"

namespace simt::cuda {

namespace {

constexpr const char* kCusolverSonames[] = {"libcusolver.so.12", "libcusolver.so.11"};

constexpr ToolkitLibrary kCusolverLibrary{
    "cuSOLVER", kCusolverSonames, "SIMT_CUSOLVER_PATH",
    "pip install nvidia-cusolver (CUDA 13) or nvidia-cusolver-cu12, or install the CUDA toolkit"};

// The symbols of the typed routines: one row per SolverRoutine (in its order),
// one column per SolverType (S, D, C, Z).
constexpr const char* kTypedSymbols[][kSolverTypes] = {
    {"cusolverDnSpotrf_bufferSize", "cusolverDnDpotrf_bufferSize", "cusolverDnCpotrf_bufferSize",
     "cusolverDnZpotrf_bufferSize"},
    {"cusolverDnSpotrf", "cusolverDnDpotrf", "cusolverDnCpotrf", "cusolverDnZpotrf"},
    {"cusolverDnSgetrf_bufferSize", "cusolverDnDgetrf_bufferSize", "cusolverDnCgetrf_bufferSize",
     "cusolverDnZgetrf_bufferSize"},
    {"cusolverDnSgetrf", "cusolverDnDgetrf", "cusolverDnCgetrf", "cusolverDnZgetrf"},
    {"cusolverDnSgetrs", "cusolverDnDgetrs", "cusolverDnCgetrs", "cusolverDnZgetrs"},
    {"cusolverDnSgeqrf_bufferSize", "cusolverDnDgeqrf_bufferSize", "cusolverDnCgeqrf_bufferSize",
     "cusolverDnZgeqrf_bufferSize"},
    {"cusolverDnSgeqrf", "cusolverDnDgeqrf", "cusolverDnCgeqrf", "cusolverDnZgeqrf"},
    {"cusolverDnSorgqr_bufferSize", "cusolverDnDorgqr_bufferSize", "cusolverDnCungqr_bufferSize",
     "cusolverDnZungqr_bufferSize"},
    {"cusolverDnSorgqr", "cusolverDnDorgqr", "cusolverDnCungqr", "cusolverDnZungqr"},
    {"cusolverDnSgesvd_bufferSize", "cusolverDnDgesvd_bufferSize", "cusolverDnCgesvd_bufferSize",
     "cusolverDnZgesvd_bufferSize"},
    {"cusolverDnSgesvd", "cusolverDnDgesvd", "cusolverDnCgesvd", "cusolverDnZgesvd"},
    {"cusolverDnSsyevd_bufferSize", "cusolverDnDsyevd_bufferSize", "cusolverDnCheevd_bufferSize",
     "cusolverDnZheevd_bufferSize"},
    {"cusolverDnSsyevd", "cusolverDnDsyevd", "cusolverDnCheevd", "cusolverDnZheevd"},
};
static_assert(std::size(kTypedSymbols) == static_cast<std::size_t>(SolverRoutine::Syevd) + 1,
              "one row of symbols per SolverRoutine");

struct TypeRow {
  cudaDataType data_type;
  SolverType solver_type;
};

constexpr TypeRow kTypes[] = {
    {CUDA_R_32F, SolverType::S},
    {CUDA_R_64F, SolverType::D},
    {CUDA_C_32F, SolverType::C},
    {CUDA_C_64F, SolverType::Z},
};

struct StatusName {
  cusolverStatus_t status;
  const char* name;
};

constexpr StatusName kStatusNames[] = {
    {CUSOLVER_STATUS_SUCCESS, "CUSOLVER_STATUS_SUCCESS"},
    {CUSOLVER_STATUS_NOT_INITIALIZED, "CUSOLVER_STATUS_NOT_INITIALIZED"},
    {CUSOLVER_STATUS_ALLOC_FAILED, "CUSOLVER_STATUS_ALLOC_FAILED (out of device memory)"},
    {CUSOLVER_STATUS_INVALID_VALUE, "CUSOLVER_STATUS_INVALID_VALUE (an argument out of range)"},
    {CUSOLVER_STATUS_ARCH_MISMATCH, "CUSOLVER_STATUS_ARCH_MISMATCH"},
    {CUSOLVER_STATUS_MAPPING_ERROR, "CUSOLVER_STATUS_MAPPING_ERROR"},
    {CUSOLVER_STATUS_EXECUTION_FAILED, "CUSOLVER_STATUS_EXECUTION_FAILED"},
    {CUSOLVER_STATUS_INTERNAL_ERROR, "CUSOLVER_STATUS_INTERNAL_ERROR"},
    {CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED, "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED"},
    {CUSOLVER_STATUS_NOT_SUPPORTED, "CUSOLVER_STATUS_NOT_SUPPORTED"},
    {CUSOLVER_STATUS_ZERO_PIVOT, "CUSOLVER_STATUS_ZERO_PIVOT"},
    {CUSOLVER_STATUS_INVALID_LICENSE, "CUSOLVER_STATUS_INVALID_LICENSE"},
    {CUSOLVER_STATUS_INVALID_WORKSPACE, "CUSOLVER_STATUS_INVALID_WORKSPACE"},
};

template <class F>
void require_typed(const runtime::SharedLibrary& library, SolverRoutine routine, ByType<F>& table) {
  for (std::size_t t = 0; t < kSolverTypes; ++t) {
    table[t] = library.require<F>(cusolver_symbol(routine, static_cast<SolverType>(t)));
  }
}

// cuSOLVER's typed API takes int sizes; simt's are 64-bit.
int to_int(int64_t value, const char* what) {
  if (value < 0 || value > INT_MAX) {
    throw std::invalid_argument(std::string("cuSOLVER: ") + what + " = " + std::to_string(value) +
                                " is outside its 32-bit API's range (0 to " +
                                std::to_string(INT_MAX) + ")");
  }
  return static_cast<int>(value);
}

constexpr auto kCusolverEntries = std::tuple{
    SIMT_LIBRARY_ENTRY(CusolverFunctions, cusolverDnCreate),
    SIMT_LIBRARY_ENTRY(CusolverFunctions, cusolverDnDestroy),
    SIMT_LIBRARY_ENTRY(CusolverFunctions, cusolverDnSetStream),
    SIMT_LIBRARY_ENTRY(CusolverFunctions, cusolverGetProperty),
};

}  // namespace

SolverType solver_type(cudaDataType type) {
  for (const TypeRow& row : kTypes)
    if (row.data_type == type) return row.solver_type;
  throw std::invalid_argument("cuSOLVER: unsupported element type " + std::to_string(type) +
                              " (float32, float64, complex64 and complex128 are)");
}

const char* cusolver_symbol(SolverRoutine routine, SolverType type) {
  return kTypedSymbols[static_cast<std::size_t>(routine)][static_cast<std::size_t>(type)];
}

std::string cusolver_status_name(cusolverStatus_t status) {
  for (const StatusName& row : kStatusNames)
    if (row.status == status) return row.name;
  return "CUSOLVER_STATUS_" + std::to_string(static_cast<int>(status));
}

Cusolver::Cusolver(runtime::SharedLibrary library, const CusolverFunctions& functions)
    : library_(std::move(library)),
      fn_(functions),
      version_(property_version(fn_.cusolverGetProperty)) {}

std::unique_ptr<Cusolver> Cusolver::load(std::string* why_not) {
  auto loaded = load_toolkit_library<CusolverFunctions>(
      kCusolverLibrary, kCusolverEntries,
      [](const runtime::SharedLibrary& library, CusolverFunctions& fn) {
        require_typed(library, SolverRoutine::PotrfBufferSize, fn.potrf_bufferSize);
        require_typed(library, SolverRoutine::Potrf, fn.potrf);
        require_typed(library, SolverRoutine::GetrfBufferSize, fn.getrf_bufferSize);
        require_typed(library, SolverRoutine::Getrf, fn.getrf);
        require_typed(library, SolverRoutine::Getrs, fn.getrs);
        require_typed(library, SolverRoutine::GeqrfBufferSize, fn.geqrf_bufferSize);
        require_typed(library, SolverRoutine::Geqrf, fn.geqrf);
        require_typed(library, SolverRoutine::OrgqrBufferSize, fn.orgqr_bufferSize);
        require_typed(library, SolverRoutine::Orgqr, fn.orgqr);
        require_typed(library, SolverRoutine::GesvdBufferSize, fn.gesvd_bufferSize);
        require_typed(library, SolverRoutine::Gesvd, fn.gesvd);
        require_typed(library, SolverRoutine::SyevdBufferSize, fn.syevd_bufferSize);
        require_typed(library, SolverRoutine::Syevd, fn.syevd);
      },
      why_not);
  if (!loaded) return nullptr;
  return std::unique_ptr<Cusolver>(new Cusolver(std::move(loaded->library), loaded->fn));
}

const Cusolver* Cusolver::get(std::string* why_not) {
  return runtime::load_once<Cusolver>(why_not);
}

CusolverHandle::CusolverHandle(const Cusolver& cusolver,
                               std::shared_ptr<const PrimaryContext> context)
    : cusolver_(cusolver), context_(std::move(context)) {
  context_->make_current();
  check(cusolver_.fn().cusolverDnCreate(&handle_), "cusolverDnCreate");
}

CusolverHandle::~CusolverHandle() {
  // Errors are ignored: nothing can be done about them in a destructor.
  context_->make_current_noexcept();
  cusolver_.fn().cusolverDnDestroy(handle_);
}

void CusolverHandle::check(cusolverStatus_t status, const char* call) const {
  if (status != CUSOLVER_STATUS_SUCCESS) {
    throw runtime::DeviceError(std::string(call) + " failed on " + context_->label() + ": " +
                               cusolver_status_name(status) + " [" + cusolver_.library_path() +
                               "]");
  }
}

template <class F, class... Args>
void CusolverHandle::call(const ByType<F>& table, SolverRoutine routine, SolverType type,
                          Args... args) const {
  context_->make_current();
  check(table.at(static_cast<std::size_t>(type))(handle_, args...), cusolver_symbol(routine, type));
}

template <class F, class... Args>
void CusolverHandle::call_on(CUstream stream, const ByType<F>& table, SolverRoutine routine,
                             SolverType type, Args... args) const {
  context_->make_current();
  check(cusolver_.fn().cusolverDnSetStream(handle_, stream), "cusolverDnSetStream");
  call(table, routine, type, args...);
}

int CusolverHandle::potrf_buffer_size(SolverType type, cublasFillMode_t uplo, int64_t n, void* a,
                                      int64_t lda) const {
  int lwork = 0;
  call(cusolver_.fn().potrf_bufferSize, SolverRoutine::PotrfBufferSize, type, uplo, to_int(n, "n"),
       a, to_int(lda, "lda"), &lwork);
  return lwork;
}

void CusolverHandle::potrf(SolverType type, cublasFillMode_t uplo, int64_t n, void* a, int64_t lda,
                           void* work, int64_t lwork, int* info, CUstream stream) const {
  call_on(stream, cusolver_.fn().potrf, SolverRoutine::Potrf, type, uplo, to_int(n, "n"), a,
          to_int(lda, "lda"), work, to_int(lwork, "lwork"), info);
}

int CusolverHandle::getrf_buffer_size(SolverType type, int64_t m, int64_t n, void* a,
                                      int64_t lda) const {
  int lwork = 0;
  call(cusolver_.fn().getrf_bufferSize, SolverRoutine::GetrfBufferSize, type, to_int(m, "m"),
       to_int(n, "n"), a, to_int(lda, "lda"), &lwork);
  return lwork;
}

void CusolverHandle::getrf(SolverType type, int64_t m, int64_t n, void* a, int64_t lda, void* work,
                           int* ipiv, int* info, CUstream stream) const {
  call_on(stream, cusolver_.fn().getrf, SolverRoutine::Getrf, type, to_int(m, "m"), to_int(n, "n"),
          a, to_int(lda, "lda"), work, ipiv, info);
}

void CusolverHandle::getrs(SolverType type, cublasOperation_t trans, int64_t n, int64_t nrhs,
                           const void* a, int64_t lda, const int* ipiv, void* b, int64_t ldb,
                           int* info, CUstream stream) const {
  call_on(stream, cusolver_.fn().getrs, SolverRoutine::Getrs, type, trans, to_int(n, "n"),
          to_int(nrhs, "nrhs"), a, to_int(lda, "lda"), ipiv, b, to_int(ldb, "ldb"), info);
}

int CusolverHandle::geqrf_buffer_size(SolverType type, int64_t m, int64_t n, void* a,
                                      int64_t lda) const {
  int lwork = 0;
  call(cusolver_.fn().geqrf_bufferSize, SolverRoutine::GeqrfBufferSize, type, to_int(m, "m"),
       to_int(n, "n"), a, to_int(lda, "lda"), &lwork);
  return lwork;
}

void CusolverHandle::geqrf(SolverType type, int64_t m, int64_t n, void* a, int64_t lda, void* tau,
                           void* work, int64_t lwork, int* info, CUstream stream) const {
  call_on(stream, cusolver_.fn().geqrf, SolverRoutine::Geqrf, type, to_int(m, "m"), to_int(n, "n"),
          a, to_int(lda, "lda"), tau, work, to_int(lwork, "lwork"), info);
}

int CusolverHandle::orgqr_buffer_size(SolverType type, int64_t m, int64_t n, int64_t k,
                                      const void* a, int64_t lda, const void* tau) const {
  int lwork = 0;
  call(cusolver_.fn().orgqr_bufferSize, SolverRoutine::OrgqrBufferSize, type, to_int(m, "m"),
       to_int(n, "n"), to_int(k, "k"), a, to_int(lda, "lda"), tau, &lwork);
  return lwork;
}

void CusolverHandle::orgqr(SolverType type, int64_t m, int64_t n, int64_t k, void* a, int64_t lda,
                           const void* tau, void* work, int64_t lwork, int* info,
                           CUstream stream) const {
  call_on(stream, cusolver_.fn().orgqr, SolverRoutine::Orgqr, type, to_int(m, "m"), to_int(n, "n"),
          to_int(k, "k"), a, to_int(lda, "lda"), tau, work, to_int(lwork, "lwork"), info);
}

int CusolverHandle::gesvd_buffer_size(SolverType type, int64_t m, int64_t n) const {
  int lwork = 0;
  call(cusolver_.fn().gesvd_bufferSize, SolverRoutine::GesvdBufferSize, type, to_int(m, "m"),
       to_int(n, "n"), &lwork);
  return lwork;
}

void CusolverHandle::gesvd(SolverType type, char jobu, char jobvt, int64_t m, int64_t n, void* a,
                           int64_t lda, void* s, void* u, int64_t ldu, void* vt, int64_t ldvt,
                           void* work, int64_t lwork, void* rwork, int* info,
                           CUstream stream) const {
  call_on(stream, cusolver_.fn().gesvd, SolverRoutine::Gesvd, type, static_cast<signed char>(jobu),
          static_cast<signed char>(jobvt), to_int(m, "m"), to_int(n, "n"), a, to_int(lda, "lda"), s,
          u, to_int(ldu, "ldu"), vt, to_int(ldvt, "ldvt"), work, to_int(lwork, "lwork"), rwork,
          info);
}

int CusolverHandle::syevd_buffer_size(SolverType type, cusolverEigMode_t jobz,
                                      cublasFillMode_t uplo, int64_t n, const void* a, int64_t lda,
                                      const void* w) const {
  int lwork = 0;
  call(cusolver_.fn().syevd_bufferSize, SolverRoutine::SyevdBufferSize, type, jobz, uplo,
       to_int(n, "n"), a, to_int(lda, "lda"), w, &lwork);
  return lwork;
}

void CusolverHandle::syevd(SolverType type, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                           int64_t n, void* a, int64_t lda, void* w, void* work, int64_t lwork,
                           int* info, CUstream stream) const {
  call_on(stream, cusolver_.fn().syevd, SolverRoutine::Syevd, type, jobz, uplo, to_int(n, "n"), a,
          to_int(lda, "lda"), w, work, to_int(lwork, "lwork"), info);
}

}  // namespace simt::cuda
