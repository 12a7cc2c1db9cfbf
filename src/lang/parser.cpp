#include "lang/parser.h"

#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "lang/diagnostics.h"
#include "lang/lexer.h"

namespace simt::lang {
namespace {

// Recursion through nested expressions (parens, unary operators, `not`,
// conditional expressions); each level costs a dozen stack frames.
constexpr int kMaxExprDepth = 200;
// Height of an expression tree: left-associative chains (`a + b + ...`) grow
// it without recursion here, but later passes walk the tree recursively.
constexpr uint32_t kMaxTreeHeight = 1000;

constexpr char kNestedTooDeeply[] = "expression nested too deeply";

struct BinaryOp {
  std::string_view text;
  Op op;
};

// Python's binary precedence levels, loosest first (all left-associative).
const std::vector<std::vector<BinaryOp>> kBinaryLevels = {
    {{"|", Op::BitOr}},
    {{"^", Op::BitXor}},
    {{"&", Op::BitAnd}},
    {{"<<", Op::LShift}, {">>", Op::RShift}},
    {{"+", Op::Add}, {"-", Op::Sub}},
    {{"*", Op::Mul}, {"/", Op::Div}, {"//", Op::FloorDiv}, {"%", Op::Mod}, {"@", Op::MatMul}},
};

const std::vector<BinaryOp> kAugmentedOps = {
    {"+=", Op::Add},       {"-=", Op::Sub},     {"*=", Op::Mul},    {"/=", Op::Div},
    {"//=", Op::FloorDiv}, {"%=", Op::Mod},     {"**=", Op::Pow},   {"@=", Op::MatMul},
    {"<<=", Op::LShift},   {">>=", Op::RShift}, {"&=", Op::BitAnd}, {"|=", Op::BitOr},
    {"^=", Op::BitXor},
};

const std::vector<BinaryOp> kComparisonOps = {
    {"==", Op::Eq},  {"!=", Op::NotEq}, {"<", Op::Lt},
    {"<=", Op::LtE}, {">", Op::Gt},     {">=", Op::GtE},
};

bool is_open_bracket(const Token& t) { return t.is_op("(") || t.is_op("[") || t.is_op("{"); }
bool is_close_bracket(const Token& t) { return t.is_op(")") || t.is_op("]") || t.is_op("}"); }

// How CPython names an expression that cannot be assigned to.
std::string describe(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Imaginary:
    case ExprKind::String:
      return "literal";
    case ExprKind::Bool:
      return e.bool_value ? "True" : "False";
    case ExprKind::None:
      return "None";
    case ExprKind::Call:
      return "function call";
    case ExprKind::Compare:
      return "comparison";
    case ExprKind::IfExp:
      return "conditional expression";
    case ExprKind::Tuple:
      return "tuple";
    case ExprKind::Attribute:
      return "attribute";
    case ExprKind::Subscript:
      return "subscript";
    case ExprKind::Name:
      return "name";
    default:
      return "expression";
  }
}

class Parser {
 public:
  explicit Parser(const SourceText& src) : src_(src), lexer_(src) {}

  ParsedFunction parse();

 private:
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, Span span) : parser_(parser) {
      if (++parser_.depth_ > kMaxExprDepth) parser_.error(span, kNestedTooDeeply);
    }
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  // Tokens ------------------------------------------------------------------
  // References stay valid until the token is consumed (std::deque).
  const Token& peek(size_t ahead = 0) {
    while (buffer_.size() <= ahead) buffer_.push_back(lexer_.next());
    return buffer_[ahead];
  }
  Token advance() {
    Token t = peek();
    if (t.kind != TokenKind::End) buffer_.pop_front();
    return t;
  }
  bool at_op(std::string_view op) { return peek().is_op(op); }
  bool at_keyword(std::string_view kw) { return peek().is_keyword(kw); }
  bool accept_op(std::string_view op) {
    if (!at_op(op)) return false;
    advance();
    return true;
  }
  bool starts_expression(const Token& t) const;

  // As in CPython, a lexical error anywhere after a syntax error is reported
  // instead: an unclosed bracket or an unterminated string further down is
  // usually what confused the parser.
  [[noreturn]] void error(Span span, std::string message) {
    while (lexer_.next().kind != TokenKind::End) {
    }
    fail(DiagnosticKind::Syntax, src_, span, std::move(message));
  }
  [[noreturn]] void unsupported(Span span, const std::string& what) {
    fail(DiagnosticKind::Syntax, src_, span, what + " not supported in kernels");
  }
  [[noreturn]] void unexpected(const Token& t);
  Token expect_colon();
  Token expect_close(std::string_view close);
  Span skip_to_matching_close();

  // Function ----------------------------------------------------------------
  FunctionDef parse_function_def();
  FunctionDef parse_lambda();
  Span parse_params(FunctionDef& def);
  void parse_param_list(FunctionDef& def, std::string_view end);
  std::vector<StmtPtr> parse_block(const std::string& what, uint32_t header_line);

  // Statements --------------------------------------------------------------
  void parse_statement(std::vector<StmtPtr>& out);
  [[noreturn]] void reject_compound_statement(const Token& t);
  bool at_match_statement();
  void parse_simple_statements(std::vector<StmtPtr>& out);
  StmtPtr parse_simple_statement();
  StmtPtr parse_keyword_statement();
  StmtPtr parse_expression_statement();
  StmtPtr parse_assignment(ExprPtr first);
  StmtPtr parse_annotated_assignment(ExprPtr target);
  StmtPtr parse_augmented_assignment(ExprPtr target, Op op);
  StmtPtr parse_if();
  StmtPtr parse_while();
  StmtPtr parse_for();
  std::vector<StmtPtr> parse_loop_body(const std::string& what, uint32_t header_line);
  void reject_loop_else(const char* loop);
  void check_target(const Expr& e);

