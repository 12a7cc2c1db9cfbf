// Value ranges of integer expressions: [lo, hi] holding every value. Python's integers in kernels
// are fixed width and wrap as NumPy's do, so the emitter computes `a + b` in unsigned arithmetic;
// where the operands' ranges prove the sum cannot wrap (arith_range), C's signed `a + b` gives the
// same value and tells the C compiler so: `max(y + d, 0)` is then `y + d` for d >= 0, which it
// cannot tell of a wrapping sum (the 5x5 box blur's clamps: 8 selects per pixel).
//
// Where ranges come from: constants; the types of narrow integers; the launch's
// indices (every device's grid and block dimensions are at most 2^31 - 1, checked
// at launch by runtime::validate_launch, so cuda.grid() and gridsize() are below
// 2^62 and thread and block indices below 2^31); array extents (0..INT64_MAX);
// `+ - *` of ranges that stay inside their type; min, max, the conditional
// expression; range() loop variables (between their start and stop); and locals,
// the join of everything bound to them (Inferencer::ranges_).
#include <algorithm>

#include "sema/inferencer.h"

namespace simt::sema {

namespace {

using Wide = __int128;

// The values of an integer type, where they fit int64 (none for int64 itself: its
// range says nothing; uint64's values past INT64_MAX have no range).
std::optional<ValueRange> type_values(const Type& t) {
  if (!t.is_scalar() || !t.is_int_like()) return std::nullopt;
  Scalar s = concrete(t);
  if (is_bool(s)) return ValueRange{0, 1};
  int bits = bit_width(s);
  if (bits >= 64) return std::nullopt;
  if (is_unsigned(s)) return ValueRange{0, (int64_t{1} << bits) - 1};
  return ValueRange{-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
}

// The values a C variable of scalar type `t` holds: [lo, hi] of the type.
std::pair<Wide, Wide> type_limits(const Type& t) {
  if (auto r = type_values(t)) return {r->lo, r->hi};
  if (is_unsigned(concrete(t))) return {0, INT64_MAX};  // ranges stop at INT64_MAX
  return {INT64_MIN, INT64_MAX};
}

bool within(Wide lo, Wide hi, const Type& t) {
  auto [min, max] = type_limits(t);
  return min <= lo && hi <= max;
}

}  // namespace

std::optional<ValueRange> join_ranges(const std::optional<ValueRange>& a,
                                      const std::optional<ValueRange>& b) {
  if (!a || !b) return std::nullopt;
  return ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
}

bool range_within(const std::optional<ValueRange>& r, const Type& t) {
  return r && t.is_scalar() && t.is_int_like() && within(r->lo, r->hi, t);
}

std::optional<ValueRange> arith_range(lang::Op op, const std::optional<ValueRange>& a,
                                      const std::optional<ValueRange>& b, const Type& operand) {
  if (!a || !b || !operand.is_scalar() || !operand.is_int_like() || is_bool(operand.scalar))
    return std::nullopt;
  // The operands are converted to `operand` first: a value outside it (a Python int
  // beside an int32) wraps there, and its range says nothing of what is added.
  if (!range_within(a, operand) || !range_within(b, operand)) return std::nullopt;
  Wide lo, hi;
  switch (op) {
    case lang::Op::Add:
      lo = Wide{a->lo} + b->lo, hi = Wide{a->hi} + b->hi;
      break;
    case lang::Op::Sub:
      lo = Wide{a->lo} - b->hi, hi = Wide{a->hi} - b->lo;
      break;
    case lang::Op::Mul: {
      // |a|, |b| < 2^63: each product fits 127 bits.
      Wide c[] = {Wide{a->lo} * b->lo, Wide{a->lo} * b->hi, Wide{a->hi} * b->lo,
                  Wide{a->hi} * b->hi};
      lo = *std::min_element(std::begin(c), std::end(c));
      hi = *std::max_element(std::begin(c), std::end(c));
      break;
    }
    default:
      return std::nullopt;
  }
  if (!within(lo, hi, operand)) return std::nullopt;
  return ValueRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

namespace detail {

void Inferencer::finish_range(ExprInfo& i) const {
  if (i.type.is_tuple()) return;  // its items' range, set by the rule that typed it
  if (!i.type.is_scalar() || !i.type.is_int_like()) {
    i.value_range.reset();
    return;
  }
  if (i.constant && i.constant->type.is_scalar() && i.constant->type.is_int_like()) {
    int64_t v = i.constant->int_value;
    if (!(is_unsigned(concrete(i.type)) && v < 0)) i.value_range = ValueRange{v, v};
  }
  if (i.value_range && !within(i.value_range->lo, i.value_range->hi, i.type)) i.value_range.reset();
  if (!i.value_range) i.value_range = type_values(i.type);
  if (i.value_range && i.value_range->lo >= 0) i.nonnegative = true;
}

std::optional<ValueRange> Inferencer::range_values(const Expr& call) {
  if (call.kind != ExprKind::Call) return std::nullopt;
  size_t n = call.items.size() - 1;
  // Every value lies between the start and the stop, the stop left out: start <= v <=
  // stop - 1 for a positive step, stop + 1 <= v <= start for a negative one.
  std::optional<ValueRange> start = n == 1 ? ValueRange{} : info(*call.items[1]).value_range;
  const std::optional<ValueRange>& stop = info(*call.items[n == 1 ? 1 : 2]).value_range;
  if (!start || !stop) return std::nullopt;
  // A constant step has one of the two (a range with no value needs none).
  std::optional<int64_t> step = n == 3 ? const_int(*call.items[3]) : 1;
  Wide lo = std::min(Wide{start->lo}, Wide{stop->lo} + 1);
  Wide hi = std::max(Wide{start->hi}, Wide{stop->hi} - 1);
  if (step && *step > 0) lo = start->lo, hi = Wide{stop->hi} - 1;
  if (step && *step < 0) lo = Wide{stop->lo} + 1, hi = start->hi;
  if (lo > hi) return std::nullopt;  // it yields nothing: the variable keeps what it had
  return ValueRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

}  // namespace detail

}  // namespace simt::sema
