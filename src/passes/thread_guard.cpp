#include "passes/thread_guard.h"

#include <map>
#include <vector>

#include "sema/intrinsics.h"

namespace simt::passes {

using lang::Expr;
using lang::ExprKind;
using lang::Op;
using lang::Stmt;
using lang::StmtKind;

namespace {

// How a value changes along a row of threads (threadIdx.x = 0, 1, ...; the
// other thread indices fixed): not at all, never downwards, never upwards, or
// unknown. Integer values only: float rounding keeps monotonicity, but the
// guards worth the trouble compare indices.
enum class Trend { Fixed, Rising, Falling, Unknown };

Trend negate(Trend t) {
  return t == Trend::Rising ? Trend::Falling : t == Trend::Falling ? Trend::Rising : t;
}

Trend add(Trend a, Trend b) {
  if (a == Trend::Unknown || b == Trend::Unknown) return Trend::Unknown;
  if (a == Trend::Fixed) return b;
  if (b == Trend::Fixed || a == b) return a;
  return Trend::Unknown;
}

class GuardAnalysis {
 public:
  explicit GuardAnalysis(const sema::TypedFunction& fn) : fn_(fn) {}

  // Assignments run in order before the guard: each target's trend. False
  // when `s` is not a plain assignment to names without effects.
  bool assign(const Stmt& s) {
    if ((s.kind != StmtKind::Assign && s.kind != StmtKind::AnnAssign) || !s.value) return false;
    if (!effect_free(*s.value)) return false;
    // Scalars and tuples of them only: an array view would be declared twice.
    const sema::ExprInfo* value = info(*s.value);
    if (!value || !scalars(value->type)) return false;
    for (const auto& target : s.targets) {
      if (target->kind == ExprKind::Name) {
        set(*target, trend(*s.value));
      } else if (target->kind == ExprKind::Tuple) {
        // `i, j = cuda.grid(2)`: the first rises along the row, the rest are fixed;
        // `n, m = x.shape`: all fixed.
        // `i, n = cuda.grid(1), x.size`: item by item.
        bool grid = s.value->kind == ExprKind::Call && rule(*s.value) == sema::Rule::Grid;
        bool items = s.value->kind == ExprKind::Tuple &&
                     s.value->items.size() == target->items.size() && s.targets.size() == 1;
        if (!grid && !items && trend(*s.value) != Trend::Fixed) return false;
        // Every value is read before any name is bound (`i, j = j, i`).
        std::vector<Trend> trends;
        for (size_t k = 0; k < target->items.size(); ++k)
          trends.push_back(items  ? trend(*s.value->items[k])
                           : grid ? (k == 0 ? Trend::Rising : Trend::Fixed)
                                  : Trend::Fixed);
        for (size_t k = 0; k < target->items.size(); ++k) {
          if (target->items[k]->kind != ExprKind::Name) return false;
          set(*target->items[k], trends[k]);
        }
      } else {
        return false;
      }
    }
    return true;
  }

  // Whether `e` (a condition) is monotone along the row: its truth changes at
  // most once from one thread to the next, then, if it holds at the row's
  // first and last thread, it holds at every thread between.
  bool monotone(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Compare: {
        for (size_t k = 0; k < e.ops.size(); ++k) {
          Op op = e.ops[k];
          if (op != Op::Lt && op != Op::LtE && op != Op::Gt && op != Op::GtE) return false;
          Trend a = trend(*e.items[k]), b = trend(*e.items[k + 1]);
          if (a == Trend::Unknown || b == Trend::Unknown) return false;
          // a < b is monotone unless both sides move the same way.
          if (a != Trend::Fixed && a == b) return false;
        }
        return true;
      }
      case ExprKind::BoolOp:
        if (e.op != Op::And) return false;
        for (const auto& item : e.items)
          if (!monotone(*item)) return false;
        return true;
      case ExprKind::Unary:
        return e.op == Op::Not && monotone(*e.items[0]);
      default:
        return false;
    }
  }

 private:
  const sema::ExprInfo* info(const Expr& e) const {
    auto found = fn_.exprs.find(&e);
    return found == fn_.exprs.end() ? nullptr : &found->second;
  }

  std::optional<sema::Rule> rule(const Expr& call) const {
    const sema::ExprInfo* i = info(call);
    if (!i || !i->intrinsic) return std::nullopt;
    return i->intrinsic->rule;
  }

