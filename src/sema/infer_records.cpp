// Records of record dtypes, as Numba types them: `a[i]` of an array of records is a
// reference to the record's bytes (TypeKind::Record), whose fields are read and written
// in place (`a[i].x`, `a[i]['x']`, `r = a[i]; r.x += 1`), nested records are references
// too, and a fixed-size array field is a view of its elements.
#include "sema/inferencer.h"

namespace simt::sema {

namespace {

std::string field_names(const abi::Record& r) {
  std::string names;
  for (const auto& f : r.fields) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

// A field chosen by a constant index, `r[k]`, as NumPy's records allow (negative from
// the end); null past the fields.
const abi::RecordField* field_at(const abi::Record& r, int64_t k) {
  const auto n = static_cast<int64_t>(r.fields.size());
  if (k < 0) k += n;
  if (k < 0 || k >= n) return nullptr;
  return &r.fields[static_cast<size_t>(k)];
}

}  // namespace

namespace detail {

ExprInfo Inferencer::record_field(const Expr&, const Type& base, const std::string& name, Span at) {
  const abi::Record& r = *base.record;
  const abi::RecordField* f = r.find(name);
  if (!f)
    return typed(
        error(at, "the record has no field '" + name + "' (its fields: " + field_names(r) + ")"));
  if (!f->opaque.empty())
    return typed(error(at, "the record field '" + name + "' holds " + f->opaque +
                               ", which kernels cannot read or write (fields of numbers, "
                               "booleans, complex numbers, nested records and fixed-size arrays "
                               "of numbers can be)"));
  if (f->is_record()) return typed(Type::record_ref(f->record, base.space, base.readonly));
  if (f->shape.empty()) return typed(Type::scalar_of(f->scalar));
  // A fixed-size array field: a C-ordered view of its elements, which sit at addresses
  // aligned for their type only where the record's alignment and the offset say so.
  Type view = Type::array(f->scalar, static_cast<int>(f->shape.size()), Layout::C, base.space);
  view.readonly = base.readonly;
  view.packed = !abi::aligned_access(f->scalar, f->offset, r.align);
  ExprInfo i = typed(view);
  i.shape.assign(f->shape.begin(), f->shape.end());
  return i;
}

ExprInfo Inferencer::record_subscript(const Expr& e, const Type& base, const Expr& index) {
  if (index.kind == ExprKind::String) {
    expr(index);  // typed, as every operand is
    return record_field(e, base, index.str_value, index.span);
  }
  if (index.kind == ExprKind::Slice)
    return typed(error(index.span, "a record cannot be sliced; read its fields by name"));
  Type it = expr(index);
  if (it.is_unknown()) return typed(it);
  auto k = it.is_int_like() && !is_bool(it.scalar) ? const_int(index) : std::nullopt;
  if (!k)
    return typed(error(index.span,
                       "a record's field is chosen by a constant: r.name, r['name'] or r[k] with "
                       "k a constant integer, not " +
                           it.str()));
  const abi::RecordField* f = field_at(*base.record, *k);
  if (!f)
    return typed(error(index.span, "field index " + std::to_string(*k) +
                                       " out of range for a "
                                       "record of " +
                                       std::to_string(base.record->fields.size()) + " fields"));
  return record_field(e, base, f->name, index.span);
}

void Inferencer::check_store(const Expr& target, const Type& container, const Type& element,
                             const Type& value) {
  if ((container.is_array() || container.is_record()) && container.readonly)
    error(target.span, std::string("the ") + (container.is_record() ? "record " : "array ") +
                           container.str() + " is read-only");
  if (element.is_array()) {
    if (container.is_record() && !value.is_unknown()) {
      // A record's array field set whole, as NumPy and Numba set it: from an array of its
      // shape (element by element), or a number filling it.
      if (value.is_scalar() || (value.is_array() && !value.record && value.ndim == element.ndim)) {
        check_convertible(value.is_scalar() ? value : value.element(), element.element(),
                          target.span, "an element of the record's array field");
        return;
      }
      error(target.span, "cannot store " + value.str() + " in the record's array field " +
                             element.str() + ": it takes an array of " +
                             std::to_string(element.ndim) +
                             " dimensions (of its shape) or a number");
      return;
    }
    error(target.span, "cannot assign to the array view " + element.str() +
                           "; index every dimension of " + container.str());
    return;
  }
  if (element.is_record()) {
    // A whole record: its bytes copied from a record of the same layout.
    if (value.is_unknown()) return;
    if (value.is_tuple()) {
      // NumPy's `a[i] = (1, 2.5)`: a tuple (a named one too) sets the fields in order.
      const auto& fields = element.record->fields;
      if (value.items.size() != fields.size()) {
        error(target.span, "cannot store " + value.str() + " in a record of type " + element.str() +
                               ": a tuple sets its " + std::to_string(fields.size()) +
                               " fields in order, and has " + std::to_string(value.items.size()) +
                               " items");
        return;
      }
      for (size_t k = 0; k < fields.size(); ++k) {
        if (!fields[k].is_scalar() || !fields[k].shape.empty()) {
          error(target.span, "cannot store a tuple in a record of type " + element.str() +
                                 ": its field '" + fields[k].name +
                                 "' is not a number (set the fields one by one)");
          return;
        }
        check_convertible(value.items[k], Type::scalar_of(fields[k].scalar), target.span,
                          "the record's field '" + fields[k].name + "'");
      }
      return;
    }
    if (!value.is_record() || !value.record->same_layout(*element.record))
      error(target.span, "cannot store " + value.str() + " in a record of type " + element.str() +
                             ": a record takes a record of the same dtype");
    return;
  }
  check_convertible(
      value, element, target.span,
      container.is_record() ? "a field of a record" : "an element of " + container.str());
}

}  // namespace detail

const abi::RecordField* record_field_of(const TypedFunction& f, const lang::Expr& e) {
  const bool attribute = e.kind == lang::ExprKind::Attribute;
  bool getitem = e.kind == lang::ExprKind::Subscript;
  if (e.kind == lang::ExprKind::Call) {  // operator.getitem(r, 'x')
    auto call = f.exprs.find(&e);
    getitem = call != f.exprs.end() && call->second.intrinsic &&
              call->second.intrinsic->rule == Rule::Operator &&
              call->second.intrinsic->c_name == "getitem";
  }
  if (!attribute && !getitem) return nullptr;
  const lang::Expr& base = attribute ? *e.items[0] : subscript_base(e);
  auto found = f.exprs.find(&base);
  if (found == f.exprs.end() || !found->second.type.is_record()) return nullptr;
  const abi::Record& r = *found->second.type.record;
  if (attribute) return r.find(e.name);
  const lang::Expr& index = subscript_index(e);
  if (index.kind == lang::ExprKind::String) return r.find(index.str_value);
  auto i = f.exprs.find(&index);
  if (i == f.exprs.end() || !i->second.constant) return nullptr;
  return field_at(r, i->second.constant->int_value);
}

}  // namespace simt::sema
