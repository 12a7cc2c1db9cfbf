// The loaders of cuBLAS, cuFFT and cuSOLVER (and the toolkit search they
// share with NVRTC). Needs no GPU: the libraries load, and answer their version, on any
// machine; every entry point simt declares must resolve. Skipped, with the
// reason, where the libraries are not installed.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "backends/cuda/cublas.h"
#include "backends/cuda/cuda_library_search.h"
#include "backends/cuda/cufft.h"
#include "backends/cuda/cusolver.h"

namespace {

using simt::cuda::Cublas;
using simt::cuda::Cufft;
using simt::cuda::Cusolver;
using simt::cuda::SolverRoutine;
using simt::cuda::SolverType;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    setenv(name, value, 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (previous_) {
      setenv(name_, previous_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

// Every member of a functions table is non-null (load() requires them all).
template <class Functions>
void expect_all_resolved(const Functions& fn) {
  constexpr std::size_t count = sizeof(Functions) / sizeof(void*);
  const auto* slots = reinterpret_cast<void* const*>(&fn);
  for (std::size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "entry " << i;
}

TEST(VendorLibraries, CublasLoadsAndResolvesEverySymbol) {
  std::string reason;
  std::unique_ptr<Cublas> cublas = Cublas::load(&reason);
  if (!cublas) GTEST_SKIP() << "cuBLAS unavailable: " << reason;
  expect_all_resolved(cublas->fn());
  EXPECT_NE(cublas->library_path().find("libcublas.so"), std::string::npos);
  // CUDA 12 and 13 ship cuBLAS 12 and 13.
  EXPECT_TRUE(cublas->version().starts_with("12.") || cublas->version().starts_with("13."))
      << cublas->version();
  EXPECT_EQ(cublas->describe(simt::cuda::CUBLAS_STATUS_INVALID_VALUE)
                .rfind("CUBLAS_STATUS_INVALID_VALUE", 0),
            0u);
}

TEST(VendorLibraries, CufftLoadsAndResolvesEverySymbol) {
  std::string reason;
  std::unique_ptr<Cufft> cufft = Cufft::load(&reason);
  if (!cufft) GTEST_SKIP() << "cuFFT unavailable: " << reason;
  expect_all_resolved(cufft->fn());
  EXPECT_NE(cufft->library_path().find("libcufft.so"), std::string::npos);
  EXPECT_TRUE(cufft->version().starts_with("11.") || cufft->version().starts_with("12."))
      << cufft->version();
}

TEST(VendorLibraries, CusolverLoadsAndResolvesEverySymbol) {
  std::string reason;
  std::unique_ptr<Cusolver> cusolver = Cusolver::load(&reason);
  if (!cusolver) GTEST_SKIP() << "cuSOLVER unavailable: " << reason;
  expect_all_resolved(cusolver->fn());
  EXPECT_NE(cusolver->library_path().find("libcusolver.so"), std::string::npos);
  // CUDA 12 and 13 ship cuSOLVER 11 and 12.
  EXPECT_TRUE(cusolver->version().starts_with("11.") || cusolver->version().starts_with("12."))
      << cusolver->version();
}

TEST(VendorLibraries, CusolverSymbolTableNamesEachTypedRoutine) {
  // The table's rows follow SolverRoutine and its columns S, D, C, Z: each name
  // is cusolverDn, the type's letter, the routine (orgqr and syevd are LAPACK's
  // ungqr and heevd for complex types).
  struct Row {
    SolverRoutine routine;
    const char* real;     // the routine's name for S and D
    const char* complex;  // and for C and Z
  };
  const Row rows[] = {
      {SolverRoutine::PotrfBufferSize, "potrf_bufferSize", "potrf_bufferSize"},
      {SolverRoutine::Potrf, "potrf", "potrf"},
      {SolverRoutine::GetrfBufferSize, "getrf_bufferSize", "getrf_bufferSize"},
      {SolverRoutine::Getrf, "getrf", "getrf"},
      {SolverRoutine::Getrs, "getrs", "getrs"},
      {SolverRoutine::GeqrfBufferSize, "geqrf_bufferSize", "geqrf_bufferSize"},
      {SolverRoutine::Geqrf, "geqrf", "geqrf"},
      {SolverRoutine::OrgqrBufferSize, "orgqr_bufferSize", "ungqr_bufferSize"},
      {SolverRoutine::Orgqr, "orgqr", "ungqr"},
      {SolverRoutine::GesvdBufferSize, "gesvd_bufferSize", "gesvd_bufferSize"},
      {SolverRoutine::Gesvd, "gesvd", "gesvd"},
      {SolverRoutine::SyevdBufferSize, "syevd_bufferSize", "heevd_bufferSize"},
      {SolverRoutine::Syevd, "syevd", "heevd"},
  };
  const char letters[] = {'S', 'D', 'C', 'Z'};
  std::set<std::string> seen;
  for (const Row& row : rows) {
    for (int t = 0; t < 4; ++t) {
      std::string want = std::string("cusolverDn") + letters[t] + (t < 2 ? row.real : row.complex);
      std::string got = simt::cuda::cusolver_symbol(row.routine, static_cast<SolverType>(t));
      EXPECT_EQ(got, want);
      seen.insert(got);
    }
  }
  EXPECT_EQ(seen.size(), std::size(rows) * 4);
}

TEST(VendorLibraries, CusolverTypesAreTheFourLapackTypes) {
  using simt::cuda::solver_type;
  EXPECT_EQ(solver_type(simt::cuda::CUDA_R_32F), SolverType::S);
  EXPECT_EQ(solver_type(simt::cuda::CUDA_R_64F), SolverType::D);
  EXPECT_EQ(solver_type(simt::cuda::CUDA_C_32F), SolverType::C);
  EXPECT_EQ(solver_type(simt::cuda::CUDA_C_64F), SolverType::Z);
  EXPECT_THROW(solver_type(simt::cuda::CUDA_R_16F), std::invalid_argument);
  EXPECT_EQ(simt::cuda::cusolver_status_name(simt::cuda::CUSOLVER_STATUS_INVALID_VALUE)
                .rfind("CUSOLVER_STATUS_INVALID_VALUE", 0),
            0u);
  EXPECT_EQ(simt::cuda::cusolver_status_name(static_cast<simt::cuda::cusolverStatus_t>(99)),
            "CUSOLVER_STATUS_99");
}

TEST(VendorLibraries, ProcessWideInstancesAgreeWithLoad) {
  std::string reason;
  const Cublas* cublas = Cublas::get(&reason);
  if (cublas == nullptr) GTEST_SKIP() << "cuBLAS unavailable: " << reason;
  EXPECT_EQ(Cublas::get(nullptr), cublas);  // loaded once
  const Cufft* cufft = Cufft::get(&reason);
  if (cufft == nullptr) GTEST_SKIP() << "cuFFT unavailable: " << reason;
  EXPECT_EQ(Cufft::get(nullptr), cufft);
  const Cusolver* cusolver = Cusolver::get(&reason);
  if (cusolver == nullptr) GTEST_SKIP() << "cuSOLVER unavailable: " << reason;
  EXPECT_EQ(Cusolver::get(nullptr), cusolver);
}

TEST(VendorLibraries, ExplicitPathIsTheOnlyOneTried) {
  ScopedEnv path("SIMT_CUBLAS_PATH", "/nonexistent/libcublas.so.13");
  std::string reason;
  EXPECT_EQ(Cublas::load(&reason), nullptr);
  EXPECT_NE(reason.find("SIMT_CUBLAS_PATH=/nonexistent/libcublas.so.13"), std::string::npos)
      << reason;
  ScopedEnv fft_path("SIMT_CUFFT_PATH", "/nonexistent/libcufft.so.12");
  EXPECT_EQ(Cufft::load(&reason), nullptr);
  EXPECT_NE(reason.find("SIMT_CUFFT_PATH="), std::string::npos) << reason;
  ScopedEnv solver_path("SIMT_CUSOLVER_PATH", "/nonexistent/libcusolver.so.12");
  EXPECT_EQ(Cusolver::load(&reason), nullptr);
  EXPECT_NE(reason.find("SIMT_CUSOLVER_PATH=/nonexistent/libcusolver.so.12"), std::string::npos)
      << reason;
}

TEST(VendorLibraries, NotFoundNamesTheSearchedDirectories) {
  // Nothing named like this exists anywhere: the reason lists each directory.
  constexpr const char* kSonames[] = {"libsimt_no_such_library.so.99"};
  simt::cuda::ToolkitLibrary missing{"NoSuch", kSonames, "SIMT_NO_SUCH_PATH",
                                     "nothing provides it"};
  ScopedEnv home("CUDA_HOME", "/nonexistent-cuda-home");
  std::string reason;
  EXPECT_FALSE(simt::cuda::open_toolkit_library(missing, &reason).has_value());
  EXPECT_NE(reason.find("NoSuch not found (nothing provides it"), std::string::npos) << reason;
  EXPECT_NE(reason.find("no libsimt_no_such_library.so* in: /nonexistent-cuda-home/lib64"),
            std::string::npos)
      << reason;
}

TEST(VendorLibraries, CandidatesComeFromCudaHomeFirst) {
  ScopedEnv home("CUDA_HOME", "/usr/local/cuda");
  constexpr const char* kSonames[] = {"libcublas.so.13"};
  std::vector<std::string> candidates = simt::cuda::toolkit_library_candidates(kSonames, nullptr);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.back(), "libcublas.so.13");  // the loader's own search comes last
  if (candidates.size() > 1) {
    EXPECT_EQ(candidates.front(), "/usr/local/cuda/lib64/libcublas.so.13");
  }
}

}  // namespace
