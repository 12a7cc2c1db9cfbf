#include "lang/lexer.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#include "lang/diagnostics.h"

namespace simt::lang {
namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Longest first, so the first match is the longest.
constexpr std::array<std::string_view, 5> kOps3 = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::array<std::string_view, 19> kOps2 = {
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
constexpr std::string_view kOps1 = "+-*/%@&|^~<>()[]{},:.;=";

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

// Decodes one UTF-8 sequence at `pos`; returns its length (0 when malformed).
size_t decode_utf8(std::string_view text, size_t pos, uint32_t& cp) {
  auto byte = [&](size_t i) -> unsigned { return i < text.size() ? uint8_t(text[i]) : 0u; };
  unsigned b0 = byte(pos);
  size_t len;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  for (size_t i = 1; i < len; ++i) {
    unsigned b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  if (overlong || surrogate || cp > 0x10FFFF) return 0;
  return len;
}

// Without Unicode tables we accept most non-ASCII characters in identifiers
// (Python allows letters of any script) but reject the invisible and
// punctuation-like ones that are typical copy-paste accidents.
bool is_identifier_code_point(uint32_t cp) {
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x206F) return false;  // general punctuation, spaces
  if (cp >= 0x2190 && cp <= 0x2BFF) return false;  // arrows, math operators, symbols
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp == 0xFEFF || cp >= 0xFFF0) return false;
  return true;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

std::string hex_code_point(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

// from_chars leaves the value unset when out of range; Python gives inf for
// overflow and 0.0 for underflow.
double parse_double(const std::string& digits) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    size_t e = digits.find_first_of("eE");
    bool negative_exponent =
        e != std::string::npos && e + 1 < digits.size() && digits[e + 1] == '-';
    return negative_exponent ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return value;
}

bool is_open_bracket(char c) { return c == '(' || c == '[' || c == '{'; }
bool is_close_bracket(char c) { return c == ')' || c == ']' || c == '}'; }
char matching_open(char close) { return close == ')' ? '(' : close == ']' ? '[' : '{'; }

}  // namespace

const char* token_kind_name(TokenKind kind) {
  switch (kind) {
    case TokenKind::End:
      return "End";
    case TokenKind::Newline:
      return "Newline";
    case TokenKind::Indent:
      return "Indent";
    case TokenKind::Dedent:
      return "Dedent";
    case TokenKind::Name:
      return "Name";
    case TokenKind::Keyword:
      return "Keyword";
    case TokenKind::Int:
      return "Int";
    case TokenKind::Float:
      return "Float";
    case TokenKind::Imaginary:
      return "Imaginary";
    case TokenKind::String:
      return "String";
    case TokenKind::Op:
      return "Op";
  }
  return "?";
}

bool is_keyword(std::string_view word) {
  for (std::string_view kw : kKeywords)
    if (kw == word) return true;
  return false;
}

Lexer::Lexer(const SourceText& src) : src_(src), text_(src.text()) { skip_decorators(); }

std::vector<Token> Lexer::tokenize(const SourceText& src) {
  Lexer lexer(src);
  std::vector<Token> tokens;
  do {
    tokens.push_back(lexer.next());
  } while (tokens.back().kind != TokenKind::End);
  return tokens;
}

// ---------------------------------------------------------------------------
// Positions

char Lexer::peek_char(size_t ahead) const {
  size_t p = pos_ + ahead;
  return p < text_.size() ? text_[p] : '\0';
}

void Lexer::advance_char() {
  if (at_end()) return;
  char c = text_[pos_++];
  if (c == '\n') new_line();
}

void Lexer::new_line() {
  ++line_index_;
  line_start_ = pos_;
}

Span Lexer::point_span(uint32_t width) const {
  uint32_t col = column();
  return Span{line_number(), col, line_number(), col + width};
}

// Errors at the end of input point just past the last line's text (not at an
// empty line after the final newline), as CPython does.
Span Lexer::eof_span() const {
  if (pos_ == 0 || text_[pos_ - 1] != '\n') return point_span();
  size_t end = pos_ - 1;  // the final newline
  size_t begin = end;
  while (begin > 0 && text_[begin - 1] != '\n') --begin;
  if (end > begin && text_[end - 1] == '\r') --end;
  uint32_t line = line_number() - 1;
  uint32_t col = uint32_t(end - begin + 1);
  return Span{line, col, line, col + 1};
}

Span Lexer::span_from(uint32_t line, uint32_t col) const {
  return Span{line, col, line_number(), column()};
}

void Lexer::error(Span span, std::string message) const {
  fail(DiagnosticKind::Syntax, src_, span, std::move(message));
}

// ---------------------------------------------------------------------------
// Decorators and indentation

bool Lexer::line_is_blank_from(size_t p) const {
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) ++p;
  if (p >= text_.size()) return true;
  char c = text_[p];
  return c == '#' || c == '\n' || (c == '\r' && (p + 1 >= text_.size() || text_[p + 1] == '\n'));
}

