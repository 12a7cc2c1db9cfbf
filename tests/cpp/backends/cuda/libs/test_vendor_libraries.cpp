// The loaders of cuBLAS, cuFFT and cuSOLVER (and the toolkit search and loading shape
// they share with NVRTC, tried on libm where no toolkit is installed). Needs no GPU: the libraries
// load, and answer their version, on any machine; every entry point simt declares must resolve.
// Skipped, with the reason, where the libraries are not installed.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "backends/cuda/libs/cublas.h"
#include "backends/cuda/libs/cufft.h"
#include "backends/cuda/libs/cusolver.h"
#include "backends/cuda/libs/toolkit_library.h"
#include "support/scoped_env.h"

namespace {

using simt::cuda::Cublas;
using simt::cuda::Cufft;
using simt::cuda::Cusolver;
using simt::cuda::SolverRoutine;
using simt::cuda::SolverType;

using simt::test_support::ScopedEnv;

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

// A function table as the toolkit libraries' are, over libm, which every machine has.
struct MathFunctions {
  double (*cos)(double) = nullptr;
  double (*sin)(double) = nullptr;
};

constexpr const char* kLibmSonames[] = {"libm.so.6"};
constexpr simt::cuda::ToolkitLibrary kLibm{"libm", kLibmSonames, "SIMT_TEST_LIBM_PATH",
                                           "install glibc"};
constexpr auto kMathEntries =
    std::tuple{SIMT_LIBRARY_ENTRY(MathFunctions, cos), SIMT_LIBRARY_ENTRY(MathFunctions, sin)};

TEST(ToolkitLibrary, FillsTheTableFromItsNames) {
  std::string why;
  auto loaded = simt::cuda::load_toolkit_library<MathFunctions>(kLibm, kMathEntries, &why);
  ASSERT_TRUE(loaded) << why;
  EXPECT_EQ(loaded->fn.cos(0.0), 1.0);
  EXPECT_EQ(loaded->fn.sin(0.0), 0.0);
}

TEST(ToolkitLibrary, MoreFillsWhatNamesCannotList) {
  std::string why;
  auto loaded = simt::cuda::load_toolkit_library<MathFunctions>(
      kLibm, std::tuple{SIMT_LIBRARY_ENTRY(MathFunctions, cos)},
      [](const simt::runtime::SharedLibrary& library, MathFunctions& fn) {
        fn.sin = library.require<double (*)(double)>("sin");
      },
      &why);
  ASSERT_TRUE(loaded) << why;
  EXPECT_EQ(loaded->fn.sin(0.0), 0.0);
}

TEST(ToolkitLibrary, AMissingSymbolMakesTheLibraryUnusable) {
  struct Table {
    void (*simt_no_such_function)() = nullptr;
  };
  std::string why;
  EXPECT_FALSE(simt::cuda::load_toolkit_library<Table>(
      kLibm, std::tuple{SIMT_LIBRARY_ENTRY(Table, simt_no_such_function)}, &why));
  EXPECT_TRUE(why.starts_with("unusable libm: ")) << why;
  EXPECT_NE(why.find("simt_no_such_function"), std::string::npos) << why;
}

TEST(ToolkitLibrary, AnExplicitPathIsTheOnlyOneTried) {
  ScopedEnv path("SIMT_TEST_LIBM_PATH", "/nonexistent/libm.so.6");
  std::string why;
  EXPECT_FALSE(simt::cuda::load_toolkit_library<MathFunctions>(kLibm, kMathEntries, &why));
  EXPECT_TRUE(why.starts_with("SIMT_TEST_LIBM_PATH=/nonexistent/libm.so.6 could not be loaded"))
      << why;
}

int fake_property(simt::cuda::libraryPropertyType type, int* value) {
  *value = 10 + static_cast<int>(type);
  return 0;
}

TEST(ToolkitLibrary, VersionFromGetProperty) {
  EXPECT_EQ(simt::cuda::property_version(&fake_property), "10.11.12");
}

}  // namespace
