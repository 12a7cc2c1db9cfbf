#include "backends/cpu/fault_guard.h"

#include <setjmp.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace simt::cpu {

namespace {

// Where a faulting block lands: set for the duration of one block's run on
// the thread running it. initial-exec: the handler reads it without the
// allocation a dynamic TLS access may make (not safe in a signal handler).
struct Landing {
  sigjmp_buf jump;
  Fault fault;
};
thread_local Landing* t_landing __attribute__((tls_model("initial-exec"))) = nullptr;

constexpr int kSignals[] = {SIGSEGV, SIGBUS};
struct sigaction g_previous[2];

int slot_of(int signal) { return signal == SIGSEGV ? 0 : 1; }

void pass_on(int signal, siginfo_t* info, void* context) {
  const struct sigaction& previous = g_previous[slot_of(signal)];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    // What the process would have done without simt: end with this signal
    // (a fault ignored would only fault again).
    ::signal(signal, SIG_DFL);
    raise(signal);
    return;
  }
  previous.sa_handler(signal);
}

void on_fault(int signal, siginfo_t* info, void* context) {
  Landing* landing = t_landing;
  if (!landing) {
    pass_on(signal, info, context);
    return;
  }
  t_landing = nullptr;
  landing->fault.signal = signal;
  landing->fault.address = reinterpret_cast<uintptr_t>(info->si_addr);
  // SA_NODEFER left the signal unblocked, so no mask needs restoring and
  // sigsetjmp need not save one (saving it is a system call per block).
  siglongjmp(landing->jump, 1);
}

}  // namespace

void install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal : kSignals) {
      struct sigaction action {};
      action.sa_sigaction = on_fault;
      action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
      sigemptyset(&action.sa_mask);
      sigaction(signal, &action, &g_previous[slot_of(signal)]);
    }
  });
}

namespace {

[[noreturn]] void leave_block(Landing* landing, const char* reason, bool overrun) {
  t_landing = nullptr;
  landing->fault.signal = 0;
  landing->fault.overrun = overrun;
  std::snprintf(landing->fault.reason, sizeof landing->fault.reason, "%s", reason);
  siglongjmp(landing->jump, 1);
}

}  // namespace

void abandon_block(const char* reason) {
  Landing* landing = t_landing;
  if (!landing) std::abort();
  leave_block(landing, reason, false);
}

bool run_block_guarded(abi::CpuKernelEntry entry, const abi::CpuBlockContext* ctx,
                       void* const* args, Fault* fault) {
  // Only trivially destructible objects live in this frame: the jump back
  // skips no destructor (the kernel's frames are C).
  Landing landing;
  if (sigsetjmp(landing.jump, 0) != 0) {
    *fault = landing.fault;
    return false;
  }
  t_landing = &landing;
  entry(ctx, args);
  t_landing = nullptr;
  return true;
}

}  // namespace simt::cpu

void simt_index_fault(int64_t index, int64_t n) {
  simt::cpu::Landing* landing = simt::cpu::t_landing;
  if (!landing) std::abort();
  // Only trivially destructible objects here: the jump leaves this frame.
  char reason[128];
  std::snprintf(reason, sizeof reason, "index %lld is outside a local array's axis of length %lld",
                static_cast<long long>(index), static_cast<long long>(n));
  simt::cpu::leave_block(landing, reason, true);
}
