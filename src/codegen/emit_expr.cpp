// Expressions: every operand is converted to the operation's type first,
// so C's own promotions never decide a result.
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

std::vector<std::string> Emitter::values(const Expr& e) {
  const ExprInfo& i = info(e);
  if (i.type.kind == TypeKind::GridGroup) return {};  // no storage
  if (!i.type.is_tuple()) return {expr(e)};
  if (auto h = hoisted_.find(&e); h != hoisted_.end()) return h->second;
  if (i.constant) {
    std::vector<std::string> out;
    constant_parts(*i.constant, out);
    return out;
  }
  switch (e.kind) {
    case ExprKind::Name: {
      std::vector<std::string> names;
      std::vector<Type> types;
      flatten(fn_.locals[i.local].type, local_name(i.local), names, types);
      // The local may be wider than this use's type only for scalars.
      return names;
    }
    case ExprKind::Tuple: {
      std::vector<std::string> out;
      for (const auto& item : e.items) {
        auto parts = values(*item);
        out.insert(out.end(), parts.begin(), parts.end());
      }
      return out;
    }
    case ExprKind::Call: {
      if (i.makes_tuple) {
        // A named tuple made in the kernel: its fields' values (or defaults), in order.
        std::vector<std::string> out;
        for (const sema::CallArgument& a : i.arguments) {
          std::vector<std::string> parts;
          if (a.expr)
            parts = values(*a.expr);
          else
            constant_parts(a.default_value, parts);
          out.insert(out.end(), parts.begin(), parts.end());
        }
        return out;
      }
      if (i.intrinsic &&
          (i.intrinsic->rule == sema::Rule::Enumerate || i.intrinsic->rule == sema::Rule::Zip))
        return tuple_iteration_parts(e);
      std::vector<std::string> out;
      int n = static_cast<int>(i.type.items.size());
      for (int c = 0; c < n; ++c) out.push_back(grid_component(i.intrinsic->rule, c));
      return out;
    }
    case ExprKind::Attribute: {
      const Type& bt = info(*e.items[0]).type;
      if (bt.is_tuple()) {
        // A named tuple's field that is itself a tuple.
        auto parts = values(*e.items[0]);
        size_t k = field_index(bt, e.name);
        size_t offset = item_offset(bt, static_cast<int64_t>(k));
        return {parts.begin() + offset, parts.begin() + offset + count_parts(bt.items[k])};
      }
      std::string base = expr(*e.items[0]);
      std::vector<std::string> out;
      for (int dim = 0; dim < bt.ndim; ++dim) {
        if (e.name == "shape")
          out.push_back(base + ".shape[" + std::to_string(dim) + "]");
        else
          out.push_back("(" + base + ".strides[" + std::to_string(dim) + "] * " +
                        std::to_string(bt.element_bytes()) + ")");
      }
      return out;
    }
    case ExprKind::Subscript: {
      // A tuple item that is itself a tuple.
      auto parts = values(*e.items[0]);
      const Type& bt = info(*e.items[0]).type;
      int64_t k = info(*e.items[1]).constant->int_value;
      if (k < 0) k += static_cast<int64_t>(bt.items.size());
      size_t offset = item_offset(bt, k);
      return {parts.begin() + offset, parts.begin() + offset + count_parts(bt.items[k])};
    }
    case ExprKind::IfExp: {
      std::string test = truth(*e.items[1]);
      auto a = values(*e.items[0]);
      auto b = values(*e.items[2]);
      std::vector<std::string> out;
      std::vector<std::string> names;
      std::vector<Type> types, ta, tb;
      flatten(i.type, "", names, types);
      flatten(info(*e.items[0]).type, "", names, ta);
      flatten(info(*e.items[2]).type, "", names, tb);
      for (size_t k = 0; k < a.size(); ++k)
        out.push_back("(" + test + " ? " + convert(a[k], ta[k], types[k]) + " : " +
                      convert(b[k], tb[k], types[k]) + ")");
      return out;
    }
    default:
      throw std::logic_error("unexpected tuple expression");
  }
}

size_t Emitter::item_offset(const Type& tuple, int64_t k) {
  size_t offset = 0;
  for (int64_t j = 0; j < k; ++j) offset += count_parts(tuple.items[j]);
  return offset;
}

size_t Emitter::count_parts(const Type& t) {
  std::vector<std::string> n;
  std::vector<Type> ty;
  flatten(t, "", n, ty);
  return n.size();
}

