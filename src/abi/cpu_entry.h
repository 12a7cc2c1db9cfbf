// The entry point of a CPU kernel: the CPU backend calls
// `simt_kernel_<name>(const simt_block_ctx* ctx, void* const* args)` once
// per block, where args[k] points to the value of the k-th abi::Param, and
// the generated code runs the block's threads as loops. The block context is
// declared here twice, for the two sides of that call: as C text for the
// generated code's prelude (codegen/dialects.cpp) and as a struct for the
// backend (backends/cpu/cpu_device.cpp); the static_asserts keep them one
// layout.
#pragma once

#include <cstddef>
#include <cstdint>

// A macro, so the prelude's raw string literals concatenate with it at
// compile time.
#define SIMT_CPU_BLOCK_CONTEXT_C                        \
  "struct simt_block_ctx {\n"                           \
  "  simt_i64 grid_dim[3];\n"                           \
  "  simt_i64 block_dim[3];\n"                          \
  "  simt_i64 block_idx[3];\n"                          \
  "  void* dynamic_shared;\n"                           \
  "  simt_i64 cancel_epoch;\n"                          \
  "  int (*grid_sync)(const struct simt_block_ctx*);\n" \
  "  void* grid;\n"                                     \
  "};\n"

namespace simt::abi {

struct CpuBlockContext {
  int64_t grid_dim[3];
  int64_t block_dim[3];
  int64_t block_idx[3];
  void* dynamic_shared;  // the launch's dynamic shared memory, one buffer per running block
  // runtime::cancel_epoch() when the launch started: generated `while` loops
  // end once the epoch moved on (a Ctrl-C, runtime/interrupt.h).
  int64_t cancel_epoch;
  // A cooperative launch's grid barrier (cuda.cg.this_grid().sync()): every
  // block of the launch calls grid_sync(ctx) and returns when all have;
  // nonzero means the launch is stopping (a fault in another block, or
  // Ctrl-C), and the block returns at once. `grid` is the runtime's barrier;
  // both are null for other launches.
  int (*grid_sync)(const CpuBlockContext*);
  void* grid;
};
static_assert(offsetof(CpuBlockContext, block_dim) == 3 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, block_idx) == 6 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, dynamic_shared) == 9 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, cancel_epoch) == 9 * sizeof(int64_t) + sizeof(void*));
static_assert(offsetof(CpuBlockContext, grid_sync) == 10 * sizeof(int64_t) + sizeof(void*));
static_assert(sizeof(CpuBlockContext) == 10 * sizeof(int64_t) + 3 * sizeof(void*));

using CpuKernelEntry = void (*)(const CpuBlockContext*, void* const*);

}  // namespace simt::abi
