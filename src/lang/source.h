// Source text of one kernel function and positions inside the user's file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simt::lang {

// A position range in the user's real file. Lines and columns are 1-based;
// `end_col` is one past the last character (exclusive) on `end_line`.
struct Span {
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t end_line = 0;
  uint32_t end_col = 0;

  bool valid() const { return line != 0; }
  // The smallest span covering both.
  static Span cover(const Span& a, const Span& b);
};

// The text of one `def` as `inspect.getsource` returns it: decorators may sit
// above it and every line may carry the same extra indentation (a method or a
// nested function). `first_line` is the file line number of the text's first
// line, so spans computed from it are the user's real line numbers; columns
// stay the real columns because the indentation is skipped, not removed.
class SourceText {
 public:
  SourceText(std::string text, std::string filename, uint32_t first_line = 1);

  const std::string& text() const { return text_; }
  const std::string& filename() const { return filename_; }
  uint32_t first_line() const { return first_line_; }

  // The text of file line `line` (without its newline), or "" when the line
  // is outside this text.
  std::string_view line_text(uint32_t line) const;

 private:
  std::string text_;
  std::string filename_;
  uint32_t first_line_;
  std::vector<size_t> line_starts_;  // byte offset of each line in text_
};

}  // namespace simt::lang
