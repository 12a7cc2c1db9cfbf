// Lexer tests: token kinds and values, indentation, literals, positions.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lang/diagnostics.h"
#include "lang/lexer.h"

namespace simt::lang {
namespace {

std::vector<Token> lex(const std::string& text, uint32_t first_line = 1) {
  SourceText src(text, "kernel.py", first_line);
  return Lexer::tokenize(src);
}

// Compact rendering: names and operators by spelling, literals by kind.
std::string render(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::End:
        out += "END";
        break;
      case TokenKind::Newline:
        out += "NL";
        break;
      case TokenKind::Indent:
        out += "IN";
        break;
      case TokenKind::Dedent:
        out += "DE";
        break;
      case TokenKind::Int:
        out += "Int:" + std::to_string(t.int_value);
        break;
      case TokenKind::String:
        out += "Str:" + t.str_value;
        break;
      case TokenKind::Keyword:
        out += "kw:" + t.text;
        break;
      default:
        out += t.text;
    }
  }
  return out;
}

std::string render(const std::string& text) { return render(lex(text)); }

// "line:col: message" of the error the text raises, or "no error".
std::string lex_error(const std::string& text, uint32_t first_line = 1) {
  try {
    lex(text, first_line);
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostic();
    EXPECT_EQ(d.kind, DiagnosticKind::Syntax);
    return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + ": " + d.message;
  }
  return "no error";
}

Token single(const std::string& text) {
  std::vector<Token> tokens = lex(text);
  EXPECT_EQ(tokens.size(), 3u) << render(tokens);  // token NL END
  return tokens.at(0);
}

std::string pos(const Token& t) {
  return std::to_string(t.span.line) + ":" + std::to_string(t.span.col) + "-" +
         std::to_string(t.span.end_line) + ":" + std::to_string(t.span.end_col);
}

TEST(Lexer, SimpleFunction) {
  EXPECT_EQ(render("def f(a, b):\n    return a + b\n"),
            "kw:def f ( a , b ) : NL IN kw:return a + b NL DE END");
}

TEST(Lexer, EmptyAndBlankInputs) {
  EXPECT_EQ(render(""), "END");
  EXPECT_EQ(render("\n\n   \n# comment\n"), "END");
  EXPECT_EQ(render("x"), "x NL END");
}

TEST(Lexer, EndRepeats) {
  SourceText src("x", "k.py");
  Lexer lexer(src);
  for (int i = 0; i < 3; ++i) lexer.next();
  EXPECT_EQ(lexer.next().kind, TokenKind::End);
  EXPECT_EQ(lexer.next().kind, TokenKind::End);
}

TEST(Lexer, IndentDedentNesting) {
  EXPECT_EQ(render("def f():\n  if a:\n    b\n  c\nd\n"),
            "kw:def f ( ) : NL IN kw:if a : NL IN b NL DE c NL DE d NL END");
  // Several levels closed at once and at end of input.
  EXPECT_EQ(render("a:\n b:\n  c:\n   d\ne"),
            "a : NL IN b : NL IN c : NL IN d NL DE DE DE e NL END");
  EXPECT_EQ(render("a:\n b:\n  c"), "a : NL IN b : NL IN c NL DE DE END");
}

TEST(Lexer, BlankAndCommentLinesDoNotAffectIndentation) {
  EXPECT_EQ(render("a:\n\n    b  # note\n# flush-left comment\n      \n    c\n"),
            "a : NL IN b NL c NL DE END");
}

TEST(Lexer, CommonIndentationUsesRealColumns) {
  std::vector<Token> t = lex("    def f(x):\n        return x\n", 10);
  EXPECT_EQ(render(t), "kw:def f ( x ) : NL IN kw:return x NL DE END");
  EXPECT_EQ(pos(t[0]), "10:5-10:8");    // def
  EXPECT_EQ(pos(t[1]), "10:9-10:10");   // f
  EXPECT_EQ(pos(t[8]), "11:9-11:15");   // return
  EXPECT_EQ(pos(t[9]), "11:16-11:17");  // x
}

TEST(Lexer, InconsistentDedent) {
  EXPECT_EQ(lex_error("def f():\n    if x:\n        y\n      z\n"),
            "4:7: unindent does not match any outer indentation level");
  // Below the base level of an indented (method) text.
  EXPECT_EQ(lex_error("    def f():\n        y\n  z\n"),
            "3:3: unindent does not match any outer indentation level");
}

