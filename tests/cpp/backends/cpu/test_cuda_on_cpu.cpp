// CUDA C++ on the CPU device (src/backends/cpu/cuda_on_cpu.h): the unit's text
// rewrite (each kernel's hidden thread parameter, whether the thread-local
// indices are kept) and a unit compiled by the JIT and run through its entry,
// block by block, as the CPU runtime launches it.

#include <gtest/gtest.h>

#ifndef SIMT_HAVE_CPU_BACKEND

TEST(CudaOnCpu, Unavailable) { GTEST_SKIP() << "built without the CPU backend (LLVM/Clang 19)"; }

#else

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "abi/cpu_entry.h"
#include "backends/cpu/clang_jit.h"
#include "backends/cpu/cuda_on_cpu.h"

namespace {

using simt::cpu::cuda_kernel_names;
using simt::cpu::cuda_on_cpu_unit;
using simt::cpu::CudaOnCpuUnit;

CudaOnCpuUnit unit_of(const std::string& source) {
  simt::runtime::RawSource raw;
  raw.source = source;
  const auto names = cuda_kernel_names(source);
  return cuda_on_cpu_unit(raw, names, names.empty() ? "k" : names[0]);
}

// The user's part of the unit: from its #line to the entries.
std::string user_part(const CudaOnCpuUnit& unit) {
  const size_t begin = unit.text.find("#line 1 \"");
  const size_t end = unit.text.find("#line 1 \"simt_raw_entries\"");
  return unit.text.substr(begin, end - begin);
}

TEST(CudaOnCpu, KernelNamesSkipTemplatesAndMacros) {
  const std::string source = R"(
template <class T> __global__ void templated(T* x) {}
#define KERNEL(name) __global__ void name(int* x) { x[0] = 1; }
KERNEL(made)
extern "C" __global__ void __launch_bounds__(256) plain(int* x) {}
// __global__ void commented(int* x) {}
)";
  EXPECT_EQ(cuda_kernel_names(source), std::vector<std::string>{"plain"});
}

TEST(CudaOnCpu, EveryKernelTakesTheRunningThread) {
  const std::string source =
      "extern \"C\" __global__ void a(float* x, int n);\n"
      "extern \"C\" __global__ void a(float* x, int n) { x[threadIdx.x] = n; }\n"
      "extern \"C\" __global__ void b(void) {}\n"
      "extern \"C\" __global__ void c() {}\n"
      "template <class T>\n__global__ void d(\n  T* x) { x[0] = '}'; }\n";
  const CudaOnCpuUnit unit = unit_of(source);
  const std::string user = user_part(unit);
  EXPECT_NE(user.find("void a(simt_raw_thread simt_raw_t, float* x, int n);"), std::string::npos)
      << user;
  EXPECT_NE(user.find("void a(simt_raw_thread simt_raw_t, float* x, int n) { "
                      "SIMT_RAW_THREAD_LOCALS x[threadIdx.x]"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("void b(simt_raw_thread simt_raw_t) { SIMT_RAW_THREAD_LOCALS}"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("void c(simt_raw_thread simt_raw_t) { SIMT_RAW_THREAD_LOCALS}"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("void d(simt_raw_thread simt_raw_t, \n  T* x) { SIMT_RAW_THREAD_LOCALS"),
            std::string::npos)
      << user;
  // Lines keep their numbers (diagnostics name the user's lines): the user's
  // part is the #line directive's line, the source and the newline after it.
  EXPECT_EQ(std::count(user.begin(), user.end(), '\n'),
            std::count(source.begin(), source.end(), '\n') + 2);
  // Only the kernels' bodies name the indices: none in thread-local storage.
  EXPECT_FALSE(unit.tls_indices);
  EXPECT_FALSE(unit.fibers);
  EXPECT_NE(unit.text.find("#define SIMT_RAW_TLS_INDICES 0"), std::string::npos);
}

TEST(CudaOnCpu, IndicesOutsideKernelsAreKeptInThreadLocalStorage) {
  EXPECT_TRUE(unit_of("__device__ int lane() { return threadIdx.x & 31; }\n"
                      "extern \"C\" __global__ void k(int* x) { x[0] = lane(); }\n")
                  .tls_indices);
  EXPECT_TRUE(unit_of("#define TID (blockIdx.x * blockDim.x)\n"
                      "extern \"C\" __global__ void k(int* x) { x[TID] = 1; }\n")
                  .tls_indices);
  // A comment or a string naming them is not a use.
  EXPECT_FALSE(unit_of("// threadIdx\n"
                       "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = 1; }\n"
                       "__device__ const char* s = \"gridDim\";\n")
                   .tls_indices);
  const CudaOnCpuUnit barrier =
      unit_of("extern \"C\" __global__ void k(int* x) { __syncthreads(); }\n");
  EXPECT_TRUE(barrier.fibers);
}

// A unit compiled and run through its entry as the runtime does: every block
// of the grid, every thread of a 3-D block in the loop, each seeing its indices.
TEST(CudaOnCpu, EntryRunsEachThreadWithItsIndices) {
  const std::string source = R"(
extern "C" __global__ void where(int* out, int scale) {
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int b = blockIdx.x + gridDim.x * blockIdx.y;
  out[b * blockDim.x * blockDim.y * blockDim.z + t] = scale * (t + 1000 * b);
}
)";
  const CudaOnCpuUnit unit = unit_of(source);
  ASSERT_FALSE(unit.tls_indices);
  simt::cpu::JitOptions options;
  options.emulated_tls = true;
  auto module = simt::cpu::ClangJit::instance().compile(unit.text, "where", options);
  auto entry = reinterpret_cast<simt::abi::CpuKernelEntry>(module->symbol("simt_raw_entry_0"));
  ASSERT_NE(entry, nullptr);

  std::mt19937 rng(std::random_device{}());
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int64_t block[3] = {pick(1, 9), pick(1, 4), pick(1, 3)};
  const int64_t grid[2] = {pick(1, 5), pick(1, 3)};
  const int64_t threads = block[0] * block[1] * block[2];
  std::vector<int> out(static_cast<size_t>(threads * grid[0] * grid[1]), -1);
  int* data = out.data();
  int scale = pick(1, 7);
  void* args[] = {&data, &scale};
  for (int64_t by = 0; by < grid[1]; ++by) {
    for (int64_t bx = 0; bx < grid[0]; ++bx) {
      simt::abi::CpuBlockContext ctx{};
      std::copy(grid, grid + 2, ctx.grid_dim);
      ctx.grid_dim[2] = 1;
      std::copy(block, block + 3, ctx.block_dim);
      ctx.block_idx[0] = bx;
      ctx.block_idx[1] = by;
      ctx.x_blocks = 1;
      entry(&ctx, args);
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t t = static_cast<int64_t>(k) % threads, b = static_cast<int64_t>(k) / threads;
    EXPECT_EQ(out[k], scale * (t + 1000 * b)) << "element " << k;
  }
}

}  // namespace

#endif  // SIMT_HAVE_CPU_BACKEND
