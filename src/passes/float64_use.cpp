// A device without double precision cannot run code that computes in it; the
// error points at the first statement that does.
#include "passes/passes.h"

namespace simt::passes {

namespace {

// The earliest line of `fn` with a (non-literal) float64 or complex128
// expression.
std::optional<abi::PythonLine> first_use_in(const sema::TypedFunction& fn) {
  uint32_t first = 0;
  for (const auto& [expr, info] : fn.exprs) {
    const sema::Type& t = info.type;
    if (!t.is_scalar() || t.weak) continue;
    sema::Scalar s = sema::concrete(t);
    if (s != sema::Scalar::Float64 && s != sema::Scalar::Complex128) continue;
    if (first == 0 || expr->span.line < first) first = expr->span.line;
  }
  if (first == 0) return std::nullopt;
  return abi::PythonLine{fn.source->filename(), static_cast<int>(first),
                         std::string(fn.source->line_text(first))};
}

}  // namespace

std::optional<abi::PythonLine> first_float64_use(const sema::TypedFunction& kernel) {
  if (auto line = first_use_in(kernel)) return line;
  for (const auto& f : kernel.functions)
    if (auto line = first_use_in(f->typed)) return line;
  return std::nullopt;
}

}  // namespace simt::passes