void Emitter::constant_parts(const Constant& c, std::vector<std::string>& out) {
  if (c.type.is_tuple()) {
    for (const auto& item : c.items) constant_parts(item, out);
    return;
  }
  out.push_back(literal(c, c.type.strong()));
}

std::string Emitter::emit_as(const Expr& e, const Type& to) {
  const ExprInfo& i = info(e);
  if (i.constant && to.is_scalar() && i.constant->type.is_scalar()) return literal(*i.constant, to);
  return convert(expr(e), i.type, to);
}

std::string Emitter::expr(const Expr& e) {
  const ExprInfo& i = info(e);
  if (i.constant && i.type.is_scalar()) return literal(*i.constant, i.type.strong());
  if (auto h = hoisted_.find(&e); h != hoisted_.end() && !h->second.empty()) return h->second[0];
  switch (e.kind) {
    case ExprKind::Name:
      return name(e);
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary:
      return binary_code(e.op, i.operand, expr_operand(*e.items[0], i.operand), info(*e.items[0]),
                         *e.items[1]);
    case ExprKind::Compare:
      return compare(e);
    case ExprKind::BoolOp:
      return bool_op(e);
    case ExprKind::IfExp:
      return "(" + truth(*e.items[1]) + " ? " + emit_as(*e.items[0], i.type) + " : " +
             emit_as(*e.items[2], i.type) + ")";
    case ExprKind::Call:
      return call(e);
    case ExprKind::Attribute:
      return attribute(e);
    case ExprKind::Subscript:
      return subscript(e);
    default:
      throw std::logic_error("cannot emit this expression");
  }
}

std::string Emitter::expr_operand(const Expr& e, const Type& operand) {
  return emit_as(e, operand);
}

std::string Emitter::name(const Expr& e) {
  const ExprInfo& i = info(e);
  if (i.const_array) return constant_array(i);
  if (i.local >= 0) {
    // A weak-typed use of a local reads the variable in its own C type.
    return local_name(i.local);
  }
  throw std::logic_error("global '" + e.name + "' has no value to emit");
}

