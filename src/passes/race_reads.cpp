// Which array parameters of a kernel no thread writes (racecheck, codegen/emit_race.cpp):
// reads of such an array cannot race unless another argument shares its memory,
// which the launch checks (python/dispatch.cpp), so a race-checked kernel reports
// them only then. Decided conservatively: every store, augmented assignment and
// atomic of global memory must go through a parameter by its name, in the kernel
// itself, with no parameter ever assigned; otherwise no parameter qualifies.
#include "passes/passes.h"

namespace simt::passes {

namespace {

using lang::Expr;
using lang::ExprKind;
using lang::Stmt;
using lang::StmtKind;

// Arrays of records anywhere in `t`: the launch's comparison of argument
// memory needs each array's element size, which a Param has for numbers only.
bool has_record_arrays(const sema::Type& t) {
  if (t.is_array()) return t.has_records() || t.packed;
  for (const auto& item : t.items)
    if (has_record_arrays(item)) return true;
  return false;
}

class Writes {
 public:
  explicit Writes(const sema::TypedFunction& kernel)
      : kernel_(kernel),
        params_(kernel.param_count()),
        written_(params_, false),
        assigned_(params_, false) {}

  std::vector<bool> unwritten() {
    for (const auto& s : kernel_.parsed->def.body) stmt(kernel_, *s);
    std::vector<bool> out(params_, false);
    if (unknown_) return out;
    for (size_t p = 0; p < params_; ++p)
      if (has_record_arrays(kernel_.locals[p].type)) return out;
    for (size_t p = 0; p < params_; ++p) {
      const sema::Type& t = kernel_.locals[p].type;
      out[p] = t.is_array() && !t.has_records() && !t.packed && t.space == sema::Space::Global &&
               !written_[p] && !assigned_[p];
    }
    for (size_t p = 0; p < params_; ++p)
      if (assigned_[p]) return std::vector<bool>(params_, false);
    return out;
  }

 private:
  bool kernel(const sema::TypedFunction& f) const { return &f == &kernel_; }

  // A store into element(s) of `array` (in function `f`).
  void write_into(const sema::TypedFunction& f, const Expr& array) {
    auto found = f.exprs.find(&array);
    if (found == f.exprs.end()) {
      unknown_ = true;
      return;
    }
    const sema::Type& t = found->second.type;
    if (t.is_array() && t.space != sema::Space::Global) return;  // shared, local, constant
    const int local = found->second.local;
    if (kernel(f) && array.kind == ExprKind::Name && local >= 0 &&
        static_cast<size_t>(local) < params_) {
      written_[static_cast<size_t>(local)] = true;
      return;
    }
    unknown_ = true;
  }

  void target(const sema::TypedFunction& f, const Expr& t) {
    switch (t.kind) {
      case ExprKind::Name: {
        auto found = f.exprs.find(&t);
        const int local = found == f.exprs.end() ? -1 : found->second.local;
        if (kernel(f) && local >= 0 && static_cast<size_t>(local) < params_)
          assigned_[static_cast<size_t>(local)] = true;
        return;
      }
      case ExprKind::Subscript:
        write_into(f, sema::subscript_base(t));
        expr(f, t);
        return;
      case ExprKind::Tuple:
        for (const auto& item : t.items) target(f, *item);
        return;
      default:
        unknown_ = true;  // a record's field, and whatever else writes memory
        return;
    }
  }

  void expr(const sema::TypedFunction& f, const Expr& e) {
    if (e.kind == ExprKind::Call) {
      auto found = f.exprs.find(&e);
      if (found != f.exprs.end()) {
        const sema::ExprInfo& i = found->second;
        if (i.intrinsic && (i.intrinsic->rule == sema::Rule::Atomic ||
                            i.intrinsic->rule == sema::Rule::AtomicCas ||
                            i.intrinsic->rule == sema::Rule::CompareAndSwap))
          write_into(f, *e.items[1]);
        if (i.function) {
          const sema::TypedFunction& callee = i.function->typed;
          for (const auto& s : callee.parsed->def.body) stmt(callee, *s);
        }
        if (i.foreign) unknown_ = true;  // C code may write through what it is given
      }
    }
    for (const auto& item : e.items)
      if (item) expr(f, *item);
    for (const auto& kw : e.keywords) expr(f, *kw.value);
  }

  void stmt(const sema::TypedFunction& f, const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign:
      case StmtKind::AugAssign:
      case StmtKind::AnnAssign:
      case StmtKind::For:
        for (const auto& t : s.targets) target(f, *t);
        break;
      default:
        break;
    }
    if (s.test) expr(f, *s.test);
    if (s.value) expr(f, *s.value);
    for (const auto& b : s.body) stmt(f, *b);
    for (const auto& b : s.orelse) stmt(f, *b);
  }

  const sema::TypedFunction& kernel_;
  size_t params_;
  std::vector<bool> written_, assigned_;
  bool unknown_ = false;
};

}  // namespace

std::vector<bool> unwritten_array_params(const sema::TypedFunction& kernel) {
  return Writes(kernel).unwritten();
}

}  // namespace simt::passes

namespace simt::passes {

namespace {

// The kernel's own-element arrays: each thread touches only element `i` of
// them, `i = simt.grid(1)` assigned once at the kernel's top level before
// every use, distinct for distinct threads of a launch one row of threads high.
class OwnElements {
 public:
  explicit OwnElements(const sema::TypedFunction& kernel)
      : kernel_(kernel),
        params_(kernel.param_count()),
        qualifies_(params_, true),
        grid_index_at_(kernel.locals.size(), -1),
        assignments_(kernel.locals.size(), 0) {}

