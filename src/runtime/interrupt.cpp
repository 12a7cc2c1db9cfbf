#include "runtime/interrupt.h"

#include <algorithm>
#include <cstdint>
#include <thread>

namespace simt::runtime {

namespace {

std::atomic<InterruptCheck> g_check{nullptr};
thread_local int t_scopes = 0;
std::atomic<int64_t> g_cancel_epoch{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "read by a signal handler");

}  // namespace

void set_interrupt_check(InterruptCheck check) { g_check.store(check); }

InterruptibleScope::InterruptibleScope() { ++t_scopes; }
InterruptibleScope::~InterruptibleScope() { --t_scopes; }
bool interruptible() { return t_scopes > 0; }

void check_interrupt() {
  if (t_scopes == 0) return;
  InterruptCheck check = g_check.load();
  if (check && check()) throw Interrupted();
}

void wait_in_slices(const std::function<bool(std::chrono::milliseconds)>& wait_slice) {
  while (!wait_slice(kInterruptSlice)) check_interrupt();
}

void poll_interruptibly(const std::function<bool()>& ready) {
  if (!interruptible()) return;  // the caller's blocking call waits, as before
  using Clock = std::chrono::steady_clock;
  // Short waits stay as quick as the blocking call's spin; long ones sleep,
  // at most a quarter millisecond past the work's end.
  const auto start = Clock::now();
  auto next_check = start + kInterruptSlice;
  std::chrono::microseconds nap{0};
  while (!ready()) {
    auto now = Clock::now();
    if (now >= next_check) {
      check_interrupt();
      next_check = now + kInterruptSlice;
    }
    if (now - start < std::chrono::microseconds(200)) {
      std::this_thread::yield();
    } else {
      nap = std::min(std::chrono::microseconds(250), nap + std::chrono::microseconds(10));
      std::this_thread::sleep_for(nap);
    }
  }
}

std::atomic<int64_t>& cancel_epoch() { return g_cancel_epoch; }

void request_cancel() noexcept {
  // Not a read-modify-write: only the signal handler writes, and SIGINT is
  // blocked while it runs.
  g_cancel_epoch.store(g_cancel_epoch.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
}

}  // namespace simt::runtime
