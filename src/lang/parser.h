// Parser of the simt kernel language: the text of one Python `def`, or of one lambda.
#pragma once

#include "lang/ast.h"
#include "lang/source.h"

namespace simt::lang {

// Parses the single function definition in `src` (decorators above it are
// skipped; every line may carry the same extra indentation), or a lambda given in
// parentheses, `(lambda a, b: a + b)`, as the function `lambda` returning its
// expression (the text Python keeps of a lambda is its span of a line). Throws
// CompileError (DiagnosticKind::Syntax) on a syntax error or an unsupported
// construct, naming the construct, with the location of the offending token.
ParsedFunction parse_function(const SourceText& src);

}  // namespace simt::lang
