// The result type of each intrinsic call, by its Rule. The cases follow the
// order of Rule in intrinsics.h, as the lowering in codegen does, so the two
// read side by side; rules that share a case sit where the first of them is.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "sema/inferencer.h"
#include "sema/libdevice.h"

namespace simt::sema::detail {

namespace {

// ints and bool become float64 (weak stays weak); floats keep their type.
Type float_view(const Type& t) {
  if (t.is_scalar() && (is_integer(t.scalar) || is_bool(t.scalar)))
    return Type::scalar_of(Scalar::Float64, t.weak);
  return t;
}

// NumPy's ufuncs pick the smallest float that holds the integer type:
// np.sqrt(int8) is float16, np.sqrt(int16) float32, wider ints float64.
Type numpy_float_view(const Type& t) {
  if (!t.is_scalar() || t.weak || !(is_integer(t.scalar) || is_bool(t.scalar)))
    return float_view(t);
  int bits = is_bool(t.scalar) ? 8 : bit_width(t.scalar);
  return Type::scalar_of(bits <= 8    ? Scalar::Float16
                         : bits <= 16 ? Scalar::Float32
                                      : Scalar::Float64);
}

// What cmath computes a number in: complex stays, float32 and float16 become complex64,
// other numbers complex128 (Python's complex).
Type complex_view(const Type& t) {
  if (is_complex(t.scalar)) return Type::scalar_of(t.scalar);
  bool single = t.scalar == Scalar::Float32 || t.scalar == Scalar::Float16;
  return Type::scalar_of(single ? Scalar::Complex64 : Scalar::Complex128);
}

}  // namespace

bool Inferencer::number_arg(const Expr& e, size_t k, const Type& t, const std::string& fn) {
  if (t.is_scalar()) return true;
  error(e.items[k + 1]->span, fn + "() needs a number, not " + t.str());
  return false;
}

ExprInfo Inferencer::ufunc_into(const Expr& e, const std::string& shown,
                                const std::vector<Type>& args) {
  // NumPy's `np.sin(x, out)`, as Numba's kernels take it: every element of `out` (in
  // the calling thread) is the function of x's element at the same index, or of x
  // itself for a number; the call's value is `out`. No broadcasting: x is a number or an
  // array of out's dimensions, read at out's indices.
  const Type& x = args[0];
  const Type& out = args[1];
  auto plain = [](const Type& t) { return t.is_array() && !t.record && !t.packed; };
  if (!plain(out) || is_complex(out.scalar))
    return typed(error(e.items[2]->span, shown +
                                             "()'s output must be an array of real numbers, "
                                             "not " +
                                             quoted(out)));
  if (out.readonly)
    return typed(
        error(e.items[2]->span, shown + "(): the output array " + quoted(out) + " is read-only"));
  const bool number = x.is_scalar();
  if (!(number || (plain(x) && x.ndim == out.ndim)) || is_complex(x.scalar))
    return typed(
        error(e.items[1]->span, shown +
                                    "() with an output array takes a real number or a real array "
                                    "of the output's dimensions (" +
                                    std::to_string(out.ndim) + "), not " + quoted(x)));
  ExprInfo i = typed(out);
  i.operand = numpy_float_view(Type::scalar_of(x.scalar));
  return i;
}

bool Inferencer::real_arg(const Expr& e, size_t k, const Type& t, const std::string& fn) {
  if (t.is_scalar() && !is_complex(t.scalar)) return true;
  error(e.items[k + 1]->span, fn + "() needs a real number, not " + t.str());
  return false;
}

ExprInfo Inferencer::intrinsic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                                    const std::vector<Type>& args) {
  auto arg_nonneg = [&](size_t k) { return info(*e.items[k + 1]).nonnegative; };
  bool numpy = fn.name.substr(0, 6) == "numpy.";
  switch (fn.rule) {
    case Rule::FloatUnary:
    case Rule::FloatRound: {
      if (numpy && args.size() == 2) return ufunc_into(e, shown, args);
      // NumPy's complex forms (np.exp(z), np.sqrt(z), ...): the complex type.
      if (numpy && fn.rule == Rule::FloatUnary && args[0].is_scalar() &&
          is_complex(args[0].scalar) && has_complex_form(fn.c_name)) {
        ExprInfo i = typed(Type::scalar_of(args[0].scalar));
        i.operand = i.type;
        return i;
      }
      if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      Type result = numpy ? numpy_float_view(args[0]) : float_view(args[0]);
      if (args.size() == 2) {  // math.log(x, base)
        if (!real_arg(e, 1, args[1], shown)) return typed(Type::unknown());
        result = promote(result, float_view(args[1]));
      }
      ExprInfo i = typed(result);
      i.operand = i.type;
      return i;
    }
    case Rule::FloatBinary: {
      if (!real_arg(e, 0, args[0], shown) || !real_arg(e, 1, args[1], shown))
        return typed(Type::unknown());
      ExprInfo i = numpy ? typed(promote(numpy_float_view(args[0]), numpy_float_view(args[1])))
                         : typed(promote(float_view(args[0]), float_view(args[1])));
      i.operand = i.type;
      return i;
    }
    case Rule::Ldexp: {
      if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      if (!args[1].is_int_like())
        return typed(error(e.items[2]->span, shown + "() exponent must be an integer"));
      ExprInfo i = typed(float_view(args[0]));
      i.operand = i.type;
      return i;
    }
    case Rule::FloatSplit: {
      if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      Type f = float_view(args[0]).strong();
      ExprInfo i =
          typed(Type::tuple({f, fn.c_name == "frexp" ? Type::scalar_of(Scalar::Int64) : f}));
      i.operand = f;
      return i;
    }
    case Rule::FloatPredicate: {
      // math.isnan takes real numbers; NumPy's and cmath's, complex ones too.
      bool complex_ok = numpy || fn.name.substr(0, 6) == "cmath.";
      if (!(complex_ok && args[0].is_scalar() && is_complex(args[0].scalar)) &&
          !real_arg(e, 0, args[0], shown))
        return typed(Type::unknown());
      ExprInfo i = typed(Type::scalar_of(Scalar::Bool));
      i.operand =
          is_complex(args[0].scalar) ? Type::scalar_of(args[0].scalar) : float_view(args[0]);
      return i;
    }
    case Rule::FloatToInt: {
      if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      ExprInfo i = typed(Type::scalar_of(Scalar::Int64), arg_nonneg(0));
      i.operand = float_view(args[0]);
      return i;
    }
    case Rule::Abs: {
      if (!args[0].is_scalar())
        return typed(error(e.items[1]->span, "abs() needs a number, not " + args[0].str()));
      Type t = arith_view(args[0]);
      ExprInfo i = typed(is_complex(t.scalar) ? Type::scalar_of(real_of(t.scalar), t.weak) : t,
                         !is_signed(t.scalar) || !t.weak);
      i.operand = t;
      return i;
    }
    case Rule::MinMax: {
      Type t;
      bool all_nn = true, any_nn = false;
      const bool is_min = fn.c_name == "fmin";
      std::optional<ValueRange> range;
      for (size_t k = 0; k < args.size(); ++k) {
        if (!real_arg(e, k, args[k], shown)) return typed(Type::unknown());
        t = k == 0 ? args[k] : promote(t, args[k]);
        all_nn = all_nn && arg_nonneg(k);
        any_nn = any_nn || arg_nonneg(k);
        // min: the least of the least ends and of the greatest ends; max alike.
        const auto& r = info(*e.items[k + 1]).value_range;
        if (k == 0 || !range || !r)
          range = k == 0 ? r : std::nullopt;
        else if (is_min)
          range = ValueRange{std::min(range->lo, r->lo), std::min(range->hi, r->hi)};
        else
          range = ValueRange{std::max(range->lo, r->lo), std::max(range->hi, r->hi)};
      }
      // The arguments are converted to t first: one whose values t does not hold (a
      // Python int beside an int32) may wrap, and then neither its range nor its sign
      // says anything of the result.
      bool converted_exactly = true;
      for (size_t k = 0; t.is_int_like() && k < args.size(); ++k)
        converted_exactly =
            converted_exactly && (concrete(args[k]) == concrete(t) ||
                                  range_within(info(*e.items[k + 1]).value_range, t));
      if (!converted_exactly) range.reset();
      ExprInfo i = typed(t, converted_exactly && (is_min ? all_nn : any_nn));
      i.value_range = range;
      i.operand = t;
      return i;
    }
    case Rule::CastInt:
      return cast(e, args[0], Scalar::Int64);
    case Rule::CastFloat:
      return cast(e, args[0], Scalar::Float64);
    case Rule::CastBool:
      return cast(e, args[0], Scalar::Bool);
    case Rule::CastComplex: {
      for (size_t k = 0; k < args.size(); ++k)
        if (!args[k].is_scalar())
          return typed(error(e.items[k + 1]->span, "complex() needs numbers"));
      if (args.size() == 2 && (is_complex(args[0].scalar) || is_complex(args[1].scalar)))
        return typed(error(e.span, "complex(re, im) needs real numbers"));
      ExprInfo i = typed(Type::scalar_of(Scalar::Complex128));
      i.operand = Type::scalar_of(Scalar::Float64);
      return i;
    }
    case Rule::Round: {
      if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      if (args.size() == 2) {
        if (!args[1].is_int_like())
          return typed(error(e.items[2]->span, "round() ndigits must be an integer"));
        ExprInfo i = typed(args[0]);
        i.operand = float_view(args[0]);
        return i;
      }
      ExprInfo i = typed(Type::scalar_of(Scalar::Int64), arg_nonneg(0));
      i.operand = float_view(args[0]);
      return i;
    }
    case Rule::Pow:
      return binary(Op::Pow, args[0], args[1], info(*e.items[1]), info(*e.items[2]), e.span);
    case Rule::Len: {
      if (args[0].is_array()) {
        ExprInfo i = typed(Type::scalar_of(Scalar::Int64), true);
        i.value_range = ValueRange{0, INT64_MAX};
        return i;
      }
      if (args[0].is_tuple()) {
        ExprInfo i = typed(Type::scalar_of(Scalar::Int64, true), true);
        i.constant = int_constant(static_cast<int64_t>(args[0].items.size()), i.type);
        return i;
      }
      return typed(
          error(e.items[1]->span, "len() needs an array or a tuple, not " + args[0].str()));
    }
    case Rule::Range: {
      Type t;
      for (size_t k = 0; k < args.size(); ++k) {
        if (!args[k].is_int_like() || is_bool(args[k].scalar))
          return typed(error(e.items[k + 1]->span,
                             "range() arguments must be integers, not " + args[k].str()));
        t = k == 0 ? args[k] : promote(t, args[k]);
      }
      if (args.size() == 3) {
        if (auto step = const_int(*e.items[3]); step && *step == 0)
          return typed(error(e.items[3]->span, "range() step must not be zero"));
      }
      Type r = Type::range(t.scalar);
      r.weak = t.weak;
      ExprInfo i = typed(r);
      i.operand = t;
      return i;
    }
    case Rule::Print: {
      // Numbers, tuples of numbers (nested too), as Python prints them.
      std::function<bool(const Type&)> printable = [&](const Type& t) {
        if (t.is_scalar()) return true;
        if (!t.is_tuple() || !t.fields.empty()) return false;
        return std::all_of(t.items.begin(), t.items.end(), printable);
      };
      for (size_t k = 0; k < args.size(); ++k) {
        const Type& a = args[k];
        if (!printable(a) && a.kind != TypeKind::Dim3 && a.kind != TypeKind::String &&
            a.kind != TypeKind::None)
          return typed(error(e.items[k + 1]->span,
                             "print() in kernels prints numbers, tuples of numbers, "
                             "cuda.threadIdx and its kin, and string literals, not " +
                                 a.str()));
      }
      return typed(Type::none());
    }
    case Rule::Grid:
    case Rule::GridSize: {
      auto n = const_int(*e.items[1]);
      if (!n) want_constant(*e.items[1], "the ndim of " + shown + "()");
      if (!n || *n < 1 || *n > 3)
        return typed(error(e.items[1]->span, shown + "() takes a constant 1, 2 or 3" +
                                                 (n ? "" : constant_hint(*e.items[1]))));
      Type index = Type::scalar_of(Scalar::Int64);
      ExprInfo i = typed(*n == 1 ? index : Type::uniform_tuple(index, static_cast<int>(*n)), true);
      // Block index times block size plus thread index, each below 2^31 (launch limits).
      i.value_range = ValueRange{0, int64_t{1} << 62};
      return i;
    }
    case Rule::ArrayAlloc:  // always has keywords: array_alloc()
    case Rule::LaneId:
    case Rule::WarpSize:
      break;
    case Rule::Barrier:
    case Rule::Fence:
      return typed(Type::none());
    case Rule::BarrierReduce: {
      if (!args[0].is_scalar() || is_complex(args[0].scalar))
        return typed(
            error(e.items[1]->span, shown + "() needs a number or bool, not " + args[0].str()));
      ExprInfo i = typed(Type::scalar_of(Scalar::Int32), true);
      i.operand = Type::scalar_of(Scalar::Bool);
      return i;
    }
    case Rule::Atomic:
    case Rule::AtomicCas:
      return atomic_call(e, fn, shown, args);
    case Rule::ActiveMask:
      return typed(Type::scalar_of(Scalar::UInt32), true);
    case Rule::ConstArrayLike: {
      const ExprInfo& a = info(*e.items[1]);
      if (!a.const_array)
        return typed(error(e.items[1]->span, shown +
                                                 "() needs a global NumPy array (its values "
                                                 "are copied into the kernel), not " +
                                                 args[0].str()));
      ExprInfo i = typed(a.type);
      i.const_array = a.const_array;
      i.shape = a.shape;
      i.const_array_name = a.const_array_name;
      return i;
    }
    case Rule::Shuffle: {
      if (!mask_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      const Type& v = args[1];
      if (!v.is_scalar() || is_complex(v.scalar) || v.scalar == Scalar::Float16 ||
          is_bool(v.scalar))
        return typed(
            error(e.items[2]->span, shown +
                                        "() shuffles 32- and 64-bit integers and float32/float64, "
                                        "not " +
                                        v.str()));
      if (!args[2].is_int_like())
        return typed(error(e.items[3]->span, shown + "() lane argument must be an integer"));
      // Python literals shuffle as the types NumPy gives them.
      Type value = v.strong();
      if (bit_width(value.scalar) < 32)
        value = Type::scalar_of(is_signed(value.scalar) ? Scalar::Int32 : Scalar::UInt32);
      ExprInfo i = typed(value);
      i.operand = value;
      return i;
    }
    case Rule::Vote: {
      if (!mask_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      // CUDA's votes take an int predicate: a float's truth is not read for it (Numba's
      // words, which its users' tests match).
      if (!args[1].is_int_like())
        return typed(error(e.items[2]->span, shown +
                                                 "(): Predicate must be an integer or "
                                                 "boolean, not " +
                                                 quoted(args[1])));
      ExprInfo i =
          typed(Type::scalar_of(fn.c_name == "ballot" ? Scalar::UInt32 : Scalar::Bool), true);
      i.operand = Type::scalar_of(Scalar::Bool);
      return i;
    }
    case Rule::FloatTernary: {
      Type t;
      for (size_t k = 0; k < 3; ++k) {
        if (!real_arg(e, k, args[k], shown)) return typed(Type::unknown());
        t = k == 0 ? float_view(args[k]) : promote(t, float_view(args[k]));
      }
      ExprInfo i = typed(t);
      i.operand = t;
      return i;
    }
    case Rule::IntBits: {
      const Type& a = args[0];
      if (!a.is_scalar() || !is_integer(a.scalar))
        return typed(error(e.items[1]->span, shown + "() needs an integer, not " + a.str()));
      Type operand = a.strong();       // a literal: int64, as Numba types it
      if (fn.c_name == "bit_count") {  // Python's int: the count of |x|, an int64
        ExprInfo i = typed(Type::scalar_of(Scalar::Int64), true);
        i.operand = operand;
        return i;
      }
      ExprInfo i = typed(fn.c_name == "ffs" ? Type::scalar_of(Scalar::Int32) : operand,
                         fn.c_name != "brev" || is_unsigned(operand.scalar));
      i.operand = operand;
      return i;
    }
    case Rule::Select: {
      if (!args[0].is_scalar() || is_complex(args[0].scalar))
        return typed(error(e.items[1]->span, shown + "() needs a number or bool predicate"));
      if (!args[1].is_scalar() || !args[2].is_scalar())
        return typed(error(e.items[2]->span, shown + "() selects between two numbers"));
      Type t = promote(args[1], args[2]);
      ExprInfo i = typed(t, arg_nonneg(1) && arg_nonneg(2));
      i.operand = t;
      return i;
    }
    case Rule::Enumerate: {
      // Numba's counter is an intp, whatever the start's type.
      Type counter = Type::scalar_of(Scalar::Int64);
      if (args.size() == 2 && (!args[1].is_int_like() || is_bool(args[1].scalar)))
        return typed(
            error(e.items[2]->span, shown + "() start must be an integer, not " + args[1].str()));
      const Type& x = args[0];
      if (x.kind == TypeKind::Range || x.is_array()) {
        // One counted loop: the counter beside the range's value or the array's element.
        Type r = Type::range(Scalar::Int64);
        r.name = "enumerate";
        r.items = {counter, x.is_array() ? array_row(x) : x.range_item()};
        return typed(r);
      }
      if (x.is_tuple()) {
        // Unrolled as the tuple is: a tuple of (counter, item) pairs.
        std::vector<Type> pairs;
        for (const Type& item : x.items) pairs.push_back(Type::tuple({counter, item}));
        return typed(Type::tuple(std::move(pairs)));
      }
      return typed(error(e.items[1]->span, shown +
                                               "() in kernels iterates over range(...), an "
                                               "array, zip(...) of those or a tuple, not " +
                                               x.str()));
    }
    case Rule::Zip: {
      // Ranges and arrays zip into one counted loop, which also takes tuples of one item
      // type (indexed by the iteration number); tuples alone are unrolled.
      bool counted = false;
      for (const Type& a : args) counted = counted || a.kind == TypeKind::Range || a.is_array();
      size_t shortest = SIZE_MAX;
      std::vector<Type> counted_items;
      for (size_t k = 0; k < args.size(); ++k) {
        const Type& a = args[k];
        const Span at = e.items[k + 1]->span;
        if (a.kind == TypeKind::Range) {
          counted_items.push_back(a.range_item());
        } else if (a.is_array()) {
          counted_items.push_back(array_row(a));
        } else if (!a.is_tuple()) {
          return typed(
              error(at, shown + "() in kernels zips ranges, arrays and tuples, not " + a.str()));
        } else if (!counted) {
          shortest = std::min(shortest, a.items.size());
        } else {
          // Every item is read at a run-time position: one type for all of them.
          std::optional<Type> item = a.items.empty() ? std::nullopt : std::optional(a.items[0]);
          for (const Type& t : a.items) {
            if (!item) break;
            item = (t.is_scalar() || t.is_array()) ? join(*item, t) : std::nullopt;
          }
          if (!item)
            return typed(error(at, shown +
                                       "() of a tuple with ranges or arrays needs a tuple of "
                                       "numbers or of arrays of one type (it is read by "
                                       "the iteration number), not " +
                                       a.str()));
          counted_items.push_back(*item);
        }
      }
      if (counted) {
        Type r = Type::range(Scalar::Int64);
        r.name = "zip";
        r.items = std::move(counted_items);
        return typed(r);
      }
      std::vector<Type> rows;
      for (size_t j = 0; j < shortest; ++j) {
        std::vector<Type> row;
        for (const Type& a : args) row.push_back(a.items[j]);
        rows.push_back(Type::tuple(std::move(row)));
      }
      return typed(Type::tuple(std::move(rows)));
    }
    case Rule::CompareAndSwap:
      if (args[0].is_array() && args[0].ndim != 1)
        return typed(error(e.items[1]->span, shown + "() swaps element 0 of a 1-D array, not of " +
                                                 args[0].str() +
                                                 "; use atomic.cas(a, index, "
                                                 "old, value)"));
      return atomic_call(e, fn, shown, args);
    case Rule::SyncWarp:
      if (!args.empty() && !mask_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      return typed(Type::none());
    case Rule::LaneMask:
      return typed(Type::scalar_of(Scalar::UInt32), true);
    case Rule::Match: {
      if (!mask_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      const Type& v = args[1];
      if (!v.is_scalar() || is_complex(v.scalar) || v.scalar == Scalar::Float16 ||
          is_bool(v.scalar))
        return typed(error(e.items[2]->span, shown +
                                                 "() compares 32- and 64-bit integers and "
                                                 "float32/float64, not " +
                                                 v.str()));
      // As shuffles: literals as NumPy types them, narrow integers widened to 32 bits.
      Type value = v.strong();
      if (bit_width(value.scalar) < 32)
        value = Type::scalar_of(is_signed(value.scalar) ? Scalar::Int32 : Scalar::UInt32);
      Type mask = Type::scalar_of(Scalar::UInt32);
      ExprInfo i =
          typed(fn.c_name == "any" ? mask : Type::tuple({mask, Type::scalar_of(Scalar::Bool)}),
                fn.c_name == "any");
      i.operand = value;
      return i;
    }
    case Rule::HalfUnary:
    case Rule::HalfBinary:
    case Rule::HalfTernary:
    case Rule::HalfCompare: {
      // Numba's signatures take float16; other real numbers convert to it, as
      // they would on assignment to a float16 variable.
      for (size_t k = 0; k < args.size(); ++k)
        if (!real_arg(e, k, args[k], shown)) return typed(Type::unknown());
      Type half = Type::scalar_of(Scalar::Float16);
      ExprInfo i = typed(fn.rule == Rule::HalfCompare ? Type::scalar_of(Scalar::Bool) : half,
                         fn.c_name == "abs");
      i.operand = half;
      return i;
    }
    case Rule::Libdevice: {
      // Numba's signatures: arguments convert to the declared types.
      const LibdeviceFunction& row = *find_libdevice(fn.c_name);
      if (!row.implemented())
        return typed(error(e.span, shown + "() (libdevice's __nv_" + row.name +
                                       ") is not implemented on simt; docs/libdevice.md lists "
                                       "the functions that are"));
      for (size_t k = 0; k < args.size(); ++k)
        if (!real_arg(e, k, args[k], shown)) return typed(Type::unknown());
      std::vector<Type> results;
      for (Scalar s : row.results()) results.push_back(Type::scalar_of(s));
      return typed(results.size() == 1 ? results[0] : Type::tuple(std::move(results)));
    }
    case Rule::ThisGrid:
      return typed(Type::grid_group());
    case Rule::GridSync:
      return typed(Type::none());
    case Rule::Reshape: {
      // a.reshape(d0, d1, ...) or a.reshape((d0, d1, ...)): NumPy's view of a
      // C-contiguous array, one axis may be -1. A shape of another size is
      // found at run time, where the thread stops as at a raise (ValueError in
      // debug mode), so the function "raises".
      const Type& a = args[0];
      std::vector<Type> dims(args.begin() + 1, args.end());
      if (dims.size() == 1 && dims[0].is_tuple()) dims = dims[0].items;
      for (const Type& d : dims)
        if (!d.is_scalar() || !is_integer(d.scalar))
          return typed(error(e.span, shown +
                                         "() takes the new shape as integers or a tuple of "
                                         "integers, not " +
                                         quoted(args.size() == 2 ? args[1] : d)));
      if (dims.empty())
        return typed(error(e.span, shown + "() to a 0-d array is not supported in kernels"));
      if (a.layout != Layout::C)
        return typed(error(e.span, shown + "() in kernels needs a C-contiguous array, and " +
                                       quoted(a) +
                                       " may not be: reshape it on the host, or "
                                       "declare it C-contiguous (float64[:, ::1])"));
      Type r = a;
      r.ndim = static_cast<uint8_t>(dims.size());
      out_.raises = true;
      return typed(r);
    }
    case Rule::ComplexUnary:
    case Rule::ComplexPhase:
    case Rule::ComplexPolar: {
      if (!number_arg(e, 0, args[0], shown)) return typed(Type::unknown());
      Type z = complex_view(args[0]);
      if (args.size() == 2) {  // cmath.log(z, base)
        if (!number_arg(e, 1, args[1], shown)) return typed(Type::unknown());
        z = complex_view(promote(z, complex_view(args[1])));
      }
      Type real = Type::scalar_of(real_of(z.scalar));
      ExprInfo i = typed(fn.rule == Rule::ComplexUnary   ? z
                         : fn.rule == Rule::ComplexPhase ? real
                                                         : Type::tuple({real, real}));
      i.operand = z;
      return i;
    }
    case Rule::ComplexRect: {
      if (!real_arg(e, 0, args[0], shown) || !real_arg(e, 1, args[1], shown))
        return typed(Type::unknown());
      Type real = promote(float_view(args[0]), float_view(args[1])).strong();
      ExprInfo i = typed(complex_view(real));
      i.operand = real;
      return i;
    }
    case Rule::Operator: {
      const Expr& a = *e.items[1];
      if (fn.c_name == "truth" || fn.c_name == "not") {
        truth(a, fn.name.data());
        ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
        i.operand = args[0];
        return i;
      }
      if (fn.c_name == "index") {
        if (!args[0].is_int_like())
          return typed(error(a.span, shown + "() needs an integer, not " + args[0].str()));
        Type t = is_bool(args[0].scalar) ? Type::scalar_of(Scalar::Int64) : args[0].strong();
        ExprInfo i = typed(t, info(a).nonnegative);
        i.operand = t;
        return i;
      }
      if (fn.c_name == "getitem") return subscript(e);
      Op op = operator_of(fn);
      if (fn.max_args == 1) return unary_op(op, a, e.span);
      if (is_comparison(op)) {
        auto t = compare_operand(op, args[0], args[1], e.span);
        if (!t) return typed(Type::unknown());
        ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
        i.pair_operands.push_back(*t);
        return i;
      }
      return binary(op, args[0], args[1], info(a), info(*e.items[2]), e.span);
    }
  }
  return typed(Type::unknown());
}

bool Inferencer::mask_arg(const Expr& e, size_t k, const Type& t, const std::string& shown) {
  if (t.is_int_like() && !is_bool(t.scalar)) return true;
  // Numba's words, which its users' tests match.
  error(e.items[k + 1]->span, shown + "(): Mask type must be an integer, not " + quoted(t) +
                                  " (0xffffffff: the whole warp)");
  return false;
}

ExprInfo Inferencer::atomic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                                 const std::vector<Type>& args) {
  const Type& a = args[0];
  if (!a.is_array())
    return typed(error(e.items[1]->span, shown + "() needs an array, not " + a.str()));
  if (a.space == Space::Local)
    return typed(error(e.items[1]->span, shown + "() works on global and shared arrays, not "
                                                 "on a local array (each thread has its own)"));
  if (a.readonly)
    return typed(error(e.items[1]->span, shown + "() cannot write a read-only array"));
  if (a.record || a.packed)
    return typed(error(e.items[1]->span,
                       shown + "() works on arrays of numbers, not on " + a.str() +
                           (a.packed ? " (a record's array field not aligned for its type)"
                                     : "; pass a field's array, or update fields plainly")));
  Scalar s = a.scalar;
  bool supported = s == Scalar::Int32 || s == Scalar::UInt32 || s == Scalar::Int64 ||
                   s == Scalar::UInt64 || s == Scalar::Float32 || s == Scalar::Float64;
  if (!supported)
    return typed(
        error(e.items[1]->span, shown +
                                    "() works on int32, uint32, int64, uint64, float32 and float64 "
                                    "arrays, not " +
                                    a.str()));
  std::string_view op = fn.c_name;
  bool bitwise = op == "and" || op == "or" || op == "xor";
  if ((bitwise || op == "inc" || op == "dec") && is_float(s))
    return typed(error(e.items[1]->span, shown + "() needs an integer array, not " + a.str()));
  // compare_and_swap(array, old, value) has no index: its values start at args[1].
  size_t first_value = fn.rule == Rule::CompareAndSwap ? 1 : 2;
  for (size_t k = first_value; k < args.size(); ++k) {
    if (!args[k].is_scalar() || (is_complex(args[k].scalar) && !is_complex(s)))
      return typed(error(e.items[k + 1]->span,
                         shown + "() value must be a real number, not " + args[k].str()));
  }
  ExprInfo i = typed(Type::scalar_of(s), is_unsigned(s));
  i.operand = Type::scalar_of(s);
  if (first_value == 1) return i;
  // The index: an integer, or a tuple of one integer per dimension.
  const Type& index = args[1];
  size_t count = index.is_tuple() ? index.items.size() : 1;
  bool ints = index.is_tuple() ? std::all_of(index.items.begin(), index.items.end(),
                                             [](const Type& t) { return t.is_int_like(); })
                               : index.is_int_like();
  if (!ints || static_cast<int>(count) != a.ndim)
    return typed(
        error(e.items[2]->span,
              shown + "() on a " + std::to_string(a.ndim) + "-d array needs " +
                  (a.ndim == 1 ? std::string("an integer index")
                               : "a tuple of " + std::to_string(a.ndim) + " integer indices") +
                  ", not " + index.str()));
  return i;
}

}  // namespace simt::sema::detail
