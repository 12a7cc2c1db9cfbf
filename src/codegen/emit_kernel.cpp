// The entry point: every device function the kernel calls (callees first),
// then the kernel, emitted into one Module; and the symbols of both.
#include "codegen/emitter_impl.h"
#include "lang/diagnostics.h"

namespace simt::codegen {

using detail::Emitter;
using detail::mangle;
using detail::Module;
using sema::Scalar;
using sema::Type;

std::string kernel_symbol(const std::string& python_name) {
  return "simt_kernel_" + mangle(python_name).substr(2);
}

std::string function_symbol(const std::string& python_name, int ordinal) {
  return "simt_func_" + mangle(python_name).substr(2) + "_" + std::to_string(ordinal);
}

namespace {

// The earliest line of `fn` with a (non-literal) float64 or complex128
// expression.
std::optional<PythonLine> first_float64_use(const sema::TypedFunction& fn) {
  uint32_t first = 0;
  for (const auto& [expr, info] : fn.exprs) {
    const Type& t = info.type;
    if (!t.is_scalar() || t.weak) continue;
    Scalar s = sema::concrete(t);
    if (s != Scalar::Float64 && s != Scalar::Complex128) continue;
    if (first == 0 || expr->span.line < first) first = expr->span.line;
  }
  if (first == 0) return std::nullopt;
  return PythonLine{fn.source->filename(), static_cast<int>(first),
                    std::string(fn.source->line_text(first))};
}

// Each Scalar and ArrayData record starts the next leaf of the flattened
// arguments (the order a launch classifies them in); an array's extents and
// strides belong to its leaf.
void number_params(std::vector<ParamSlot>& params, const Dialect& dialect) {
  int leaf = -1;
  for (ParamSlot& p : params) {
    if (p.role == ParamSlot::Role::Scalar || p.role == ParamSlot::Role::ArrayData) ++leaf;
    p.leaf = p.role == ParamSlot::Role::SharedBytes ? -1 : leaf;
    const bool split = !dialect.array_offset_type.empty();
    p.c_params = split && (p.role == ParamSlot::Role::ArrayData ||
                           p.role == ParamSlot::Role::SharedBytes)
                     ? 2
                     : 1;
  }
}

}  // namespace

// On the CPU a device function runs for one thread at a time, so it cannot
// wait for the others: barriers and warp operations belong in the kernel.
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

EmittedKernel emit_kernel(const sema::TypedFunction& fn, const Dialect& dialect,
                          const EmitOptions& options) {
  if (dialect.id == DialectId::Cpp) reject_collectives_in_functions(fn);
  Module module(dialect);
  // Callees come first in `functions`, so each is defined before its use.
  for (const auto& f : fn.functions)
    Emitter(f->typed, dialect, options, module, f.get()).emit_function();
  Emitter emitter(fn, dialect, options, module);
  EmittedKernel kernel = emitter.run();
  kernel.language = dialect.id;
  number_params(kernel.params, dialect);
  kernel.requirements.float64 = first_float64_use(fn);
  for (const auto& f : fn.functions) {
    if (kernel.requirements.float64) break;
    kernel.requirements.float64 = first_float64_use(f->typed);
  }
  return kernel;
}

}  // namespace simt::codegen