void Lexer::skip_decorators() {
  while (!at_end()) {
    if (line_is_blank_from(pos_)) {
      while (!at_end() && peek_char() != '\n') advance_char();
      advance_char();
      continue;
    }
    size_t line_begin = pos_;
    while (peek_char() == ' ' || peek_char() == '\t' || peek_char() == '\f') advance_char();
    if (peek_char() != '@') {
      pos_ = line_begin;  // the indentation is measured by the tokenizer
      return;
    }
    skip_decorator();
  }
}

// Consumes one decorator through the newline that ends it; brackets may span
// lines and strings may contain brackets.
void Lexer::skip_decorator() {
  std::vector<Bracket> open;
  while (!at_end()) {
    char c = peek_char();
    if (c == '#') {
      while (!at_end() && peek_char() != '\n') advance_char();
    } else if (c == '\'' || c == '"') {
      skip_string_in_decorator();
    } else if (c == '\\' && peek_char(1) == '\n') {
      advance_char();
      advance_char();
    } else if (c == '\n') {
      advance_char();
      if (open.empty()) return;
    } else {
      if (is_open_bracket(c)) open.push_back({c, point_span()});
      if (is_close_bracket(c) && !open.empty()) open.pop_back();
      advance_char();
    }
  }
  if (!open.empty())
    error(open.back().span, std::string("'") + open.back().open + "' was never closed");
}

void Lexer::skip_string_in_decorator() {
  char quote = peek_char();
  bool triple = peek_char(1) == quote && peek_char(2) == quote;
  size_t quote_len = triple ? 3 : 1;
  for (size_t i = 0; i < quote_len; ++i) advance_char();
  while (!at_end()) {
    char c = peek_char();
    if (c == '\\') {
      advance_char();
      advance_char();
    } else if (c == '\n' && !triple) {
      return;  // unterminated; the newline ends the decorator
    } else if (c == quote && (!triple || (peek_char(1) == quote && peek_char(2) == quote))) {
      for (size_t i = 0; i < quote_len; ++i) advance_char();
      return;
    } else {
      advance_char();
    }
  }
}

void Lexer::handle_indentation() {
  if (line_is_blank_from(pos_)) return;  // blank and comment-only lines do not count
  uint32_t col = 0, alt_col = 0;
  for (;; advance_char()) {
    char c = peek_char();
    if (c == ' ') {
      ++col;
      ++alt_col;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt_col;
    } else if (c == '\f') {
      col = alt_col = 0;
    } else {
      break;
    }
  }
  Span here = point_span();
  if (indents_.empty()) {  // the first line sets the base level
    indents_.push_back(col);
    alt_indents_.push_back(alt_col);
    return;
  }
  if (col == indents_.back()) {
    if (alt_col != alt_indents_.back())
      error(here, "inconsistent use of tabs and spaces in indentation");
  } else if (col > indents_.back()) {
    if (alt_col <= alt_indents_.back())
      error(here, "inconsistent use of tabs and spaces in indentation");
    if (indents_.size() > kMaxIndentLevels) error(here, "too many levels of indentation");
    indents_.push_back(col);
    alt_indents_.push_back(alt_col);
    Token t;
    t.kind = TokenKind::Indent;
    t.span = here;
    pending_.push_back(std::move(t));
  } else {
    dedent_to(col, alt_col, here);
  }
}

void Lexer::dedent_to(uint32_t col, uint32_t alt_col, Span span) {
  while (indents_.size() > 1 && col < indents_.back()) {
    indents_.pop_back();
    alt_indents_.pop_back();
    Token t;
    t.kind = TokenKind::Dedent;
    t.span = span;
    pending_.push_back(std::move(t));
  }
  if (col != indents_.back()) error(span, "unindent does not match any outer indentation level");
  if (alt_col != alt_indents_.back())
    error(span, "inconsistent use of tabs and spaces in indentation");
}

// ---------------------------------------------------------------------------
// Tokens

