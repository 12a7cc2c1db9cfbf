// The entry point: every device function the kernel calls (callees first),
// then the kernel, emitted into one Module; and the symbols of both.
#include "codegen/emitter_impl.h"

namespace simt::codegen {

using detail::Emitter;
using detail::mangle;
using detail::Module;

std::string kernel_symbol(const std::string& python_name) {
  return "simt_kernel_" + mangle(python_name).substr(2);
}

std::string function_symbol(const std::string& python_name, int ordinal) {
  return "simt_func_" + mangle(python_name).substr(2) + "_" + std::to_string(ordinal);
}

namespace {

// Each Scalar and ArrayData record starts the next leaf of the flattened
// arguments (the order a launch classifies them in); an array's extents and
// strides belong to its leaf.
void number_params(std::vector<abi::Param>& params, const Dialect& dialect) {
  int leaf = -1;
  for (abi::Param& p : params) {
    if (p.role == abi::Param::Role::Scalar || p.role == abi::Param::Role::ArrayData) ++leaf;
    const bool argument =
        p.role != abi::Param::Role::SharedBytes && p.role != abi::Param::Role::CheckRecord &&
        p.role != abi::Param::Role::GridBarrier && p.role != abi::Param::Role::RaceRecorder;
    p.leaf = argument ? leaf : -1;
    p.c_params = 1;
    const bool buffer =
        p.role == abi::Param::Role::ArrayData || p.role == abi::Param::Role::CheckRecord;
    if (buffer && !dialect.array_offset_type.empty()) p.c_params = 2;
    if (p.role == abi::Param::Role::SharedBytes && !dialect.dynamic_shared_param.empty())
      p.c_params = 2;
  }
}

abi::GeneratedKernel emit_module(const sema::TypedFunction& fn, const Dialect& dialect,
                                 const EmitOptions& options, bool fibers) {
  Module module(dialect);
  module.fibers = fibers;
  module.grid_barrier = detail::uses_grid_sync(fn);
  detail::collect_shared_slots(fn, dialect, module);
  // Callees come first in `functions`, so each is defined before its use.
  for (const auto& f : fn.functions)
    Emitter(f->typed, dialect, options, module, f.get()).emit_function();
  if (!fibers && dialect.threads_are_loops() && detail::wants_lockstep_form(fn, options)) {
    // Emitted first, so the helpers it uses are in the module's definitions.
    module.lockstep_form = true;
    try {
      Emitter(fn, dialect, options, module).run();
    } catch (const detail::RegionsRefused&) {
      module.lockstep_code.clear();
    }
    module.lockstep_form = false;
  }
  Emitter emitter(fn, dialect, options, module);
  abi::GeneratedKernel kernel = emitter.run();
  kernel.language = dialect.id;
  number_params(kernel.params, dialect);
  return kernel;
}

}  // namespace

abi::GeneratedKernel emit_kernel(const sema::TypedFunction& fn, const Dialect& dialect,
                                 const EmitOptions& options) {
  // The CPU runs a block's threads as loops split at barriers (regions) where
  // it can, and as fibers where it cannot: a collective or a shared array in
  // a device function, or one the region lowering refuses
  // (detail::RegionsRefused).
  bool fibers = dialect.threads_are_loops() &&
                (options.cpu_fibers || passes::functions_call_collectives(fn) ||
                 passes::functions_allocate_shared(fn));
  if (!fibers) {
    try {
      return emit_module(fn, dialect, options, false);
    } catch (const detail::RegionsRefused&) {
      fibers = true;
    }
  }
  return emit_module(fn, dialect, options, fibers);
}

}  // namespace simt::codegen
