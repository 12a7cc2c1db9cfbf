// The CPU backend's fiber runtime (src/backends/cpu/fibers.h), driven directly
// by C++ thread functions as generated kernels in fiber mode drive it: block
// barriers with early exits and Volta counting, their reductions, warp
// operations by call site, the rule that resolves a warp operation beside a
// block barrier, and stacks reused across blocks of different shapes.

#include <gtest/gtest.h>

#ifndef SIMT_HAVE_CPU_BACKEND

TEST(Fibers, Unavailable) { GTEST_SKIP() << "built without the CPU backend"; }

#else

#include <cstdint>
#include <cstring>
#include <vector>

#include "abi/cpu_entry.h"
#include "backends/cpu/fibers.h"

namespace {

using simt::abi::CpuBarrierKind;
using simt::abi::CpuBlockContext;
using simt::abi::CpuFiberKind;
using simt::abi::CpuFiberOp;

CpuBlockContext block_of(int64_t threads) {
  CpuBlockContext ctx{};
  for (int d = 0; d < 3; ++d) ctx.grid_dim[d] = ctx.block_dim[d] = 1;
  ctx.block_dim[0] = threads;
  ctx.fibers = simt::cpu::fiber_api();
  return ctx;
}

int barrier(const CpuBlockContext* ctx, CpuBarrierKind kind, int pred = 0) {
  return ctx->fibers->barrier(ctx, static_cast<int>(kind), pred);
}

uint64_t warp_op(const CpuBlockContext* ctx, CpuFiberKind kind, int site, uint32_t mask,
                 uint64_t value, int64_t lane = 0, int pred = 0) {
  CpuFiberOp op{static_cast<int>(kind), site, mask, pred, lane, {value, 0}, {0, 0}};
  ctx->fibers->warp(ctx, &op);
  return op.result[0];
}

struct Shared {
  std::vector<int64_t> a, out;
  int64_t n = 0;
};

void run(const CpuBlockContext& ctx, simt::abi::CpuThreadFunction f, Shared& s,
         int64_t stack = 64 * 1024, int64_t shared_bytes = 0) {
  // The device hands each block zeroed shared memory (cpu_device.cpp); so does the test.
  // (Zeroed elements: a vector of max_align_t would leave their padding as it was.)
  std::vector<int64_t> shared(static_cast<size_t>(shared_bytes) / 8 + 1);
  CpuBlockContext block = ctx;
  block.static_shared = shared.data();
  ctx.fibers->run_block(&block, f, &s, stack);
}

TEST(Fibers, BarrierAfterEarlyExitsCountsTheThreadsLeft) {
  for (int64_t n : {1, 37, 128, 1024}) {
    CpuBlockContext ctx = block_of(1024);
    Shared s;
    s.n = n;
    s.a.assign(1024, -1);
    s.out.assign(1024, -1);
    run(
        ctx,
        [](const CpuBlockContext* c, void* user, int64_t t) {
          auto& s = *static_cast<Shared*>(user);
          if (t >= s.n) return;
          s.a[t] = t * 10;
          int count = barrier(c, CpuBarrierKind::Count, t % 2 == 0);
          s.out[t] = s.a[s.n - 1 - t] + count * 100000;
        },
        s);
    const int64_t evens = (n + 1) / 2;
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(s.out[t], (n - 1 - t) * 10 + evens * 100000) << n;
    for (int64_t t = n; t < 1024; ++t) ASSERT_EQ(s.out[t], -1);
  }
}

TEST(Fibers, BarriersOfAnIfAndItsElseMeet) {
  CpuBlockContext ctx = block_of(64);
  Shared s;
  s.a.assign(64, 0);
  s.out.assign(64, 0);
  run(
      ctx,
      [](const CpuBlockContext* c, void* user, int64_t t) {
        auto& s = *static_cast<Shared*>(user);
        if (t % 2 == 0) {
          s.a[t] = t;
          s.out[t] = barrier(c, CpuBarrierKind::And, 1) * 1000 + s.a[t + 1];
        } else {
          s.a[t] = -t;
          s.out[t] = barrier(c, CpuBarrierKind::Or, 0) * 1000 + s.a[t - 1];
        }
      },
      s);
  for (int64_t t = 0; t < 64; ++t)
    EXPECT_EQ(s.out[t], t % 2 == 0 ? 0 - (t + 1) : 1000 + (t - 1)) << t;
}

TEST(Fibers, ShufflesAndVotesCompletePerWarpAndCallSite) {
  CpuBlockContext ctx = block_of(80);  // a partial third warp
  Shared s;
  s.out.assign(80 * 3, -1);
  run(
      ctx,
      [](const CpuBlockContext* c, void* user, int64_t t) {
        auto& s = *static_cast<Shared*>(user);
        const int64_t lane = t % 32;
        if (lane < 16)  // each half of the warp in its own branch, at its own site
          s.out[t] = static_cast<int64_t>(
              warp_op(c, CpuFiberKind::ShflXor, 1, 0x0000FFFFu, static_cast<uint64_t>(t), 1));
        else
          s.out[t] = static_cast<int64_t>(
              warp_op(c, CpuFiberKind::ShflDown, 2, 0xFFFF0000u, static_cast<uint64_t>(t), 4));
        s.out[80 + t] = static_cast<int64_t>(
            warp_op(c, CpuFiberKind::Ballot, 3, 0xFFFFFFFFu, 0, 0, lane % 3 == 0));
        s.out[160 + t] =
            static_cast<int64_t>(warp_op(c, CpuFiberKind::ActiveMask, 4, 0xFFFFFFFFu, 0));
      },
      s);
  for (int64_t t = 0; t < 80; ++t) {
    const int64_t lane = t % 32, base = t - lane, width = std::min<int64_t>(32, 80 - base);
    int64_t shuffled = lane < 16 ? (t ^ 1) : (lane + 4 < 32 && lane + 4 < width ? t + 4 : t);
    EXPECT_EQ(s.out[t], shuffled) << t;
    int64_t ballot = 0, active = 0;
    for (int64_t k = 0; k < width; ++k) {
      if (k % 3 == 0) ballot |= int64_t{1} << k;
      active |= int64_t{1} << k;
    }
    EXPECT_EQ(s.out[80 + t], ballot) << t;
    EXPECT_EQ(s.out[160 + t], active) << t;
  }
}

TEST(Fibers, WarpOpBesideABlockBarrierCompletesWithItsLanes) {
  CpuBlockContext ctx = block_of(64);
  Shared s;
  s.out.assign(64, -1);
  run(
      ctx,
      [](const CpuBlockContext* c, void* user, int64_t t) {
        auto& s = *static_cast<Shared*>(user);
        if (t % 32 < 8)
          s.out[t] = static_cast<int64_t>(warp_op(c, CpuFiberKind::ActiveMask, 7, 0xFFFFFFFFu, 0));
        else
          s.out[t] = barrier(c, CpuBarrierKind::Count, 1);
      },
      s);
  for (int64_t t = 0; t < 64; ++t) EXPECT_EQ(s.out[t], t % 32 < 8 ? 0xFF : 48) << t;
}

TEST(Fibers, StacksAndSharedMemoryServeBlocksOfEveryShape) {
  // Large local arrays, then more threads, then small stacks again: the pool
  // grows and is reused; each block sees its own shared memory.
  for (auto [threads, stack] : {std::pair<int64_t, int64_t>{32, 600 * 1024},
                                {512, 64 * 1024},
                                {64, 700 * 1024},
                                {1024, 16 * 1024}}) {
    CpuBlockContext ctx = block_of(threads);
    Shared s;
    s.n = stack;
    s.out.assign(static_cast<size_t>(threads), -1);
    run(
        ctx,
        [](const CpuBlockContext* c, void* user, int64_t t) {
          auto& s = *static_cast<Shared*>(user);
          auto* shared = static_cast<int64_t*>(c->static_shared);
          const int64_t before = shared[t];
          shared[t] = t + 1;
          // Touch most of this fiber's stack, across a barrier.
          std::vector<char> unused;  // (heap; the array below is the stack's)
          volatile char local[8 * 1024];
          for (size_t k = 0; k < sizeof local; k += 512) local[k] = static_cast<char>(t);
          barrier(c, CpuBarrierKind::Sync);
          s.out[t] = before * 1000000 + shared[(t + 1) % c->block_dim[0]] + local[0] - local[512];
        },
        s, stack, threads * 8);
    for (int64_t t = 0; t < threads; ++t) ASSERT_EQ(s.out[t], (t + 1) % threads + 1) << threads;
  }
}

}  // namespace

#endif