Token Lexer::next() {
  for (;;) {
    if (!pending_.empty()) {
      Token t = std::move(pending_.front());
      pending_.pop_front();
      return t;
    }
    if (finished_) {
      Token t;
      t.kind = TokenKind::End;
      t.span = eof_span();
      return t;
    }
    if (at_line_start_ && brackets_.empty()) {
      at_line_start_ = false;
      handle_indentation();
      continue;
    }
    char c = peek_char();
    if (c == ' ' || c == '\t' || c == '\f' || (c == '\r' && peek_char(1) != '\n' && !at_end())) {
      advance_char();
      continue;
    }
    if (at_end()) {
      if (!brackets_.empty())
        error(brackets_.back().span,
              std::string("'") + brackets_.back().open + "' was never closed");
      if (line_has_tokens_) {
        line_has_tokens_ = false;
        return make(TokenKind::Newline, line_number(), column(), "");
      }
      Span here = eof_span();
      if (!indents_.empty()) dedent_to(indents_.front(), alt_indents_.front(), here);
      finished_ = true;
      continue;
    }
    if (c == '#') {
      while (!at_end() && peek_char() != '\n') advance_char();
      continue;
    }
    if (c == '\r' || c == '\n') {
      Token nl = make(TokenKind::Newline, line_number(), column(), "");
      if (c == '\r') advance_char();
      advance_char();
      if (!brackets_.empty()) continue;  // implicit line joining
      at_line_start_ = true;
      if (!line_has_tokens_) continue;
      line_has_tokens_ = false;
      return nl;
    }
    if (c == '\\') {
      Span backslash = point_span();
      size_t skip = peek_char(1) == '\n'                             ? 1
                    : (peek_char(1) == '\r' && peek_char(2) == '\n') ? 2
                                                                     : 0;
      if (skip == 0 && pos_ + 1 >= text_.size()) error(backslash, "unexpected EOF while parsing");
      if (skip == 0) error(backslash, "unexpected character after line continuation character");
      for (size_t i = 0; i <= skip; ++i) advance_char();
      continue;
    }
    Token t;
    if (is_ascii_digit(c) || (c == '.' && is_ascii_digit(peek_char(1)))) {
      t = lex_number();
    } else if (c == '\'' || c == '"') {
      t = lex_string(0);
    } else if (is_ascii_alpha(c) || c == '_' || uint8_t(c) >= 0x80) {
      t = lex_name();
    } else {
      t = lex_operator();
    }
    line_has_tokens_ = true;
    return t;
  }
}

Token Lexer::make(TokenKind kind, uint32_t line, uint32_t col, std::string text) {
  Token t;
  t.kind = kind;
  if (kind == TokenKind::Newline) {
    t.span = Span{line, col, line, col + 1};
  } else {
    t.span = span_from(line, col);
  }
  t.text = std::move(text);
  return t;
}

void Lexer::invalid_character() {
  uint32_t cp = 0;
  size_t len = decode_utf8(text_, pos_, cp);
  Span span = point_span(len == 0 ? 1 : uint32_t(len));
  if (len == 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", unsigned(uint8_t(peek_char())));
    error(span, std::string("invalid UTF-8 byte ") + buf + " in source");
  }
  if (cp == 0) error(span, "source code cannot contain null bytes");
  if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0))
    error(span, "invalid non-printable character " + hex_code_point(cp));
  error(span, "invalid character '" + std::string(text_.substr(pos_, len)) + "' (" +
                  hex_code_point(cp) + ")");
}

Token Lexer::lex_name() {
  uint32_t line = line_number(), col = column();
  size_t start = pos_;
  for (;;) {
    char c = peek_char();
    if (is_ascii_alpha(c) || is_ascii_digit(c) || c == '_') {
      advance_char();
      continue;
    }
    if (uint8_t(c) < 0x80 || at_end()) break;
    uint32_t cp = 0;
    size_t len = decode_utf8(text_, pos_, cp);
    if (len == 0 || !is_identifier_code_point(cp)) {
      if (pos_ == start) invalid_character();
      break;
    }
    pos_ += len;
  }
  std::string word(text_.substr(start, pos_ - start));
  char next = peek_char();
  if ((next == '\'' || next == '"') && word.size() <= 2) {
    std::string lower;
    for (char c : word) lower += char(c | 0x20);
    if (lower == "r" || lower == "u" || lower == "b" || lower == "f" || lower == "br" ||
        lower == "rb" || lower == "fr" || lower == "rf") {
      pos_ = start;
      return lex_string(word.size());
    }
  }
  TokenKind kind = is_keyword(word) ? TokenKind::Keyword : TokenKind::Name;
  return make(kind, line, col, std::move(word));
}