  // Expressions -------------------------------------------------------------
  ExprPtr parse_star_expressions();
  ExprPtr parse_star_expression();
  ExprPtr parse_target_list();
  ExprPtr parse_expression();
  ExprPtr parse_disjunction();
  ExprPtr parse_conjunction();
  ExprPtr parse_inversion();
  ExprPtr parse_comparison();
  bool at_comparison_op(Op& op, int& tokens);
  ExprPtr parse_binary(size_t level);
  ExprPtr parse_binary_rest(ExprPtr left, size_t min_level);
  bool at_binary_op(size_t& level, Op& op);
  ExprPtr parse_factor();
  ExprPtr parse_power();
  ExprPtr parse_primary();
  ExprPtr parse_call(ExprPtr callee);
  ExprPtr parse_subscript(ExprPtr value);
  ExprPtr parse_slice_item();
  ExprPtr parse_atom();
  ExprPtr parse_strings();
  ExprPtr parse_paren();
  [[noreturn]] void reject_display();
  ExprPtr parse_shape_list();
  ExprPtr make_tuple(std::vector<ExprPtr> items, Span span);
  ExprPtr finish(ExprPtr e);

  const SourceText& src_;
  Lexer lexer_;
  std::deque<Token> buffer_;
  int depth_ = 0;
  int loop_depth_ = 0;
  std::unordered_map<const Expr*, uint32_t> heights_;  // composite nodes only
};

// ---------------------------------------------------------------------------
// Helpers

bool Parser::starts_expression(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Imaginary:
    case TokenKind::String:
      return true;
    case TokenKind::Keyword:
      return t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "None" ||
             t.text == "True" || t.text == "False" || t.text == "yield";
    case TokenKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    default:
      return false;
  }
}

void Parser::unexpected(const Token& t) {
  if (t.kind == TokenKind::Indent) error(t.span, "unexpected indent");
  if (t.is_op(":=")) unsupported(t.span, "assignment expressions (':=') are");
  error(t.span, "invalid syntax");
}

Token Parser::expect_colon() {
  if (at_op(":")) return advance();
  if (at_op("="))
    error(peek().span, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  if (at_op(":=")) unexpected(peek());
  error(peek().span, "expected ':'");
}

// Inside brackets, two expressions in a row usually mean a missing comma.
Token Parser::expect_close(std::string_view close) {
  if (at_op(close)) return advance();
  const Token& t = peek();
  if (starts_expression(t) && t.kind != TokenKind::Keyword)
    error(t.span, "invalid syntax. Perhaps you forgot a comma?");
  unexpected(t);
}

// Consumes tokens through the bracket closing the one just consumed; the
// lexer guarantees brackets balance. Returns the closing bracket's span.
Span Parser::skip_to_matching_close() {
  int depth = 1;
  for (;;) {
    Token t = advance();
    if (t.kind == TokenKind::End) return t.span;
    if (is_open_bracket(t)) ++depth;
    if (is_close_bracket(t) && --depth == 0) return t.span;
  }
}

ExprPtr Parser::finish(ExprPtr e) {
  uint32_t height = 0;
  auto visit = [&](const ExprPtr& child) {
    if (!child) return;
    auto it = heights_.find(child.get());
    height = std::max(height, it == heights_.end() ? 1u : it->second);
  };
  for (const ExprPtr& item : e->items) visit(item);
  for (const Keyword& k : e->keywords) visit(k.value);
  if (++height > kMaxTreeHeight) error(e->span, kNestedTooDeeply);
  heights_[e.get()] = height;
  return e;
}

ExprPtr Parser::make_tuple(std::vector<ExprPtr> items, Span span) {
  auto tuple = std::make_unique<Expr>(ExprKind::Tuple, span);
  tuple->items = std::move(items);
  return finish(std::move(tuple));
}

// ---------------------------------------------------------------------------
// Function

ParsedFunction Parser::parse() {
  const Token& first = peek();
  if (first.is_keyword("async") && peek(1).is_keyword("def"))
    unsupported(Span::cover(first.span, peek(1).span), "async functions are");
  if (first.is_keyword("class")) unsupported(first.span, "class definitions are");
  ParsedFunction result;
  if (first.is_op("(") && peek(1).is_keyword("lambda")) {
    // A lambda's own span of its line, parenthesized by the caller so that it may run
    // over several lines as it does inside the call that holds it.
    advance();
    result.def = parse_lambda();
    expect_close(")");
    if (peek().kind == TokenKind::Newline) advance();
  } else if (first.is_keyword("def")) {
    result.def = parse_function_def();
  } else {
    if (first.kind == TokenKind::Indent) unexpected(first);
    error(first.span, "expected a function definition ('def')");
  }
  const Token& extra = peek();
  if (extra.kind != TokenKind::End) {
    if (extra.kind == TokenKind::Indent) unexpected(extra);
    error(extra.span, "unexpected code after the function definition");
  }
  return result;
}

FunctionDef Parser::parse_function_def() {
  Token def_kw = advance();
  FunctionDef def;
  if (peek().kind != TokenKind::Name) {
    if (peek().kind == TokenKind::Keyword || peek().kind == TokenKind::Op) unexpected(peek());
    error(peek().span, "expected a function name after 'def'");
  }
  def.name = advance().text;
  if (!at_op("(")) error(peek().span, "expected '('");
  def.span = Span::cover(def_kw.span, parse_params(def));
  if (accept_op("->")) def.returns = parse_expression();
  expect_colon();
  def.body = parse_block("function definition", def_kw.span.line);
  const Stmt* first = def.body.empty() ? nullptr : def.body.front().get();
  if (first && first->kind == StmtKind::ExprStmt && first->value->kind == ExprKind::String) {
    def.docstring = first->value->str_value;
    def.body.erase(def.body.begin());
  }
  return def;
}

// `lambda params: expression` as the function `lambda` returning the expression.
FunctionDef Parser::parse_lambda() {
  Token lambda_kw = advance();
  FunctionDef def;
  def.name = "lambda";
  parse_param_list(def, ":");
  def.span = Span::cover(lambda_kw.span, expect_colon().span);
  auto body = std::make_unique<Stmt>(StmtKind::Return, lambda_kw.span);
  body->value = parse_expression();
  body->span = Span::cover(body->span, body->value->span);
  def.body.push_back(std::move(body));
  return def;
}

// Returns the span of the closing parenthesis.
Span Parser::parse_params(FunctionDef& def) {
  advance();  // '('
  parse_param_list(def, ")");
  return expect_close(")").span;
}

// The parameters up to `end`: a def's ")", or a lambda's ":" (whose parameters take no
// annotations).
void Parser::parse_param_list(FunctionDef& def, std::string_view end) {
  bool seen_default = false;
  while (!at_op(end)) {
    const Token& t = peek();
    if (t.is_op("*")) {
      const Token& next = peek(1);
      if (next.kind == TokenKind::Name)
        unsupported(Span::cover(t.span, next.span), "star-arguments ('*args') are");
      unsupported(t.span, "keyword-only parameter markers ('*') are");
    }
    if (t.is_op("**")) {
      Span span = peek(1).kind == TokenKind::Name ? Span::cover(t.span, peek(1).span) : t.span;
      unsupported(span, "'**kwargs' parameters are");
    }
    if (t.is_op("/")) unsupported(t.span, "positional-only parameter markers ('/') are");
    if (t.kind != TokenKind::Name) unexpected(t);
    Token name = advance();
    for (const Param& p : def.params)
      if (p.name == name.text)
        error(name.span, "duplicate argument '" + name.text + "' in function definition");
    Param param;
    param.name = name.text;
    param.span = name.span;
    if (end == ")" && accept_op(":")) param.annotation = parse_expression();
    if (accept_op("=")) {
      param.default_value = parse_expression();
      seen_default = true;
    } else if (seen_default) {
      error(name.span, "parameter without a default follows parameter with a default");
    }
    def.params.push_back(std::move(param));
    if (!accept_op(",")) break;
  }
}

std::vector<StmtPtr> Parser::parse_block(const std::string& what, uint32_t header_line) {
  std::vector<StmtPtr> body;
  if (peek().kind != TokenKind::Newline) {  // `if x: y = 1`
    parse_simple_statements(body);
    return body;
  }
  advance();
  if (peek().kind != TokenKind::Indent)
    error(peek().span,
          "expected an indented block after " + what + " on line " + std::to_string(header_line));
  advance();
  while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::End) parse_statement(body);
  advance();
  return body;
}

