#include "lang/diagnostics.h"

#include <algorithm>

namespace simt::lang {

std::string Diagnostic::format() const {
  std::string out = filename + ":" + std::to_string(span.line) + ":" + std::to_string(span.col) +
                    ": error: " + message;
  if (source_line.empty() || span.col == 0) return out;
  out += "\n    " + source_line + "\n    ";
  // Tabs are kept so the caret lines up under a tab-indented source line.
  for (uint32_t i = 1; i < span.col && i - 1 < source_line.size(); ++i)
    out += source_line[i - 1] == '\t' ? '\t' : ' ';
  out += '^';
  uint32_t last = span.end_line == span.line ? span.end_col : uint32_t(source_line.size() + 1);
  last = std::min<uint32_t>(last, uint32_t(source_line.size() + 1));
  for (uint32_t c = span.col + 1; c < last; ++c) out += '~';
  return out;
}

CompileError::CompileError(Diagnostic d) : std::runtime_error(d.format()), diag_(std::move(d)) {}

void fail(DiagnosticKind kind, const SourceText& src, Span span, std::string message) {
  Diagnostic d;
  d.kind = kind;
  d.message = std::move(message);
  d.filename = src.filename();
  d.span = span;
  d.source_line = std::string(src.line_text(span.line));
  throw CompileError(std::move(d));
}

}  // namespace simt::lang
