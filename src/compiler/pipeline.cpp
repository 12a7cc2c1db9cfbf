#include "compiler/pipeline.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "codegen/dialect.h"
#include "lang/diagnostics.h"
#include "passes/passes.h"

namespace simt::compiler {

abi::GeneratedKernel generate(const lang::ParsedFunction& fn, const lang::SourceText& source,
                              const std::vector<sema::Type>& arg_types,
                              const sema::Globals& globals, abi::Language language,
                              const codegen::EmitOptions& options) {
  const sema::TypedFunction typed = sema::infer_types(fn, source, arg_types, globals);
  return generate(typed, language, options);
}

abi::GeneratedKernel generate(const sema::TypedFunction& typed, abi::Language language,
                              const codegen::EmitOptions& options) {
  const codegen::Dialect& dialect = codegen::dialect(language);
  codegen::EmitOptions chosen = options;
  // Benchmarks only (bench/cpu.py): CPU kernels in fiber mode even where
  // regions could run them, to compare the two.
  if (const char* fibers = std::getenv("SIMT_CPU_FIBERS"); fibers && std::string(fibers) == "1")
    chosen.cpu_fibers = true;
  abi::GeneratedKernel kernel;
  try {
    kernel = codegen::emit_kernel(typed, dialect, chosen);
  } catch (const std::logic_error& e) {
    // Outside any statement (those name their own, codegen/emit_stmt.cpp):
    // the function's header, rather than no location at all.
    lang::fail(lang::DiagnosticKind::Typing, *typed.source, typed.parsed->def.span,
               std::string("simt cannot compile this function (internal error: ") + e.what() +
                   "; please report it)");
  }
  kernel.requirements.float64 = passes::first_float64_use(typed);
  if (kernel.requirements.warps)
    kernel.requirements.divergent_warps = passes::first_divergent_warp_call(typed);
  return kernel;
}

}  // namespace simt::compiler