// ---------------------------------------------------------------------------
// Statements

void Parser::parse_statement(std::vector<StmtPtr>& out) {
  const Token& t = peek();
  if (t.kind == TokenKind::Indent) unexpected(t);
  if (t.is_keyword("if")) {
    out.push_back(parse_if());
  } else if (t.is_keyword("while")) {
    out.push_back(parse_while());
  } else if (t.is_keyword("for")) {
    out.push_back(parse_for());
  } else if (t.is_keyword("def") || t.is_keyword("class") || t.is_keyword("try") ||
             t.is_keyword("with") || t.is_keyword("async") || t.is_op("@")) {
    reject_compound_statement(t);
  } else if (t.is_name("match") && at_match_statement()) {
    unsupported(t.span, "match statements are");
  } else {
    parse_simple_statements(out);
  }
}

void Parser::reject_compound_statement(const Token& t) {
  if (t.is_op("@")) unsupported(t.span, "decorators are");
  if (t.is_keyword("def")) {
    const Token& name = peek(1);
    Span span = name.kind == TokenKind::Name ? Span::cover(t.span, name.span) : t.span;
    unsupported(span, "nested functions are");
  }
  if (t.is_keyword("class")) unsupported(t.span, "class definitions are");
  if (t.is_keyword("try")) unsupported(t.span, "try statements are");
  if (t.is_keyword("with")) unsupported(t.span, "with statements are");
  const Token& next = peek(1);  // async
  Span span = Span::cover(t.span, next.span);
  if (next.is_keyword("def")) unsupported(span, "async functions are");
  if (next.is_keyword("for")) unsupported(span, "'async for' loops are");
  if (next.is_keyword("with")) unsupported(span, "'async with' statements are");
  unsupported(t.span, "async statements are");
}

// `match` is a soft keyword: `match x:` starts a match statement, while
// `match = 3` or `match(x)` use it as a name. A logical line that starts with
// `match` and ends with `:` can only be a match statement.
bool Parser::at_match_statement() {
  const Token& next = peek(1);
  if (next.is_op("=") || next.is_op(":") || next.is_op(".") || next.is_op(",") || next.is_op(";"))
    return false;
  for (size_t i = 1;; ++i) {
    const Token& t = peek(i);
    if (t.kind == TokenKind::Newline || t.kind == TokenKind::End)
      return i > 2 && peek(i - 1).is_op(":");
  }
}

void Parser::parse_simple_statements(std::vector<StmtPtr>& out) {
  for (;;) {
    out.push_back(parse_simple_statement());
    if (!accept_op(";")) break;
    if (peek().kind == TokenKind::Newline) break;
  }
  if (peek().kind != TokenKind::Newline) unexpected(peek());
  advance();
}

