// NVRTC loader and compile path, plus the SharedLibrary wrapper it rests on.
// Needs no GPU: NVRTC compiles for any architecture on any machine.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/nvrtc.h"
#include "runtime/shared_library.h"
#include "support/scoped_env.h"

namespace {

using simt::cuda::CompileResult;
using simt::cuda::kToolkitIncludesOption;
using simt::cuda::Nvrtc;
using simt::runtime::SharedLibrary;

using simt::test_support::ScopedEnv;

const Nvrtc* nvrtc_or_skip_reason(std::string* reason) { return Nvrtc::get(reason); }

#define REQUIRE_NVRTC(var)                                \
  std::string nvrtc_reason;                               \
  const Nvrtc* var = nvrtc_or_skip_reason(&nvrtc_reason); \
  if (var == nullptr) GTEST_SKIP() << "NVRTC unavailable: " << nvrtc_reason

constexpr const char* kSaxpy = R"(extern "C" __global__ void saxpy(float a, const float* x,
                                                                     float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// ---- SharedLibrary ----

TEST(SharedLibrary, MissingLibraryNamesEveryCandidate) {
  std::string why_not;
  auto library = SharedLibrary::open_first(
      {"libsimt_does_not_exist_1.so", "/nonexistent/dir/libsimt_does_not_exist_2.so"}, &why_not);
  EXPECT_FALSE(library.has_value());
  EXPECT_NE(why_not.find("libsimt_does_not_exist_1.so"), std::string::npos) << why_not;
  EXPECT_NE(why_not.find("/nonexistent/dir/libsimt_does_not_exist_2.so"), std::string::npos)
      << why_not;
}

TEST(SharedLibrary, EmptyCandidateListHasAReason) {
  std::string why_not;
  EXPECT_FALSE(SharedLibrary::open_first({}, &why_not).has_value());
  EXPECT_FALSE(why_not.empty());
}

TEST(SharedLibrary, FindsCosInLibm) {
  std::string why_not;
  auto libm = SharedLibrary::open_first({"libm.so.6", "libm.so"}, &why_not);
  ASSERT_TRUE(libm.has_value()) << why_not;
  auto cosine = libm->symbol<double (*)(double)>("cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(libm->name(), "libm.so.6");
  EXPECT_EQ(libm->path().front(), '/') << "soname should resolve to a file: " << libm->path();
}

TEST(SharedLibrary, AbsentSymbolIsNullAndRequireThrowsWithNames) {
  std::string why_not;
  auto libm = SharedLibrary::open_first({"libm.so.6", "libm.so"}, &why_not);
  ASSERT_TRUE(libm.has_value()) << why_not;
  EXPECT_EQ(libm->symbol<void (*)()>("simt_no_such_symbol"), nullptr);
  try {
    libm->require<void (*)()>("simt_no_such_symbol");
    FAIL() << "require() should throw for a missing symbol";
  } catch (const std::runtime_error& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("simt_no_such_symbol"), std::string::npos) << message;
    EXPECT_NE(message.find(libm->path()), std::string::npos) << message;
  }
}

TEST(SharedLibrary, MoveTransfersOwnership) {
  std::string why_not;
  auto libm = SharedLibrary::open("libm.so.6", &why_not);
  ASSERT_TRUE(libm.has_value()) << why_not;
  SharedLibrary moved = std::move(*libm);
  EXPECT_NE(moved.symbol<double (*)(double)>("cos"), nullptr);
  EXPECT_EQ(libm->symbol<double (*)(double)>("cos"), nullptr);  // NOLINT(bugprone-use-after-move)
}

// ---- NVRTC loading ----

TEST(Nvrtc, ExplicitMissingPathIsReported) {
  ScopedEnv env("SIMT_NVRTC_PATH", "/nonexistent/simt-test/libnvrtc.so.99");
  std::string why_not;
  auto nvrtc = Nvrtc::load(&why_not);
  EXPECT_EQ(nvrtc, nullptr);
  EXPECT_NE(why_not.find("SIMT_NVRTC_PATH"), std::string::npos) << why_not;
  EXPECT_NE(why_not.find("/nonexistent/simt-test/libnvrtc.so.99"), std::string::npos) << why_not;
}

TEST(Nvrtc, ExplicitPathToTheFoundLibraryLoads) {
  REQUIRE_NVRTC(nvrtc);
  ScopedEnv env("SIMT_NVRTC_PATH", nvrtc->library_path().c_str());
  std::string why_not;
  auto reloaded = Nvrtc::load(&why_not);
  ASSERT_NE(reloaded, nullptr) << why_not;
  EXPECT_EQ(reloaded->library_path(), nvrtc->library_path());
}

TEST(Nvrtc, NonLibraryFileIsReportedNotFatal) {
  // A file that exists but is not a shared object: dlopen's complaint must
  // come back as a reason.
  ScopedEnv env("SIMT_NVRTC_PATH", "/etc/hostname");
  std::string why_not;
  EXPECT_EQ(Nvrtc::load(&why_not), nullptr);
  EXPECT_NE(why_not.find("/etc/hostname"), std::string::npos) << why_not;
}

TEST(Nvrtc, SearchDirectoriesAreUsed) {
  REQUIRE_NVRTC(nvrtc);
  // Point every earlier location elsewhere; only SIMT_NVRTC_SEARCH_DIRS (or the
  // loader's own path) can then supply the library.
  const std::string& path = nvrtc->library_path();
  std::string directory = path.substr(0, path.find_last_of('/'));
  ScopedEnv no_explicit("SIMT_NVRTC_PATH", nullptr);
  ScopedEnv home("CUDA_HOME", "/nonexistent/cuda-home");
  ScopedEnv cuda_path("CUDA_PATH", "/nonexistent/cuda-path");
  ScopedEnv dirs("SIMT_NVRTC_SEARCH_DIRS", ("/nonexistent/a:" + directory).c_str());
  std::string why_not;
  auto reloaded = Nvrtc::load(&why_not);
  ASSERT_NE(reloaded, nullptr) << why_not;
}

TEST(Nvrtc, SearchDirectoriesComeBeforeUsrLocalCuda) {
  // A directory shaped like the nvidia-cuda-nvrtc wheel's lib/ (the Python package lists
  // those in SIMT_NVRTC_SEARCH_DIRS) comes before /usr/local/cuda/lib64: the environment's
  // wheels before the machine's toolkit. (Candidates, not a load: this process has
  // loaded an NVRTC already, and dlopen would hand that back for the same file.)
  char pattern[] = "/tmp/simt-nvrtc-wheel-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string directory = pattern;
  const std::string wheel_nvrtc = directory + "/libnvrtc.so.13";
  {
    std::FILE* file = std::fopen(wheel_nvrtc.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fclose(file);
  }
  ScopedEnv home("CUDA_HOME", nullptr);
  ScopedEnv cuda_path("CUDA_PATH", nullptr);
  ScopedEnv dirs("SIMT_NVRTC_SEARCH_DIRS", ("/nonexistent/a:" + directory).c_str());
  std::string without;
  std::vector<std::string> candidates = Nvrtc::search_candidates(&without);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), wheel_nvrtc);
  EXPECT_EQ(candidates.back(), "libnvrtc.so") << "the loader's own search comes last";
  EXPECT_NE(without.find("/nonexistent/a"), std::string::npos) << without;
  unlink(wheel_nvrtc.c_str());
  rmdir(directory.c_str());
}