TEST(Lexer, Tabs) {
  EXPECT_EQ(render("def f():\n\tif x:\n\t\ty\n\tz\n"),
            "kw:def f ( ) : NL IN kw:if x : NL IN y NL DE z NL DE END");
  // A tab and eight spaces reach the same column but are ambiguous.
  EXPECT_EQ(lex_error("def f():\n\tx\n        y\n"),
            "3:9: inconsistent use of tabs and spaces in indentation");
  // Spaces followed by a tab still go to the next multiple of 8.
  EXPECT_EQ(render("a:\n  \tb\n  \tc\n"), "a : NL IN b NL c NL DE END");
}

TEST(Lexer, TooManyIndentLevels) {
  std::string text;
  for (int i = 0; i < 120; ++i) text += std::string(i, ' ') + "if x:\n";
  EXPECT_NE(lex_error(text).find("too many levels of indentation"), std::string::npos);
}

TEST(Lexer, ImplicitAndExplicitLineJoining) {
  EXPECT_EQ(render("x = f(1,\n      2)\ny = [\n\n  3 # c\n]\n"),
            "x = f ( Int:1 , Int:2 ) NL y = [ Int:3 ] NL END");
  EXPECT_EQ(render("x = 1 + \\\n    2\n"), "x = Int:1 + Int:2 NL END");
  EXPECT_EQ(lex_error("x = 1 \\ 2\n"),
            "1:7: unexpected character after line continuation character");
  EXPECT_EQ(lex_error("x = 1 \\"), "1:7: unexpected EOF while parsing");
}

TEST(Lexer, CrLfLineEndings) {
  EXPECT_EQ(render("def f():\r\n    x = 1\r\n"), "kw:def f ( ) : NL IN x = Int:1 NL DE END");
}

TEST(Lexer, Decorators) {
  std::vector<Token> t = lex("@simt.kernel(\n  debug=True)\ndef f(): pass\n", 5);
  EXPECT_EQ(render(t), "kw:def f ( ) : kw:pass NL END");
  EXPECT_EQ(pos(t[0]), "7:1-7:4");
  EXPECT_EQ(render("@a\n@b.c(')', \"(\")  # (\n\n    @d[0]\n    def f(): pass\n"),
            "kw:def f ( ) : kw:pass NL END");
  EXPECT_EQ(render("    @simt.kernel\n    def f():\n        pass\n"),
            "kw:def f ( ) : NL IN kw:pass NL DE END");
  EXPECT_EQ(lex_error("@simt.kernel(\ndef f(): pass\n"), "1:13: '(' was never closed");
}

TEST(Lexer, KeywordsAndSoftKeywords) {
  std::vector<Token> t = lex("match case _ async await lambda None");
  EXPECT_EQ(t[0].kind, TokenKind::Name);
  EXPECT_EQ(t[1].kind, TokenKind::Name);
  EXPECT_EQ(t[2].kind, TokenKind::Name);
  EXPECT_EQ(t[3].kind, TokenKind::Keyword);
  EXPECT_EQ(t[4].kind, TokenKind::Keyword);
  EXPECT_EQ(t[5].kind, TokenKind::Keyword);
  EXPECT_EQ(t[6].kind, TokenKind::Keyword);
  EXPECT_TRUE(is_keyword("nonlocal"));
  EXPECT_FALSE(is_keyword("match"));
  EXPECT_FALSE(is_keyword("print"));
}

TEST(Lexer, Identifiers) {
  EXPECT_EQ(render("_x x1 __init__ \xce\xb1\xce\xb2"), "_x x1 __init__ \xce\xb1\xce\xb2 NL END");
}

TEST(Lexer, AllOperators) {
  const std::string ops =
      "+ - * / // % ** @ << >> & | ^ ~ < > <= >= == != ( ) [ ] { } , : . ; = -> += -= *= /= "
      "//= %= **= @= <<= >>= &= |= ^= := ...";
  std::vector<Token> t = lex(ops);
  std::string rebuilt;
  for (const Token& tok : t) {
    if (tok.kind != TokenKind::Op) continue;
    if (!rebuilt.empty()) rebuilt += ' ';
    rebuilt += tok.text;
  }
  EXPECT_EQ(rebuilt, ops);
  EXPECT_EQ(render("a**=b//=c>>=d<<=e"), "a **= b //= c >>= d <<= e NL END");
  EXPECT_EQ(render("x[...]"), "x [ ... ] NL END");
  EXPECT_EQ(render("a->b:=c"), "a -> b := c NL END");
}

