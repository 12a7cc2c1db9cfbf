// Ctrl-C while simt waits (runtime/interrupt.h): the runtime's interrupt
// check asks the interpreter for pending signals, and a SIGINT hook asks the
// CPU kernels running at that moment to stop.
#include <signal.h>

#include <cerrno>
#include <optional>

#include "python/bindings.h"
#include "runtime/interrupt.h"

namespace simt::python {

namespace {

// The exception the check took from the interpreter (KeyboardInterrupt, or
// what the program's own handler raised), raised again by the exception
// translator on the same thread once the wait unwound.
thread_local std::optional<nb::python_error> t_pending;

bool signals_pending() {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;  // handlers run on the main thread only
  t_pending.emplace();                          // takes the error indicator
  return true;
}

struct sigaction g_previous {};

// Chained before Python's own C handler, which only notes the signal for
// the main thread's next bytecode: a CPU kernel running on that thread would
// never get there.
void on_sigint(int signal, siginfo_t* info, void* context) {
  const int saved = errno;
  runtime::request_cancel();
  errno = saved;
  if (g_previous.sa_flags & SA_SIGINFO)
    g_previous.sa_sigaction(signal, info, context);
  else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN)
    g_previous.sa_handler(signal);
}

// Once, at import: installing it again later could chain it after a
// handler that restores the one it replaced and raises the signal again
// (LLVM's, which PoCL loads, does), which would then call this one's
// predecessor in a loop.
void install_sigint_hook() {
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  if (!(current.sa_flags & SA_SIGINFO) &&
      (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
    return;
  // Only where Ctrl-C raises KeyboardInterrupt: a program with a handler of
  // its own may go on after it, and its kernels must then run to the end.
  // (Installing a handler with signal.signal replaces this hook.)
  nb::module_ signal_module = nb::module_::import_("signal");
  nb::object handler = signal_module.attr("getsignal")(signal_module.attr("SIGINT"));
  if (!handler.is(signal_module.attr("default_int_handler"))) return;
  g_previous = current;
  struct sigaction hook = current;
  hook.sa_flags |= SA_SIGINFO;
  hook.sa_sigaction = on_sigint;
  sigaction(SIGINT, &hook, nullptr);
}

}  // namespace

void raise_pending_interrupt() {
  if (t_pending) {
    t_pending->restore();
    t_pending.reset();
  } else {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  }
}

void bind_interrupts(nb::module_& /*m*/) {
  runtime::set_interrupt_check(&signals_pending);
  install_sigint_hook();
}

}  // namespace simt::python
