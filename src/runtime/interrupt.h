// Interruptible waits: a host thread waiting for device work (a stream, an
// event, a device, a copy to the host) can be interrupted by Ctrl-C.
//
// The runtime knows nothing of Python. The Python layer installs a check
// (set_interrupt_check) that asks the interpreter for pending signals, and
// marks the waits a user asked for with an InterruptibleScope; inside one, a
// wait sleeps in slices and runs the check between them, and throws
// Interrupted when it says so. Waits outside a scope (destructors, worker
// threads, the runtime's own bookkeeping) block as before, so an interrupt
// never escapes a noexcept frame. An interrupted wait leaves the work
// running; it finishes (or is cancelled, see cancel_flag) in the background.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace simt::runtime {

// The check saw a pending interrupt; the Python layer holds the exception to
// raise (KeyboardInterrupt, or what the user's signal handler raised).
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Returns true when the wait must stop. Called without any runtime lock held.
using InterruptCheck = bool (*)();
void set_interrupt_check(InterruptCheck check);

// Marks the waits on this thread, while it lives, as interruptible.
class InterruptibleScope {
 public:
  InterruptibleScope();
  ~InterruptibleScope();
  InterruptibleScope(const InterruptibleScope&) = delete;
  InterruptibleScope& operator=(const InterruptibleScope&) = delete;
};
bool interruptible();

// How long a wait sleeps between two checks: Ctrl-C answers within about
// this, and a wait that is not interrupted pays nothing for it.
inline constexpr std::chrono::milliseconds kInterruptSlice{50};

// Runs the check if this thread is in an InterruptibleScope; throws
// Interrupted when it asks to stop.
void check_interrupt();

// Waits until `wait_slice(slice)` returns true (it waits at most `slice` for
// what it waits for and says whether that happened), checking for an
// interrupt between slices. Outside a scope, slices until done, unchecked.
void wait_in_slices(const std::function<bool(std::chrono::milliseconds)>& wait_slice);

// For APIs that only answer "done yet?" (cuStreamQuery, an OpenCL event's
// status): polls `ready` with a short spin, then sleeps growing up to a
// fraction of a millisecond, checking for an interrupt every slice; returns
// at once outside a scope. The caller then makes its blocking call, which
// returns at once (or, outside a scope, waits) and reports errors as before.
void poll_interruptibly(const std::function<bool()>& ready);

// Cooperative cancellation of CPU kernels: a Ctrl-C (the Python layer's
// SIGINT hook) moves this epoch on. A CPU launch notes it when it is queued
// (abi::CpuBlockContext::cancel_epoch); generated code compares the two at
// the top of each `while` loop's body and leaves the loop once they differ,
// and the backend skips blocks not started. A launch queued after the
// interrupt notes the new epoch and runs normally; nothing is ever reset,
// and a launch pays one load for it.
std::atomic<int64_t>& cancel_epoch();
// Moves the epoch on (async-signal-safe: a lock-free load and store).
void request_cancel() noexcept;

}  // namespace simt::runtime
