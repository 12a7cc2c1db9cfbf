// Calls: to device functions, dtypes (conversions) and intrinsics, with
// keyword arguments bound and shared/local arrays allocated.
#include <algorithm>

#include "sema/inferencer.h"

namespace simt::sema::detail {

ExprInfo Inferencer::call(const Expr& e) {
  Type callee = expr(*e.items[0]);
  std::vector<Type> args;
  for (size_t k = 1; k < e.items.size(); ++k) args.push_back(expr(*e.items[k]));
  for (const auto& kw : e.keywords) expr(*kw.value);
  if (callee.is_unknown()) return typed(callee);
  if (is_device_function(callee)) return device_call(e, callee);
  if (is_tuple_class(callee)) return tuple_class_call(e, callee);
  if (callee.kind == TypeKind::Function && callee.name.rfind(kForeignFunctionPrefix, 0) == 0)
    return foreign_call(e, callee);
  for (const auto& a : args)
    if (a.is_unknown()) return typed(a);
  if (callee.kind == TypeKind::DType) {
    if (callee.record)
      return typed(error(e.items[0]->span,
                         "a record dtype converts no value: index an array of "
                         "records and set its fields instead"));
    if (!e.keywords.empty() || args.size() != 1)
      return typed(error(e.span, std::string(scalar_name(callee.scalar)) +
                                     "() takes exactly one positional argument"));
    return cast(e, args[0], callee.scalar);
  }
  if (callee.kind != TypeKind::Function)
    return typed(error(e.items[0]->span, quoted(callee) + " is not callable"));
  const Intrinsic* fn = find_intrinsic(callee.name);
  if (!fn)  // an exception class: only `raise` uses it
    return typed(
        error(e.span, "an exception (" + callee.name.substr(callee.name.find(':') + 1) +
                          ") can only be raised (in kernels and device functions): raise it"));
  std::string shown = display_name(callee.name);
  if (const Expr* receiver = method_receiver(out_, e))
    args.insert(args.begin(), info(*receiver).type);
  if (fn->rule == Rule::LaneId || fn->rule == Rule::WarpSize)
    return typed(error(e.span, shown + " is a value, not a function: write " + shown));
  std::vector<const Expr*> ordered;
  if (!fn->keywords.empty()) {
    auto bound = bind_keywords(e, *fn, shown);
    if (!bound) return typed(Type::unknown());
    ordered = std::move(*bound);
    args.clear();
    for (const Expr* a : ordered) args.push_back(info(*a).type);
  } else if (!e.keywords.empty()) {
    return typed(error(e.keywords[0].span, shown + "() takes no keyword arguments in kernels"));
  }
  if (args.size() < fn->min_args || (fn->max_args != 255 && args.size() > fn->max_args)) {
    std::string expected = fn->min_args == fn->max_args ? std::to_string(fn->min_args)
                           : fn->max_args == 255        ? "at least " + std::to_string(fn->min_args)
                                                        : std::to_string(fn->min_args) + " to " +
                                                       std::to_string(fn->max_args);
    return typed(error(e.span, shown + "() takes " + expected + " arguments (" +
                                   std::to_string(args.size()) + " given)"));
  }
  ExprInfo i =
      ordered.empty() ? intrinsic_call(e, *fn, shown, args) : array_alloc(e, *fn, shown, ordered);
  i.intrinsic = fn;
  i.ordered_args = std::move(ordered);
  return i;
}

std::optional<std::vector<const Expr*>> Inferencer::bind_keywords(const Expr& e,
                                                                  const Intrinsic& fn,
                                                                  const std::string& shown) {
  std::vector<std::string> names;
  for (size_t start = 0; start <= fn.keywords.size();) {
    size_t comma = fn.keywords.find(',', start);
    if (comma == std::string_view::npos) comma = fn.keywords.size();
    names.emplace_back(fn.keywords.substr(start, comma - start));
    start = comma + 1;
  }
  std::vector<const Expr*> bound(names.size(), nullptr);
  if (e.items.size() - 1 > names.size()) {
    error(e.span, shown + "() takes " + std::to_string(names.size()) + " arguments (" +
                      std::to_string(e.items.size() - 1) + " given)");
    return std::nullopt;
  }
  for (size_t k = 1; k < e.items.size(); ++k) bound[k - 1] = e.items[k].get();
  for (const auto& kw : e.keywords) {
    auto at = std::find(names.begin(), names.end(), kw.name);
    if (at == names.end()) {
      error(kw.span, shown + "() has no parameter '" + kw.name + "'");
      return std::nullopt;
    }
    size_t k = static_cast<size_t>(at - names.begin());
    if (bound[k] != nullptr) {
      error(kw.span, shown + "() got two values for '" + kw.name + "'");
      return std::nullopt;
    }
    bound[k] = kw.value.get();
  }
  for (size_t k = 0; k < names.size(); ++k) {
    if (bound[k] == nullptr) {
      error(e.span, shown + "() is missing its argument '" + names[k] + "'");
      return std::nullopt;
    }
  }
  return bound;
}

std::optional<std::vector<int64_t>> Inferencer::const_shape(const Expr& shape) {
  std::vector<int64_t> extents;
  if (auto n = const_int(shape)) {
    extents.push_back(*n);
    return extents;
  }
  if (shape.kind == ExprKind::Tuple) {
    for (const auto& item : shape.items) {
      auto n = const_int(*item);
      if (!n) return std::nullopt;
      extents.push_back(*n);
    }
    return extents;
  }
  const ExprInfo& i = info(shape);
  if (i.type.is_tuple() && i.constant && !i.constant->items.empty()) {
    for (const auto& c : i.constant->items) {
      if (!c.type.is_int_like()) return std::nullopt;
      extents.push_back(c.int_value);
    }
    return extents;
  }
  return std::nullopt;
}

ExprInfo Inferencer::array_alloc(const Expr& e, const Intrinsic& fn, const std::string& shown,
                                 const std::vector<const Expr*>& args) {
  bool shared = fn.c_name == "shared";
  Type dtype = info(*args[1]).type;
  if (args[1]->kind == ExprKind::String) {
    // Numba's dtype="int32": NumPy's names of the scalar types.
    auto named = abi::scalar_from_name(args[1]->str_value);
    if (!named)
      return typed(error(args[1]->span, shown + "(): Invalid NumPy dtype specified: '" +
                                            args[1]->str_value + "'"));
    dtype = Type::dtype(*named);
  }
  if (dtype.kind != TypeKind::DType)
    return typed(error(args[1]->span, shown +
                                          "() needs a dtype (np.float32, simt.int32, ...), "
                                          "not " +
                                          dtype.str()));
  auto extents = const_shape(*args[0]);
  if (!extents) {
    want_constant(*args[0], "the shape of " + shown + "()");
    return typed(error(args[0]->span,
                       shown +
                           "() needs a shape known at compile time: an int or a tuple of ints "
                           "(literals, global or closure constants, locals assigned once, or "
                           "parameters whose arguments are such constants)" +
                           constant_hint(*args[0])));
  }
  if (extents->empty() || extents->size() > 3)
    return typed(error(args[0]->span, shown + "() takes 1 to 3 dimensions"));
  int64_t total = 1;
  for (int64_t n : *extents) {
    bool dynamic = shared && n == 0 && extents->size() == 1;
    if (n < 1 && !dynamic)
      return typed(
          error(args[0]->span, shown + "() extents must be positive" +
                                   (shared ? " (0 alone means dynamic shared memory)" : "")));
    if (n > 0 && total > (int64_t{1} << 31) / n)
      return typed(error(args[0]->span, shown + "() of that shape is too large"));
    total *= std::max<int64_t>(n, 1);
  }
  // A device function's shared array is one per block and specialization, as
  // a __shared__ variable of a CUDA __device__ function is; the dynamic one
  // is the kernel's.
  if (self_ != nullptr && shared && total == 0)
    return typed(error(e.span, shown + "(0, ...) (dynamic shared memory) in a device function: "
                                       "allocate it in the kernel and pass it as an argument"));
  const Space space = shared ? Space::Shared : Space::Local;
  const int ndim = static_cast<int>(extents->size());
  ExprInfo i = typed(dtype.record ? Type::record_array(dtype.record, ndim, Layout::C, space)
                                  : Type::array(dtype.scalar, ndim, Layout::C, space));
  i.shape = std::move(*extents);
  return i;
}

std::string Inferencer::display_name(const std::string& qualified) {
  if (qualified.rfind("builtins.", 0) == 0) return qualified.substr(9);
  return qualified;
}

ExprInfo Inferencer::cast(const Expr& e, const Type& from, Scalar to) {
  if (!from.is_scalar())
    return typed(
        error(e.span, std::string("cannot convert ") + from.str() + " to " + scalar_name(to)));
  if (is_complex(from.scalar) && !is_complex(to))
    return typed(error(e.span, std::string("cannot convert ") + from.str() + " to " +
                                   scalar_name(to) + " (use .real or abs())"));
  ExprInfo i = typed(Type::scalar_of(to), info(*e.items[1]).nonnegative);
  i.operand = from;
  const ExprInfo& arg = info(*e.items[1]);
  if (arg.constant && from.is_int_like() && (is_integer(to) || is_bool(to)) && !is_bool(to))
    i.constant = int_constant(arg.constant->int_value, i.type);
  return i;
}

}  // namespace simt::sema::detail
