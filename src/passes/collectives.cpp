// On the CPU a device function runs inside one thread's code: a barrier or
// warp operation there cannot become the end of a region (emit_regions.cpp),
// nor can a shared array there be the block's, so such kernels run in fiber
// mode.
#include "passes/passes.h"

namespace simt::passes {

bool functions_call_collectives(const sema::TypedFunction& kernel) {
  for (const auto& f : kernel.functions)
    for (const auto& [e, i] : f->typed.exprs)
      if (i.intrinsic && sema::is_collective(i.intrinsic->rule)) return true;
  return false;
}

bool functions_allocate_shared(const sema::TypedFunction& kernel) {
  for (const auto& f : kernel.functions)
    for (const auto& [e, i] : f->typed.exprs)
      if (i.intrinsic && i.intrinsic->rule == sema::Rule::ArrayAlloc &&
          i.type.space == sema::Space::Shared)
        return true;
  return false;
}

}  // namespace simt::passes