StmtPtr Parser::parse_simple_statement() {
  if (peek().kind == TokenKind::Keyword) {
    if (StmtPtr s = parse_keyword_statement()) return s;
  }
  return parse_expression_statement();
}

// Statements introduced by a keyword, or null for an expression statement.
StmtPtr Parser::parse_keyword_statement() {
  const Token& t = peek();
  const std::string& kw = t.text;
  if (kw == "pass" || kw == "break" || kw == "continue") {
    if (kw == "break" && loop_depth_ == 0) error(t.span, "'break' outside loop");
    if (kw == "continue" && loop_depth_ == 0) error(t.span, "'continue' not properly in loop");
    StmtKind kind = kw == "pass"    ? StmtKind::Pass
                    : kw == "break" ? StmtKind::Break
                                    : StmtKind::Continue;
    return std::make_unique<Stmt>(kind, advance().span);
  }
  if (kw == "return") {
    auto stmt = std::make_unique<Stmt>(StmtKind::Return, advance().span);
    if (peek().kind != TokenKind::Newline && !at_op(";")) {
      stmt->value = parse_star_expressions();
      stmt->span = Span::cover(stmt->span, stmt->value->span);
    }
    return stmt;
  }
  if (kw == "assert") {
    auto stmt = std::make_unique<Stmt>(StmtKind::Assert, advance().span);
    stmt->test = parse_expression();
    stmt->span = Span::cover(stmt->span, stmt->test->span);
    if (accept_op(",")) {
      stmt->value = parse_expression();
      stmt->span = Span::cover(stmt->span, stmt->value->span);
    }
    return stmt;
  }
  if (kw == "del") unsupported(t.span, "del statements are");
  if (kw == "global") unsupported(t.span, "global statements are");
  if (kw == "nonlocal") unsupported(t.span, "nonlocal statements are");
  if (kw == "import" || kw == "from") unsupported(t.span, "import statements are");
  if (kw == "raise") {
    auto stmt = std::make_unique<Stmt>(StmtKind::Raise, advance().span);
    // `t` went with advance(): the statement's span is the keyword's.
    if (peek().kind == TokenKind::Newline || at_op(";"))
      unsupported(stmt->span, "a bare raise (re-raising) is");
    stmt->value = parse_expression();
    stmt->span = Span::cover(stmt->span, stmt->value->span);
    if (peek().kind == TokenKind::Keyword && peek().text == "from")
      unsupported(peek().span, "raise ... from is");
    return stmt;
  }
  return nullptr;
}

StmtPtr Parser::parse_expression_statement() {
  ExprPtr first = parse_star_expressions();
  if (at_op("=")) return parse_assignment(std::move(first));
  if (at_op(":")) return parse_annotated_assignment(std::move(first));
  for (const BinaryOp& aug : kAugmentedOps)
    if (at_op(aug.text)) return parse_augmented_assignment(std::move(first), aug.op);
  auto stmt = std::make_unique<Stmt>(StmtKind::ExprStmt, first->span);
  stmt->value = std::move(first);
  return stmt;
}

// `a = b = value`: every expression but the last is a target.
StmtPtr Parser::parse_assignment(ExprPtr first) {
  std::vector<ExprPtr> exprs;
  exprs.push_back(std::move(first));
  while (accept_op("=")) exprs.push_back(parse_star_expressions());
  auto stmt = std::make_unique<Stmt>(StmtKind::Assign,
                                     Span::cover(exprs.front()->span, exprs.back()->span));
  stmt->value = std::move(exprs.back());
  exprs.pop_back();
  for (const ExprPtr& target : exprs) check_target(*target);
  stmt->targets = std::move(exprs);
  return stmt;
}

StmtPtr Parser::parse_annotated_assignment(ExprPtr target) {
  switch (target->kind) {
    case ExprKind::Name:
      break;
    case ExprKind::Tuple:
      error(target->span, "only single target (not tuple) can be annotated");
    case ExprKind::Attribute:
      unsupported(target->span, "assignments to attributes are");
    case ExprKind::Subscript:
      unsupported(target->span, "annotated subscript targets are");
    default:
      error(target->span, "illegal target for annotation");
  }
  advance();  // ':'
  auto stmt = std::make_unique<Stmt>(StmtKind::AnnAssign, target->span);
  stmt->annotation = parse_expression();
  stmt->span = Span::cover(stmt->span, stmt->annotation->span);
  if (accept_op("=")) {
    stmt->value = parse_star_expressions();
    stmt->span = Span::cover(stmt->span, stmt->value->span);
  }
  stmt->targets.push_back(std::move(target));
  return stmt;
}

StmtPtr Parser::parse_augmented_assignment(ExprPtr target, Op op) {
  // Attributes: a record's fields (`r.x += 1`); the type checker rejects others.
  if (target->kind != ExprKind::Name && target->kind != ExprKind::Subscript &&
      target->kind != ExprKind::Attribute)
    error(target->span,
          "'" + describe(*target) + "' is an illegal expression for augmented assignment");
  advance();  // the operator
  auto stmt = std::make_unique<Stmt>(StmtKind::AugAssign, target->span);
  stmt->op = op;
  stmt->value = parse_star_expressions();
  stmt->span = Span::cover(stmt->span, stmt->value->span);
  stmt->targets.push_back(std::move(target));
  return stmt;
}

void Parser::check_target(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript:
    case ExprKind::Attribute:  // a record's field (`r.x = 1`); the type checker rejects others
      return;
    case ExprKind::Tuple:
      for (const ExprPtr& item : e.items) check_target(*item);
      return;
    default:
      error(e.span, "cannot assign to " + describe(e));
  }
}

