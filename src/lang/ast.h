// The syntax tree of one kernel function, as the parser builds it.
//
// Nodes are "fat": one Expr struct and one Stmt struct with a kind tag and
// the union of the fields the kinds use, each documented with the kinds that
// use it. The tree is immutable after parsing; later stages (sema, codegen)
// keep their results in side tables keyed by node address, so one tree serves
// every argument-type signature.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lang/source.h"

namespace simt::lang {

enum class ExprKind {
  Name,       // name
  Int,        // int_value (an integer literal; always >= 0, `-1` is Unary)
  Float,      // float_value
  Imaginary,  // float_value: the imaginary part of a literal like `2j`
  Bool,       // bool_value
  None,
  String,     // str_value (only where the language allows: print, assert, docstrings)
  Tuple,      // items
  Unary,      // op, items[0]
  Binary,     // op, items[0], items[1]
  Compare,    // items[0] ops[0] items[1] ops[1] items[2] ... (chained)
  BoolOp,     // op (And/Or), items (two or more, flattened: `a and b and c`)
  IfExp,      // items[0] if items[1] else items[2]  (body, test, orelse)
  Call,       // items[0] is the callee, items[1..] the positional args, keywords
  Attribute,  // items[0].name
  Subscript,  // items[0][items[1]]  (a tuple index is one Tuple expr)
  Slice,      // items = {lower, upper, step}, each may be null (`a[:]`, `a[1:]`)
};

enum class Op {
  // arithmetic (Binary; Add/Sub also Unary for +x/-x)
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  // bitwise (Binary; Invert is Unary ~x)
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor,
  Invert,
  // boolean (Not is Unary, And/Or are BoolOp)
  Not,
  And,
  Or,
  // comparisons (Compare ops)
  Eq,
  NotEq,
  Lt,
  LtE,
  Gt,
  GtE,
  Is,
  IsNot,
  In,
  NotIn,
};

// The Python spelling of an operator ("+", "//", "not in", ...).
const char* op_text(Op op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  ExprPtr value;
  Span span;  // covers `name=value`
};

struct Expr {
  ExprKind kind;
  Span span;

  std::string name;               // Name: the identifier; Attribute: the attribute
  uint64_t int_value = 0;         // Int (literals above 2**64-1 are a syntax error)
  double float_value = 0;         // Float, Imaginary
  bool bool_value = false;        // Bool
  std::string str_value;          // String (escapes already decoded)
  Op op = Op::Add;                // Unary, Binary, BoolOp
  std::vector<Op> ops;            // Compare
  std::vector<ExprPtr> items;     // operands, elements, callee+args; Slice parts may be null
  std::vector<Keyword> keywords;  // Call
  bool parenthesized = false;     // written inside (...) (a Tuple `(a, b)` or a grouped expr);
                                  // its span then includes the parentheses

  Expr(ExprKind k, Span s) : kind(k), span(s) {}
};

enum class StmtKind {
  Assign,     // targets[0] = targets[1] = ... = value
  AugAssign,  // targets[0] op= value
  AnnAssign,  // targets[0]: annotation (= value)?   value may be null
  If,         // if test: body  else: orelse   (elif is an If alone in orelse)
  While,      // while test: body   (else: orelse is a compile error)
  For,        // for targets[0] in value: body   (else: orelse is a compile error)
  Break,
  Continue,
  Return,  // value may be null
  Pass,
  ExprStmt,  // value (a docstring is dropped by the parser, not kept here)
  Assert,    // assert test, value (message may be null)
  Raise,     // raise value (an exception class, or a call of one)
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind;
  Span span;  // the whole statement's first line (header line for compound statements)

  std::vector<ExprPtr> targets;  // Assign/AugAssign/AnnAssign/For targets
  ExprPtr
      value;  // assigned value, For iterable, Return value, ExprStmt, Assert msg, Raise exception
  ExprPtr test;        // If/While/Assert condition
  ExprPtr annotation;  // AnnAssign
  Op op = Op::Add;     // AugAssign
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;

  Stmt(StmtKind k, Span s) : kind(k), span(s) {}
};

struct Param {
  std::string name;
  Span span;
  ExprPtr annotation;     // may be null
  ExprPtr default_value;  // may be null
};

struct FunctionDef {
  std::string name;
  Span span;  // the `def name(...)` header
  std::vector<Param> params;
  ExprPtr returns;  // the `-> annotation`, may be null
  std::vector<StmtPtr> body;
  std::string docstring;
};

// A name the function reads but never binds (not a parameter, never assigned,
// never a loop target): the caller resolves it in the function's globals,
// closure or builtins. `span` is its first use. Parameter annotations and
// defaults and the return annotation count as reads.
struct FreeName {
  std::string name;
  Span span;
};

struct ParsedFunction {
  FunctionDef def;
  std::vector<FreeName> free_names;  // in order of first use
  // Every name the function binds (parameters first, then assignment and
  // loop targets in order of first binding), with where it is first bound.
  std::vector<FreeName> local_names;
};

// S-expression renderings of a tree, for tests and debugging, e.g.
// "(Binary + (Name a) (Binary * (Name b) (Name c)))". A null child is "_".
std::string dump(const Expr& expr);
std::string dump(const Stmt& stmt);
std::string dump(const FunctionDef& def);

}  // namespace simt::lang
