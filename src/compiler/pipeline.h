// The one place that runs the compiler: a parsed kernel and its argument
// types in, generated code out. The launch path, `inspect_source` and the
// C++ tests all come through here, so they compile the same way.
#pragma once

#include <vector>

#include "abi/kernel_abi.h"
#include "codegen/emitter.h"
#include "lang/ast.h"
#include "lang/source.h"
#include "sema/infer.h"

namespace simt::compiler {

// Infers `fn` for `arg_types` (sema), runs the analyses (passes/passes.h) and
// emits it in the dialect of `language` (codegen). Throws lang::CompileError
// (a syntax or typing diagnostic) at the user's line.
abi::GeneratedKernel generate(const lang::ParsedFunction& fn, const lang::SourceText& source,
                              const std::vector<sema::Type>& arg_types,
                              const sema::Globals& globals, abi::Language language,
                              const codegen::EmitOptions& options = {});

// The same steps after inference, for a function already typed.
abi::GeneratedKernel generate(const sema::TypedFunction& typed, abi::Language language,
                              const codegen::EmitOptions& options = {});

}  // namespace simt::compiler
