// Compile-time diagnostics: what went wrong and where, in the user's file.
#pragma once

#include <stdexcept>
#include <string>

#include "lang/source.h"

namespace simt::lang {

// Which Python exception a diagnostic becomes: CompileError for anything the
// front end rejects (syntax, unsupported constructs), TypingError for
// inference failures.
enum class DiagnosticKind { Syntax, Typing };

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::Syntax;
  std::string message;  // one sentence, no location, no trailing period
  std::string filename;
  Span span;
  std::string source_line;  // the text of span.line in the user's file

  // "file:line:col: error: message\n    <source line>\n    ^~~~"
  std::string format() const;
};

// Thrown by the parser and the inferencer on the first error. Carries the
// structured diagnostic so bindings can map it to simt.CompileError or
// simt.TypingError with the location as attributes.
class CompileError : public std::runtime_error {
 public:
  explicit CompileError(Diagnostic d);
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

// Builds a diagnostic at `span` of `src` and throws it.
[[noreturn]] void fail(DiagnosticKind kind, const SourceText& src, Span span, std::string message);

}  // namespace simt::lang
