#include "backends/cpu/grid_barrier.h"

#include <atomic>
#include <chrono>

#include "runtime/interrupt.h"

namespace simt::cpu {

int GridBarrier::sync(const abi::CpuBlockContext* ctx) {
  return static_cast<GridBarrier*>(ctx->grid)->arrive_and_wait();
}

int GridBarrier::arrive_and_wait() {
  std::unique_lock lock(mutex_);
  if (stopped_) return 1;
  const uint64_t generation = generation_;
  if (++arrived_ >= expected_) {
    release_locked();
    return 0;
  }
  // Waits in slices: a Ctrl-C moves the epoch on without waking anyone.
  const std::atomic<int64_t>& epoch = runtime::cancel_epoch();
  while (generation_ == generation && !stopped_) {
    moved_on_.wait_for(lock, std::chrono::milliseconds(50));
    if (epoch.load(std::memory_order_relaxed) != launched_) {
      stopped_ = true;
      moved_on_.notify_all();
    }
  }
  return generation_ == generation ? 1 : 0;
}

void GridBarrier::leave() {
  std::lock_guard lock(mutex_);
  --expected_;
  if (arrived_ > 0 && arrived_ >= expected_) release_locked();
}

void GridBarrier::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  moved_on_.notify_all();
}

void GridBarrier::release_locked() {
  arrived_ = 0;
  ++generation_;
  moved_on_.notify_all();
}

}  // namespace simt::cpu
