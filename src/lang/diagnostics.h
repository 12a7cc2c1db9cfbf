// Compile-time diagnostics: what went wrong and where, in the user's file.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "lang/source.h"

namespace simt::lang {

// Which Python exception a diagnostic becomes: CompileError for anything the
// front end rejects (syntax, unsupported constructs), TypingError for
// inference failures.
enum class DiagnosticKind { Syntax, Typing };

// Where a device function whose body holds an error was called.
struct CallSite {
  std::string callee;  // the device function's name
  std::string filename;
  Span span;
  std::string source_line;
};

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::Syntax;
  std::string message;  // one sentence, no location, no trailing period
  std::string filename;
  Span span;
  std::string source_line;  // the text of span.line in the user's file
  // An error inside a device function: the calls that led there, the innermost first
  // (its last is in the kernel), so that the message names the user's own line too.
  std::vector<CallSite> calls;

  // "file:line:col: error: message\n    <source line>\n    ^~~~", then each call:
  // "  in name(), called from file:line:col" with its line and caret.
  std::string format() const;
  // The same error told at calls[k] (an error inside a library's device function, told
  // where the user called it): "in name(): message", the inner location as a note.
  Diagnostic seen_from(std::size_t k) const;
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
