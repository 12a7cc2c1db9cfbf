#include "lang/diagnostics.h"

#include <algorithm>

namespace simt::lang {

// Long lines are shown as a window around the column, so a diagnostic stays
// readable (and small) whatever the user's line length.
constexpr size_t kMaxShownColumns = 120;
constexpr size_t kContextBeforeColumn = 40;

namespace {

// "\n    <source line>\n    ^~~~" for `span` of `source_line` (nothing without a column).
std::string caret(const std::string& source_line, Span span) {
  if (source_line.empty() || span.col == 0) return "";
  size_t column = std::min<size_t>(span.col - 1, source_line.size());
  size_t first = 0;
  if (source_line.size() > kMaxShownColumns && column > kContextBeforeColumn)
    first = std::min(column - kContextBeforeColumn, source_line.size() - kMaxShownColumns);
  size_t last = std::min(source_line.size(), first + kMaxShownColumns);
  std::string prefix = first > 0 ? "..." : "";
  std::string suffix = last < source_line.size() ? "..." : "";
  std::string out = "\n    " + prefix + source_line.substr(first, last - first) + suffix + "\n    ";
  out += std::string(prefix.size(), ' ');
  // Tabs are kept so the caret lines up under a tab-indented source line.
  for (size_t i = first; i < column; ++i) out += source_line[i] == '\t' ? '\t' : ' ';
  out += '^';
  size_t end = span.end_line == span.line ? span.end_col - 1 : source_line.size();
  end = std::min(end, last);
  for (size_t c = column + 1; c < end; ++c) out += '~';
  return out;
}

std::string location(const std::string& filename, Span span) {
  return filename + ":" + std::to_string(span.line) + ":" + std::to_string(span.col);
}

// A source line in a sentence: without its indentation, cut to the window's width.
std::string trimmed(const std::string& line) {
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out = line.substr(first, kMaxShownColumns);
  return out.size() < line.size() - first ? out + "..." : out;
}

// Calls shown: the innermost and the kernel's, deep chains elided between them.
constexpr size_t kCallsShown = 4;

}  // namespace

std::string Diagnostic::format() const {
  std::string out = location(filename, span) + ": error: " + message + caret(source_line, span);
  for (size_t k = 0; k < calls.size(); ++k) {
    if (calls.size() > kCallsShown && k == kCallsShown - 1 && k + 1 < calls.size()) {
      out += "\n  ... " + std::to_string(calls.size() - kCallsShown) + " more calls";
      k = calls.size() - 2;
      continue;
    }
    const CallSite& c = calls[k];
    out += "\n  in " + c.callee + "(), called from " + location(c.filename, c.span) +
           caret(c.source_line, c.span);
  }
  return out;
}

Diagnostic Diagnostic::seen_from(std::size_t k) const {
  Diagnostic d;
  d.kind = kind;
  const CallSite& at = calls.at(k);
  d.message = "in " + at.callee + "(): " + message + " (at " + location(filename, span) +
              (source_line.empty() ? "" : ": " + trimmed(source_line)) + ")";
  d.filename = at.filename;
  d.span = at.span;
  d.source_line = at.source_line;
  d.calls.assign(calls.begin() + static_cast<std::ptrdiff_t>(k) + 1, calls.end());
  return d;
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