Token Lexer::lex_number() {
  uint32_t line = line_number(), col = column();
  size_t start = pos_;
  auto fail_number = [&](const std::string& message) { error(span_from(line, col), message); };
  auto is_ident_char = [](char c) {
    return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_' || uint8_t(c) >= 0x80;
  };

  char prefix = char(peek_char(1) | 0x20);
  if (peek_char() == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
    int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
    std::string kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    pos_ += 2;
    uint64_t value = 0;
    bool overflow = false;
    size_t digits = 0;
    for (;;) {
      if (peek_char() == '_') {
        int d = digit_value(peek_char(1));
        if (d < 0 || d >= base) fail_number("invalid " + kind + " literal");
        advance_char();
      }
      char c = peek_char();
      int d = digit_value(c);
      if (d < 0 || d >= base) {
        if (is_ascii_digit(c))
          error(point_span(), std::string("invalid digit '") + c + "' in " + kind + " literal");
        break;
      }
      if (value > (std::numeric_limits<uint64_t>::max() - uint64_t(d)) / uint64_t(base))
        overflow = true;
      value = value * uint64_t(base) + uint64_t(d);
      advance_char();
      ++digits;
    }
    if (digits == 0 || is_ident_char(peek_char())) fail_number("invalid " + kind + " literal");
    if (overflow) fail_number("integer literal too large");
    Token t = make(TokenKind::Int, line, col, std::string(text_.substr(start, pos_ - start)));
    t.int_value = value;
    return t;
  }

  // Digits with single underscores between them.
  auto digit_part = [&]() {
    while (is_ascii_digit(peek_char())) {
      advance_char();
      if (peek_char() == '_') {
        if (!is_ascii_digit(peek_char(1))) fail_number("invalid decimal literal");
        advance_char();
      }
    }
  };
  bool is_float = false;
  digit_part();
  if (peek_char() == '.') {
    is_float = true;
    advance_char();
    digit_part();
  }
  char e = peek_char();
  if (e == 'e' || e == 'E') {
    char s = peek_char(1);
    bool has_exponent =
        is_ascii_digit(s) || ((s == '+' || s == '-') && is_ascii_digit(peek_char(2)));
    if (!has_exponent) fail_number("invalid decimal literal");
    advance_char();
    if (s == '+' || s == '-') advance_char();
    digit_part();
    is_float = true;
  }
  bool imaginary = false;
  if (peek_char() == 'j' || peek_char() == 'J') {
    imaginary = true;
    advance_char();
  }
  if (is_ident_char(peek_char()))
    fail_number(imaginary ? "invalid imaginary literal" : "invalid decimal literal");

  std::string raw(text_.substr(start, pos_ - start));
  std::string clean;
  for (char c : raw)
    if (c != '_' && c != 'j' && c != 'J') clean += c;
  if (!is_float && !imaginary) {
    if (clean.size() > 1 && clean[0] == '0' && clean.find_first_not_of('0') != std::string::npos)
      fail_number(
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
          "octal integers");
    uint64_t value = 0;
    for (char c : clean) {
      uint64_t d = uint64_t(c - '0');
      if (value > (std::numeric_limits<uint64_t>::max() - d) / 10)
        fail_number("integer literal too large");
      value = value * 10 + d;
    }
    Token t = make(TokenKind::Int, line, col, std::move(raw));
    t.int_value = value;
    return t;
  }
  Token t = make(imaginary ? TokenKind::Imaginary : TokenKind::Float, line, col, std::move(raw));
  t.float_value = parse_double(clean);
  return t;
}

Token Lexer::lex_string(size_t prefix_len) {
  uint32_t line = line_number(), col = column();
  size_t start = pos_;
  bool raw = false, bytes = false, fstring = false;
  for (size_t i = 0; i < prefix_len; ++i) {
    char c = char(peek_char() | 0x20);
    raw |= c == 'r';
    bytes |= c == 'b';
    fstring |= c == 'f';
    advance_char();
  }
  char quote = peek_char();
  bool triple = peek_char(1) == quote && peek_char(2) == quote;
  size_t quote_len = triple ? 3 : 1;
  for (size_t i = 0; i < quote_len; ++i) advance_char();
  Span opening = span_from(line, col);

  std::string value;
  for (;;) {
    char c = peek_char();
    if (at_end() || (c == '\n' && !triple)) {
      std::string what =
          triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
      error(opening, what + " (detected at line " + std::to_string(eof_span().line) + ")");
    }
    if (c == quote && (!triple || (peek_char(1) == quote && peek_char(2) == quote))) {
      for (size_t i = 0; i < quote_len; ++i) advance_char();
      break;
    }
    if (c == '\\') {
      if (raw) {  // a raw string keeps the backslash and the escaped quote
        value += c;
        advance_char();
        if (!at_end()) {
          value += peek_char();
          advance_char();
        }
        continue;
      }
      decode_escape(value);
      continue;
    }
    value += c;
    advance_char();
  }
  Span whole = span_from(line, col);
  if (bytes) error(whole, "bytes literals are not supported");
  if (fstring) error(whole, "f-strings are not supported in kernels");
  Token t;
  t.kind = TokenKind::String;
  t.span = whole;
  t.text = std::string(text_.substr(start, pos_ - start));
  t.str_value = std::move(value);
  return t;
}

