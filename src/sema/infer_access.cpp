// Attributes (of modules, thread-index objects, arrays and complex numbers)
// and subscripts (of arrays and tuples).
#include "sema/inferencer.h"

namespace simt::sema::detail {

ExprInfo Inferencer::module_member(const std::string& module, const std::string& attr, Span span) {
  if (auto m = find_member(module, attr)) {
    switch (m->kind) {
      case NamespaceMember::Kind::Module:
        return typed(Type::module(std::string(m->target)));
      case NamespaceMember::Kind::DType:
        return typed(Type::dtype(m->dtype));
      case NamespaceMember::Kind::Dim3:
        return typed(Type::dim3(std::string(m->target)));
      case NamespaceMember::Kind::FloatConstant: {
        ExprInfo i = typed(Type::scalar_of(Scalar::Float64, true), m->value >= 0);
        Constant c;
        c.type = i.type;
        c.real = m->value;
        i.constant = c;
        return i;
      }
    }
  }
  std::string qualified = module + "." + attr;
  if (module == "simt.random") {
    // cuda.random.<f>: the simt.func the Python side resolved under this name.
    auto g = globals_.find(qualified);
    if (g != globals_.end()) return global_value(g->second, qualified, span);
    return typed(error(span, "'cuda.random." + attr +
                                 "' is not a device function of cuda.random (its functions: "
                                 "xoroshiro128p_uniform_float32/64, "
                                 "xoroshiro128p_normal_float32/64, xoroshiro128p_next)"));
  }
  if (const Intrinsic* fn = find_intrinsic(qualified)) {
    if (fn->rule == Rule::LaneId || fn->rule == Rule::WarpSize) {
      ExprInfo i = typed(Type::scalar_of(Scalar::Int32), true);
      i.intrinsic = fn;
      return i;
    }
    return typed(Type::function(qualified));
  }
  return typed(error(span, "'" + qualified + "' is not supported in kernels"));
}

ExprInfo Inferencer::attribute(const Expr& e) {
  Type base = expr(*e.items[0]);
  const std::string& attr = e.name;
  if (base.is_unknown()) return typed(base);
  switch (base.kind) {
    case TypeKind::Module:
      return module_member(base.name, attr, e.span);
    case TypeKind::Dim3:
      if (attr == "x" || attr == "y" || attr == "z") {
        // Every device's grid and block dimensions are at most 2^31 - 1 (checked at launch).
        ExprInfo i = typed(Type::scalar_of(Scalar::Int64), true);
        i.value_range = ValueRange{0, INT32_MAX};
        return i;
      }
      return typed(error(e.span, base.name + " has the attributes x, y and z, not '" + attr + "'"));
    case TypeKind::Array: {
      Type index = Type::scalar_of(Scalar::Int64);
      if (attr == "shape" || attr == "size") {
        ExprInfo i = typed(attr == "size" ? index : Type::uniform_tuple(index, base.ndim), true);
        i.value_range = ValueRange{0, INT64_MAX};
        return i;
      }
      if (attr == "strides") return typed(Type::uniform_tuple(index, base.ndim));
      if (attr == "ndim" || attr == "itemsize") {
        ExprInfo i = typed(Type::scalar_of(Scalar::Int64, true), true);
        int64_t v = attr == "ndim" ? base.ndim : base.element_bytes();
        i.constant = int_constant(v, i.type);
        return i;
      }
      if (attr == "reshape") return typed(Type::function("array.reshape"));
      if ((attr == "real" || attr == "imag") && !base.record) {
        // NumPy's views of the parts: a complex array's are strided float
        // arrays over its memory (writes and atomics reach it, as Numba's); a
        // real array is its own `.real`, and its `.imag` (NumPy's read-only
        // zeros) has no memory to view.
        if (!is_complex(base.scalar)) {
          if (attr == "real") return typed(base);
          return typed(error(e.span,
                             "'.imag' of a real array has no memory to view in kernels "
                             "(NumPy's is a read-only array of zeros): use 0"));
        }
        if (base.packed)
          return typed(error(e.span, "'." + attr +
                                         "' of a packed complex array (a record's field) is "
                                         "not supported in kernels: index it first (a[i]." +
                                         attr + ")"));
        Type part = Type::array(real_of(base.scalar), base.ndim, Layout::Any, base.space);
        part.readonly = base.readonly;
        return typed(part);
      }
      if (base.record && base.record->find(attr))
        return typed(error(e.span, "'" + attr +
                                       "' is a field of the array's records: index the array "
                                       "first (a[i]." +
                                       attr + ")"));
      return typed(error(e.span, "array attribute '" + attr +
                                     "' is not supported in kernels (shape, size, ndim, "
                                     "strides, itemsize, real, imag and reshape() are)"));
    }
    case TypeKind::Record:
      return record_field(e, base, attr, e.span);
    case TypeKind::Tuple: {
      // A named tuple's field: its item.
      for (size_t k = 0; k < base.fields.size(); ++k) {
        if (base.fields[k] != attr) continue;
        ExprInfo i = typed(base.items[k], info(*e.items[0]).nonnegative);
        const ExprInfo& bi = info(*e.items[0]);
        i.value_range = bi.value_range;
        if (bi.constant && k < bi.constant->items.size()) i.constant = bi.constant->items[k];
        return i;
      }
      if (base.fields.empty())
        return typed(error(e.span, quoted(base) + " has no attribute '" + attr +
                                       "' (a plain tuple: index it, or pass a named tuple)"));
      std::string names;
      for (const auto& f : base.fields) names += (names.empty() ? "" : ", ") + f;
      return typed(error(e.span, "the named tuple " + quoted(base) + " has no field '" + attr +
                                     "' (its fields: " + names + ")"));
    }
    case TypeKind::GridGroup:
      if (attr == "sync") return typed(Type::function("simt.cg.grid_group.sync"));
      return typed(error(
          e.span, "a grid group (cuda.cg.this_grid()) has the method sync(), not '" + attr + "'"));
    case TypeKind::Scalar:
      if (is_integer(base.scalar) && find_intrinsic("int." + attr))
        return typed(Type::function("int." + attr));
      if (is_complex(base.scalar) && (attr == "real" || attr == "imag"))
        return typed(Type::scalar_of(real_of(base.scalar), base.weak));
      if (is_complex(base.scalar) && find_intrinsic("complex." + attr))
        return typed(Type::function("complex." + attr));
      return typed(error(e.span, quoted(base) + " has no attribute '" + attr + "' in kernels"));
    case TypeKind::Function:  // int.bit_count(x), complex.conjugate(z)
      if (base.name == "builtins.int" && find_intrinsic("int." + attr))
        return typed(Type::function("int." + attr));
      if (base.name == "builtins.complex" && find_intrinsic("complex." + attr))
        return typed(Type::function("complex." + attr));  // complex.conjugate(z)
      return typed(error(e.span, quoted(base) + " has no attribute '" + attr + "'"));
    default:
      return typed(error(e.span, quoted(base) + " has no attribute '" + attr + "'"));
  }
}

}  // namespace simt::sema::detail

