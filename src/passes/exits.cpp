// Where a thread may leave a function before its end: at a `return` or a
// `raise`, and at a call of a device function that raises
// (sema::TypedFunction::raises), after which the caller leaves too. The CPU's
// lowerings ask this: a thread that may leave early needs its exit recorded
// (regions), and stops a loop from being run in lockstep.
#include "passes/passes.h"

namespace simt::passes {

using lang::Expr;
using lang::Stmt;
using lang::StmtKind;

bool calls_raising_function(const sema::TypedFunction& fn, const Expr& e) {
  if (e.kind == lang::ExprKind::Call) {
    auto found = fn.exprs.find(&e);
    if (found != fn.exprs.end() && found->second.function && found->second.function->typed.raises)
      return true;
  }
  for (const auto& item : e.items)
    if (item && calls_raising_function(fn, *item)) return true;
  for (const auto& kw : e.keywords)
    if (calls_raising_function(fn, *kw.value)) return true;
  return false;
}

bool statement_calls_raising_function(const sema::TypedFunction& fn, const Stmt& s) {
  if (s.test && calls_raising_function(fn, *s.test)) return true;
  if (s.value && calls_raising_function(fn, *s.value)) return true;
  for (const auto& t : s.targets)
    if (calls_raising_function(fn, *t)) return true;
  return false;
}

bool leaves_here(const sema::TypedFunction& fn, const Stmt& s) {
  return s.kind == StmtKind::Return || s.kind == StmtKind::Raise ||
         statement_calls_raising_function(fn, s);
}

bool contains_exit(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body)
    if (leaves_here(fn, *s) || contains_exit(fn, s->body) || contains_exit(fn, s->orelse))
      return true;
  return false;
}

}  // namespace simt::passes
