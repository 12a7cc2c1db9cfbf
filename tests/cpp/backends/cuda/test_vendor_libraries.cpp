// The loaders of cuBLAS and cuFFT (and the toolkit search they share with
// NVRTC). Needs no GPU: the libraries load, and answer their version, on any
// machine; every entry point simt declares must resolve. Skipped, with the
// reason, where the libraries are not installed.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "backends/cuda/cublas.h"
#include "backends/cuda/cuda_library_search.h"
#include "backends/cuda/cufft.h"

namespace {

using simt::cuda::Cublas;
using simt::cuda::Cufft;

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

TEST(VendorLibraries, ProcessWideInstancesAgreeWithLoad) {
  std::string reason;
  const Cublas* cublas = Cublas::get(&reason);
  if (cublas == nullptr) GTEST_SKIP() << "cuBLAS unavailable: " << reason;
  EXPECT_EQ(Cublas::get(nullptr), cublas);  // loaded once
  const Cufft* cufft = Cufft::get(&reason);
  if (cufft == nullptr) GTEST_SKIP() << "cuFFT unavailable: " << reason;
  EXPECT_EQ(Cufft::get(nullptr), cufft);
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