  void set(const Expr& name, Trend t) {
    const sema::ExprInfo* i = info(name);
    if (i && i->local >= 0)
      trends_[i->local] = t == Trend::Fixed || wide_signed(*i) ? t : Trend::Unknown;
  }

  static bool scalars(const sema::Type& t) {
    if (t.is_tuple()) {
      for (const auto& item : t.items)
        if (!scalars(item)) return false;
      return true;
    }
    return t.is_scalar();
  }

  // Where a moving value may live: signed integers of 32 bits or more, which do not wrap
  // around at thread indices (an unsigned `tx - 1` does, at thread 0).
  static bool wide_signed(const sema::ExprInfo& i) {
    return i.type.is_scalar() && abi::is_signed(i.type.scalar) &&
           abi::bit_width(i.type.scalar) >= 32;
  }

  // Reads and pure intrinsics only: the guard's test function runs these
  // statements once more for the row's first and last thread.
  bool effect_free(const Expr& e) const {
    if (e.kind == ExprKind::Call) {
      const sema::ExprInfo* i = info(e);
      if (!i || !i->intrinsic || !i->intrinsic->pure || i->function || i->foreign) return false;
      if (i->intrinsic->rule == sema::Rule::ArrayAlloc || i->intrinsic->rule == sema::Rule::Print)
        return false;
      for (size_t k = 1; k < e.items.size(); ++k)
        if (e.items[k] && !effect_free(*e.items[k])) return false;
      for (const auto& kw : e.keywords)
        if (!effect_free(*kw.value)) return false;
      return true;
    }
    for (const auto& item : e.items)
      if (item && !effect_free(*item)) return false;
    return true;
  }

  Trend trend(const Expr& e) const {
    const sema::ExprInfo* i = info(e);
    if (i && i->constant) return Trend::Fixed;
    switch (e.kind) {
      case ExprKind::Int:
      case ExprKind::Bool:
        return Trend::Fixed;
      case ExprKind::Tuple:
        for (const auto& item : e.items)
          if (trend(*item) != Trend::Fixed) return Trend::Unknown;
        return Trend::Fixed;
      case ExprKind::Name: {
        if (!i || i->local < 0) return Trend::Fixed;  // a global, baked in
        auto found = trends_.find(i->local);
        if (found != trends_.end()) return found->second;
        // Parameters, and locals not yet assigned (zero), are the same for every thread.
        return Trend::Fixed;
      }
      case ExprKind::Attribute: {
        if (!i) return Trend::Unknown;
        const sema::ExprInfo* base = info(*e.items[0]);
        if (!base) return Trend::Unknown;
        if (base->type.kind == sema::TypeKind::Dim3)
          return base->type.name != "thread_idx" || e.name != "x" ? Trend::Fixed
                 : wide_signed(*i)                                ? Trend::Rising
                                                                  : Trend::Unknown;
        if (base->type.kind == sema::TypeKind::Module) return Trend::Unknown;
        // An array's shape, size or strides: fixed when the array is.
        if (base->type.is_array() && !i->type.is_array() && scalars(i->type) &&
            trend(*e.items[0]) == Trend::Fixed)
          return Trend::Fixed;
        return Trend::Unknown;
      }
      case ExprKind::Subscript: {
        // x.shape[0]: an item of a fixed tuple at a constant index.
        const sema::ExprInfo* base = info(*e.items[0]);
        const sema::ExprInfo* index = info(*e.items[1]);
        if (base && base->type.is_tuple() && index && index->constant &&
            trend(*e.items[0]) == Trend::Fixed)
          return Trend::Fixed;
        return Trend::Unknown;
      }
      case ExprKind::Unary:
        if (e.op == Op::Sub) return negate(trend(*e.items[0]));
        if (e.op == Op::Add) return trend(*e.items[0]);
        return trend(*e.items[0]) == Trend::Fixed ? Trend::Fixed : Trend::Unknown;
      case ExprKind::Binary:
        return binary(e);
      case ExprKind::Call: {
        if (!i || !i->intrinsic) return Trend::Unknown;
        if (i->intrinsic->rule == sema::Rule::Grid)
          return wide_signed(*i) ? Trend::Rising : Trend::Unknown;  // grid(1)
        if (!i->intrinsic->pure) return Trend::Unknown;
        for (size_t k = 1; k < e.items.size(); ++k)
          if (trend(*e.items[k]) != Trend::Fixed) return Trend::Unknown;
        return e.keywords.empty() ? Trend::Fixed : Trend::Unknown;
      }
      default:
        return Trend::Unknown;
    }
  }