namespace simt::sema {

const lang::Expr* method_receiver(const TypedFunction& f, const lang::Expr& call) {
  const lang::Expr& callee = *call.items[0];
  if (callee.kind != lang::ExprKind::Attribute) return nullptr;
  auto c = f.exprs.find(&callee);
  auto r = f.exprs.find(callee.items[0].get());
  if (c == f.exprs.end() || r == f.exprs.end() || c->second.type.kind != TypeKind::Function ||
      !(c->second.type.name.starts_with("int.") || c->second.type.name.starts_with("complex.") ||
        c->second.type.name.starts_with("array.")) ||
      !(r->second.type.is_scalar() || r->second.type.is_array()))
    return nullptr;
  return callee.items[0].get();
}

}  // namespace simt::sema

namespace simt::sema::detail {

ExprInfo Inferencer::subscript(const Expr& e) {
  const Expr& base_expr = subscript_base(e);
  Type base = expr(base_expr);
  const Expr& index = subscript_index(e);
  if (base.is_tuple()) return tuple_item(e, base, index);
  if (base.is_record()) return record_subscript(e, base, index);
  if (base.has_records() && index.kind == ExprKind::String)
    return typed(error(index.span,
                       "a field of a whole array of records is not supported in "
                       "kernels: index the array first (a[i]['" +
                           index.str_value + "'])"));
  // One part per axis indexed: an integer, or a slice (only written inside
  // [...]). A tuple value (`a[idx]`, `a[cuda.grid(2)]`) indexes one axis per
  // item, as a tuple display does.
  std::vector<const Expr*> displayed;
  if (index.kind == ExprKind::Tuple) {
    out_.exprs[&index].type = Type::unknown();
    for (const auto& item : index.items) displayed.push_back(item.get());
  } else {
    displayed.push_back(&index);
  }
  size_t count = 0;        // axes indexed
  bool has_slice = false;  // then the result is a view whatever the count
  bool contiguous = true;  // the view of a C array stays C (see below)
  bool seen_slice = false;
  for (const Expr* i : displayed) {
    if (i->kind == ExprKind::Slice) {
      out_.exprs[i].type = Type::none();
      std::optional<int64_t> step;
      for (size_t k = 0; k < 3; ++k) {
        const Expr* part = i->items[k].get();
        if (!part) continue;
        Type pt = expr(*part);
        if (pt.is_unknown()) return typed(pt);
        if (pt.kind == TypeKind::None) continue;  // a[None:3] as a[:3]
        if (!pt.is_int_like() || is_bool(pt.scalar))
          return typed(
              error(part->span, "a slice bound or step must be an integer, not " + pt.str()));
        if (k == 2) {
          step = const_int(*part);
          if (step && *step == 0) return typed(error(part->span, "slice step cannot be zero"));
        }
      }
      // A C array sliced on one axis with unit steps, after integer indices
      // and before full slices, is still C-ordered.
      bool full = !i->items[0] && !i->items[1] && !i->items[2];
      bool unit = !i->items[2] || (step && *step == 1);
      if (seen_slice ? !full : !unit) contiguous = false;
      seen_slice = has_slice = true;
      ++count;
      continue;
    }
    if (seen_slice) contiguous = false;
    Type it = expr(*i);
    if (it.is_unknown()) return typed(it);
    if (i == &index && it.is_tuple()) {
      for (const Type& item : it.items)
        if (!item.is_int_like() || is_bool(item.scalar))
          return typed(error(i->span,
                             "an array index must be an integer or a tuple of "
                             "integers, not " +
                                 it.str()));
      count += it.items.size();
      continue;
    }
    if (!it.is_int_like() || is_bool(it.scalar))
      return typed(error(i->span, "an array index must be an integer, not " + it.str()));
    ++count;
  }
  if (base.is_unknown()) return typed(base);
  if (!base.is_array()) return typed(error(base_expr.span, quoted(base) + " is not subscriptable"));
  if (count > base.ndim)
    return typed(error(index.span, "too many indices: the array is " + std::to_string(base.ndim) +
                                       "-dimensional, but " + std::to_string(count) +
                                       " were indexed"));
  if (count == base.ndim && !has_slice) {
    if (displayed.size() == 1) note_dynamic_shared_index(base_expr, *displayed[0], base);
    return typed(base.element());
  }
  // The view keeps the sliced axes and the axes not indexed (and the dtype, space,
  // read-only and packed flags).
  int rest = base.ndim - static_cast<int>(count);
  for (const Expr* i : displayed)
    if (i->kind == ExprKind::Slice) ++rest;
  Type view = base;
  view.ndim = static_cast<uint8_t>(rest);
  view.layout = base.layout == Layout::C && contiguous ? Layout::C : Layout::Any;
  return typed(view);
}

ExprInfo Inferencer::tuple_item(const Expr& e, const Type& base, const Expr& index) {
  if (index.kind == ExprKind::Slice)
    return typed(error(index.span, "slicing tuples is not supported in kernels; index items"));
  Type it = expr(index);
  if (it.is_unknown()) return typed(it);
  if (index.kind == ExprKind::Slice || !it.is_int_like() || is_bool(it.scalar))
    return typed(error(index.span, "a tuple index must be an integer"));
  int64_t n = static_cast<int64_t>(base.items.size());
  if (auto k = const_int(index)) {
    int64_t at = *k < 0 ? *k + n : *k;
    if (at < 0 || at >= n)
      return typed(error(index.span, "tuple index " + std::to_string(*k) +
                                         " out of range for a tuple of " + std::to_string(n)));
    // Indexing a tuple display evaluates all of it, to a value: an item that
    // is none (a module) can only be reached this way for its attributes.
    if (subscript_base(e).kind == ExprKind::Tuple && is_data(base.items[at]) && !is_data(base) &&
        !base.contains_unknown())
      return typed(error(subscript_base(e).span, not_a_value(base)));
    ExprInfo i = typed(base.items[at], info(subscript_base(e)).nonnegative);
    const ExprInfo& bi = info(subscript_base(e));
    i.value_range = bi.value_range;
    if (bi.constant && static_cast<size_t>(at) < bi.constant->items.size())
      i.constant = bi.constant->items[at];
    return i;
  }
  for (const auto& item : base.items)
    if (item != base.items[0])
      return typed(error(index.span, "a tuple of mixed types needs a constant index"));
  if (n == 0) return typed(error(index.span, "index into an empty tuple"));
  if (base.items[0].is_tuple())
    return typed(error(index.span, "a tuple of tuples needs a constant index"));
  ExprInfo i = typed(base.items[0], info(subscript_base(e)).nonnegative);
  i.value_range = info(subscript_base(e)).value_range;
  return i;
}

}  // namespace simt::sema::detail