// `if`, and each `elif` as an If alone in the previous one's orelse; built
// iteratively so a long elif chain costs no stack.
StmtPtr Parser::parse_if() {
  StmtPtr root;
  std::vector<StmtPtr>* slot = nullptr;
  for (;;) {
    Token kw = advance();  // if / elif
    auto stmt = std::make_unique<Stmt>(StmtKind::If, kw.span);
    stmt->test = parse_expression();
    stmt->span = Span::cover(kw.span, expect_colon().span);
    stmt->body = parse_block("'" + kw.text + "' statement", kw.span.line);
    Stmt* current = stmt.get();
    if (slot) {
      slot->push_back(std::move(stmt));
    } else {
      root = std::move(stmt);
    }
    if (at_keyword("elif")) {
      slot = &current->orelse;
      continue;
    }
    if (at_keyword("else")) {
      Token else_kw = advance();
      expect_colon();
      current->orelse = parse_block("'else' statement", else_kw.span.line);
    }
    return root;
  }
}

std::vector<StmtPtr> Parser::parse_loop_body(const std::string& what, uint32_t header_line) {
  ++loop_depth_;
  std::vector<StmtPtr> body = parse_block(what, header_line);
  --loop_depth_;
  return body;
}

void Parser::reject_loop_else(const char* loop) {
  if (at_keyword("else")) unsupported(peek().span, std::string("'") + loop + " ... else' is");
}

StmtPtr Parser::parse_while() {
  Token kw = advance();
  auto stmt = std::make_unique<Stmt>(StmtKind::While, kw.span);
  stmt->test = parse_expression();
  stmt->span = Span::cover(kw.span, expect_colon().span);
  stmt->body = parse_loop_body("'while' statement", kw.span.line);
  reject_loop_else("while");
  return stmt;
}

StmtPtr Parser::parse_for() {
  Token kw = advance();
  auto stmt = std::make_unique<Stmt>(StmtKind::For, kw.span);
  ExprPtr target = parse_target_list();
  check_target(*target);
  if (!at_keyword("in")) {
    if (at_op(":=") || peek().kind == TokenKind::Indent) unexpected(peek());
    error(peek().span, "expected 'in'");
  }
  advance();
  stmt->targets.push_back(std::move(target));
  stmt->value = parse_star_expressions();
  stmt->span = Span::cover(kw.span, expect_colon().span);
  stmt->body = parse_loop_body("'for' statement", kw.span.line);
  reject_loop_else("for");
  return stmt;
}

// ---------------------------------------------------------------------------
// Expressions

// `a, b` (a Tuple) or a single expression, as on the right of `=`.
ExprPtr Parser::parse_star_expressions() {
  ExprPtr first = parse_star_expression();
  if (!at_op(",")) return first;
  Span span = first->span;
  std::vector<ExprPtr> items;
  items.push_back(std::move(first));
  while (at_op(",")) {
    span = Span::cover(span, advance().span);
    if (!starts_expression(peek())) break;
    items.push_back(parse_star_expression());
    span = Span::cover(span, items.back()->span);
  }
  return make_tuple(std::move(items), span);
}

ExprPtr Parser::parse_star_expression() {
  if (at_op("*")) {
    Token star = advance();
    ExprPtr operand = parse_binary(0);
    unsupported(Span::cover(star.span, operand->span), "star-expressions ('*a') are");
  }
  return parse_expression();
}

// Loop targets: `i`, `i, j`, `(i, j)`, `a[k]`. Parsed above comparisons so
// `in` ends the target list.
ExprPtr Parser::parse_target_list() {
  std::vector<ExprPtr> items;
  Span span;
  bool comma = false;
  for (;;) {
    if (at_op("*")) {
      Token star = advance();
      ExprPtr operand = parse_binary(0);
      unsupported(Span::cover(star.span, operand->span), "star-expressions ('*a') are");
    }
    items.push_back(parse_binary(0));
    span = Span::cover(span, items.back()->span);
    if (!at_op(",")) break;
    span = Span::cover(span, advance().span);
    comma = true;
    if (at_keyword("in")) break;
  }
  if (!comma) return std::move(items.front());
  return make_tuple(std::move(items), span);
}

ExprPtr Parser::parse_expression() {
  DepthGuard guard(*this, peek().span);
  if (at_keyword("lambda")) unsupported(peek().span, "lambda expressions are");
  ExprPtr body = parse_disjunction();
  if (at_keyword("if")) {
    advance();
    ExprPtr test = parse_disjunction();
    if (!at_keyword("else"))
      error(Span::cover(body->span, test->span), "expected 'else' after 'if' expression");
    advance();
    ExprPtr orelse = parse_expression();
    auto e = std::make_unique<Expr>(ExprKind::IfExp, Span::cover(body->span, orelse->span));
    e->items.push_back(std::move(body));
    e->items.push_back(std::move(test));
    e->items.push_back(std::move(orelse));
    body = finish(std::move(e));
  }
  if (at_op(":=")) unexpected(peek());
  return body;
}

ExprPtr Parser::parse_disjunction() {
  ExprPtr first = parse_conjunction();
  if (!at_keyword("or")) return first;
  auto e = std::make_unique<Expr>(ExprKind::BoolOp, first->span);
  e->op = Op::Or;
  e->items.push_back(std::move(first));
  while (at_keyword("or")) {
    advance();
    e->items.push_back(parse_conjunction());
  }
  e->span = Span::cover(e->span, e->items.back()->span);
  return finish(std::move(e));
}

ExprPtr Parser::parse_conjunction() {
  ExprPtr first = parse_inversion();
  if (!at_keyword("and")) return first;
  auto e = std::make_unique<Expr>(ExprKind::BoolOp, first->span);
  e->op = Op::And;
  e->items.push_back(std::move(first));
  while (at_keyword("and")) {
    advance();
    e->items.push_back(parse_inversion());
  }
  e->span = Span::cover(e->span, e->items.back()->span);
  return finish(std::move(e));
}

