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
