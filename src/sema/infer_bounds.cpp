// Guard facts: inside `if 0 < i < n - 1:` a body that never assigns i knows
// i >= 1, so `i - 1` indexes without the negative-index wraparound (a select
// per access that also keeps the C compiler from vectorizing the stencils
// users write). Inside `if y < rows:` with y non-negative (cuda.grid()), rows >= 1,
// so `min(max(y + d, 0), rows - 1)`, the clamp of a stencil's window, is known
// non-negative too (its 25 loads in a 5x5 blur each lost two selects).
#include <algorithm>

#include "sema/inferencer.h"

namespace simt::sema::detail {

namespace {

bool assigns_name(const lang::Expr& target, const std::string& name) {
  if (target.kind == lang::ExprKind::Name) return target.name == name;
  if (target.kind == lang::ExprKind::Tuple)
    return std::any_of(target.items.begin(), target.items.end(),
                       [&](const auto& item) { return assigns_name(*item, name); });
  return false;  // an element or attribute store leaves the name's value alone
}

bool assigns(const std::vector<lang::StmtPtr>& body, const std::string& name) {
  for (const auto& s : body) {
    for (const auto& target : s->targets)
      if (assigns_name(*target, name)) return true;
    if (assigns(s->body, name) || assigns(s->orelse, name)) return true;
  }
  return false;
}

}  // namespace

void Inferencer::add_lower_bounds(const Expr& test, const std::vector<lang::StmtPtr>& body) {
  if (test.kind == lang::ExprKind::BoolOp && test.op == Op::And) {
    for (const auto& item : test.items) add_lower_bounds(*item, body);
    return;
  }
  if (test.kind != lang::ExprKind::Compare) return;
  auto int_constant = [&](const Expr& e) -> std::optional<int64_t> {
    auto found = out_.exprs.find(&e);
    if (found == out_.exprs.end() || !found->second.constant || !found->second.type.is_int_like() ||
        is_unsigned(found->second.type.scalar))
      return std::nullopt;
    return found->second.constant->int_value;
  };
  // A constant, or 0 for an integer known to be non-negative: `y < rows` with y from
  // cuda.grid() says rows >= 1, so `rows - 1` (a clamp's upper end) is no negative index.
  auto bound_of = [&](const Expr& e) -> std::optional<int64_t> {
    if (auto c = int_constant(e)) return c;
    auto found = out_.exprs.find(&e);
    if (found != out_.exprs.end() && found->second.nonnegative && found->second.type.is_int_like())
      return 0;
    return std::nullopt;
  };
  for (size_t k = 0; k < test.ops.size(); ++k) {
    const Expr& left = *test.items[k];
    const Expr& right = *test.items[k + 1];
    Op op = test.ops[k];
    // `c < x`, `c <= x`, `x > c`, `x >= c`: x is at least c (+ 1 when strict).
    const Expr* name = nullptr;
    std::optional<int64_t> c;
    bool strict = false;
    if ((op == Op::Lt || op == Op::LtE) && right.kind == lang::ExprKind::Name) {
      name = &right, c = bound_of(left), strict = op == Op::Lt;
    } else if ((op == Op::Gt || op == Op::GtE) && left.kind == lang::ExprKind::Name) {
      name = &left, c = bound_of(right), strict = op == Op::Gt;
    }
    if (!name || !c || (strict && *c == INT64_MAX)) continue;
    auto local = local_index_.find(name->name);
    if (local == local_index_.end() || assigns(body, name->name)) continue;
    const Type& t = out_.locals[local->second].type;
    if (!t.is_int_like()) continue;  // a float x > 0.5 says nothing of int(x) - 1
    lower_bounds_.emplace_back(local->second, *c + (strict ? 1 : 0));
  }
}

std::optional<int64_t> Inferencer::lower_bound(const Expr& e) const {
  if (e.kind != lang::ExprKind::Name) return std::nullopt;
  auto local = local_index_.find(e.name);
  if (local == local_index_.end()) return std::nullopt;
  std::optional<int64_t> least;
  for (const auto& [index, value] : lower_bounds_)
    if (index == local->second) least = std::max(least.value_or(value), value);
  return least;
}

bool Inferencer::nonnegative_offset(const Expr& e) const {
  if (e.kind != lang::ExprKind::Binary || (e.op != Op::Sub && e.op != Op::Add)) return false;
  std::optional<int64_t> least = lower_bound(*e.items[0]);
  auto offset = out_.exprs.find(e.items[1].get());
  if (!least || offset == out_.exprs.end() || !offset->second.constant ||
      !offset->second.type.is_int_like())
    return false;
  int64_t k = offset->second.constant->int_value;
  if (e.op == Op::Add) {
    if (k == INT64_MIN) return false;
    k = -k;
  }
  // i - k >= 0 when i >= k (k >= 0: a negative k is an addition, non-negative already
  // when i is).
  return k >= 0 && *least >= k;
}

}  // namespace simt::sema::detail
