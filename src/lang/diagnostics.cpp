#include "lang/diagnostics.h"

#include <algorithm>

namespace simt::lang {

// Long lines are shown as a window around the column, so a diagnostic stays
// readable (and small) whatever the user's line length.
constexpr size_t kMaxShownColumns = 120;
constexpr size_t kContextBeforeColumn = 40;

std::string Diagnostic::format() const {
  std::string out = filename + ":" + std::to_string(span.line) + ":" + std::to_string(span.col) +
                    ": error: " + message;
  if (source_line.empty() || span.col == 0) return out;
  size_t column = std::min<size_t>(span.col - 1, source_line.size());
  size_t first = 0;
  if (source_line.size() > kMaxShownColumns && column > kContextBeforeColumn)
    first = std::min(column - kContextBeforeColumn, source_line.size() - kMaxShownColumns);
  size_t last = std::min(source_line.size(), first + kMaxShownColumns);
  std::string prefix = first > 0 ? "..." : "";
  std::string suffix = last < source_line.size() ? "..." : "";
  out += "\n    " + prefix + source_line.substr(first, last - first) + suffix + "\n    ";
  out += std::string(prefix.size(), ' ');
  // Tabs are kept so the caret lines up under a tab-indented source line.
  for (size_t i = first; i < column; ++i) out += source_line[i] == '\t' ? '\t' : ' ';
  out += '^';
  size_t end = span.end_line == span.line ? span.end_col - 1 : source_line.size();
  end = std::min(end, last);
  for (size_t c = column + 1; c < end; ++c) out += '~';
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
