// Named tuple classes called in kernels (`P(1.0, y=2)` for a global
// `P = collections.namedtuple("P", "x y")` or typing.NamedTuple class): the
// value is a tuple whose type carries the field names, as a named tuple
// argument's does (Type::fields), so `p.x`, `p[0]`, unpacking and passing it
// to device functions work alike.
#include "sema/inferencer.h"

namespace simt::sema::detail {

ExprInfo Inferencer::tuple_class_call(const Expr& e, const Type& callee) {
  size_t index = std::stoul(callee.name.substr(callee.name.rfind('#') + 1));
  const GlobalValue& cls = *context_.tuple_classes.at(index);
  const std::vector<std::string>& fields = cls.fields;
  const size_t n = fields.size();
  const size_t positional = e.items.size() - 1;
  const std::string shown = cls.name + "()";

  // Arguments matched to the fields as Python matches them; the class's
  // defaults fill the last fields.
  std::vector<CallArgument> arguments(n);
  if (positional > n)
    return typed(error(e.items[n + 1]->span, shown + " takes " + std::to_string(n) +
                                                 (n == 1 ? " argument" : " arguments") + " but " +
                                                 std::to_string(positional) + " were given"));
  for (size_t k = 0; k < positional; ++k) arguments[k].expr = e.items[k + 1].get();
  for (const auto& kw : e.keywords) {
    size_t f = 0;
    while (f < n && fields[f] != kw.name) ++f;
    if (f == n)
      return typed(error(kw.span, shown + " got an unexpected keyword argument '" + kw.name + "'"));
    if (arguments[f].expr)
      return typed(error(kw.span, shown + " got multiple values for argument '" + kw.name + "'"));
    arguments[f].expr = kw.value.get();
  }
  const size_t first_default = n - cls.items.size();
  std::vector<Type> items;
  Constant constant;
  bool all_constant = true, all_nonnegative = true;
  for (size_t f = 0; f < n; ++f) {
    CallArgument& a = arguments[f];
    ExprInfo value;
    if (a.expr) {
      value = info(*a.expr);
    } else if (f >= first_default) {
      value = global_value(cls.items[f - first_default], cls.name, e.span);
      if (!value.constant)
        return typed(error(e.span, shown + ": the default of field '" + fields[f] +
                                       "' must be a number or a tuple of numbers"));
      a.default_value = *value.constant;
    } else {
      return typed(error(e.span, shown + " missing required argument: '" + fields[f] + "'"));
    }
    if (value.type.contains_unknown()) return typed(Type::unknown());
    if (!is_data(value.type))
      return typed(error(a.expr ? a.expr->span : e.span,
                         "field '" + fields[f] + "' of " + shown +
                             " must be a number, an array or a tuple of those, not " +
                             value.type.str()));
    items.push_back(value.type);
    all_nonnegative = all_nonnegative && value.nonnegative;
    if (value.constant)
      constant.items.push_back(*value.constant);
    else
      all_constant = false;
  }
  Type tuple = Type::tuple(std::move(items));
  tuple.fields = fields;
  // `p = P(p, 1)` would grow on every pass of the fixpoint, as `x = (x, x)` would.
  if (tuple.leaf_count() > kMaxTupleLeaves || tuple.tuple_depth() > abi::kMaxTupleDepth)
    return typed(error(e.span, shown + " makes a tuple of more than " +
                                   std::to_string(kMaxTupleLeaves) +
                                   " values, or nested more than " +
                                   std::to_string(abi::kMaxTupleDepth) + " levels deep"));
  ExprInfo i = typed(std::move(tuple), all_nonnegative);
  if (all_constant) {
    constant.type = i.type;
    i.constant = std::move(constant);
  }
  i.arguments = std::move(arguments);
  i.makes_tuple = true;
  return i;
}

}  // namespace simt::sema::detail