  Trend binary(const Expr& e) const {
    Trend a = trend(*e.items[0]), b = trend(*e.items[1]);
    if (a == Trend::Fixed && b == Trend::Fixed) return Trend::Fixed;
    if (!info(e) || !wide_signed(*info(e))) return Trend::Unknown;
    switch (e.op) {
      case Op::Add:
        return add(a, b);
      case Op::Sub:
        return add(a, negate(b));
      case Op::Mul: {
        // By a literal: its sign says the direction.
        const Expr& moving = a == Trend::Fixed ? *e.items[1] : *e.items[0];
        const Expr& factor = a == Trend::Fixed ? *e.items[0] : *e.items[1];
        const sema::ExprInfo* f = info(factor);
        if (!f || !f->constant || !f->constant->type.is_int_like() ||
            (a != Trend::Fixed && b != Trend::Fixed))
          return Trend::Unknown;
        int64_t v = f->constant->int_value;
        Trend t = trend(moving);
        return v > 0 ? t : v < 0 ? negate(t) : Trend::Fixed;
      }
      case Op::FloorDiv: {
        // By a positive literal: floor keeps the order.
        const sema::ExprInfo* f = info(*e.items[1]);
        if (b != Trend::Fixed || !f || !f->constant || !f->constant->type.is_int_like() ||
            f->constant->int_value <= 0)
          return Trend::Unknown;
        return a;
      }
      default:
        return Trend::Unknown;
    }
  }

  const sema::TypedFunction& fn_;
  std::map<int, Trend> trends_;
};

bool contains_if(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body)
    if (s->kind == StmtKind::If || contains_if(s->body) || contains_if(s->orelse)) return true;
  return false;
}

// Shared and local arrays, constant arrays: their declarations live in the
// body's prologue, which the guard's test function does not repeat alone.
bool allocates(const sema::TypedFunction& fn, const Expr& e) {
  auto found = fn.exprs.find(&e);
  if (e.kind == ExprKind::Call && found != fn.exprs.end() && found->second.intrinsic &&
      (found->second.intrinsic->rule == sema::Rule::ArrayAlloc ||
       found->second.intrinsic->rule == sema::Rule::ConstArrayLike))
    return true;
  for (const auto& item : e.items)
    if (item && allocates(fn, *item)) return true;
  for (const auto& kw : e.keywords)
    if (allocates(fn, *kw.value)) return true;
  return false;
}

bool allocates(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    for (const Expr* e : {s->value.get(), s->test.get()})
      if (e && allocates(fn, *e)) return true;
    for (const auto& t : s->targets)
      if (allocates(fn, *t)) return true;
    if (allocates(fn, s->body) || allocates(fn, s->orelse)) return true;
  }
  return false;
}

bool only_return(const std::vector<lang::StmtPtr>& body) {
  return body.size() == 1 && body[0]->kind == StmtKind::Return && !body[0]->value;
}

}  // namespace

std::optional<ThreadGuard> find_thread_guard(const sema::TypedFunction& kernel) {
  const auto& body = kernel.parsed->def.body;
  if (allocates(kernel, body)) return std::nullopt;
  GuardAnalysis analysis(kernel);
  size_t k = 0;
  while (k < body.size() && body[k]->kind != StmtKind::If) {
    if (!analysis.assign(*body[k])) return std::nullopt;
    ++k;
  }
  if (k == body.size() || !analysis.monotone(*body[k]->test)) return std::nullopt;
  ThreadGuard guard;
  guard.test_stmt = body[k].get();
  guard.prefix = k;
  if (only_return(body[k]->body) && body[k]->orelse.empty()) {
    // `if i >= n: return`, then the body.
    guard.holds_when = false;
    guard.straight_line = true;
    for (size_t r = k + 1; r < body.size(); ++r)
      if (body[r]->kind == StmtKind::If || contains_if(body[r]->body)) guard.straight_line = false;
  } else {
    guard.straight_line = !contains_if(body[k]->body) && k + 1 == body.size();
  }
  return guard;
}

}  // namespace simt::passes
