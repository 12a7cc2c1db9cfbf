// Expressions: literals, names and globals, and the dispatch to the typing of
// operators, calls, attributes and subscripts.
#include <cstdint>

#include "sema/inferencer.h"

namespace simt::sema::detail {

std::optional<int64_t> Inferencer::const_int(const Expr& e) {
  const ExprInfo& i = info(e);
  if (!i.constant || !i.constant->type.is_scalar() || !i.constant->type.is_int_like())
    return std::nullopt;
  return i.constant->int_value;
}

Type Inferencer::expr(const Expr& e) {
  ExprInfo result = compute(e);
  if (result.type.is_scalar() && (is_unsigned(result.type.scalar) || is_bool(result.type.scalar)))
    result.nonnegative = true;
  finish_range(result);
  Type t = result.type;
  out_.exprs[&e] = std::move(result);
  return t;
}

ExprInfo Inferencer::typed(Type t, bool nonneg) {
  ExprInfo i;
  i.type = std::move(t);
  i.nonnegative = nonneg;
  return i;
}

ExprInfo Inferencer::compute(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return name(e);
    case ExprKind::Int: {
      bool big = e.int_value > static_cast<uint64_t>(INT64_MAX);
      ExprInfo i = typed(Type::scalar_of(big ? Scalar::UInt64 : Scalar::Int64, true), true);
      i.constant = int_constant(static_cast<int64_t>(e.int_value), i.type);
      return i;
    }
    case ExprKind::Float: {
      ExprInfo i = typed(Type::scalar_of(Scalar::Float64, true), e.float_value >= 0);
      Constant c;
      c.type = i.type;
      c.real = e.float_value;
      i.constant = c;
      return i;
    }
    case ExprKind::Imaginary: {
      ExprInfo i = typed(Type::scalar_of(Scalar::Complex128, true));
      Constant c;
      c.type = i.type;
      c.imag = e.float_value;
      i.constant = c;
      return i;
    }
    case ExprKind::Bool: {
      ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
      i.constant = int_constant(e.bool_value ? 1 : 0, i.type);
      return i;
    }
    case ExprKind::None:
      return typed(Type::none());
    case ExprKind::String:
      return typed(Type::string());
    case ExprKind::Tuple: {
      std::vector<Type> items;
      bool all_nonneg = true, all_const = true;
      Constant c;
      std::optional<ValueRange> range;
      for (const auto& item : e.items) {
        items.push_back(expr(*item));
        const ExprInfo& ii = info(*item);
        all_nonneg = all_nonneg && ii.nonnegative;
        range = item == e.items.front() ? ii.value_range : join_ranges(range, ii.value_range);
        if (ii.constant)
          c.items.push_back(*ii.constant);
        else
          all_const = false;
      }
      Type tuple = Type::tuple(std::move(items));
      // `x = (x, x)` doubles on every pass of the fixpoint: stop it growing.
      if (tuple.leaf_count() > kMaxTupleLeaves || tuple.tuple_depth() > abi::kMaxTupleDepth)
        return typed(error(e.span, "a tuple of more than " + std::to_string(kMaxTupleLeaves) +
                                       " values, or nested more than " +
                                       std::to_string(abi::kMaxTupleDepth) +
                                       " levels deep (is a variable assigned a tuple holding "
                                       "itself?)"));
      ExprInfo i = typed(std::move(tuple), all_nonneg);
      i.value_range = range;
      if (all_const) {
        c.type = i.type;
        i.constant = std::move(c);
      }
      return i;
    }
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary: {
      Type a = expr(*e.items[0]);
      Type b = expr(*e.items[1]);
      ExprInfo i = binary(e.op, a, b, info(*e.items[0]), info(*e.items[1]), e.span);
      if (nonnegative_offset(e)) i.nonnegative = true;
      return i;
    }
    case ExprKind::Compare:
      return compare(e);
    case ExprKind::BoolOp:
      return bool_op(e);
    case ExprKind::IfExp: {
      Type body = expr(*e.items[0]);
      truth(*e.items[1], "a conditional expression");
      Type orelse = expr(*e.items[2]);
      if (body.is_unknown() || orelse.is_unknown()) return typed(Type::unknown());
      auto joined = join(body, orelse);
      if (!joined || joined->kind == TypeKind::String)
        return typed(error(e.span,
                           "the branches of a conditional expression have different "
                           "types: " +
                               body.str() + " and " + orelse.str()));
      // Each branch is converted to the joined type: one whose values it does not hold
      // may wrap (min/max's rule).
      const ExprInfo& bi = info(*e.items[0]);
      const ExprInfo& oi = info(*e.items[2]);
      auto exact = [&](const Type& t, const ExprInfo& branch) {
        return !joined->is_scalar() || !joined->is_int_like() || !t.is_scalar() ||
               concrete(t) == concrete(*joined) || range_within(branch.value_range, *joined);
      };
      const bool converted_exactly = exact(body, bi) && exact(orelse, oi);
      ExprInfo i = typed(*joined, converted_exactly && bi.nonnegative && oi.nonnegative);
      if (converted_exactly) i.value_range = join_ranges(bi.value_range, oi.value_range);
      return i;
    }
    case ExprKind::Call:
      return call(e);
    case ExprKind::Attribute:
      return attribute(e);
    case ExprKind::Subscript:
      return subscript(e);
    case ExprKind::Slice:
      return typed(error(e.span, "a slice can only appear inside [...]"));
  }
  return typed(Type::unknown());
}

