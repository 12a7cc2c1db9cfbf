// The entry point of a CPU kernel: the CPU backend calls
// `simt_kernel_<name>(const simt_block_ctx* ctx, void* const* args)` once
// per block, where args[k] points to the value of the k-th abi::Param, and
// the generated code runs the block's threads as loops. The block context is
// declared here twice, for the two sides of that call: as C text for the
// generated code's prelude (codegen/dialects.cpp) and as a struct for the
// backend (backends/cpu/cpu_device.cpp); the static_asserts keep them one
// layout.
//
// Kernels the region lowering cannot take (codegen/emit_regions.cpp: a
// barrier under a condition that differs between threads, a collective in a
// device function or inside an expression) run in fiber mode instead: the
// entry hands a per-thread function to `fibers->run_block`, which runs each
// thread of the block as a fiber (backends/cpu/fibers.cpp), and barriers and
// warp operations call `fibers->barrier` / `fibers->warp`, which suspend the
// calling fiber until the operation completes.
#pragma once

#include <cstddef>
#include <cstdint>

// A macro, so the prelude's raw string literals concatenate with it at
// compile time.
#define SIMT_CPU_BLOCK_CONTEXT_C                                                   \
  "struct simt_block_ctx;\n"                                                       \
  "struct simt_fiber_op {\n"                                                       \
  "  int kind;\n"                                                                  \
  "  int site;\n"                                                                  \
  "  unsigned int mask;\n"                                                         \
  "  int pred;\n"                                                                  \
  "  simt_i64 lane;\n"                                                             \
  "  unsigned long long value[2];\n"                                               \
  "  unsigned long long result[2];\n"                                              \
  "};\n"                                                                           \
  "struct simt_fiber_api {\n"                                                      \
  "  void (*run_block)(const simt_block_ctx*,\n"                                   \
  "                    void (*)(const simt_block_ctx*, void*, simt_i64), void*,\n" \
  "                    simt_i64);\n"                                               \
  "  int (*barrier)(const simt_block_ctx*, int, int);\n"                           \
  "  void (*warp)(const simt_block_ctx*, simt_fiber_op*);\n"                       \
  "};\n"                                                                           \
  "struct simt_block_ctx {\n"                                                      \
  "  simt_i64 grid_dim[3];\n"                                                      \
  "  simt_i64 block_dim[3];\n"                                                     \
  "  simt_i64 block_idx[3];\n"                                                     \
  "  void* dynamic_shared;\n"                                                      \
  "  simt_i64 cancel_epoch;\n"                                                     \
  "  const simt_fiber_api* fibers;\n"                                              \
  "  void* static_shared;\n"                                                       \
  "  int (*grid_sync)(const struct simt_block_ctx*);\n"                            \
  "  void* grid;\n"                                                                \
  "  simt_i64 x_blocks;\n"                                                         \
  "};\n"

namespace simt::abi {

struct CpuBlockContext;

// What a fiber-mode warp operation asks for and gets back; it lives in the
// calling fiber's frame while the fiber waits.
struct CpuFiberOp {
  // The operation (CpuFiberKind); lanes waiting at the same `site` (a call
  // site of the generated module) complete together.
  int kind;
  int site;
  unsigned int mask;  // the lanes named by the call
  int pred;           // votes' predicate; match_all's result predicate
  int64_t lane;       // shuffles' source lane, delta or lane mask
  uint64_t value[2];  // shuffled or matched value's bits, zero-padded
  uint64_t result[2];
};

enum class CpuFiberKind : int {
  ShflIdx,
  ShflUp,
  ShflDown,
  ShflXor,
  Ballot,
  All,
  Any,
  SyncWarp,
  MatchAny,
  MatchAll,
  ActiveMask,
};

// The block barrier's kinds (syncthreads, _count, _and, _or).
enum class CpuBarrierKind : int { Sync, Count, And, Or };

using CpuThreadFunction = void (*)(const CpuBlockContext*, void* user, int64_t thread);

struct CpuFiberApi {
  // Runs thread(ctx', user, t) for every thread t of the block, each on its
  // own fiber with `stack_bytes` of stack; ctx' is a copy of ctx.
  void (*run_block)(const CpuBlockContext* ctx, CpuThreadFunction thread, void* user,
                    int64_t stack_bytes);
  // A block barrier (CpuBarrierKind); returns the reduction of the waiting
  // threads' predicates (0 for Sync).
  int (*barrier)(const CpuBlockContext* ctx, int kind, int pred);
  void (*warp)(const CpuBlockContext* ctx, CpuFiberOp* op);
};

struct CpuBlockContext {
  int64_t grid_dim[3];
  int64_t block_dim[3];
  int64_t block_idx[3];
  // The launch's dynamic shared bytes, in the block's guarded shared memory
  // (backends/cpu/shared_arena.h); zeroed for each run of blocks on a thread.
  void* dynamic_shared;
  // runtime::cancel_epoch() when the launch started: generated `while` loops
  // end once the epoch moved on (a Ctrl-C, runtime/interrupt.h).
  int64_t cancel_epoch;
  const CpuFiberApi* fibers;  // the fiber runtime, for kernels in fiber mode
  // The block's static shared arrays, at the offsets codegen fixed
  // (abi::Requirements::cpu_shared_bytes in all), in the same memory;
  // zeroed for each block.
  void* static_shared;
  // A cooperative launch's grid barrier (cuda.cg.this_grid().sync()): every
  // block of the launch calls grid_sync(ctx) and returns when all have;
  // nonzero means the launch is stopping (a fault in another block, or
  // Ctrl-C), and the block returns at once. `grid` is the runtime's barrier;
  // both are null for other launches.
  int (*grid_sync)(const CpuBlockContext*);
  void* grid;
  // How many blocks along x, from block_idx on, this call runs: 1, or more for
  // a kernel whose threads read their x position only through cuda.grid()
  // (abi::Requirements::x_spans), whose row of threads then spans them all.
  int64_t x_blocks;
};
static_assert(offsetof(CpuBlockContext, block_dim) == 3 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, block_idx) == 6 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, dynamic_shared) == 9 * sizeof(int64_t));
static_assert(offsetof(CpuBlockContext, cancel_epoch) == 9 * sizeof(int64_t) + sizeof(void*));
static_assert(offsetof(CpuBlockContext, fibers) == 10 * sizeof(int64_t) + sizeof(void*));
static_assert(offsetof(CpuBlockContext, static_shared) == 10 * sizeof(int64_t) + 2 * sizeof(void*));
static_assert(offsetof(CpuBlockContext, grid_sync) == 10 * sizeof(int64_t) + 3 * sizeof(void*));
static_assert(offsetof(CpuBlockContext, x_blocks) == 10 * sizeof(int64_t) + 5 * sizeof(void*));
static_assert(sizeof(CpuBlockContext) == 11 * sizeof(int64_t) + 5 * sizeof(void*));
static_assert(sizeof(CpuFiberOp) == 56);

using CpuKernelEntry = void (*)(const CpuBlockContext*, void* const*);

}  // namespace simt::abi
