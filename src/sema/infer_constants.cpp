// Constants that flow: a local bound once to a constant, and a device-function
// parameter whose argument is a constant, are compile-time values where one is
// needed (a shared/local array's shape, grid's ndim).
//
// Parameters are specialized on their values only where needed, as Numba does
// (it retries typing with literal arguments when typing fails) and unlike
// specializing on every constant argument: a device function is first typed for
// its argument types alone; where a compile-time position reads a parameter it
// records the parameter as wanted, and the caller types it again with the values
// of the wanted parameters (infer_functions.cpp). So `f(x, 1)`, `f(x, 2)`, ...
// make one function unless f needs its second parameter at compile time.
//
// A branch whose condition is known at compile time and false (or the else of
// one that is true) never runs, so its assignments do not widen the variables'
// types: they convert into them, as the emitted C code does, and the C compiler
// drops the branch. Numba prunes such branches before typing; without this,
// `if neg_idx: bin = (bin[0] % n, bin[1] % n)` with neg_idx False would turn a
// (int64, uint64) index into (int64, float64). A condition reading a parameter
// is wanted as a constant only when typing fails without it.
#include "sema/inferencer.h"

namespace simt::sema::detail {

namespace {

// The names a target binds: a name, or the names of a tuple unpacked into.
void bound_names(const Expr& target, std::vector<std::string>& names) {
  if (target.kind == ExprKind::Name) names.push_back(target.name);
  if (target.kind == ExprKind::Tuple)
    for (const auto& item : target.items) bound_names(*item, names);
}

}  // namespace

Constant constant_as(Constant c, const Type& t) {
  if (t.is_tuple() && t.items.size() == c.items.size())
    for (size_t k = 0; k < c.items.size(); ++k) c.items[k] = constant_as(c.items[k], t.items[k]);
  c.type = t;
  return c;
}

bool is_compile_time_value(const Constant& c) {
  if (c.type.is_scalar()) return c.type.is_int_like();
  if (!c.type.is_tuple() || c.items.empty()) return false;
  for (const auto& item : c.items)
    if (!is_compile_time_value(item)) return false;
  return true;
}

bool same_constant(const Constant& a, const Constant& b) {
  if (a.type != b.type || a.int_value != b.int_value || a.items.size() != b.items.size())
    return false;
  for (size_t k = 0; k < a.items.size(); ++k)
    if (!same_constant(a.items[k], b.items[k])) return false;
  return true;
}

bool same_constants(const std::vector<std::optional<Constant>>& a,
                    const std::vector<std::optional<Constant>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].has_value() != b[k].has_value()) return false;
    if (a[k] && !same_constant(*a[k], *b[k])) return false;
  }
  return true;
}

void Inferencer::count_bindings(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    std::vector<std::string> names;
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::AugAssign:
      case StmtKind::AnnAssign:
      case StmtKind::For:
        for (const auto& target : s->targets) bound_names(*target, names);
        break;
      default:
        break;
    }
    for (const auto& n : names)
      if (auto at = local_index_.find(n); at != local_index_.end()) ++bindings_[at->second];
    count_bindings(s->body);
    count_bindings(s->orelse);
  }
}

void Inferencer::declare_constant_params() {
  if (!param_constants_) return;
  const auto& params = fn_.def.params;
  for (size_t p = 0; p < params.size() && p < param_constants_->size(); ++p) {
    const auto& c = (*param_constants_)[p];
    int index = local_index_.at(params[p].name);
    if (c && bindings_[index] == 0) local_constants_[index] = constant_as(*c, param_types_[p]);
  }
}

void Inferencer::note_constant(const Expr& target, const ExprInfo& value) {
  if (target.kind != ExprKind::Name) return;
  int index = local_index_.at(target.name);
  if (out_.locals[index].is_param || bindings_[index] != 1 || out_.locals[index].annotated) return;
  // Its one binding runs before every read that sees a value, so each read
  // sees this value (a later pass sees it also where a loop reads it first).
  if (value.constant && is_compile_time_value(*value.constant))
    local_constants_[index] = value.constant;
  else
    local_constants_[index].reset();
}

void Inferencer::want_constant(const Expr& e, const std::string& what, bool required) {
  switch (e.kind) {
    case ExprKind::Name: {
      auto at = local_index_.find(e.name);
      if (at == local_index_.end() || bindings_[at->second] != 0) return;
      const auto& params = fn_.def.params;
      for (size_t p = 0; p < params.size(); ++p) {
        if (params[p].name != e.name) continue;
        for (auto& w : wanted_)
          if (w.param == p) {
            if (required && !w.required) w = {p, e.span, what, required};
            return;
          }
        wanted_.push_back({p, e.span, what, required});
      }
      return;
    }
    case ExprKind::Tuple:
      for (const auto& item : e.items) want_constant(*item, what, required);
      return;
    case ExprKind::Subscript:
      want_constant(*e.items[0], what, required);
      return;
    default:
      return;
  }
}

std::string Inferencer::constant_hint(const Expr& e) const {
  // Name the parameter behind it, if one is: the kernel's are launch values,
  // a device function's come from its caller (which says why it has no value).
  const Expr* base = &e;
  while (base->kind == ExprKind::Subscript) base = base->items[0].get();
  if (base->kind == ExprKind::Name)
    for (const auto& param : fn_.def.params)
      if (param.name == base->name) {
        auto at = local_index_.find(base->name);
        if (bindings_[at->second] != 0)
          return "; parameter '" + param.name + "' is assigned in '" + fn_.def.name +
                 "', so its value is not a constant";
        return self_ ? "; parameter '" + param.name + "' of '" + fn_.def.name +
                           "' is one only where its argument is a constant"
                     : "; '" + param.name + "' is an argument of the kernel, known only at launch";
      }
  return "";
}

}  // namespace simt::sema::detail
