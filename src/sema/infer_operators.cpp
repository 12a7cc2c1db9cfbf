// Unary, binary, comparison and boolean operators, with NumPy 2's result
// types, and the folding of operations on Python int literals.
#include <cstdint>
#include <utility>

#include "sema/inferencer.h"

namespace simt::sema::detail {

namespace {

bool is_arith(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::FloorDiv:
    case Op::Mod:
    case Op::Pow:
      return true;
    default:
      return false;
  }
}

bool is_bitwise(Op op) { return op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor; }

bool is_shift(Op op) { return op == Op::LShift || op == Op::RShift; }

// Folds an operation on two Python int literals; Python ints do not
// overflow, ours wrap at 64 bits like the int64 they become.
std::optional<int64_t> fold_int(Op op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case Op::Add:
      return static_cast<int64_t>(ua + ub);
    case Op::Sub:
      return static_cast<int64_t>(ua - ub);
    case Op::Mul:
      return static_cast<int64_t>(ua * ub);
    case Op::FloorDiv:
    case Op::Mod: {
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return op == Op::FloorDiv ? q : r;
    }
    case Op::BitAnd:
      return a & b;
    case Op::BitOr:
      return a | b;
    case Op::BitXor:
      return a ^ b;
    case Op::LShift:
      return b >= 0 && b < 64 ? static_cast<int64_t>(ua << b) : std::optional<int64_t>();
    case Op::RShift:
      return b >= 0 && b < 64 ? a >> b : std::optional<int64_t>();
    default:
      return std::nullopt;
  }
}

// Whether a Python int literal (stored as int64, or as the bits of a uint64
// when `literal` is UInt64) is a value of `target`.
bool fits(int64_t value, Scalar literal, Scalar target) {
  if (literal == Scalar::UInt64 && value < 0) return target == Scalar::UInt64;
  int bits = bit_width(target);
  if (is_unsigned(target)) return value >= 0 && (bits == 64 || value < (int64_t{1} << bits));
  if (bits == 64) return true;
  int64_t bound = int64_t{1} << (bits - 1);
  return value >= -bound && value < bound;
}

std::string literal_text(const ExprInfo& literal) {
  if (literal.type.scalar == Scalar::UInt64 && literal.constant->int_value < 0)
    return std::to_string(static_cast<uint64_t>(literal.constant->int_value));
  return std::to_string(literal.constant->int_value);
}

}  // namespace

ExprInfo Inferencer::unary(const Expr& e) {
  expr(*e.items[0]);
  return unary_op(e.op, *e.items[0], e.span);
}

ExprInfo Inferencer::unary_op(Op op, const Expr& operand, Span span) {
  const ExprInfo& ai = info(operand);
  Type a = ai.type;
  if (a.is_unknown()) return typed(a);
  if (op == Op::Not) {
    truth(operand, "not");
    ExprInfo i = typed(Type::scalar_of(Scalar::Bool));
    i.operand = a;
    return i;
  }
  if (!a.is_scalar())
    return typed(error(
        span, std::string("bad operand type for unary ") + lang::op_text(op) + ": " + quoted(a)));
  Type t = a;
  if (op == Op::Invert) {
    if (is_float(a.scalar) || is_complex(a.scalar))
      return typed(error(span, "bad operand type for unary ~: " + quoted(a)));
  } else {
    t = arith_view(a);
  }
  ExprInfo i = typed(t, op == Op::Add && ai.nonnegative);
  i.operand = t;
  if (op == Op::Add) i.value_range = ai.value_range;
  if (op == Op::Sub) i.value_range = arith_range(Op::Sub, ValueRange{}, ai.value_range, t);
  if (ai.constant && t.is_scalar() && t.is_int_like() && op != Op::Invert) {
    int64_t v = ai.constant->int_value;
    i.constant =
        int_constant(op == Op::Sub ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v, t);
  } else if (ai.constant && t.is_scalar() && (is_float(t.scalar) || is_complex(t.scalar))) {
    Constant c = *ai.constant;
    c.type = t;
    if (op == Op::Sub) {
      c.real = -c.real;
      c.imag = -c.imag;
    }
    i.constant = c;
  }
  return i;
}

