// Lexer of the simt kernel language: Python's tokenizer for the text of one
// `def`. Tokens are produced on demand so the parser reports the first error
// in source order, as CPython does.
#pragma once

#include <deque>
#include <string_view>
#include <vector>

#include "lang/source.h"
#include "lang/token.h"

namespace simt::lang {

class Lexer {
 public:
  // Skips decorator lines at the top of `src` (balanced brackets, so a
  // decorator may span lines). The indentation of the first remaining line is
  // the base level: a common extra indentation produces no Indent token.
  explicit Lexer(const SourceText& src);

  // The next token. Throws CompileError (Syntax) on a lexical error. After
  // End, keeps returning End.
  Token next();

  // All tokens up to and including End (for tests).
  static std::vector<Token> tokenize(const SourceText& src);

  static constexpr size_t kMaxIndentLevels = 100;
  static constexpr size_t kMaxBracketDepth = 200;

 private:
  struct Bracket {
    char open;
    Span span;
  };

  // Character access; everything past the end reads as '\0' (a real NUL in
  // the text is rejected where tokens start).
  char peek_char(size_t ahead = 0) const;
  bool at_end() const { return pos_ >= text_.size(); }
  void advance_char();
  void new_line();  // call after consuming '\n'
  uint32_t line_number() const { return src_.first_line() + line_index_; }
  uint32_t column() const { return uint32_t(pos_ - line_start_ + 1); }
  Span point_span(uint32_t width = 1) const;
  Span eof_span() const;
  Span span_from(uint32_t line, uint32_t col) const;
  [[noreturn]] void error(Span span, std::string message) const;

  void skip_decorators();
  void skip_decorator();
  void skip_string_in_decorator();
  bool line_is_blank_from(size_t pos) const;
  void handle_indentation();
  void dedent_to(uint32_t col, uint32_t alt_col, Span span);

  Token make(TokenKind kind, uint32_t line, uint32_t col, std::string text);
  Token lex_name();
  Token lex_number();
  Token lex_string(size_t prefix_len);
  Token lex_operator();
  void decode_escape(std::string& out);
  void track_bracket(const Token& tok);
  [[noreturn]] void invalid_character();

  const SourceText& src_;
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_index_ = 0;
  size_t line_start_ = 0;

  bool at_line_start_ = true;
  bool line_has_tokens_ = false;
  bool finished_ = false;
  std::vector<uint32_t> indents_;      // columns with tabs to multiples of 8
  std::vector<uint32_t> alt_indents_;  // tabs counted as 1, to detect ambiguous mixes
  std::vector<Bracket> brackets_;
  std::deque<Token> pending_;
};

}  // namespace simt::lang