ExprPtr Parser::parse_inversion() {
  if (!at_keyword("not")) return parse_comparison();
  Token not_kw = advance();
  DepthGuard guard(*this, not_kw.span);
  ExprPtr operand = parse_inversion();
  auto e = std::make_unique<Expr>(ExprKind::Unary, Span::cover(not_kw.span, operand->span));
  e->op = Op::Not;
  e->items.push_back(std::move(operand));
  return finish(std::move(e));
}

bool Parser::at_comparison_op(Op& op, int& tokens) {
  const Token& t = peek();
  tokens = 1;
  for (const BinaryOp& c : kComparisonOps) {
    if (t.is_op(c.text)) {
      op = c.op;
      return true;
    }
  }
  if (t.is_keyword("in")) {
    op = Op::In;
    return true;
  }
  if (t.is_keyword("not") && peek(1).is_keyword("in")) {
    op = Op::NotIn;
    tokens = 2;
    return true;
  }
  if (t.is_keyword("is")) {
    bool negated = peek(1).is_keyword("not");
    op = negated ? Op::IsNot : Op::Is;
    tokens = negated ? 2 : 1;
    return true;
  }
  return false;
}

// `a < b <= c` is one Compare node with items {a, b, c} and ops {<, <=}.
ExprPtr Parser::parse_comparison() {
  ExprPtr first = parse_binary(0);
  Op op;
  int tokens;
  if (!at_comparison_op(op, tokens)) return first;
  auto e = std::make_unique<Expr>(ExprKind::Compare, first->span);
  e->items.push_back(std::move(first));
  while (at_comparison_op(op, tokens)) {
    for (int i = 0; i < tokens; ++i) advance();
    e->ops.push_back(op);
    e->items.push_back(parse_binary(0));
  }
  e->span = Span::cover(e->span, e->items.back()->span);
  return finish(std::move(e));
}

bool Parser::at_binary_op(size_t& level, Op& op) {
  const Token& t = peek();
  if (t.kind != TokenKind::Op) return false;
  for (level = 0; level < kBinaryLevels.size(); ++level) {
    for (const BinaryOp& candidate : kBinaryLevels[level]) {
      if (t.text == candidate.text) {
        op = candidate.op;
        return true;
      }
    }
  }
  return false;
}

// The binary operators from `|` to `*`, with operators of precedence level
// `level` or tighter. Precedence climbing rather than one function per level:
// it recurses only where precedence rises, which keeps the stack shallow for
// deeply parenthesized input.
ExprPtr Parser::parse_binary(size_t level) { return parse_binary_rest(parse_factor(), level); }

ExprPtr Parser::parse_binary_rest(ExprPtr left, size_t min_level) {
  size_t level, next_level;
  Op op, next_op;
  while (at_binary_op(level, op) && level >= min_level) {
    advance();
    ExprPtr right = parse_factor();
    while (at_binary_op(next_level, next_op) && next_level > level)
      right = parse_binary_rest(std::move(right), level + 1);
    auto e = std::make_unique<Expr>(ExprKind::Binary, Span::cover(left->span, right->span));
    e->op = op;
    e->items.push_back(std::move(left));
    e->items.push_back(std::move(right));
    left = finish(std::move(e));
  }
  return left;
}

ExprPtr Parser::parse_factor() {
  const Token& t = peek();
  if (!t.is_op("+") && !t.is_op("-") && !t.is_op("~")) return parse_power();
  Token sign = advance();
  DepthGuard guard(*this, sign.span);
  ExprPtr operand = parse_factor();
  auto e = std::make_unique<Expr>(ExprKind::Unary, Span::cover(sign.span, operand->span));
  e->op = sign.text == "+" ? Op::Add : sign.text == "-" ? Op::Sub : Op::Invert;
  e->items.push_back(std::move(operand));
  return finish(std::move(e));
}

// `**` binds tighter than a unary operator on its left (`-2**2` is
// -(2**2)) and looser than one on its right (`2**-1`); right-associative.
ExprPtr Parser::parse_power() {
  if (at_keyword("await")) unsupported(peek().span, "await expressions are");
  ExprPtr base = parse_primary();
  if (!at_op("**")) return base;
  Token op = advance();
  DepthGuard guard(*this, op.span);
  ExprPtr exponent = parse_factor();
  auto e = std::make_unique<Expr>(ExprKind::Binary, Span::cover(base->span, exponent->span));
  e->op = Op::Pow;
  e->items.push_back(std::move(base));
  e->items.push_back(std::move(exponent));
  return finish(std::move(e));
}

ExprPtr Parser::parse_primary() {
  ExprPtr e = parse_atom();
  for (;;) {
    if (at_op(".")) {
      advance();
      if (peek().kind != TokenKind::Name) unexpected(peek());
      Token name = advance();
      auto attr = std::make_unique<Expr>(ExprKind::Attribute, Span::cover(e->span, name.span));
      attr->name = name.text;
      attr->items.push_back(std::move(e));
      e = finish(std::move(attr));
    } else if (at_op("(")) {
      e = parse_call(std::move(e));
    } else if (at_op("[")) {
      e = parse_subscript(std::move(e));
    } else {
      return e;
    }
  }
}

namespace {

// `shared.array(...)` / `local.array(...)` (any module before them): the calls
// whose shape Numba also takes as a list display, `shape=[n, m]`.
bool is_array_alloc(const Expr& callee) {
  if (callee.kind != ExprKind::Attribute || callee.name != "array") return false;
  const Expr& space = *callee.items[0];
  return (space.kind == ExprKind::Attribute || space.kind == ExprKind::Name) &&
         (space.name == "shared" || space.name == "local");
}

}  // namespace