// At a backslash inside a non-raw string: appends the decoded character(s).
void Lexer::decode_escape(std::string& out) {
  uint32_t line = line_number(), col = column();
  advance_char();  // the backslash
  char c = peek_char();
  if (at_end()) return;  // the caller reports the unterminated string
  auto read_hex = [&](int count, const char* what) {
    uint32_t cp = 0;
    for (int i = 0; i < count; ++i) {
      int d = digit_value(peek_char());
      if (d < 0 || d >= 16)
        error(span_from(line, col), std::string("truncated ") + what + " escape");
      cp = cp * 16 + uint32_t(d);
      advance_char();
    }
    return cp;
  };
  switch (c) {
    case '\n':
      advance_char();
      return;
    case '\r':
      advance_char();
      if (peek_char() == '\n') advance_char();
      return;
    case '\\':
    case '\'':
    case '"':
      out += c;
      advance_char();
      return;
    case 'a':
      out += '\a';
      advance_char();
      return;
    case 'b':
      out += '\b';
      advance_char();
      return;
    case 'f':
      out += '\f';
      advance_char();
      return;
    case 'n':
      out += '\n';
      advance_char();
      return;
    case 'r':
      out += '\r';
      advance_char();
      return;
    case 't':
      out += '\t';
      advance_char();
      return;
    case 'v':
      out += '\v';
      advance_char();
      return;
    case 'x':
      advance_char();
      append_utf8(out, read_hex(2, "\\xXX"));
      return;
    case 'u':
    case 'U': {
      advance_char();
      uint32_t cp = read_hex(c == 'u' ? 4 : 8, c == 'u' ? "\\uXXXX" : "\\UXXXXXXXX");
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        error(span_from(line, col), "illegal Unicode character in string literal");
      append_utf8(out, cp);
      return;
    }
    case 'N':
      error(span_from(line, col), "\\N{...} escapes are not supported in kernels");
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t cp = 0;
    for (int i = 0; i < 3 && peek_char() >= '0' && peek_char() <= '7'; ++i) {
      cp = cp * 8 + uint32_t(peek_char() - '0');
      advance_char();
    }
    append_utf8(out, cp);
    return;
  }
  // Unknown escapes keep their backslash, as in Python.
  out += '\\';
}

Token Lexer::lex_operator() {
  uint32_t line = line_number(), col = column();
  std::string_view rest = text_.substr(pos_);
  std::string_view op;
  for (std::string_view candidate : kOps3)
    if (rest.substr(0, 3) == candidate) op = candidate;
  if (op.empty())
    for (std::string_view candidate : kOps2)
      if (rest.substr(0, 2) == candidate) op = candidate;
  if (op.empty() && kOps1.find(rest[0]) != std::string_view::npos) op = rest.substr(0, 1);
  if (op.empty()) invalid_character();
  pos_ += op.size();
  Token t = make(TokenKind::Op, line, col, std::string(op));
  track_bracket(t);
  return t;
}

void Lexer::track_bracket(const Token& tok) {
  char c = tok.text[0];
  if (tok.text.size() != 1) return;
  if (is_open_bracket(c)) {
    if (brackets_.size() >= kMaxBracketDepth) error(tok.span, "too many nested parentheses");
    brackets_.push_back({c, tok.span});
    return;
  }
  if (!is_close_bracket(c)) return;
  if (brackets_.empty()) error(tok.span, std::string("unmatched '") + c + "'");
  const Bracket& open = brackets_.back();
  if (open.open != matching_open(c)) {
    std::string message = std::string("closing parenthesis '") + c +
                          "' does not match opening parenthesis '" + open.open + "'";
    if (open.span.line != tok.span.line) message += " on line " + std::to_string(open.span.line);
    error(tok.span, message);
  }
  brackets_.pop_back();
}

}  // namespace simt::lang
