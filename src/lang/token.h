// Tokens of the simt kernel language (Python's lexical structure).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lang/source.h"

namespace simt::lang {

enum class TokenKind {
  End,        // end of input; repeated forever once reached
  Newline,    // end of a logical line
  Indent,     // the next line is indented deeper
  Dedent,     // one indentation level closed
  Name,       // identifier, including soft keywords (match, case, _)
  Keyword,    // one of Python 3.11's hard keywords
  Int,        // int_value
  Float,      // float_value
  Imaginary,  // float_value is the imaginary part
  String,     // str_value, escapes decoded (adjacent literals stay separate tokens)
  Op,         // operator or delimiter; `text` is its spelling
};

struct Token {
  TokenKind kind = TokenKind::End;
  Span span;
  // Identifier, keyword or operator spelling; the raw source of a literal.
  // Empty for End, Newline, Indent and Dedent.
  std::string text;
  uint64_t int_value = 0;
  double float_value = 0;
  std::string str_value;

  bool is_op(std::string_view op) const { return kind == TokenKind::Op && text == op; }
  bool is_keyword(std::string_view kw) const { return kind == TokenKind::Keyword && text == kw; }
  bool is_name(std::string_view name) const { return kind == TokenKind::Name && text == name; }
};

// "Name", "Newline", ... for tests and debugging.
const char* token_kind_name(TokenKind kind);

// True for Python 3.11's hard keywords (not the soft ones: match, case, _).
bool is_keyword(std::string_view word);

}  // namespace simt::lang
