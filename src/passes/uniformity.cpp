#include "passes/uniformity.h"

#include "passes/passes.h"
#include "sema/intrinsics.h"

namespace simt::passes {

using lang::Expr;
using lang::ExprKind;
using lang::Stmt;
using lang::StmtKind;

namespace {

// Whether a break, continue or return sits under a condition that is not
// uniform inside `body` (break/continue only at this loop's level), or a call
// of a device function that raises (whatever it raises under is unknown here).
template <class UniformTest>
bool divergent_exit(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body,
                    bool uniform, bool nested_loop, const UniformTest& uniform_test) {
  for (const auto& s : body) {
    if (statement_calls_raising_function(fn, *s)) return true;
    switch (s->kind) {
      case StmtKind::Break:
      case StmtKind::Continue:
        if (!uniform && !nested_loop) return true;
        break;
      case StmtKind::Return:
      case StmtKind::Raise:
        if (!uniform) return true;
        break;
      case StmtKind::If: {
        bool u = uniform && uniform_test(*s->test);
        if (divergent_exit(fn, s->body, u, nested_loop, uniform_test) ||
            divergent_exit(fn, s->orelse, u, nested_loop, uniform_test))
          return true;
        break;
      }
      case StmtKind::While:
      case StmtKind::For: {
        const Expr& header = s->kind == StmtKind::While ? *s->test : *s->value;
        if (divergent_exit(fn, s->body, uniform && uniform_test(header), true, uniform_test))
          return true;
        break;
      }
      default:
        break;
    }
  }
  return false;
}

}  // namespace

Uniformity::Uniformity(const sema::TypedFunction& fn) : fn_(fn), uniform_(fn.locals.size(), true) {
  // Optimistic start, then every local assigned a varying value, or in
  // varying control flow, becomes varying, until nothing changes.
  do {
    changed_ = false;
    for (const auto& s : fn_.parsed->def.body) assigns_varying(*s, true);
  } while (changed_);
}

bool Uniformity::leaves_early(const std::vector<lang::StmtPtr>& body) const {
  return divergent_exit(fn_, body, true, false, [&](const Expr& e) { return uniform_expr(e); });
}

void Uniformity::mark_targets(const Expr& target, bool uniform) {
  if (target.kind == ExprKind::Tuple) {
    for (const auto& item : target.items) mark_targets(*item, uniform);
    return;
  }
  if (target.kind != ExprKind::Name || uniform) return;
  auto found = fn_.exprs.find(&target);
  if (found == fn_.exprs.end() || found->second.local < 0) return;
  int local = found->second.local;
  if (uniform_[local]) {
    uniform_[local] = false;
    changed_ = true;
  }
}

bool Uniformity::assigns_varying(const Stmt& s, bool uniform_context) {
  auto test = [&](const Expr& e) { return uniform_expr(e); };
  switch (s.kind) {
    case StmtKind::Assign:
    case StmtKind::AnnAssign: {
      if (!s.value) return false;
      bool u = uniform_context && uniform_expr(*s.value);
      for (const auto& t : s.targets) mark_targets(*t, u);
      return false;
    }
    case StmtKind::AugAssign: {
      bool u = uniform_context && uniform_expr(*s.value) && uniform_expr(*s.targets[0]);
      mark_targets(*s.targets[0], u);
      return false;
    }
    case StmtKind::If: {
      bool u = uniform_context && uniform_expr(*s.test);
      for (const auto& b : s.body) assigns_varying(*b, u);
      for (const auto& b : s.orelse) assigns_varying(*b, u);
      return false;
    }
    case StmtKind::While:
    case StmtKind::For: {
      const Expr& header = s.kind == StmtKind::While ? *s.test : *s.value;
      bool u = uniform_context && uniform_expr(header);
      // A thread leaving the loop early makes the later iterations' values
      // differ between threads.
      if (u && (divergent_exit(fn_, s.body, true, false, test) ||
                (s.kind == StmtKind::While && calls_raising_function(fn_, header))))
        u = false;
      // Elements of arrays are varying (uniform_expr's rule), so the variables a loop
      // over an array binds are too.
      if (s.kind == StmtKind::For) mark_targets(*s.targets[0], u && !iterates_array(header));
      for (const auto& b : s.body) assigns_varying(*b, u);
      return false;
    }
    default:
      return false;
  }
}

bool Uniformity::iterates_array(const Expr& iterable) const {
  auto found = fn_.exprs.find(&iterable);
  if (found == fn_.exprs.end()) return false;
  if (found->second.type.is_array()) return true;
  const sema::Intrinsic* fn = found->second.intrinsic;
  if (!fn || (fn->rule != sema::Rule::Enumerate && fn->rule != sema::Rule::Zip)) return false;
  for (size_t k = 1; k < iterable.items.size(); ++k)
    if (iterates_array(*iterable.items[k])) return true;
  return false;
}

bool Uniformity::uniform_expr(const Expr& e) const {
  auto found = fn_.exprs.find(&e);
  if (found == fn_.exprs.end()) return true;  // e.g. the callee of a call
  const sema::ExprInfo& i = found->second;
  if (i.constant) return true;
  auto all_items = [&] {
    for (const auto& item : e.items)
      if (item && !uniform_expr(*item)) return false;
    return true;
  };
  switch (e.kind) {
    case ExprKind::Name:
      return i.local < 0 || uniform_[i.local];
    case ExprKind::Attribute: {
      if (i.intrinsic) return i.intrinsic->rule == sema::Rule::WarpSize;
      const sema::Type& base = fn_.at(*e.items[0]).type;
      if (base.kind == sema::TypeKind::Dim3) return base.name != "thread_idx";
      if (base.kind == sema::TypeKind::Module) return true;
      // A record's number is read from memory, which may differ between reads (its
      // nested records and array fields are addresses, uniform with the record).
      if (base.is_record() && i.type.is_scalar()) return false;
      return uniform_expr(*e.items[0]);  // shape, size, real/imag, ...
    }
    case ExprKind::Call: {
      if (i.function) return false;
      const sema::Type& callee = fn_.at(*e.items[0]).type;
      if (callee.kind == sema::TypeKind::DType) return all_items();
      if (!i.intrinsic) return false;
      switch (i.intrinsic->rule) {
        case sema::Rule::Grid:
        case sema::Rule::LaneMask:  // pure, no arguments, and yet the lane's own
          return false;
        case sema::Rule::GridSize:
          return true;
        case sema::Rule::ArrayAlloc:
          return i.type.space == sema::Space::Shared;  // one array per block
        default:
          if (!i.intrinsic->pure) return false;
          for (size_t k = 1; k < e.items.size(); ++k)
            if (!uniform_expr(*e.items[k])) return false;
          return true;
      }
    }
    case ExprKind::Subscript: {
      const sema::Type& base = fn_.at(*e.items[0]).type;
      if (base.is_tuple()) return all_items();
      return false;  // an array element (or a record's field) may differ between reads
    }
    default:
      return all_items();
  }
}

void Uniformity::collect(const Expr& e, std::vector<const Expr*>& out) const {
  if (e.kind == ExprKind::Call) {
    auto found = fn_.exprs.find(&e);
    if (found != fn_.exprs.end() && found->second.intrinsic &&
        sema::is_collective(found->second.intrinsic->rule))
      out.push_back(&e);
  }
  for (const auto& item : e.items)
    if (item) collect(*item, out);
  for (const auto& kw : e.keywords) collect(*kw.value, out);
}

void Uniformity::collect(const Stmt& s, std::vector<const Expr*>& out) const {
  if (s.test) collect(*s.test, out);
  for (const auto& t : s.targets) collect(*t, out);
  if (s.value) collect(*s.value, out);
  for (const auto& b : s.body) collect(*b, out);
  for (const auto& b : s.orelse) collect(*b, out);
}

std::vector<const Expr*> Uniformity::collectives(const Expr& e) const {
  std::vector<const Expr*> out;
  collect(e, out);
  return out;
}

std::vector<const Expr*> Uniformity::collectives(const Stmt& s) const {
  std::vector<const Expr*> out;
  collect(s, out);
  return out;
}

const Expr* Uniformity::statement_collective(const Stmt& s) const {
  bool simple = s.kind == StmtKind::ExprStmt || s.kind == StmtKind::Assign ||
                s.kind == StmtKind::AugAssign || s.kind == StmtKind::AnnAssign;
  if (!simple || !s.value || s.value->kind != ExprKind::Call) return nullptr;
  auto found = fn_.exprs.find(s.value.get());
  if (found == fn_.exprs.end() || !found->second.intrinsic ||
      !sema::is_collective(found->second.intrinsic->rule))
    return nullptr;
  return s.value.get();
}

bool Uniformity::uniform_assignment(const Stmt& s) const {
  if (s.kind != StmtKind::Assign && s.kind != StmtKind::AugAssign && s.kind != StmtKind::AnnAssign)
    return false;
  if (!s.value) return false;
  bool any_local = false;
  std::vector<const Expr*> pending;
  for (const auto& t : s.targets) pending.push_back(t.get());
  while (!pending.empty()) {
    const Expr* t = pending.back();
    pending.pop_back();
    if (t->kind == ExprKind::Tuple) {
      for (const auto& item : t->items) pending.push_back(item.get());
      continue;
    }
    if (t->kind != ExprKind::Name) return false;
    auto found = fn_.exprs.find(t);
    if (found == fn_.exprs.end() || found->second.local < 0 || !uniform_[found->second.local])
      return false;
    any_local = true;
  }
  return any_local && uniform_expr(*s.value);
}

}  // namespace simt::passes
