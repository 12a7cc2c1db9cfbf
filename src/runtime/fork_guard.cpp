#include "runtime/fork_guard.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "runtime/device.h"

namespace simt::runtime {

namespace {

std::atomic<bool> g_inherited{false};

void on_fork_child() { g_inherited.store(true, std::memory_order_relaxed); }

}  // namespace

void note_gpu_device_opened() {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(nullptr, nullptr, &on_fork_child); });
}

bool inherited_gpu_devices() { return g_inherited.load(std::memory_order_relaxed); }

void require_not_forked(const std::string& device_id) {
  if (!inherited_gpu_devices()) return;
  throw DeviceError(
      device_id + " cannot be used in this process (" + std::to_string(::getpid()) +
      "): it is a fork() of the one that opened the device, and GPU drivers do not survive "
      "fork(). Start worker processes with multiprocessing's 'spawn' or 'forkserver' method "
      "(multiprocessing.get_context('spawn'), or set_start_method('spawn') before any simt "
      "call); the cpu device works in forked children");
}

}  // namespace simt::runtime
