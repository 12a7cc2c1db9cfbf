// On the CPU a device function runs for one thread at a time, so it cannot
// wait for the others: barriers and warp operations belong in the kernel.
#include "lang/diagnostics.h"
#include "passes/passes.h"

namespace simt::passes {

void reject_collectives_in_functions(const sema::TypedFunction& kernel) {
  for (const auto& f : kernel.functions) {
    for (const auto& [e, i] : f->typed.exprs) {
      if (!i.intrinsic || !sema::is_collective(i.intrinsic->rule)) continue;
      lang::fail(lang::DiagnosticKind::Syntax, *f->typed.source, e->span,
                 "on the CPU, " + std::string(i.intrinsic->name.substr(5)) +
                     "() can only be called in the kernel itself, not in a device function "
                     "('" +
                     f->source->name + "')");
    }
  }
}

}  // namespace simt::passes