ExprInfo Inferencer::name(const Expr& e) {
  auto local = local_index_.find(e.name);
  if (local != local_index_.end()) {
    ExprInfo i = typed(out_.locals[local->second].type, nonneg_[local->second]);
    i.local = local->second;
    i.constant = local_constants_[local->second];
    i.value_range = ranges_[local->second];  // finish_range() drops what the type cannot hold
    if (auto least = lower_bound(e); least && *least >= 0) i.nonnegative = true;
    if (final_ && i.type.is_unknown())
      error(e.span, "local variable '" + e.name + "' is used before it is assigned a value");
    return i;
  }
  return global(e.name, e.span);
}

ExprInfo Inferencer::global(const std::string& id, Span span) {
  auto g = globals_.find(id);
  if (g == globals_.end()) {
    if (find_intrinsic("builtins." + id)) return typed(Type::function("builtins." + id));
    return typed(error(span, "name '" + id + "' is not defined"));
  }
  return global_value(g->second, id, span);
}

ExprInfo Inferencer::global_value(const GlobalValue& g, const std::string& id, Span span) {
  switch (g.kind) {
    case GlobalValue::Kind::Module: {
      auto canonical = canonical_module(g.name);
      if (!canonical)
        return typed(
            error(span, "module '" + g.name + "' (global '" + id + "') cannot be used in kernels"));
      return typed(Type::module(std::string(*canonical)));
    }
    case GlobalValue::Kind::Function:
      if (!find_intrinsic(g.name))
        return typed(error(span, "'" + id + "' (" + g.name + ") is not supported in kernels"));
      return typed(Type::function(g.name));
    case GlobalValue::Kind::DType:
      return typed(g.record ? Type::record_dtype(g.record) : Type::dtype(g.dtype));
    case GlobalValue::Kind::Member: {
      auto canonical = canonical_module(g.name);
      if (!canonical) return typed(error(span, "'" + id + "' cannot be used in kernels"));
      return module_member(std::string(*canonical), g.attribute, span);
    }
    case GlobalValue::Kind::Exception: {
      // Only raised (infer_stmt.cpp reads it); a value of no type elsewhere.
      ExprInfo i = typed(Type::function("exception:" + g.name));
      i.constant = g.constant;
      return i;
    }
    case GlobalValue::Kind::Unsupported:
      return typed(error(span, "'" + id + "' is " + g.name + ", which kernels cannot use"));
    case GlobalValue::Kind::DeviceFunction:
      if (!g.function || !g.function->parsed || !g.function->source)
        return typed(error(span, "'" + id + "' is not a device function"));
      return typed(context_.function_type(g.function));
    case GlobalValue::Kind::Foreign:
      return typed(Type::function(std::string(kForeignFunctionPrefix) + id));
    case GlobalValue::Kind::Constant: {
      ExprInfo i = typed(g.constant.type, g.constant.real >= 0 && g.constant.int_value >= 0);
      i.constant = g.constant;
      return i;
    }
    case GlobalValue::Kind::ConstArray: {
      const int ndim = static_cast<int>(g.shape.size());
      ExprInfo i = typed(g.record ? Type::record_array(g.record, ndim, Layout::C, Space::Constant)
                                  : Type::array(g.dtype, ndim, Layout::C, Space::Constant));
      i.type.readonly = true;
      i.const_array = g.bytes;
      i.shape = g.shape;
      i.const_array_name = id;
      return i;
    }
    case GlobalValue::Kind::TupleClass:
      return typed(context_.tuple_class_type(g));
    case GlobalValue::Kind::Tuple: {
      Constant c;
      std::vector<Type> items;
      for (const auto& item : g.items) {
        ExprInfo ii = global_value(item, id, span);
        if (!ii.constant) return typed(error(span, "the tuple '" + id + "' must hold numbers"));
        items.push_back(ii.type);
        c.items.push_back(*ii.constant);
      }
      ExprInfo i = typed(Type::tuple(std::move(items)));
      i.type.fields = g.fields;  // a named tuple keeps its fields
      c.type = i.type;
      i.constant = std::move(c);
      return i;
    }
  }
  return typed(Type::unknown());
}

Type Inferencer::type_expression(const Expr& e) {
  Type t;
  if (e.kind == ExprKind::Name && !local_index_.count(e.name) && !globals_.count(e.name)) {
    if (auto m = find_member("builtins", e.name)) return Type::scalar_of(m->dtype);
  }
  t = expr(e);
  if (t.kind == TypeKind::DType && !t.record) return Type::scalar_of(t.scalar);
  if (t.kind == TypeKind::Function) {
    std::string_view name = t.name;
    if (name.substr(0, 9) == "builtins.")
      if (auto m = find_member("builtins", name.substr(9))) return Type::scalar_of(m->dtype);
  }
  if (t.is_unknown()) return t;
  return error(e.span, "expected a type such as float32 or int64, not " + t.str());
}

}  // namespace simt::sema::detail