// `[a, b]` where only a shape may be one: read as the tuple `(a, b)`, which
// is what the allocation does with it (nothing can mutate it).
ExprPtr Parser::parse_shape_list() {
  Token open = advance();  // '['
  std::vector<ExprPtr> items;
  while (!at_op("]")) {
    items.push_back(parse_expression());
    if (at_keyword("for"))
      unsupported(Span::cover(open.span, skip_to_matching_close()), "list comprehensions are");
    if (!accept_op(",")) break;
  }
  Token close = expect_close("]");
  ExprPtr tuple = make_tuple(std::move(items), Span::cover(open.span, close.span));
  tuple->parenthesized = true;
  return tuple;
}

ExprPtr Parser::parse_call(ExprPtr callee) {
  advance();  // '('
  auto call = std::make_unique<Expr>(ExprKind::Call, callee->span);
  const bool shape_list = is_array_alloc(*callee);
  call->items.push_back(std::move(callee));
  while (!at_op(")")) {
    const Token& t = peek();
    if (t.is_op("*")) unsupported(t.span, "star-arguments ('*args') are");
    if (t.is_op("**")) unsupported(t.span, "'**kwargs' arguments are");
    if (t.kind == TokenKind::Name && peek(1).is_op("=")) {
      Token name = advance();
      advance();
      for (const Keyword& k : call->keywords)
        if (k.name == name.text) error(name.span, "keyword argument repeated: " + name.text);
      Keyword keyword;
      keyword.name = name.text;
      keyword.value = shape_list && name.text == "shape" && at_op("[") ? parse_shape_list()
                                                                       : parse_expression();
      keyword.span = Span::cover(name.span, keyword.value->span);
      call->keywords.push_back(std::move(keyword));
    } else {
      const bool first = call->items.size() == 1 && call->keywords.empty();
      ExprPtr arg = shape_list && first && at_op("[") ? parse_shape_list() : parse_expression();
      if (at_keyword("for"))
        unsupported(Span::cover(arg->span, skip_to_matching_close()), "generator expressions are");
      if (!call->keywords.empty()) error(arg->span, "positional argument follows keyword argument");
      call->items.push_back(std::move(arg));
    }
    if (!accept_op(",")) break;
  }
  Token close = expect_close(")");
  call->span = Span::cover(call->span, close.span);
  return finish(std::move(call));
}

// `a[i]`, `a[i, j]` (index is one Tuple), `a[1:n]`, `a[:, 0]`.
ExprPtr Parser::parse_subscript(ExprPtr value) {
  advance();  // '['
  if (at_op("]")) unexpected(peek());
  ExprPtr index = parse_slice_item();
  if (at_op(",")) {
    Span span = index->span;
    std::vector<ExprPtr> items;
    items.push_back(std::move(index));
    while (at_op(",")) {
      span = Span::cover(span, advance().span);
      if (at_op("]")) break;
      items.push_back(parse_slice_item());
      span = Span::cover(span, items.back()->span);
    }
    index = make_tuple(std::move(items), span);
  }
  if (at_keyword("for"))
    unsupported(Span::cover(index->span, skip_to_matching_close()), "generator expressions are");
  Token close = expect_close("]");
  auto e = std::make_unique<Expr>(ExprKind::Subscript, Span::cover(value->span, close.span));
  e->items.push_back(std::move(value));
  e->items.push_back(std::move(index));
  return finish(std::move(e));
}

ExprPtr Parser::parse_slice_item() {
  if (at_op("*")) unsupported(peek().span, "star-expressions ('*a') are");
  Span span = peek().span;
  ExprPtr lower;
  if (!at_op(":")) {
    lower = parse_expression();
    if (!at_op(":")) return lower;
  }
  span = Span::cover(span, advance().span);  // ':'
  auto ends_part = [&] { return at_op(":") || at_op(",") || at_op("]"); };
  ExprPtr upper, step;
  if (!ends_part()) {
    upper = parse_expression();
    span = Span::cover(span, upper->span);
  }
  if (at_op(":")) {
    span = Span::cover(span, advance().span);
    if (!ends_part()) {
      step = parse_expression();
      span = Span::cover(span, step->span);
    }
  }
  auto e = std::make_unique<Expr>(ExprKind::Slice, span);
  e->items.push_back(std::move(lower));
  e->items.push_back(std::move(upper));
  e->items.push_back(std::move(step));
  return finish(std::move(e));
}

ExprPtr Parser::parse_atom() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Name: {
      Token name = advance();
      auto e = std::make_unique<Expr>(ExprKind::Name, name.span);
      e->name = name.text;
      return e;
    }
    case TokenKind::Int: {
      Token lit = advance();
      auto e = std::make_unique<Expr>(ExprKind::Int, lit.span);
      e->int_value = lit.int_value;
      return e;
    }
    case TokenKind::Float:
    case TokenKind::Imaginary: {
      Token lit = advance();
      auto kind = lit.kind == TokenKind::Float ? ExprKind::Float : ExprKind::Imaginary;
      auto e = std::make_unique<Expr>(kind, lit.span);
      e->float_value = lit.float_value;
      return e;
    }
    case TokenKind::String:
      return parse_strings();
    case TokenKind::Keyword: {
      if (t.text == "True" || t.text == "False") {
        Token lit = advance();
        auto e = std::make_unique<Expr>(ExprKind::Bool, lit.span);
        e->bool_value = lit.text == "True";
        return e;
      }
      if (t.text == "None") return std::make_unique<Expr>(ExprKind::None, advance().span);
      if (t.text == "lambda") unsupported(t.span, "lambda expressions are");
      if (t.text == "yield") unsupported(t.span, "yield expressions are");
      if (t.text == "await") unsupported(t.span, "await expressions are");
      unexpected(t);
    }
    case TokenKind::Op: {
      if (t.text == "(") return parse_paren();
      if (t.text == "[" || t.text == "{") reject_display();
      if (t.text == "...") unsupported(t.span, "the ellipsis ('...') is");
      if (t.text == "*") unsupported(t.span, "star-expressions ('*a') are");
      unexpected(t);
    }
    default:
      unexpected(t);
  }
}

