// The grid barrier of a cooperative CPU launch (cuda.cg.this_grid().sync()).
// Such a launch runs each block on a thread of its own (cpu_device.cpp), so
// every block can wait here for the others. A launch must never hang on a
// block that will not come: a block that finished leaves the barrier (the
// others stop waiting for it), a fault in one block or a Ctrl-C stops it (every
// wait, now and later, returns nonzero and the generated code leaves the
// kernel).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "abi/cpu_entry.h"

namespace simt::cpu {

// The most blocks of one cooperative launch on the CPU: each is an OS
// thread, whatever its number of threads (those run as loops).
constexpr int64_t kMaxCooperativeBlocks = 256;

class GridBarrier {
 public:
  // `launched`: the cancellation epoch when the launch was queued
  // (runtime/interrupt.h); a wait that sees it move on stops the barrier.
  GridBarrier(int64_t blocks, int64_t launched) : expected_(blocks), launched_(launched) {}

  // abi::CpuBlockContext::grid_sync: waits for every block still running;
  // 0, or 1 when the launch is stopping.
  static int sync(const abi::CpuBlockContext* ctx);
  // A block that finished: the others no longer wait for it.
  void leave();
  // A block faulted (or a thread could not start): no block waits any more.
  void stop();

 private:
  int arrive_and_wait();
  void release_locked();

  std::mutex mutex_;
  std::condition_variable moved_on_;
  int64_t expected_;  // blocks still running
  int64_t arrived_ = 0;
  uint64_t generation_ = 0;
  bool stopped_ = false;
  int64_t launched_;
};

}  // namespace simt::cpu
