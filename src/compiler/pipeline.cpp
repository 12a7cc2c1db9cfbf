#include "compiler/pipeline.h"

#include "codegen/dialect.h"
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
  if (dialect.threads_are_loops()) passes::reject_collectives_in_functions(typed);
  abi::GeneratedKernel kernel = codegen::emit_kernel(typed, dialect, options);
  kernel.requirements.float64 = passes::first_float64_use(typed);
  return kernel;
}

}  // namespace simt::compiler