TEST(Lexer, IntegerLiterals) {
  struct Case {
    const char* text;
    uint64_t value;
  } cases[] = {
      {"0", 0},
      {"00", 0},
      {"0_0", 0},
      {"7", 7},
      {"42", 42},
      {"1_000_000", 1000000},
      {"0xff", 255},
      {"0XFF", 255},
      {"0x_dead_BEEF", 0xdeadbeef},
      {"0o17", 15},
      {"0O7_7", 63},
      {"0b1010", 10},
      {"0B_1", 1},
      {"18446744073709551615", 18446744073709551615ull},
      {"0xFFFFFFFFFFFFFFFF", 18446744073709551615ull},
      {"0o1777777777777777777777", 18446744073709551615ull},
  };
  for (const Case& c : cases) {
    Token t = single(c.text);
    EXPECT_EQ(t.kind, TokenKind::Int) << c.text;
    EXPECT_EQ(t.int_value, c.value) << c.text;
    EXPECT_EQ(t.text, c.text);
  }
  EXPECT_EQ(single("0b" + std::string(64, '1')).int_value, 18446744073709551615ull);
  EXPECT_EQ(lex_error("0b1" + std::string(64, '0')), "1:1: integer literal too large");
}

TEST(Lexer, IntegerLiteralErrors) {
  EXPECT_EQ(lex_error("x = 18446744073709551616"), "1:5: integer literal too large");
  EXPECT_EQ(lex_error("x = 0x10000000000000000"), "1:5: integer literal too large");
  EXPECT_EQ(lex_error("x = 012"),
            "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix "
            "for octal integers");
  EXPECT_EQ(lex_error("1__0"), "1:1: invalid decimal literal");
  EXPECT_EQ(lex_error("1_"), "1:1: invalid decimal literal");
  EXPECT_EQ(lex_error("12abc"), "1:1: invalid decimal literal");
  EXPECT_EQ(lex_error("0x"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(lex_error("0x_"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(lex_error("0xfg"), "1:1: invalid hexadecimal literal");
  EXPECT_EQ(lex_error("0b2"), "1:3: invalid digit '2' in binary literal");
  EXPECT_EQ(lex_error("0o8"), "1:3: invalid digit '8' in octal literal");
  EXPECT_EQ(lex_error("0b"), "1:1: invalid binary literal");
}

TEST(Lexer, FloatLiterals) {
  struct Case {
    const char* text;
    double value;
  } cases[] = {
      {"1.", 1.0},     {".5", 0.5},
      {"1e-3", 1e-3},  {"1_000.5", 1000.5},
      {"1E+5", 1e5},   {"3.14", 3.14},
      {"012.5", 12.5}, {"0e0", 0.0},
      {"1.e2", 100.0}, {"1_0.0_1e1_0", 10.01e10},
      {"00.", 0.0},    {"2.5e-3", 2.5e-3},
  };
  for (const Case& c : cases) {
    Token t = single(c.text);
    EXPECT_EQ(t.kind, TokenKind::Float) << c.text;
    EXPECT_DOUBLE_EQ(t.float_value, c.value) << c.text;
  }
  EXPECT_TRUE(std::isinf(single("1e400").float_value));
  EXPECT_EQ(single("1e-400").float_value, 0.0);
  EXPECT_EQ(lex_error("1e"), "1:1: invalid decimal literal");
  EXPECT_EQ(lex_error("1.5e+"), "1:1: invalid decimal literal");
  EXPECT_EQ(lex_error("1._5"), "1:1: invalid decimal literal");
}

TEST(Lexer, ImaginaryLiterals) {
  struct Case {
    const char* text;
    double value;
  } cases[] = {{"2j", 2.0},  {"1.5J", 1.5}, {"1e3j", 1000.0},
               {".5j", 0.5}, {"0j", 0.0},   {"012j", 12.0}};
  for (const Case& c : cases) {
    Token t = single(c.text);
    EXPECT_EQ(t.kind, TokenKind::Imaginary) << c.text;
    EXPECT_DOUBLE_EQ(t.float_value, c.value) << c.text;
  }
  EXPECT_EQ(lex_error("2jx"), "1:1: invalid imaginary literal");
}

TEST(Lexer, StringLiterals) {
  EXPECT_EQ(single("'abc'").str_value, "abc");
  EXPECT_EQ(single("\"abc\"").str_value, "abc");
  EXPECT_EQ(single("'a\"b'").str_value, "a\"b");
  EXPECT_EQ(single("'''a\nb'c'''").str_value, "a\nb'c");
  EXPECT_EQ(single("\"\"\"x\"\"\"").str_value, "x");
  EXPECT_EQ(single("''").str_value, "");
  EXPECT_EQ(single("u'x'").str_value, "x");
  EXPECT_EQ(single("R'a\\nb'").str_value, "a\\nb");
  EXPECT_EQ(single("r'\\''").str_value, "\\'");
  EXPECT_EQ(single("'\\n\\t\\\\\\'\\\"'").str_value, "\n\t\\'\"");
  EXPECT_EQ(single("'\\x41\\x7a'").str_value, "Az");
  EXPECT_EQ(single("'\\xe9'").str_value, "\xc3\xa9");  // U+00E9 as UTF-8
  EXPECT_EQ(single("'\\101\\0'").str_value, std::string("A\0", 2));
  EXPECT_EQ(single("'\\u00e9\\U0001F600'").str_value, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(single("'\\d'").str_value, "\\d");  // unknown escapes are kept
  EXPECT_EQ(single("'a\\\nb'").str_value, "ab");
  // Multi-line strings keep line tracking right.
  std::vector<Token> t = lex("x = '''a\nb''' + y\n");
  EXPECT_EQ(pos(t[2]), "1:5-2:5");
  EXPECT_EQ(pos(t[4]), "2:8-2:9");
}

TEST(Lexer, StringLiteralErrors) {
  EXPECT_EQ(lex_error("x = b'abc'"), "1:5: bytes literals are not supported");
  EXPECT_EQ(lex_error("x = Rb'abc'"), "1:5: bytes literals are not supported");
  EXPECT_EQ(lex_error("x = f'{y}'"), "1:5: f-strings are not supported in kernels");
  EXPECT_EQ(lex_error("x = rF'{y}'"), "1:5: f-strings are not supported in kernels");
  EXPECT_EQ(lex_error("x = 'abc\ny = 1\n"),
            "1:5: unterminated string literal (detected at line 1)");
  EXPECT_EQ(lex_error("x = \"abc"), "1:5: unterminated string literal (detected at line 1)");
  EXPECT_EQ(lex_error("x = '''abc\n\ny = 1\n"),
            "1:5: unterminated triple-quoted string literal (detected at line 3)");
  EXPECT_EQ(lex_error("x = '\\x4'"), "1:6: truncated \\xXX escape");
  EXPECT_EQ(lex_error("x = '\\u12'"), "1:6: truncated \\uXXXX escape");
  EXPECT_EQ(lex_error("x = '\\U00110000'"), "1:6: illegal Unicode character in string literal");
  EXPECT_EQ(lex_error("x = '\\N{DASH}'"), "1:6: \\N{...} escapes are not supported in kernels");
}

TEST(Lexer, Brackets) {
  EXPECT_EQ(lex_error("x = a)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(lex_error("x = (a,\n  b\n"), "1:5: '(' was never closed");
  EXPECT_EQ(lex_error("x = [a, (b]"),
            "1:11: closing parenthesis ']' does not match opening parenthesis '('");
  EXPECT_EQ(lex_error("x = (\n]"),
            "2:1: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  EXPECT_EQ(lex_error(std::string(300, '(')), "1:201: too many nested parentheses");
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_EQ(lex_error("x = $"), "1:5: invalid character '$' (U+0024)");
  EXPECT_EQ(lex_error("x = a ? b"), "1:7: invalid character '?' (U+003F)");
  EXPECT_EQ(lex_error("x = !a"), "1:5: invalid character '!' (U+0021)");
  EXPECT_EQ(lex_error(std::string("x = \x01")), "1:5: invalid non-printable character U+0001");
  EXPECT_EQ(lex_error(std::string("x = \0", 5)), "1:5: source code cannot contain null bytes");
  EXPECT_EQ(lex_error("x = \xff"), "1:5: invalid UTF-8 byte 0xff in source");
  EXPECT_EQ(lex_error("x\xc2\xa0= 1"), "1:2: invalid non-printable character U+00A0");
  EXPECT_EQ(lex_error("x = a \xe2\x88\x92 b"), "1:7: invalid character '\xe2\x88\x92' (U+2212)");
}

TEST(Lexer, TokenSpans) {
  std::vector<Token> t = lex("x  =  foo(12, 'ab')\n");
  EXPECT_EQ(pos(t[0]), "1:1-1:2");
  EXPECT_EQ(pos(t[1]), "1:4-1:5");
  EXPECT_EQ(pos(t[2]), "1:7-1:10");
  EXPECT_EQ(pos(t[4]), "1:11-1:13");
  EXPECT_EQ(pos(t[6]), "1:15-1:19");
  EXPECT_EQ(pos(t[8]), "1:20-1:21");  // NEWLINE sits on the line end
}

}  // namespace
}  // namespace simt::lang
