// Parser of the simt kernel language: the text of one Python `def`.
#pragma once

#include "lang/ast.h"
#include "lang/source.h"

namespace simt::lang {

// Parses the single function definition in `src` (decorators above it are
// skipped; every line may carry the same extra indentation). Throws
// CompileError (DiagnosticKind::Syntax) on a syntax error or an unsupported
// construct, naming the construct, with the location of the offending token.
ParsedFunction parse_function(const SourceText& src);

}  // namespace simt::lang