  std::vector<bool> find() {
    const auto& body = kernel_.parsed->def.body;
    for (const auto& s : body) count_assignments(*s);
    for (size_t k = 0; k < body.size(); ++k) {
      const Stmt& s = *body[k];
      if (s.kind != StmtKind::Assign || s.targets.size() != 1 || !s.value) continue;
      const int local = local_of(*s.targets[0]);
      if (local < static_cast<int>(params_) || assignments_[static_cast<size_t>(local)] != 1)
        continue;
      if (is_grid_1(*s.value)) grid_index_at_[static_cast<size_t>(local)] = static_cast<int>(k);
    }
    for (size_t k = 0; k < body.size(); ++k) {
      at_ = static_cast<int>(k);
      stmt(*body[k]);
    }
    std::vector<bool> out(params_, false);
    for (size_t p = 0; p < params_; ++p) {
      const sema::Type& t = kernel_.locals[p].type;
      out[p] = qualifies_[p] && used_[p] && t.is_array() && t.ndim == 1 && !t.has_records() &&
               !t.packed && t.space == sema::Space::Global;
    }
    return out;
  }

 private:
  int local_of(const Expr& e) const {
    if (e.kind != ExprKind::Name) return -1;
    auto found = kernel_.exprs.find(&e);
    return found == kernel_.exprs.end() ? -1 : found->second.local;
  }
  int param_of(const Expr& e) const {
    const int local = local_of(e);
    return local >= 0 && static_cast<size_t>(local) < params_ ? local : -1;
  }

  bool is_grid_1(const Expr& e) const {
    if (e.kind != ExprKind::Call || e.items.size() != 2) return false;
    auto found = kernel_.exprs.find(&e);
    if (found == kernel_.exprs.end() || !found->second.intrinsic ||
        found->second.intrinsic->rule != sema::Rule::Grid || !found->second.type.is_scalar())
      return false;
    auto arg = kernel_.exprs.find(e.items[1].get());
    return arg != kernel_.exprs.end() && arg->second.constant &&
           arg->second.constant->int_value == 1;
  }

  void count_target(const Expr& t) {
    if (t.kind == ExprKind::Tuple) {
      for (const auto& item : t.items) count_target(*item);
      return;
    }
    const int local = local_of(t);
    if (local >= 0) ++assignments_[static_cast<size_t>(local)];
  }
  void count_assignments(const Stmt& s) {
    if (s.kind == StmtKind::Assign || s.kind == StmtKind::AugAssign ||
        s.kind == StmtKind::AnnAssign || s.kind == StmtKind::For)
      for (const auto& t : s.targets) count_target(*t);
    for (const auto& b : s.body) count_assignments(*b);
    for (const auto& b : s.orelse) count_assignments(*b);
  }

  // `array[index]` (or an atomic's array and index): fine for a parameter
  // `array` when `index` is a grid index assigned in an earlier statement.
  void element(const Expr& array, const Expr& index) {
    const int p = param_of(array);
    if (p < 0) {
      expr(array);
    } else {
      const int local = local_of(index);
      const bool own = local >= 0 && grid_index_at_[static_cast<size_t>(local)] >= 0 &&
                       grid_index_at_[static_cast<size_t>(local)] < at_;
      if (!own) qualifies_[static_cast<size_t>(p)] = false;
      used_[static_cast<size_t>(p)] = true;
    }
    expr(index);
  }

  void expr(const Expr& e) {
    if (const int p = param_of(e); p >= 0) {
      qualifies_[static_cast<size_t>(p)] = false;  // any other use: passed, aliased, sliced
      return;
    }
    if (e.kind == ExprKind::Subscript) {
      element(sema::subscript_base(e), sema::subscript_index(e));
      return;
    }
    if (e.kind == ExprKind::Attribute && !e.items.empty() && param_of(*e.items[0]) >= 0) {
      // x.shape, x.size, x.ndim read no element; x.real, x.reshape(...) and the
      // like are views whose elements other threads may touch.
      if (e.name != "shape" && e.name != "size" && e.name != "ndim")
        qualifies_[static_cast<size_t>(param_of(*e.items[0]))] = false;
      return;
    }
    if (e.kind == ExprKind::Call) {
      auto found = kernel_.exprs.find(&e);
      if (found != kernel_.exprs.end() && found->second.intrinsic) {
        const sema::Rule rule = found->second.intrinsic->rule;
        if (rule == sema::Rule::Len && e.items.size() == 2 && param_of(*e.items[1]) >= 0) return;
        if ((rule == sema::Rule::Atomic || rule == sema::Rule::AtomicCas) && e.items.size() > 2) {
          element(*e.items[1], *e.items[2]);
          for (size_t k = 3; k < e.items.size(); ++k) expr(*e.items[k]);
          return;
        }
      }
    }
    for (const auto& item : e.items)
      if (item) expr(*item);
    for (const auto& kw : e.keywords) expr(*kw.value);
  }

  void stmt(const Stmt& s) {
    for (const auto& t : s.targets) expr(*t);
    if (s.test) expr(*s.test);
    if (s.value) expr(*s.value);
    for (const auto& b : s.body) stmt(*b);
    for (const auto& b : s.orelse) stmt(*b);
  }

  const sema::TypedFunction& kernel_;
  size_t params_;
  std::vector<bool> qualifies_;
  std::vector<bool> used_ = std::vector<bool>(params_, false);
  std::vector<int> grid_index_at_;  // per local: its top-level statement, -1: not one
  std::vector<int> assignments_;
  int at_ = 0;  // the top-level statement being walked
};

}  // namespace

std::vector<bool> own_element_params(const sema::TypedFunction& kernel) {
  return OwnElements(kernel).find();
}

}  // namespace simt::passes