TEST(Nvrtc, VersionIsAtLeast12) {
  REQUIRE_NVRTC(nvrtc);
  auto [major, minor] = nvrtc->version();
  EXPECT_GE(major, 12) << "NVRTC " << major << "." << minor << " at " << nvrtc->library_path();
  EXPECT_GE(minor, 0);
}

TEST(Nvrtc, SupportedArchsIncludeHopper) {
  REQUIRE_NVRTC(nvrtc);
  std::vector<int> archs = nvrtc->supported_archs();
  ASSERT_FALSE(archs.empty());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
  EXPECT_TRUE(std::is_sorted(archs.begin(), archs.end()));
}

TEST(Nvrtc, ErrorStringNamesTheCode) {
  REQUIRE_NVRTC(nvrtc);
  EXPECT_STREQ(nvrtc->error_string(simt::cuda::NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
}

// ---- NVRTC compiling ----

TEST(Nvrtc, CompilesKernelToCubinForSm90) {
  REQUIRE_NVRTC(nvrtc);
  CompileResult result = nvrtc->compile(kSaxpy, "saxpy.cu", 9, 0, {}, /*want_cubin=*/true);
  ASSERT_TRUE(result.ok) << result.log;
  ASSERT_GE(result.cubin.size(), 4u);
  EXPECT_EQ(result.cubin.substr(0, 4), std::string("\x7f"
                                                   "ELF",
                                                   4));
  // extern "C" keeps the symbol name unmangled, as the driver will look it up.
  EXPECT_NE(result.cubin.find("saxpy"), std::string::npos);
  // NVRTC 12+/13 also hand out the PTX of an sm_XY compile.
  if (!result.ptx.empty()) {
    EXPECT_NE(result.ptx.find(".target sm_90"), std::string::npos);
  }
}

TEST(Nvrtc, CompilesKernelToPtxForCompute90) {
  REQUIRE_NVRTC(nvrtc);
  CompileResult result = nvrtc->compile(kSaxpy, "saxpy.cu", 9, 0, {}, /*want_cubin=*/false);
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_TRUE(result.cubin.empty());
  EXPECT_NE(result.ptx.find(".entry saxpy"), std::string::npos) << result.ptx;
  EXPECT_NE(result.ptx.find(".target sm_90"), std::string::npos) << result.ptx;
}

TEST(Nvrtc, CompileErrorNamesTheLine) {
  REQUIRE_NVRTC(nvrtc);
  constexpr const char* kBroken =
      "extern \"C\" __global__ void broken(float* x) {\n"
      "  int i = threadIdx.x;\n"
      "  x[i] = undeclared_name * 2.0f;\n"
      "}\n";
  CompileResult result = nvrtc->compile(kBroken, "broken.cu", 9, 0, {}, true);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.cubin.empty());
  EXPECT_NE(result.log.find("broken.cu(3)"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("undeclared_name"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << result.log;
}

TEST(Nvrtc, InvalidOptionIsAFailedResultNotAnException) {
  REQUIRE_NVRTC(nvrtc);
  CompileResult result = nvrtc->compile(kSaxpy, "saxpy.cu", 9, 0, {"--simt-bogus-option"}, true);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos) << result.log;
}

TEST(Nvrtc, CallerStdOptionReplacesTheDefault) {
  REQUIRE_NVRTC(nvrtc);
  // Passing -std twice would be rejected by NVRTC, so success shows that the
  // caller's choice replaced the default. The kernel needs C++20 (consteval).
  constexpr const char* kCpp20 =
      "__device__ consteval int twice(int v) { return 2 * v; }\n"
      "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = twice(21); }\n";
  CompileResult result = nvrtc->compile(kCpp20, "cpp20.cu", 9, 0, {"-std=c++20"}, true);
  EXPECT_TRUE(result.ok) << result.log;
  CompileResult default_std = nvrtc->compile(kCpp20, "cpp20.cu", 9, 0, {}, true);
  EXPECT_FALSE(default_std.ok) << "consteval should need more than the default -std=c++17";
}

TEST(Nvrtc, ToolkitIncludesOnRequest) {
  REQUIRE_NVRTC(nvrtc);
  if (!nvrtc->toolkit_include_dir()) {
    GTEST_SKIP() << "no include directory next to " << nvrtc->library_path();
  }
  constexpr const char* kWithHeader =
      "#include <vector_types.h>\n"
      "extern \"C\" __global__ void k(float2* x) { x[threadIdx.x] = make_float2(1.f, 2.f); }\n";
  // (Without the option NVRTC 13 fails with "could not open source file": it
  // searches no directories by default.)
  CompileResult with =
      nvrtc->compile(kWithHeader, "hdr.cu", 9, 0, {std::string(kToolkitIncludesOption)}, true);
  EXPECT_TRUE(with.ok) << with.log;
}

TEST(Nvrtc, ToolkitIncludesHaveCccl) {
  REQUIRE_NVRTC(nvrtc);
  std::optional<std::string> include = nvrtc->toolkit_include_dir();
  if (!include || access((*include + "/cccl/cuda/std/cstdint").c_str(), F_OK) != 0) {
    GTEST_SKIP() << "no CUDA 13 include/cccl next to " << nvrtc->library_path();
  }
  // CUDA 13 moved CCCL (libcu++, CUB, Thrust) to include/cccl, toolkit and wheels alike.
  constexpr const char* kWithCccl =
      "#include <cuda/std/cstdint>\n"
      "extern \"C\" __global__ void k(cuda::std::int64_t* x) { x[threadIdx.x] = 1; }\n";
  CompileResult with =
      nvrtc->compile(kWithCccl, "cccl.cu", 9, 0, {std::string(kToolkitIncludesOption)}, true);
  EXPECT_TRUE(with.ok) << with.log;
}

TEST(Nvrtc, ConcurrentCompilesSucceed) {
  REQUIRE_NVRTC(nvrtc);
  // The runtime may compile several specializations at once; NVRTC allows it
  // for distinct programs, and compile() shares no mutable state.
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back(
        [&, i] { results[i] = nvrtc->compile(kSaxpy, "saxpy.cu", 8, 0, {}, true); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const CompileResult& result : results) {
    EXPECT_TRUE(result.ok) << result.log;
    EXPECT_EQ(result.cubin, results.front().cubin);
  }
}

}  // namespace
