// Parser tests: trees (as S-expressions), spans, errors, names, robustness.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lang/ast.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"

namespace simt::lang {
namespace {

ParsedFunction parse(const std::string& text, uint32_t first_line = 1) {
  SourceText src(text, "kernel.py", first_line);
  return parse_function(src);
}

std::string indent(const std::string& body, const std::string& prefix = "    ") {
  std::istringstream in(body);
  std::string line, out;
  while (std::getline(in, line)) out += (line.empty() ? "" : prefix) + line + "\n";
  return out;
}

// The dumps of the statements of `body` (written without indentation).
std::string stmts(const std::string& body) {
  ParsedFunction f = parse("def f(a, b, c, d, e, x, y, z, i, j, k, n):\n" + indent(body));
  std::string out;
  for (const StmtPtr& s : f.def.body) out += (out.empty() ? "" : " ") + dump(*s);
  return out;
}

// The dump of the expression statement `text` (after a `pass`, so a string
// is not taken for a docstring).
std::string expr(const std::string& text) {
  ParsedFunction f = parse("def f():\n    pass\n    " + text + "\n");
  EXPECT_EQ(f.def.body.size(), 2u);
  const Stmt& s = *f.def.body.at(1);
  EXPECT_EQ(s.kind, StmtKind::ExprStmt) << text;
  return dump(*s.value);
}

// The first statement's value, for span checks.
ExprPtr first_value(ParsedFunction& f) { return std::move(f.def.body.at(0)->value); }

Diagnostic diagnostic(const std::string& text, uint32_t first_line = 1) {
  try {
    parse(text, first_line);
  } catch (const CompileError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

// "line:col: message" of the error the text raises.
std::string error(const std::string& text, uint32_t first_line = 1) {
  Diagnostic d = diagnostic(text, first_line);
  EXPECT_EQ(d.kind, DiagnosticKind::Syntax);
  return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + ": " + d.message;
}

// The error for a body line, as "line:col: message" with the body's first
// statement on line 2 at column 5.
std::string body_error(const std::string& body) { return error("def f():\n" + indent(body)); }

std::string span(const Span& s) {
  return std::to_string(s.line) + ":" + std::to_string(s.col) + "-" + std::to_string(s.end_line) +
         ":" + std::to_string(s.end_col);
}

// ---------------------------------------------------------------------------
// Expressions

TEST(ParserExpr, Precedence) {
  EXPECT_EQ(expr("a + b * c"), "(Binary + (Name a) (Binary * (Name b) (Name c)))");
  EXPECT_EQ(expr("not a == b"), "(Unary not (Compare (Name a) == (Name b)))");
  EXPECT_EQ(expr("-x**2"), "(Unary - (Binary ** (Name x) (Int 2)))");
  EXPECT_EQ(expr("-2**2"), "(Unary - (Binary ** (Int 2) (Int 2)))");
  EXPECT_EQ(expr("2**-1"), "(Binary ** (Int 2) (Unary - (Int 1)))");
  EXPECT_EQ(expr("2**3**2"), "(Binary ** (Int 2) (Binary ** (Int 3) (Int 2)))");
  EXPECT_EQ(expr("a if b else c if d else e"),
            "(IfExp (Name a) (Name b) (IfExp (Name c) (Name d) (Name e)))");
  EXPECT_EQ(expr("a or b and c"), "(BoolOp or (Name a) (BoolOp and (Name b) (Name c)))");
  EXPECT_EQ(expr("a and not b or c"),
            "(BoolOp or (BoolOp and (Name a) (Unary not (Name b))) (Name c))");
  EXPECT_EQ(expr("x << 1 + 2"), "(Binary << (Name x) (Binary + (Int 1) (Int 2)))");
  EXPECT_EQ(expr("a & b | c ^ d"),
            "(Binary | (Binary & (Name a) (Name b)) (Binary ^ (Name c) (Name d)))");
  EXPECT_EQ(expr("a | b ^ c & d"),
            "(Binary | (Name a) (Binary ^ (Name b) (Binary & (Name c) (Name d))))");
  EXPECT_EQ(expr("a < b < c"), "(Compare (Name a) < (Name b) < (Name c))");
  EXPECT_EQ(expr("a | b == c"), "(Compare (Binary | (Name a) (Name b)) == (Name c))");
  EXPECT_EQ(expr("a - b - c"), "(Binary - (Binary - (Name a) (Name b)) (Name c))");
  EXPECT_EQ(expr("a / b // c % d @ e"),
            "(Binary @ (Binary % (Binary // (Binary / (Name a) (Name b)) (Name c)) (Name d)) "
            "(Name e))");
  EXPECT_EQ(expr("~a + -b - +c"),
            "(Binary - (Binary + (Unary ~ (Name a)) (Unary - (Name b))) (Unary + (Name c)))");
  EXPECT_EQ(expr("not not a"), "(Unary not (Unary not (Name a)))");
  EXPECT_EQ(expr("- - a"), "(Unary - (Unary - (Name a)))");
  EXPECT_EQ(expr("a >> b << c"), "(Binary << (Binary >> (Name a) (Name b)) (Name c))");
  EXPECT_EQ(expr("-a.b ** c[0]"),
            "(Unary - (Binary ** (Attr (Name a) b) (Subscript (Name c) (Int 0))))");
  EXPECT_EQ(expr("a if b or c else d"), "(IfExp (Name a) (BoolOp or (Name b) (Name c)) (Name d))");
  EXPECT_EQ(expr("not a if b else c"), "(IfExp (Unary not (Name a)) (Name b) (Name c))");
  EXPECT_EQ(expr("(a + b) * c"), "(Binary * (Binary + (Name a) (Name b)) (Name c))");
}

TEST(ParserExpr, Comparisons) {
  EXPECT_EQ(expr("a < b <= c > d >= e == x != y"),
            "(Compare (Name a) < (Name b) <= (Name c) > (Name d) >= (Name e) == (Name x) != "
            "(Name y))");
  EXPECT_EQ(expr("a is b"), "(Compare (Name a) is (Name b))");
  EXPECT_EQ(expr("a is not None"), "(Compare (Name a) is not (None))");
  EXPECT_EQ(expr("a in b"), "(Compare (Name a) in (Name b))");
  EXPECT_EQ(expr("a not in b"), "(Compare (Name a) not in (Name b))");
  EXPECT_EQ(expr("not a in b"), "(Unary not (Compare (Name a) in (Name b)))");
}

TEST(ParserExpr, BoolOpsFlatten) {
  EXPECT_EQ(expr("a and b and c"), "(BoolOp and (Name a) (Name b) (Name c))");
  EXPECT_EQ(expr("a or b or c or d"), "(BoolOp or (Name a) (Name b) (Name c) (Name d))");
  EXPECT_EQ(expr("(a and b) and c"), "(BoolOp and (BoolOp and (Name a) (Name b)) (Name c))");
  EXPECT_EQ(expr("a and b or c and d"),
            "(BoolOp or (BoolOp and (Name a) (Name b)) (BoolOp and (Name c) (Name d)))");
}

TEST(ParserExpr, Atoms) {
  EXPECT_EQ(expr("x"), "(Name x)");
  EXPECT_EQ(expr("42"), "(Int 42)");
  EXPECT_EQ(expr("0xff"), "(Int 255)");
  EXPECT_EQ(expr("1.5"), "(Float 1.5)");
  EXPECT_EQ(expr("1e-3"), "(Float 0.001)");
  EXPECT_EQ(expr("2j"), "(Imag 2)");
  EXPECT_EQ(expr("True"), "(Bool True)");
  EXPECT_EQ(expr("False"), "(Bool False)");
  EXPECT_EQ(expr("None"), "(None)");
  EXPECT_EQ(expr("'a' \"b\" '''c'''"), "(Str \"abc\")");
  EXPECT_EQ(expr("('a'\n     'b')"), "(Str \"ab\")");
  EXPECT_EQ(expr("()"), "(Tuple)");
  EXPECT_EQ(expr("(a,)"), "(Tuple (Name a))");
  EXPECT_EQ(expr("(a, b)"), "(Tuple (Name a) (Name b))");
  EXPECT_EQ(expr("(a, b,)"), "(Tuple (Name a) (Name b))");
  EXPECT_EQ(expr("((a))"), "(Name a)");
  EXPECT_EQ(expr("a, b"), "(Tuple (Name a) (Name b))");
  EXPECT_EQ(expr("a,"), "(Tuple (Name a))");
  EXPECT_EQ(expr("-1"), "(Unary - (Int 1))");
  EXPECT_EQ(expr("match"), "(Name match)");
}

TEST(ParserExpr, Parenthesized) {
  ParsedFunction f = parse("def f():\n    (a + b) * c\n");
  ExprPtr e = first_value(f);
  EXPECT_FALSE(e->parenthesized);
  EXPECT_TRUE(e->items[0]->parenthesized);
  EXPECT_FALSE(e->items[1]->parenthesized);
  EXPECT_EQ(span(e->items[0]->span), "2:5-2:12");  // includes the parentheses
  EXPECT_EQ(span(e->span), "2:5-2:16");
  ParsedFunction g = parse("def f():\n    x = (1, 2)\n    y = 1, 2\n");
  EXPECT_TRUE(g.def.body[0]->value->parenthesized);
  EXPECT_FALSE(g.def.body[1]->value->parenthesized);
}

TEST(ParserExpr, Calls) {
  EXPECT_EQ(expr("f()"), "(Call (Name f))");
  EXPECT_EQ(expr("f(a, b + 1)"), "(Call (Name f) (Name a) (Binary + (Name b) (Int 1)))");
  EXPECT_EQ(expr("f(a, k=1, j=c if d else e,)"),
            "(Call (Name f) (Name a) (kw k (Int 1)) (kw j (IfExp (Name c) (Name d) (Name e))))");
  EXPECT_EQ(expr("f(x)(y)"), "(Call (Call (Name f) (Name x)) (Name y))");
  EXPECT_EQ(expr("math.sin(x)"), "(Call (Attr (Name math) sin) (Name x))");
  EXPECT_EQ(expr("cuda.shared.array((16, 16), dtype=float32)"),
            "(Call (Attr (Attr (Name cuda) shared) array) (Tuple (Int 16) (Int 16)) "
            "(kw dtype (Name float32)))");
  EXPECT_EQ(expr("f(a == b)"), "(Call (Name f) (Compare (Name a) == (Name b)))");
}

TEST(ParserExpr, Subscripts) {
  EXPECT_EQ(expr("a[i]"), "(Subscript (Name a) (Name i))");
  EXPECT_EQ(expr("a[i, j]"), "(Subscript (Name a) (Tuple (Name i) (Name j)))");
  EXPECT_EQ(expr("a[i,]"), "(Subscript (Name a) (Tuple (Name i)))");
  EXPECT_EQ(expr("a[1:n]"), "(Subscript (Name a) (Slice (Int 1) (Name n) _))");
  EXPECT_EQ(expr("a[:, 0]"), "(Subscript (Name a) (Tuple (Slice _ _ _) (Int 0)))");
  EXPECT_EQ(expr("a[::2]"), "(Subscript (Name a) (Slice _ _ (Int 2)))");
  EXPECT_EQ(expr("a[:]"), "(Subscript (Name a) (Slice _ _ _))");
  EXPECT_EQ(expr("a[1:]"), "(Subscript (Name a) (Slice (Int 1) _ _))");
  EXPECT_EQ(expr("a[:n:2]"), "(Subscript (Name a) (Slice _ (Name n) (Int 2)))");
  EXPECT_EQ(expr("a[i:j:k, ::]"),
            "(Subscript (Name a) (Tuple (Slice (Name i) (Name j) (Name k)) (Slice _ _ _)))");
  EXPECT_EQ(expr("a[i][j].shape[0]"),
            "(Subscript (Attr (Subscript (Subscript (Name a) (Name i)) (Name j)) shape) (Int 0))");
  EXPECT_EQ(expr("a[(i, j)]"), "(Subscript (Name a) (Tuple (Name i) (Name j)))");
}

TEST(ParserExpr, Spans) {
  ParsedFunction f = parse("def f():\n    x = a + b*c\n    y = f(a, k=1)[i:j]\n");
  const Expr& sum = *f.def.body[0]->value;
  EXPECT_EQ(span(sum.span), "2:9-2:16");
  EXPECT_EQ(span(sum.items[1]->span), "2:13-2:16");
  EXPECT_EQ(span(f.def.body[0]->span), "2:5-2:16");
  const Expr& sub = *f.def.body[1]->value;
  EXPECT_EQ(span(sub.span), "3:9-3:23");
  EXPECT_EQ(span(sub.items[0]->span), "3:9-3:18");
  EXPECT_EQ(span(sub.items[0]->keywords[0].span), "3:14-3:17");
  EXPECT_EQ(span(sub.items[1]->span), "3:19-3:22");
  // Multi-line expressions.
  ParsedFunction g = parse("def f():\n    x = (a +\n         b)\n");
  EXPECT_EQ(span(g.def.body[0]->value->span), "2:9-3:12");
}

// ---------------------------------------------------------------------------
// Statements

TEST(ParserStmt, Assignments) {
  EXPECT_EQ(stmts("x = 1"), "(Assign (Name x) (Int 1))");
  EXPECT_EQ(stmts("x = y = 1"), "(Assign (Name x) (Name y) (Int 1))");
  EXPECT_EQ(stmts("a, b = b, a"), "(Assign (Tuple (Name a) (Name b)) (Tuple (Name b) (Name a)))");
  EXPECT_EQ(stmts("(a, b), c = x"), "(Assign (Tuple (Tuple (Name a) (Name b)) (Name c)) (Name x))");
  EXPECT_EQ(stmts("a[i] = x"), "(Assign (Subscript (Name a) (Name i)) (Name x))");
  EXPECT_EQ(stmts("a[i, j] = a[j, i] = 0"),
            "(Assign (Subscript (Name a) (Tuple (Name i) (Name j))) (Subscript (Name a) (Tuple "
            "(Name j) (Name i))) (Int 0))");
  EXPECT_EQ(stmts("match = 3"), "(Assign (Name match) (Int 3))");
  // A record's field (the type checker rejects other attributes).
  EXPECT_EQ(stmts("a[i].x = 1"), "(Assign (Attr (Subscript (Name a) (Name i)) x) (Int 1))");
  EXPECT_EQ(stmts("x, r.y = 1, 2"),
            "(Assign (Tuple (Name x) (Attr (Name r) y)) (Tuple (Int 1) (Int 2)))");
}

TEST(ParserStmt, AugmentedAssignments) {
  const char* ops[] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
  for (const char* op : ops) {
    EXPECT_EQ(stmts(std::string("x ") + op + "= 2"),
              std::string("(AugAssign ") + op + "= (Name x) (Int 2))");
  }
  EXPECT_EQ(stmts("a[i] += x * 2"),
            "(AugAssign += (Subscript (Name a) (Name i)) (Binary * (Name x) (Int 2)))");
  EXPECT_EQ(stmts("r.x -= 1"), "(AugAssign -= (Attr (Name r) x) (Int 1))");
}

TEST(ParserStmt, AnnotatedAssignments) {
  EXPECT_EQ(stmts("x: float32 = 0"), "(AnnAssign (Name x) (Name float32) (Int 0))");
  EXPECT_EQ(stmts("x: int32"), "(AnnAssign (Name x) (Name int32) _)");
  EXPECT_EQ(stmts("x: simt.float32 = 1, 2"),
            "(AnnAssign (Name x) (Attr (Name simt) float32) (Tuple (Int 1) (Int 2)))");
}

TEST(ParserStmt, If) {
  EXPECT_EQ(stmts("if x:\n    y = 1\n"), "(If (Name x) (body (Assign (Name y) (Int 1))))");
  EXPECT_EQ(stmts("if x:\n    pass\nelif y:\n    pass\nelif z:\n    pass\nelse:\n    a = 1\n"),
            "(If (Name x) (body (Pass)) (else (If (Name y) (body (Pass)) (else (If (Name z) "
            "(body (Pass)) (else (Assign (Name a) (Int 1))))))))");
  EXPECT_EQ(stmts("if x: y = 1\nelse: y = 2\n"),
            "(If (Name x) (body (Assign (Name y) (Int 1))) (else (Assign (Name y) (Int 2))))");
  EXPECT_EQ(stmts("if x: a = 1; b = 2;\n"),
            "(If (Name x) (body (Assign (Name a) (Int 1)) (Assign (Name b) (Int 2))))");
}

TEST(ParserStmt, Loops) {
  EXPECT_EQ(stmts("while i < n:\n    i += 1\n    if i: break\n    continue\n"),
            "(While (Compare (Name i) < (Name n)) (body (AugAssign += (Name i) (Int 1)) (If "
            "(Name i) (body (Break))) (Continue)))");
  EXPECT_EQ(stmts("for i in range(n):\n    pass\n"),
            "(For (Name i) (Call (Name range) (Name n)) (body (Pass)))");
  EXPECT_EQ(stmts("for i, v in pairs: pass"),
            "(For (Tuple (Name i) (Name v)) (Name pairs) (body (Pass)))");
  EXPECT_EQ(stmts("for (i, v) in pairs: pass"),
            "(For (Tuple (Name i) (Name v)) (Name pairs) (body (Pass)))");
  EXPECT_EQ(stmts("for i, in x: pass"), "(For (Tuple (Name i)) (Name x) (body (Pass)))");
  EXPECT_EQ(stmts("for x in 1, 2, 3: pass"),
            "(For (Name x) (Tuple (Int 1) (Int 2) (Int 3)) (body (Pass)))");
  EXPECT_EQ(stmts("for a[i] in x: pass"),
            "(For (Subscript (Name a) (Name i)) (Name x) (body (Pass)))");
  EXPECT_EQ(stmts("for i in range(3):\n    for j in range(i):\n        if j: continue\n"),
            "(For (Name i) (Call (Name range) (Int 3)) (body (For (Name j) (Call (Name range) "
            "(Name i)) (body (If (Name j) (body (Continue)))))))");
}

TEST(ParserStmt, SimpleStatements) {
  EXPECT_EQ(stmts("return"), "(Return)");
  EXPECT_EQ(stmts("return x"), "(Return (Name x))");
  EXPECT_EQ(stmts("return x, y"), "(Return (Tuple (Name x) (Name y)))");
  EXPECT_EQ(stmts("pass"), "(Pass)");
  EXPECT_EQ(stmts("f(x)"), "(Expr (Call (Name f) (Name x)))");
  EXPECT_EQ(stmts("assert x"), "(Assert (Name x))");
  EXPECT_EQ(stmts("assert x > 0, 'x must be positive'"),
            "(Assert (Compare (Name x) > (Int 0)) (Str \"x must be positive\"))");
  EXPECT_EQ(stmts("x = 1; y = 2; return"),
            "(Assign (Name x) (Int 1)) (Assign (Name y) (Int 2)) (Return)");
  EXPECT_EQ(stmts("print('x =', x)"), "(Expr (Call (Name print) (Str \"x =\") (Name x)))");
}

TEST(ParserStmt, StatementSpans) {
  ParsedFunction f =
      parse("    def k(a):\n        if a:\n            x = 1\n        return a\n", 20);
  EXPECT_EQ(span(f.def.span), "20:5-20:13");
  const Stmt& s = *f.def.body[0];
  EXPECT_EQ(span(s.span), "21:9-21:14");  // header: `if a:`
  EXPECT_EQ(span(s.test->span), "21:12-21:13");
  EXPECT_EQ(span(s.body[0]->span), "22:13-22:18");
  EXPECT_EQ(span(f.def.body[1]->span), "23:9-23:17");
  EXPECT_EQ(span(f.def.params[0].span), "20:11-20:12");
}

TEST(ParserFunction, Header) {
  ParsedFunction f = parse("def kern(a: float32[:], n: int32 = 10, c=2.5) -> None:\n    pass\n");
  EXPECT_EQ(dump(f.def),
            "(def kern (params (a : (Subscript (Name float32) (Slice _ _ _))) (n : (Name int32) = "
            "(Int 10)) (c = (Float 2.5))) -> (None) (Pass))");
  EXPECT_EQ(dump(parse("def f(): pass").def), "(def f (params) (Pass))");
  EXPECT_EQ(dump(parse("def f(a, b,):\n  return a").def),
            "(def f (params (a) (b)) (Return (Name a)))");
}

TEST(ParserFunction, Lambda) {
  // A lambda's span as Python keeps it, parenthesized: the function `lambda` returning its
  // expression, over several lines too, columns those of the user's line.
  EXPECT_EQ(dump(parse("(lambda a, b: a + b)").def),
            "(def lambda (params (a) (b)) (Return (Binary + (Name a) (Name b))))");
  EXPECT_EQ(dump(parse("(lambda x, k=2:\n     x * k)").def),
            "(def lambda (params (x) (k = (Int 2))) (Return (Binary * (Name x) (Name k))))");
  EXPECT_EQ(dump(parse("(lambda: 0)").def), "(def lambda (params) (Return (Int 0)))");
  ParsedFunction f = parse("           (lambda a: a)", 7);
  EXPECT_EQ(span(f.def.params[0].span), "7:20-7:21");
  EXPECT_EQ(error("(lambda a: a) + 1"), "1:15: unexpected code after the function definition");
  EXPECT_EQ(error("(lambda a: lambda b: b)"),
            "1:12: lambda expressions are not supported in kernels");
  EXPECT_EQ(error("(lambda a: int = 1: a)"), "1:16: invalid syntax");
}

TEST(ParserFunction, Docstring) {
  ParsedFunction f = parse("def f(x):\n    \"\"\"Adds one.\n\n    More.\"\"\"\n    return x + 1\n");
  EXPECT_EQ(f.def.docstring, "Adds one.\n\n    More.");
  EXPECT_EQ(dump(f.def),
            "(def f (params (x)) (doc \"Adds one.\\n\\n    More.\") (Return (Binary + (Name x) "
            "(Int 1))))");
  EXPECT_EQ(parse("def f():\n    'only a docstring'\n").def.body.size(), 0u);
  // Only the first statement is a docstring.
  ParsedFunction g = parse("def f():\n    x = 1\n    'not a docstring'\n");
  EXPECT_EQ(g.def.docstring, "");
  EXPECT_EQ(g.def.body.size(), 2u);
}

TEST(ParserFunction, DecoratorsAndCommonIndentation) {
  std::string text =
      "    @simt.kernel(\n"
      "        debug=True)\n"
      "    def k(a, b):\n"
      "        # comment\n"
      "\n"
      "        i = simt.grid(1)\n"
      "        if i < a.size:\n"
      "            b[i] = a[i] * 2\n";
  ParsedFunction f = parse(text, 100);
  EXPECT_EQ(f.def.name, "k");
  EXPECT_EQ(span(f.def.span), "102:5-102:16");
  const Stmt& if_stmt = *f.def.body[1];
  EXPECT_EQ(span(if_stmt.span), "106:9-106:23");
  EXPECT_EQ(span(if_stmt.body[0]->targets[0]->span), "107:13-107:17");
  EXPECT_EQ(span(if_stmt.body[0]->value->span), "107:20-107:28");
}

TEST(ParserFunction, Trailing) {
  EXPECT_EQ(dump(parse("\n\ndef f():\n    pass\n\n# trailing comment\n").def),
            "(def f (params) (Pass))");
  EXPECT_EQ(dump(parse("def f():\n    pass").def), "(def f (params) (Pass))");
}

// ---------------------------------------------------------------------------
// Unsupported constructs: the message names the construct, the location is
// its first token in the user's file.

TEST(ParserUnsupported, Statements) {
  EXPECT_EQ(body_error("class A:\n    pass"),
            "2:5: class definitions are not supported in kernels");
  EXPECT_EQ(body_error("try:\n    pass\nexcept:\n    pass"),
            "2:5: try statements are not supported in kernels");
  EXPECT_EQ(body_error("with a:\n    pass"), "2:5: with statements are not supported in kernels");
  EXPECT_EQ(body_error("x = 1\nglobal y"), "3:5: global statements are not supported in kernels");
  EXPECT_EQ(body_error("nonlocal y"), "2:5: nonlocal statements are not supported in kernels");
  EXPECT_EQ(body_error("async for x in y:\n    pass"),
            "2:5: 'async for' loops are not supported in kernels");
  EXPECT_EQ(body_error("async with x:\n    pass"),
            "2:5: 'async with' statements are not supported in kernels");
  EXPECT_EQ(body_error("del x"), "2:5: del statements are not supported in kernels");
  EXPECT_EQ(body_error("import math"), "2:5: import statements are not supported in kernels");
  EXPECT_EQ(body_error("from math import sin"),
            "2:5: import statements are not supported in kernels");
  EXPECT_EQ(body_error("raise"), "2:5: a bare raise (re-raising) is not supported in kernels");
  EXPECT_EQ(body_error("raise ValueError() from e"),
            "2:24: raise ... from is not supported in kernels");
  EXPECT_EQ(body_error("while x:\n    pass\nelse:\n    pass"),
            "4:5: 'while ... else' is not supported in kernels");
  EXPECT_EQ(body_error("for x in y:\n    pass\nelse:\n    pass"),
            "4:5: 'for ... else' is not supported in kernels");
  EXPECT_EQ(body_error("def g():\n    pass"), "2:5: nested functions are not supported in kernels");
  EXPECT_EQ(body_error("@dec\ndef g():\n    pass"), "2:5: decorators are not supported in kernels");
  EXPECT_EQ(body_error("match x:\n    case 1:\n        pass"),
            "2:5: match statements are not supported in kernels");
  EXPECT_EQ(body_error("match (x, y):\n    case _:\n        pass"),
            "2:5: match statements are not supported in kernels");
  EXPECT_EQ(body_error("x = yield"), "2:9: yield expressions are not supported in kernels");
  EXPECT_EQ(body_error("yield x"), "2:5: yield expressions are not supported in kernels");
  EXPECT_EQ(error("async def f():\n    pass\n"),
            "1:1: async functions are not supported in kernels");
  EXPECT_EQ(error("class K:\n    pass\n"), "1:1: class definitions are not supported in kernels");
  EXPECT_EQ(body_error("async def g(): pass"), "2:5: async functions are not supported in kernels");
}

TEST(ParserUnsupported, Expressions) {
  EXPECT_EQ(body_error("f = lambda x: x"), "2:9: lambda expressions are not supported in kernels");
  EXPECT_EQ(body_error("x = [i for i in range(3)]"),
            "2:9: list comprehensions are not supported in kernels");
  EXPECT_EQ(body_error("x = {i for i in y}"),
            "2:9: set comprehensions are not supported in kernels");
  EXPECT_EQ(body_error("x = {i: i for i in y}"),
            "2:9: dict comprehensions are not supported in kernels");
  EXPECT_EQ(body_error("x = (i for i in y)"),
            "2:9: generator expressions are not supported in kernels");
  EXPECT_EQ(body_error("x = sum(i for i in y)"),
            "2:13: generator expressions are not supported in kernels");
  EXPECT_EQ(body_error("x = [1, 2]"), "2:9: list displays are not supported in kernels");
  EXPECT_EQ(body_error("x = []"), "2:9: list displays are not supported in kernels");
  EXPECT_EQ(body_error("x = {}"), "2:9: dict displays are not supported in kernels");
  EXPECT_EQ(body_error("x = {'a': 1, 'b': 2}"), "2:9: dict displays are not supported in kernels");
  EXPECT_EQ(body_error("x = {**a}"), "2:9: dict displays are not supported in kernels");
  EXPECT_EQ(body_error("x = {1, 2}"), "2:9: set displays are not supported in kernels");
  EXPECT_EQ(body_error("x = await y"), "2:9: await expressions are not supported in kernels");
  EXPECT_EQ(body_error("if (n := 10) > 5:\n    pass"),
            "2:11: assignment expressions (':=') are not supported in kernels");
  EXPECT_EQ(body_error("x = (y := 1)"),
            "2:12: assignment expressions (':=') are not supported in kernels");
  EXPECT_EQ(body_error("a, *b = x"), "2:8: star-expressions ('*a') are not supported in kernels");
  EXPECT_EQ(body_error("x = *a, b"), "2:9: star-expressions ('*a') are not supported in kernels");
  EXPECT_EQ(body_error("f(*args)"), "2:7: star-arguments ('*args') are not supported in kernels");
  EXPECT_EQ(body_error("f(a, **kw)"), "2:10: '**kwargs' arguments are not supported in kernels");
  EXPECT_EQ(body_error("x = f'{a}'"), "2:9: f-strings are not supported in kernels");
  EXPECT_EQ(body_error("x = b'a'"), "2:9: bytes literals are not supported");
  EXPECT_EQ(body_error("x = a[...]"), "2:11: the ellipsis ('...') is not supported in kernels");
  EXPECT_EQ(body_error("x = ..."), "2:9: the ellipsis ('...') is not supported in kernels");
  // The matmul operator parses; sema rejects it.
  EXPECT_EQ(expr("a @ b"), "(Binary @ (Name a) (Name b))");
}

TEST(ParserUnsupported, ConstructSpans) {
  Diagnostic d = diagnostic("def f():\n    x = [i for i in\n         y]\n");
  EXPECT_EQ(span(d.span), "2:9-3:12");
  d = diagnostic("def f():\n    x = lambda: 0\n");
  EXPECT_EQ(span(d.span), "2:9-2:15");
}

TEST(ParserUnsupported, Parameters) {
  EXPECT_EQ(error("def f(a, *args):\n    pass\n"),
            "1:10: star-arguments ('*args') are not supported in kernels");
  EXPECT_EQ(error("def f(a, **kwargs):\n    pass\n"),
            "1:10: '**kwargs' parameters are not supported in kernels");
  EXPECT_EQ(error("def f(a, /, b):\n    pass\n"),
            "1:10: positional-only parameter markers ('/') are not supported in kernels");
  EXPECT_EQ(error("def f(a, *, b):\n    pass\n"),
            "1:10: keyword-only parameter markers ('*') are not supported in kernels");
}

// ---------------------------------------------------------------------------
// Syntax errors

TEST(ParserSyntax, Messages) {
  EXPECT_EQ(body_error("if x\n    pass"), "2:9: expected ':'");
  EXPECT_EQ(body_error("while x y:\n    pass"), "2:13: expected ':'");
  EXPECT_EQ(body_error("if x = 1:\n    pass"),
            "2:10: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  EXPECT_EQ(error("def f()\n    pass\n"), "1:8: expected ':'");
  EXPECT_EQ(body_error("x = 1\n    y = 2"), "3:9: unexpected indent");
  EXPECT_EQ(body_error("if x:\npass"),
            "3:5: expected an indented block after 'if' statement on line 2");
  EXPECT_EQ(body_error("if x:\n    pass\nelif y:\nz = 1"),
            "5:5: expected an indented block after 'elif' statement on line 4");
  EXPECT_EQ(body_error("for i in x:\n# c\nz = 1"),
            "4:5: expected an indented block after 'for' statement on line 2");
  EXPECT_EQ(error("def f():\nx = 1\n"),
            "2:1: expected an indented block after function definition on line 1");
  EXPECT_EQ(error("def f():\n"),
            "1:9: expected an indented block after function definition on line 1");
  EXPECT_EQ(body_error("x = 1 2"), "2:11: invalid syntax");
  EXPECT_EQ(body_error("x = "), "2:9: invalid syntax");
  EXPECT_EQ(body_error("x = 1 +"), "2:12: invalid syntax");
  EXPECT_EQ(body_error("else:\n    pass"), "2:5: invalid syntax");
  EXPECT_EQ(body_error("x = 'abc"), "2:9: unterminated string literal (detected at line 2)");
  EXPECT_EQ(body_error("x = f(a))"), "2:13: unmatched ')'");
  EXPECT_EQ(body_error("x = f(a,\ny = 2"), "2:10: '(' was never closed");
  // A lexical error after a syntax error wins, as in CPython: the unclosed
  // bracket is what makes line 3 invalid.
  EXPECT_EQ(body_error("x = (1,\ny = 2\nz = 3"), "2:9: '(' was never closed");
  EXPECT_EQ(body_error("x = 1 2\ny = 'abc"),
            "3:9: unterminated string literal (detected at line 3)");
  EXPECT_EQ(body_error("x = f(a b)"), "2:13: invalid syntax. Perhaps you forgot a comma?");
  EXPECT_EQ(body_error("x = 1 if y"), "2:9: expected 'else' after 'if' expression");
  EXPECT_EQ(body_error("for i range(3):\n    pass"), "2:11: expected 'in'");
  EXPECT_EQ(body_error("break"), "2:5: 'break' outside loop");
  EXPECT_EQ(body_error("continue"), "2:5: 'continue' not properly in loop");
  EXPECT_EQ(body_error("1 = x"), "2:5: cannot assign to literal");
  EXPECT_EQ(body_error("f() = x"), "2:5: cannot assign to function call");
  EXPECT_EQ(body_error("a + b = x"), "2:5: cannot assign to expression");
  EXPECT_EQ(body_error("True = x"), "2:5: cannot assign to True");
  EXPECT_EQ(body_error("for f() in x: pass"), "2:9: cannot assign to function call");
  EXPECT_EQ(body_error("a, b += 1"),
            "2:5: 'tuple' is an illegal expression for augmented assignment");
  EXPECT_EQ(body_error("a, b: int = 1"), "2:5: only single target (not tuple) can be annotated");
  EXPECT_EQ(body_error("x = a.1"), "2:10: invalid syntax");
  EXPECT_EQ(body_error("x = a."), "2:11: invalid syntax");
  EXPECT_EQ(body_error("f(a=1, b)"), "2:12: positional argument follows keyword argument");
  EXPECT_EQ(body_error("f(a=1, a=2)"), "2:12: keyword argument repeated: a");
  EXPECT_EQ(body_error("if x: for y in z: pass"), "2:11: invalid syntax");
  EXPECT_EQ(error("def f(a, a):\n    pass\n"),
            "1:10: duplicate argument 'a' in function definition");
  EXPECT_EQ(error("def f(a=1, b):\n    pass\n"),
            "1:12: parameter without a default follows parameter with a default");
  EXPECT_EQ(error("def f:\n    pass\n"), "1:6: expected '('");
  EXPECT_EQ(error("def (x):\n    pass\n"), "1:5: invalid syntax");
}

TEST(ParserSyntax, FunctionLevel) {
  EXPECT_EQ(error(""), "1:1: expected a function definition ('def')");
  EXPECT_EQ(error("\n\n", 7), "8:1: expected a function definition ('def')");
  EXPECT_EQ(error("x = 1\n"), "1:1: expected a function definition ('def')");
  EXPECT_EQ(error("def f():\n    pass\nx = 1\n"),
            "3:1: unexpected code after the function definition");
  EXPECT_EQ(error("def f():\n    pass\ndef g():\n    pass\n"),
            "3:1: unexpected code after the function definition");
  EXPECT_EQ(error("    def f():\n        pass\n    x = 1\n", 40),
            "42:5: unexpected code after the function definition");
  EXPECT_EQ(error("@simt.kernel\n"), "1:13: expected a function definition ('def')");
}

TEST(ParserSyntax, NestingLimits) {
  std::string deep_parens =
      "def f():\n    x = " + std::string(150, '(') + "1" + std::string(150, ')') + "\n";
  EXPECT_EQ(dump(*parse(deep_parens).def.body[0]->value), "(Int 1)");
  EXPECT_EQ(body_error("x = " + std::string(5000, '-') + "1"),
            "2:208: expression nested too deeply");
  std::string nots;
  for (int i = 0; i < 1000; ++i) nots += "not ";
  EXPECT_NE(body_error("x = " + nots + "a").find("expression nested too deeply"),
            std::string::npos);
  std::string ifs;
  for (int i = 0; i < 1000; ++i) ifs += "a if b else ";
  EXPECT_NE(body_error("x = " + ifs + "c").find("expression nested too deeply"), std::string::npos);
  std::string chain = "x = 1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_NE(body_error(chain).find("expression nested too deeply"), std::string::npos);
  std::string subs = "x = a";
  for (int i = 0; i < 5000; ++i) subs += "[0]";
  EXPECT_NE(body_error(subs).find("expression nested too deeply"), std::string::npos);
  std::string power = "x = 2";
  for (int i = 0; i < 5000; ++i) power += " ** 2";
  EXPECT_NE(body_error(power).find("expression nested too deeply"), std::string::npos);
  // Long flat constructs are fine.
  std::string args = "f(0";
  for (int i = 0; i < 5000; ++i) args += ", " + std::to_string(i);
  EXPECT_EQ(parse("def f():\n    " + args + ")\n").def.body.size(), 1u);
  std::string elifs = "def f(x):\n    if x == 0:\n        pass\n";
  for (int i = 1; i < 3000; ++i)
    elifs += "    elif x == " + std::to_string(i) + ":\n        pass\n";
  EXPECT_EQ(parse(elifs).def.body.size(), 1u);
}

TEST(ParserSyntax, FormattedDiagnostic) {
  Diagnostic d = diagnostic("    def k(a):\n        x = [1, 2]\n", 12);
  EXPECT_EQ(d.format(),
            "kernel.py:13:13: error: list displays are not supported in kernels\n"
            "            x = [1, 2]\n"
            "                ^~~~~~");
  d = diagnostic("def k(a):\n    if a\n        pass\n");
  EXPECT_EQ(d.format(),
            "kernel.py:2:9: error: expected ':'\n"
            "        if a\n"
            "            ^");
  d = diagnostic("def k(a):\n\tx = lambda: 1\n");
  EXPECT_EQ(d.format(),
            "kernel.py:2:6: error: lambda expressions are not supported in kernels\n"
            "    \tx = lambda: 1\n"
            "    \t    ^~~~~~");
}

// ---------------------------------------------------------------------------
// Names

std::string names(const std::vector<FreeName>& list) {
  std::string out;
  for (const FreeName& n : list) out += (out.empty() ? "" : " ") + n.name + "@" + span(n.span);
  return out;
}

TEST(ParserNames, FreeAndLocal) {
  ParsedFunction f = parse(
      "def k(a, b: float32[:]):\n"
      "    i = simt.grid(1)\n"
      "    if i < len(a):\n"
      "        t: float32 = math.sin(a[i]) * SCALE\n"
      "        for j, v in pairs(n=3):\n"
      "            total += v\n"
      "        b[i] = t + total + range\n"
      "    x = y = i\n");
  EXPECT_EQ(names(f.local_names),
            "a@1:7-1:8 b@1:10-1:11 i@2:5-2:6 t@4:9-4:10 j@5:13-5:14 v@5:16-5:17 total@6:13-6:18 "
            "x@8:5-8:6 y@8:9-8:10");
  EXPECT_EQ(names(f.free_names),
            "float32@1:13-1:20 simt@2:9-2:13 len@3:12-3:15 math@4:22-4:26 SCALE@4:39-4:44 "
            "pairs@5:21-5:26 range@7:28-7:33");
}

TEST(ParserNames, BindingAnywhereMakesLocal) {
  // `x` is read before it is assigned: still local (Python scoping).
  ParsedFunction f = parse("def k():\n    y = x\n    x = 1\n    z: int32\n    return z\n");
  EXPECT_EQ(names(f.local_names), "y@2:5-2:6 x@3:5-3:6 z@4:5-4:6");
  EXPECT_EQ(names(f.free_names), "int32@4:8-4:13");
}

TEST(ParserNames, AttributesAndKeywordsAreNotNames) {
  ParsedFunction f = parse("def k(a):\n    return a.shape[0] + f(dtype=a.dtype, n=N)\n");
  EXPECT_EQ(names(f.free_names), "f@2:25-2:26 N@2:44-2:45");
  EXPECT_EQ(names(f.local_names), "a@1:7-1:8");
}

TEST(ParserNames, DefaultsAndReturnAnnotation) {
  ParsedFunction f = parse("def k(a=ONE, b: T = TWO) -> R:\n    pass\n");
  EXPECT_EQ(names(f.free_names), "ONE@1:9-1:12 T@1:17-1:18 TWO@1:21-1:24 R@1:29-1:30");
}

// ---------------------------------------------------------------------------
// Robustness: any input returns or throws CompileError.

const char* const kSampleKernels[] = {
    "@simt.kernel\n"
    "def saxpy(out, a, x, y):\n"
    "    \"\"\"out = a*x + y\"\"\"\n"
    "    i = simt.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = a * x[i] + y[i]\n",
    "    def matmul(A, B, C):\n"
    "        sA = simt.shared.array(shape=(16, 16), dtype=float32)\n"
    "        x, y = simt.grid(2)\n"
    "        tmp = 0.\n"
    "        for i in range(bpg):\n"
    "            sA[ty, tx] = A[x, ty + i * TPB] if x < A.shape[0] else 0\n"
    "            simt.syncthreads()\n"
    "            for j in range(TPB):\n"
    "                tmp += sA[tx, j] * sB[j, ty]\n"
    "            while tmp > 1e3 and not done: tmp //= 2; done = True\n"
    "        C[x, y] = tmp ** -1 if tmp != 0 else -0x1_F\n",
    "def k(a: int32[:, ::1], n=3) -> None:\n"
    "    assert n >= 0, 'negative'\n"
    "    a[1:n, ::2] <<= (n, 1j)[0] | ~n & 0b101\n"
    "    z = [1, 2]; print(f'{z}', *a, **k)\n"
    "    return\n",
};

TEST(ParserRobustness, RandomMutations) {
  std::mt19937 rng(12345);
  const std::string alphabet =
      "abcdefxyz_019 \t\n\\'\"#()[]{}:;,.=+-*/%<>!&|^~@\r\f\x01\xff\xce\xb1";
  const char* const fragments[] = {
      "def ", "if ",    "else:",  "elif ", "for ", " in ",   "while ", "(",  ")",  "[",  "]",
      ":",    "\n    ", "\n",     "'''",   "\"",   "lambda", "yield",  "**", "0x", "1e", ".",
      "\\\n", "async ", "match ", "not ",  "is ",  ":=",     "...",    "@",  "->", "\t"};
  int errors = 0, successes = 0;
  auto attempt = [&](const std::string& text) {
    try {
      ParsedFunction f = parse(text);
      dump(f.def);
      ++successes;
    } catch (const CompileError& e) {
      EXPECT_FALSE(e.diagnostic().message.empty());
      e.diagnostic().format();
      ++errors;
    }
  };
  // Random bytes.
  for (int n = 0; n < 1500; ++n) {
    std::string text;
    size_t len = rng() % 120;
    for (size_t i = 0; i < len; ++i) text += char(rng() % 256);
    attempt(text);
    std::string letters;
    for (size_t i = 0; i < len; ++i) letters += alphabet[rng() % alphabet.size()];
    attempt("def f(x):\n    " + letters);
  }
  // Deletions, insertions and duplications applied to valid kernels.
  for (const char* sample : kSampleKernels) {
    for (int n = 0; n < 1500; ++n) {
      std::string text = sample;
      int edits = 1 + int(rng() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t at = rng() % text.size();
        switch (rng() % 4) {
          case 0:
            text.erase(at, 1 + rng() % 3);
            break;
          case 1:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 2:
            text.insert(at, fragments[rng() % std::size(fragments)]);
            break;
          default:
            text.insert(at, text.substr(at, rng() % 20));
            break;
        }
      }
      attempt(text);
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(successes, 0);
}

TEST(ParserRobustness, SamplesParse) {
  for (const char* sample : kSampleKernels) {
    try {
      parse(sample);
    } catch (const CompileError& e) {
      // The third sample deliberately contains unsupported constructs.
      EXPECT_NE(std::string(sample).find("f'{z}'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace simt::lang
