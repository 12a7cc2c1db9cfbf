// The CPU's grid barrier (backends/cpu/grid_barrier.h): blocks on threads of
// their own wait for each other at every sync, a block that finished is no
// longer waited for, and a stopped barrier releases every wait.
#include <gtest/gtest.h>

#if SIMT_HAVE_CPU_BACKEND

#include <atomic>
#include <thread>
#include <vector>

#include "backends/cpu/grid_barrier.h"
#include "runtime/interrupt.h"

namespace {

using simt::cpu::GridBarrier;

simt::abi::CpuBlockContext context_of(GridBarrier& barrier) {
  simt::abi::CpuBlockContext ctx{};
  ctx.grid_sync = &GridBarrier::sync;
  ctx.grid = &barrier;
  return ctx;
}

int64_t epoch() { return simt::runtime::cancel_epoch().load(); }

TEST(GridBarrier, EveryPhaseSeesWhatEveryBlockWroteBefore) {
  constexpr int kBlocks = 8, kPhases = 50;
  GridBarrier barrier(kBlocks, epoch());
  const auto ctx = context_of(barrier);
  std::vector<int> written(kBlocks, -1);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int b = 0; b < kBlocks; ++b) {
    threads.emplace_back([&, b] {
      for (int phase = 0; phase < kPhases; ++phase) {
        written[b] = phase;
        EXPECT_EQ(ctx.grid_sync(&ctx), 0);
        for (int other = 0; other < kBlocks; ++other)
          if (written[other] != phase) ++mismatches;
        EXPECT_EQ(ctx.grid_sync(&ctx), 0);
      }
      barrier.leave();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(GridBarrier, ABlockThatLeavesIsNotWaitedFor) {
  GridBarrier barrier(3, epoch());
  const auto ctx = context_of(barrier);
  std::thread first([&] { EXPECT_EQ(ctx.grid_sync(&ctx), 0); });
  std::thread second([&] { EXPECT_EQ(ctx.grid_sync(&ctx), 0); });
  barrier.leave();  // the third block ended without syncing
  first.join();
  second.join();
}

TEST(GridBarrier, StoppingReleasesEveryWaitNowAndLater) {
  GridBarrier barrier(4, epoch());
  const auto ctx = context_of(barrier);
  std::vector<std::thread> waiting;
  for (int b = 0; b < 2; ++b) waiting.emplace_back([&] { EXPECT_EQ(ctx.grid_sync(&ctx), 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  barrier.stop();  // a block faulted
  for (auto& t : waiting) t.join();
  EXPECT_EQ(ctx.grid_sync(&ctx), 1);
}

TEST(GridBarrier, ACancelledLaunchStopsTheBarrier) {
  // A launch noted an epoch that has since moved on (a Ctrl-C): waits end.
  GridBarrier barrier(2, epoch() - 1);
  const auto ctx = context_of(barrier);
  EXPECT_EQ(ctx.grid_sync(&ctx), 1);
}

}  // namespace

#endif  // SIMT_HAVE_CPU_BACKEND