std::string Emitter::wrap_arith(const std::string& op, Scalar s, const std::string& a,
                                const std::string& b) {
  if (sema::is_unsigned(s) && sema::bit_width(s) >= 32) return "(" + a + " " + op + " " + b + ")";
  std::string u(d_.value_type(sema::bit_width(s) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
  return "((" + std::string(d_.value_type(s)) + ")((" + u + ")" + a + " " + op + " (" + u + ")" +
         b + "))";
}

std::string Emitter::round_half_if(Scalar s, const std::string& code) {
  if (s == Scalar::Float16) return helpers_.use(Helper::RoundHalf, s) + "(" + code + ")";
  return code;
}

std::optional<std::string> Emitter::native_half(Helper helper, const std::string& args) {
  static constexpr std::pair<Helper, HalfOp> kOps[] = {
      {Helper::HalfAdd, HalfOp::Add},    {Helper::HalfSub, HalfOp::Sub},
      {Helper::HalfMul, HalfOp::Mul},    {Helper::HalfNeg, HalfOp::Neg},
      {Helper::HalfAbs, HalfOp::Abs},    {Helper::HalfLt, HalfOp::Compare},
      {Helper::HalfLe, HalfOp::Compare}, {Helper::HalfGt, HalfOp::Compare},
      {Helper::HalfGe, HalfOp::Compare}, {Helper::HalfEq, HalfOp::Compare},
      {Helper::HalfNe, HalfOp::Compare}};
  for (const auto& [h, op] : kOps)
    if (h == helper)
      return helpers_.has_native_half(op)
                 ? std::optional(helpers_.use(helper, Scalar::Float16) + "(" + args + ")")
                 : std::nullopt;
  throw std::logic_error("not a float16 operator helper");
}

std::optional<std::string> Emitter::native_half_compare(std::string_view c_op, const std::string& a,
                                                        const std::string& b) {
  static constexpr std::pair<std::string_view, Helper> kCompares[] = {
      {"<", Helper::HalfLt},  {"<=", Helper::HalfLe}, {">", Helper::HalfGt},
      {">=", Helper::HalfGe}, {"==", Helper::HalfEq}, {"!=", Helper::HalfNe}};
  for (const auto& [text, helper] : kCompares)
    if (text == c_op) return native_half(helper, a + ", " + b);
  return std::nullopt;
}

std::string Emitter::float_power(Scalar s, const std::string& a, const std::string& b,
                                 const ExprInfo& exponent) {
  if (exponent.constant && exponent.constant->type.is_scalar() &&
      !sema::is_complex(exponent.constant->type.scalar)) {
    const Constant& c = *exponent.constant;
    double e = sema::is_float(c.type.scalar) ? c.real : static_cast<double>(c.int_value);
    std::string one = float_literal(1.0, s == Scalar::Float16 ? Scalar::Float32 : s);
    if (e == 2.0) return "(" + a + " * " + a + ")";
    if (e == 1.0) return a;
    if (e == 0.0) return one;
    if (e == -1.0) return "(" + one + " / " + a + ")";
    if (e == 0.5)
      return d_.math_name("sqrt", s == Scalar::Float16 ? Scalar::Float32 : s) + "(" + a + ")";
  }
  return d_.math_name("pow", s == Scalar::Float16 ? Scalar::Float32 : s) + "(" + a + ", " + b + ")";
}

std::string Emitter::binary_code(Op op, const Type& operand, const std::string& a,
                                 const ExprInfo& ai, const Expr& rhs) {
  Scalar s = sema::concrete(operand);
  Type ot = Type::scalar_of(s);
  std::string b = emit_as(rhs, ot);
  const ExprInfo& bi = info(rhs);
  std::string t(d_.value_type(s));
  auto op_text = [&](const char* text) { return "(" + a + " " + text + " " + b + ")"; };
  if (sema::is_complex(s)) {
    switch (op) {
      case Op::Add:
        return helpers_.use(Helper::ComplexAdd, s) + "(" + a + ", " + b + ")";
      case Op::Sub:
        return helpers_.use(Helper::ComplexSub, s) + "(" + a + ", " + b + ")";
      case Op::Mul:
        return helpers_.use(Helper::ComplexMul, s) + "(" + a + ", " + b + ")";
      case Op::Div:
        return helpers_.use(Helper::ComplexDiv, s) + "(" + a + ", " + b + ")";
      case Op::Pow:
        return helpers_.use(Helper::ComplexPow, s) + "(" + a + ", " + b + ")";
      default:
        throw std::logic_error("complex operator");
    }
  }
  if (sema::is_float(s)) {
    if (s == Scalar::Float16 && (op == Op::Add || op == Op::Sub || op == Op::Mul)) {
      Helper h = op == Op::Add   ? Helper::HalfAdd
                 : op == Op::Sub ? Helper::HalfSub
                                 : Helper::HalfMul;
      if (std::optional<std::string> native = native_half(h, a + ", " + b)) return *native;
    }
    switch (op) {
      case Op::Add:
        return round_half_if(s, op_text("+"));
      case Op::Sub:
        return round_half_if(s, op_text("-"));
      case Op::Mul:
        return round_half_if(s, op_text("*"));
      case Op::Div:
        return round_half_if(s, op_text("/"));
      case Op::FloorDiv:
        return round_half_if(s, helpers_.use(Helper::FloorDiv, s) + "(" + a + ", " + b + ")");
      case Op::Mod:
        return round_half_if(s, helpers_.use(Helper::Mod, s) + "(" + a + ", " + b + ")");
      case Op::Pow:
        return round_half_if(s, float_power(s, a, b, bi));
      default:
        throw std::logic_error("float operator");
    }
  }
  bool positive_divisor = bi.constant && bi.constant->int_value > 0;
  bool narrow = sema::bit_width(s) < 32;
  auto cast_narrow = [&](const std::string& code) {
    return narrow ? "((" + t + ")" + code + ")" : code;
  };
  // Narrow types compute in int and convert back (wrap_arith): their operators stay.
  const bool plain = sema::is_signed(s) && sema::bit_width(s) >= 32 &&
                     sema::arith_range(op, ai.value_range, bi.value_range, ot).has_value();
  switch (op) {
    case Op::Add:
      return plain ? op_text("+") : wrap_arith("+", s, a, b);
    case Op::Sub:
      return plain ? op_text("-") : wrap_arith("-", s, a, b);
    case Op::Mul:
      return plain ? op_text("*") : wrap_arith("*", s, a, b);
    case Op::FloorDiv:
      if (ai.nonnegative && positive_divisor) return cast_narrow(op_text("/"));
      return helpers_.use(Helper::FloorDiv, s) + "(" + a + ", " + b + ")";
    case Op::Mod:
      if (ai.nonnegative && positive_divisor) return cast_narrow(op_text("%"));
      return helpers_.use(Helper::Mod, s) + "(" + a + ", " + b + ")";
    case Op::Pow:
      return helpers_.use(Helper::IntPow, s) + "(" + a + ", " + b + ")";
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor: {
      const char* text = op == Op::BitAnd ? "&" : op == Op::BitOr ? "|" : "^";
      if (sema::is_bool(s)) return "((bool)" + op_text(text) + ")";
      return cast_narrow(op_text(text));
    }
    case Op::LShift:
    case Op::RShift: {
      bool in_range =
          bi.constant && bi.constant->int_value >= 0 && bi.constant->int_value < sema::bit_width(s);
      if (!in_range)
        return helpers_.use(op == Op::LShift ? Helper::ShiftLeft : Helper::ShiftRight, s) + "(" +
               a + ", " + b + ")";
      if (op == Op::RShift) return cast_narrow(op_text(">>"));
      return wrap_arith("<<", s, a, b);
    }
    default:
      throw std::logic_error("integer operator");
  }
}

std::string Emitter::unary(const Expr& e) { return unary_code(e.op, info(e).operand, *e.items[0]); }

std::string Emitter::unary_code(Op op, const Type& operand_type, const Expr& operand) {
  if (op == Op::Not) return "(!" + truth(operand) + ")";
  Scalar s = sema::concrete(operand_type);
  std::string a = emit_as(operand, Type::scalar_of(s));
  switch (op) {
    case Op::Add:
      return a;
    case Op::Sub:
      if (sema::is_complex(s)) return helpers_.use(Helper::ComplexNeg, s) + "(" + a + ")";
      if (s == Scalar::Float16)
        if (std::optional<std::string> native = native_half(Helper::HalfNeg, a)) return *native;
      if (sema::is_float(s)) return "(-" + a + ")";
      if (sema::is_signed(s) && sema::bit_width(s) >= 32 &&
          sema::arith_range(Op::Sub, sema::ValueRange{}, info(operand).value_range,
                            Type::scalar_of(s)))
        return "(-" + a + ")";  // cannot wrap (binary_code)
      return wrap_arith("-", s, "0", a);
    case Op::Invert:
      if (sema::is_bool(s)) return "(!" + a + ")";
      if (sema::bit_width(s) < 32) return "((" + std::string(d_.value_type(s)) + ")(~" + a + "))";
      return "(~" + a + ")";
    default:
      throw std::logic_error("unary operator");
  }
}

std::string Emitter::compare(const Expr& e) {
  std::string out;
  for (size_t k = 0; k < e.ops.size(); ++k) out += (k ? " && " : "") + compare_pair(e, k);
  return e.ops.size() > 1 ? "(" + out + ")" : out;
}

std::string Emitter::compare_pair(const Expr& e, size_t k) {
  const Type& t = info(e).pair_operands[k];
  Op op = e.ops[k];
  if (op == Op::Is || op == Op::IsNot) {
    bool a_none = info(*e.items[k]).type.kind == TypeKind::None;
    bool b_none = info(*e.items[k + 1]).type.kind == TypeKind::None;
    return ((op == Op::Is) == (a_none && b_none)) ? "true" : "false";
  }
  return compare_code(op, t, *e.items[k], *e.items[k + 1]);
}

std::string Emitter::compare_code(Op op, const Type& t, const Expr& left, const Expr& right) {
  Scalar s = sema::concrete(t);
  std::string a = emit_as(left, Type::scalar_of(s));
  std::string b = emit_as(right, Type::scalar_of(s));
  if (sema::is_complex(s)) {
    std::string part = helpers_.use(Helper::ComplexEq, s) + "(" + a + ", " + b + ")";
    return op == Op::NotEq ? "(!" + part + ")" : part;
  }
  if (s == Scalar::Float16)
    if (std::optional<std::string> native = native_half_compare(lang::op_text(op), a, b))
      return *native;
  return "(" + a + " " + lang::op_text(op) + " " + b + ")";
}

std::string Emitter::bool_op(const Expr& e) {
  const ExprInfo& i = info(e);
  Scalar s = sema::concrete(i.type);
  if (sema::is_bool(s)) {
    std::string out;
    for (size_t k = 0; k < e.items.size(); ++k)
      out += (k ? (e.op == Op::And ? " && " : " || ") : "") + truth(*e.items[k]);
    return "(" + out + ")";
  }
  // Python's value semantics: `a and b` is a if a is false, else b.
  std::string result = emit_as(*e.items.back(), i.type);
  for (size_t k = e.items.size() - 1; k-- > 0;) {
    std::string value = emit_as(*e.items[k], i.type);
    std::string test = truth(*e.items[k]);
    result = e.op == Op::And ? "(" + test + " ? " + result + " : " + value + ")"
                             : "(" + test + " ? " + value + " : " + result + ")";
  }
  return result;
}

}  // namespace simt::codegen::detail