// Adjacent literals concatenate: "a" 'b' is "ab".
ExprPtr Parser::parse_strings() {
  Token first = advance();
  auto e = std::make_unique<Expr>(ExprKind::String, first.span);
  e->str_value = std::move(first.str_value);
  while (peek().kind == TokenKind::String) {
    Token next = advance();
    e->str_value += next.str_value;
    e->span = Span::cover(e->span, next.span);
  }
  return e;
}

// `()`, `(a,)`, `(a, b)` are tuples; `(a)` is `a` marked parenthesized. The
// span of a parenthesized expression includes the parentheses, so a node
// built on it (`(a + b) * c`) covers them too.
ExprPtr Parser::parse_paren() {
  Token open = advance();
  if (at_op(")")) {
    Token close = advance();
    ExprPtr tuple = make_tuple({}, Span::cover(open.span, close.span));
    tuple->parenthesized = true;
    return tuple;
  }
  ExprPtr first = parse_star_expression();
  if (at_keyword("for"))
    unsupported(Span::cover(open.span, skip_to_matching_close()), "generator expressions are");
  if (!at_op(",")) {
    Token close = expect_close(")");
    first->parenthesized = true;
    first->span = Span::cover(open.span, close.span);
    return first;
  }
  std::vector<ExprPtr> items;
  items.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op(")")) break;
    items.push_back(parse_star_expression());
  }
  Token close = expect_close(")");
  ExprPtr tuple = make_tuple(std::move(items), Span::cover(open.span, close.span));
  tuple->parenthesized = true;
  return tuple;
}

// List, dict and set displays and comprehensions: classified by scanning to
// the closing bracket, so the error names the construct and covers all of it.
void Parser::reject_display() {
  Token open = advance();
  bool list = open.is_op("[");
  bool empty = at_op(list ? "]" : "}");
  bool comprehension = false, dict = empty, dict_seen_first = false;
  int depth = 1;
  Span close = open.span;
  while (depth > 0) {
    Token t = advance();
    close = t.span;
    if (t.kind == TokenKind::End) break;
    if (is_open_bracket(t)) ++depth;
    if (is_close_bracket(t)) --depth;
    if (depth != 1) continue;
    if (t.is_keyword("for")) comprehension = true;
    if (!comprehension && !dict_seen_first && (t.is_op(":") || t.is_op("**"))) dict = true;
    if (t.is_op(",")) dict_seen_first = true;
  }
  Span span = Span::cover(open.span, close);
  std::string kind = list ? "list" : dict ? "dict" : "set";
  if (comprehension) unsupported(span, kind + " comprehensions are");
  unsupported(span, kind + " displays are");
}

// ---------------------------------------------------------------------------
// Names

// Python scoping: a name bound anywhere in the function (parameter,
// assignment, augmented or annotated assignment, loop target) is local for
// the whole function; every other name read is free.
class NameCollector {
 public:
  void run(ParsedFunction& f) {
    for (const Param& p : f.def.params) bind(p.name, p.span);
    bind_block(f.def.body);
    for (const Param& p : f.def.params) {
      use(p.annotation);
      use(p.default_value);
    }
    use(f.def.returns);
    use_block(f.def.body);
    f.local_names = std::move(locals_);
    f.free_names = std::move(free_);
  }

 private:
  void bind(const std::string& name, Span span) {
    if (bound_.insert(name).second) locals_.push_back({name, span});
  }
  void bind_target(const Expr& e) {
    if (e.kind == ExprKind::Name) bind(e.name, e.span);
    if (e.kind == ExprKind::Tuple)
      for (const ExprPtr& item : e.items) bind_target(*item);
  }
  void bind_block(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      for (const ExprPtr& t : s->targets) bind_target(*t);
      bind_block(s->body);
      bind_block(s->orelse);
    }
  }

  void use(const ExprPtr& e) {
    if (!e) return;
    if (e->kind == ExprKind::Name) {
      if (!bound_.count(e->name) && free_seen_.insert(e->name).second)
        free_.push_back({e->name, e->span});
      return;
    }
    for (const ExprPtr& item : e->items) use(item);
    for (const Keyword& k : e->keywords) use(k.value);
  }
  // Stored names are not reads; a subscript target reads its operands.
  void use_target(const ExprPtr& e) {
    if (e->kind == ExprKind::Tuple) {
      for (const ExprPtr& item : e->items) use_target(item);
    } else if (e->kind != ExprKind::Name) {
      use(e);
    }
  }
  void use_block(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      // Source order: targets come before the value except in a loop header,
      // where `for t in v` also reads left to right.
      for (const ExprPtr& t : s->targets) use_target(t);
      use(s->test);
      use(s->annotation);
      use(s->value);
      use_block(s->body);
      use_block(s->orelse);
    }
  }

  std::unordered_set<std::string> bound_, free_seen_;
  std::vector<FreeName> locals_, free_;
};

}  // namespace

ParsedFunction parse_function(const SourceText& src) {
  Parser parser(src);
  ParsedFunction result = parser.parse();
  NameCollector().run(result);
  return result;
}

}  // namespace simt::lang