ExprInfo Inferencer::binary(Op op, const Type& a, const Type& b, const ExprInfo& ai,
                            const ExprInfo& bi, Span span) {
  if (a.is_unknown() || b.is_unknown()) return typed(Type::unknown());
  std::string types = quoted(a) + " and " + quoted(b);
  if (op == Op::MatMul) return typed(error(span, "the @ operator is not supported in kernels"));
  if (!a.is_scalar() || !b.is_scalar()) {
    std::string hint = a.is_array() || b.is_array()
                           ? " (whole-array arithmetic is not supported inside kernels; "
                             "index the array)"
                           : "";
    return typed(error(span, std::string("unsupported operand types for ") + lang::op_text(op) +
                                 ": " + types + hint));
  }
  ExprInfo i;
  for (const auto& [literal, other] : {std::pair{&ai, &b}, std::pair{&bi, &a}}) {
    if (literal->constant && literal->type.weak && is_integer(literal->type.scalar) &&
        !other->weak && is_integer(other->scalar) &&
        !fits(literal->constant->int_value, literal->type.scalar, other->scalar))
      return typed(error(span, "the literal " + literal_text(*literal) + " does not fit in " +
                                   other->str() +
                                   " (NumPy raises OverflowError); convert one "
                                   "operand, e.g. with np.int64(...)"));
  }
  if (is_arith(op)) {
    Type t = promote(arith_view(a), arith_view(b));
    if ((op == Op::FloorDiv || op == Op::Mod) && is_complex(t.scalar))
      return typed(error(span, std::string("unsupported operand types for ") + lang::op_text(op) +
                                   ": " + types + " (complex numbers)"));
    i.operand = t;
    i.type = t;
    if (op == Op::Div && !is_float(t.scalar) && !is_complex(t.scalar)) {
      i.operand = Type::scalar_of(Scalar::Float64, t.weak);
      i.type = i.operand;
    }
    bool nn = ai.nonnegative && bi.nonnegative;
    i.nonnegative =
        (op == Op::Add || op == Op::Mul || op == Op::FloorDiv || op == Op::Mod || op == Op::Div) &&
        nn;
    i.value_range = arith_range(op, ai.value_range, bi.value_range, i.operand);
  } else if (is_bitwise(op) || is_shift(op)) {
    if (is_bitwise(op) && is_bool(a.scalar) && is_bool(b.scalar)) {
      i.operand = i.type = a;
      i.nonnegative = true;
    } else {
      if (!a.is_int_like() || !b.is_int_like())
        return typed(error(span, std::string("unsupported operand types for ") + lang::op_text(op) +
                                     ": " + types + " (bitwise operations need integers)"));
      Type t = promote(arith_view(a), arith_view(b));
      i.operand = i.type = t;
      if (op == Op::BitAnd)
        i.nonnegative = ai.nonnegative || bi.nonnegative;
      else if (op == Op::RShift)
        i.nonnegative = ai.nonnegative;
      else if (op == Op::BitOr || op == Op::BitXor)
        i.nonnegative = ai.nonnegative && bi.nonnegative;
    }
  } else {
    return typed(error(span, std::string("unsupported operator ") + lang::op_text(op)));
  }
  if (ai.constant && bi.constant && i.type.weak && is_integer(i.type.scalar) && a.is_int_like() &&
      b.is_int_like()) {
    if (auto v = fold_int(op, ai.constant->int_value, bi.constant->int_value))
      i.constant = int_constant(*v, i.type);
  }
  return i;
}

ExprInfo Inferencer::compare(const Expr& e) {
  std::vector<Type> types;
  for (const auto& item : e.items) types.push_back(expr(*item));
  ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
  for (size_t k = 0; k < e.ops.size(); ++k) {
    const Type& a = types[k];
    const Type& b = types[k + 1];
    Op op = e.ops[k];
    if (a.is_unknown() || b.is_unknown()) return typed(Type::unknown());
    if (op == Op::Is || op == Op::IsNot) {
      bool a_none = a.kind == TypeKind::None, b_none = b.kind == TypeKind::None;
      if (!a_none && !b_none)
        return typed(error(e.span, "'is' compares with None only; use == to compare values"));
      if (e.ops.size() == 1) {
        bool same = a_none && b_none;
        i.constant = int_constant((op == Op::Is) == same ? 1 : 0, i.type);
      }
      i.pair_operands.push_back(Type::none());
      continue;
    }
    if (op == Op::In || op == Op::NotIn)
      return typed(error(e.span, "'in' is not supported in kernels"));
    auto t = compare_operand(op, a, b, e.span);
    if (!t) return typed(Type::unknown());
    i.pair_operands.push_back(*t);
  }
  return i;
}

std::optional<Type> Inferencer::compare_operand(Op op, const Type& a, const Type& b, Span span) {
  if (!a.is_scalar() || !b.is_scalar()) {
    error(span, std::string("cannot compare ") + quoted(a) + " and " + quoted(b) + " with " +
                    lang::op_text(op));
    return std::nullopt;
  }
  Type t = promote(exact_int(a), exact_int(b));
  if (is_complex(t.scalar) && op != Op::Eq && op != Op::NotEq) {
    error(span, std::string("complex numbers have no order: ") + lang::op_text(op) + " on " +
                    quoted(a) + " and " + quoted(b));
    return std::nullopt;
  }
  return t;
}

Type Inferencer::exact_int(const Type& t) {
  if (t.is_scalar() && t.weak && is_integer(t.scalar)) return Type::scalar_of(t.scalar);
  return t;
}

ExprInfo Inferencer::bool_op(const Expr& e) {
  Type t;
  bool all_bool = true, all_nonneg = true;
  for (const auto& item : e.items) {
    Type it = expr(*item);
    truth(*item, e.op == Op::And ? "and" : "or");
    if (it.is_unknown()) return typed(it);
    all_nonneg = all_nonneg && info(*item).nonnegative;
    if (!(it.is_scalar() && is_bool(it.scalar))) all_bool = false;
    t = t.is_unknown() ? it : promote(t, it);
  }
  ExprInfo i = typed(all_bool ? Type::scalar_of(Scalar::Bool) : t, all_nonneg);
  i.operand = i.type;
  return i;
}

void Inferencer::truth(const Expr& e, const char* context) {
  Type t = expr(e);
  if (t.is_unknown() || t.is_scalar()) return;
  if (t.is_array())
    error(e.span, std::string("the truth value of an array is ambiguous (in ") + context + ")");
  else
    error(e.span,
          std::string("a condition (in ") + context + ") must be a number or bool, not " + t.str());
}

}  // namespace simt::sema::detail
