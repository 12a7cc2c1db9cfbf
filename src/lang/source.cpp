#include "lang/source.h"

#include <algorithm>

namespace simt::lang {

Span Span::cover(const Span& a, const Span& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  Span s;
  if (a.line < b.line || (a.line == b.line && a.col <= b.col)) {
    s.line = a.line;
    s.col = a.col;
  } else {
    s.line = b.line;
    s.col = b.col;
  }
  if (a.end_line > b.end_line || (a.end_line == b.end_line && a.end_col >= b.end_col)) {
    s.end_line = a.end_line;
    s.end_col = a.end_col;
  } else {
    s.end_line = b.end_line;
    s.end_col = b.end_col;
  }
  return s;
}

SourceText::SourceText(std::string text, std::string filename, uint32_t first_line)
    : text_(std::move(text)), filename_(std::move(filename)), first_line_(first_line) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view SourceText::line_text(uint32_t line) const {
  if (line < first_line_) return {};
  size_t index = line - first_line_;
  if (index >= line_starts_.size()) return {};
  size_t begin = line_starts_[index];
  size_t end = index + 1 < line_starts_.size() ? line_starts_[index + 1] : text_.size();
  std::string_view view(text_.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

}  // namespace simt::lang
