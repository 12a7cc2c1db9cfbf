// Intrinsic calls (math, casts, grid, warps, ...) and the thread-index and
// warp code they lower to.
#include <cmath>
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

std::string Emitter::complex_call(std::string_view c_name, Scalar s, const std::string& arg) {
  std::optional<Helper> helper = complex_math_helper(c_name);
  if (!helper) throw std::logic_error("no complex form of " + std::string(c_name));
  return helpers_.use(*helper, s) + "(" + arg + ")";
}

std::string Emitter::math_call(std::string_view c_name, Scalar s, const std::string& args) {
  Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
  if (c_name == "simt_degrees")
    return round_half_if(s, "(" + args + " * " + float_literal(180.0 / M_PI, real) + ")");
  if (c_name == "simt_radians")
    return round_half_if(s, "(" + args + " * " + float_literal(M_PI / 180.0, real) + ")");
  return round_half_if(s, d_.math_name(c_name, real) + "(" + args + ")");
}

// cuda.fp16's functions: float16 values are floats in the generated code, so
// each is float's operation (or math function) and one rounding to float16,
// as float16 `+`, `*` and math.* are. hfma's exact a * b + c is rounded once
// by a float-only helper (OpenCL devices may lack double).
std::string Emitter::half_call(const sema::Intrinsic& fn,
                               const std::function<std::string(size_t, const Type&)>& arg) {
  const Scalar h = Scalar::Float16;
  const Type ht = Type::scalar_of(h);
  std::string_view op = fn.c_name;
  if (fn.rule == sema::Rule::HalfCompare) {
    std::string a = arg(0, ht), b = arg(1, ht);
    if (std::optional<std::string> native = native_half_compare(op, a, b)) return *native;
    return "(" + a + " " + std::string(op) + " " + b + ")";
  }
  if (fn.rule == sema::Rule::HalfTernary)
    return helpers_.use(Helper::HalfFma, h) + "(" + arg(0, ht) + ", " + arg(1, ht) + ", " +
           arg(2, ht) + ")";
  const std::string one = float_literal(1.0, Scalar::Float32);
  if (fn.rule == sema::Rule::HalfBinary) {
    std::string a = arg(0, ht), b = arg(1, ht);
    if (op == "max" || op == "min")  // one of the two: no rounding
      return d_.math_name(op == "max" ? "fmax" : "fmin", Scalar::Float32) + "(" + a + ", " + b +
             ")";
    if (op != "div") {
      Helper helper = op == "add"   ? Helper::HalfAdd
                      : op == "sub" ? Helper::HalfSub
                                    : Helper::HalfMul;
      if (std::optional<std::string> native = native_half(helper, a + ", " + b)) return *native;
    }
    std::string_view c_op = op == "add" ? "+" : op == "sub" ? "-" : op == "mul" ? "*" : "/";
    return round_half_if(h, "(" + a + " " + std::string(c_op) + " " + b + ")");
  }
  std::string a = arg(0, ht);
  if (op == "neg" || op == "abs")
    if (std::optional<std::string> native =
            native_half(op == "neg" ? Helper::HalfNeg : Helper::HalfAbs, a))
      return *native;
  if (op == "neg") return "(-" + a + ")";                                         // exact
  if (op == "abs") return d_.math_name("fabs", Scalar::Float32) + "(" + a + ")";  // exact
  if (op == "rcp") return round_half_if(h, "(" + one + " / " + a + ")");
  if (op == "rsqrt")
    return round_half_if(
        h, "(" + one + " / " + d_.math_name("sqrt", Scalar::Float32) + "(" + a + "))");
  // exp10 is not C's: 10 ** x as float's pow.
  if (op == "exp10") return math_call("pow", h, float_literal(10.0, Scalar::Float32) + ", " + a);
  return math_call(op, h, a);
}

std::string Emitter::call(const Expr& e) {
  const ExprInfo& i = info(e);
  const Type& callee = info(*e.items[0]).type;
  if (callee.kind == TypeKind::DType)
    return convert(expr(*e.items[1]), info(*e.items[1]).type, i.type);
  if (i.function) return call_code(e, "");
  const sema::Intrinsic& fn = *i.intrinsic;
  // x.bit_count(): the number is the first argument.
  const Expr* receiver = sema::method_receiver(fn_, e);
  auto argument = [&](size_t k) -> const Expr& {
    if (receiver) return k == 0 ? *receiver : *e.items[k];
    return *e.items[k + 1];
  };
  auto arg = [&](size_t k, const Type& as) { return emit_as(argument(k), as); };
  const size_t argc = receiver ? e.items.size() : e.items.size() - 1;
  Scalar s = sema::concrete(i.operand);
  Type ot = Type::scalar_of(s);
  // In the order of sema::Rule, as the typing side's switch is, so the two
  // read side by side (FloatRound and Fence repeat a neighbour's line).
  switch (fn.rule) {
    case sema::Rule::FloatUnary:
      if (argc == 2 && info(argument(1)).type.is_array())  // np.sin(x, out)
        return ufunc_into(fn.c_name, s, argument(0), argument(1));
      if (sema::is_complex(s)) return complex_call(fn.c_name, s, arg(0, ot));
      if (argc == 2) {  // math.log(x, base), in float for a float16 result
        Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
        return round_half_if(s, "(" + d_.math_name("log", real) + "(" + arg(0, ot) + ") / " +
                                    d_.math_name("log", real) + "(" + arg(1, ot) + "))");
      }
      return math_call(fn.c_name, s, arg(0, ot));
    case sema::Rule::FloatBinary:
      return math_call(fn.c_name, s, arg(0, ot) + ", " + arg(1, ot));
    case sema::Rule::Ldexp:
      return math_call(fn.c_name, s, arg(0, ot) + ", " + arg(1, Type::scalar_of(Scalar::Int32)));
    case sema::Rule::FloatSplit:
      throw std::logic_error("frexp() and modf() are evaluated into temporaries");
    case sema::Rule::FloatPredicate: {
      std::string_view name = fn.c_name == "isnan"   ? d_.isnan_name
                              : fn.c_name == "isinf" ? d_.isinf_name
                                                     : d_.isfinite_name;
      if (sema::is_complex(s)) {
        // NaN or infinite where either part is; finite where both are.
        // The argument's text twice: calls in it were evaluated into temporaries.
        std::string z = "(" + arg(0, ot) + ")";
        std::string join = fn.c_name == "isfinite" ? " && " : " || ";
        return "((" + std::string(name) + "(" + z + ".re) != 0)" + join + "(" + std::string(name) +
               "(" + z + ".im) != 0))";
      }
      Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
      return "(" + std::string(name) + "(" + arg(0, Type::scalar_of(real)) + ") != 0)";
    }
    case sema::Rule::FloatToInt: {
      const Type& at = info(*e.items[1]).type;
      if (at.is_int_like()) return arg(0, i.type);
      return convert(math_call(fn.c_name, s, arg(0, ot)), ot, i.type);
    }
    case sema::Rule::FloatRound:
      if (argc == 2) return ufunc_into(fn.c_name, s, argument(0), argument(1));  // np.floor(x, out)
      return math_call(fn.c_name, s, arg(0, ot));
    case sema::Rule::Abs: {
      if (sema::is_complex(s)) return helpers_.use(Helper::ComplexAbs, s) + "(" + arg(0, ot) + ")";
      if (s == Scalar::Float16) {
        std::string a = arg(0, ot);
        if (std::optional<std::string> native = native_half(Helper::HalfAbs, a)) return *native;
        return d_.math_name("fabs", Scalar::Float32) + "(" + a + ")";  // exact: no rounding
      }
      if (sema::is_float(s)) return math_call("fabs", s, arg(0, ot));
      std::string a = arg(0, ot);
      if (sema::is_unsigned(s)) return a;
      return "(" + a + " < 0 ? " + wrap_arith("-", s, "0", a) + " : " + a + ")";
    }
    case sema::Rule::MinMax: {
      bool is_min = fn.c_name == "fmin";
      bool nan_propagating = fn.name.substr(0, 6) == "numpy." && sema::is_float(s);
      std::string result = arg(0, ot);
      // Builtin min/max of floats are C's fmin/fmax, as Numba's CUDA target lowers them
      // (libdevice's __nv_fmin): a NaN is a missing value, the other operand wins; one
      // instruction on GPUs (min.f32, max.f64).
      bool c_fmin = sema::is_float(s) && !nan_propagating;
      Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
      for (size_t k = 1; k + 1 < e.items.size(); ++k) {
        std::string b = arg(k, ot);
        if (c_fmin)
          result = d_.math_name(fn.c_name, real) + "(" + result + ", " + b + ")";
        else if (nan_propagating)
          result = "((" + result + (is_min ? " < " : " > ") + b + " || " + result +
                   " != " + result + ") ? " + result + " : " + b + ")";
        else
          result = "(" + b + (is_min ? " < " : " > ") + result + " ? " + b + " : " + result + ")";
      }
      return result;
    }
    case sema::Rule::CastInt:
    case sema::Rule::CastFloat:
    case sema::Rule::CastBool:
      return convert(expr(*e.items[1]), info(*e.items[1]).type, i.type);
    case sema::Rule::CastComplex: {
      Type f64 = Type::scalar_of(Scalar::Float64);
      const Type& at = info(*e.items[1]).type;
      if (e.items.size() == 2 && sema::is_complex(sema::concrete(at)))
        return convert(expr(*e.items[1]), at, i.type);
      std::string im = e.items.size() > 2 ? arg(1, f64) : "0.0";
      return helpers_.use(Helper::ComplexMake, Scalar::Complex128) + "(" + arg(0, f64) + ", " + im +
             ")";
    }
    case sema::Rule::Round: {
      const Type& at = info(*e.items[1]).type;
      if (e.items.size() == 3) {
        if (at.is_int_like()) return arg(0, i.type);
        return round_half_if(sema::concrete(i.type),
                             helpers_.use(Helper::RoundDigits, s) + "(" + arg(0, ot) + ", " +
                                 arg(1, Type::scalar_of(Scalar::Int64)) + ")");
      }
      if (at.is_int_like()) return arg(0, i.type);
      return convert(math_call("rint", s, arg(0, ot)), ot, i.type);
    }
    case sema::Rule::Pow:
      return binary_code(Op::Pow, i.operand, arg(0, ot), info(*e.items[1]), *e.items[2]);
    case sema::Rule::Len:
      return expr(*e.items[1]) + ".shape[0]";
    case sema::Rule::Range:
    case sema::Rule::Print:
      throw std::logic_error("range() and print() are statements here");
    case sema::Rule::Grid:
    case sema::Rule::GridSize:
      return grid_component(fn.rule, 0);
    case sema::Rule::ArrayAlloc:
      return array_alloc(e);
    case sema::Rule::Barrier:
      throw std::logic_error("syncthreads() and threadfence() are statements");
    case sema::Rule::BarrierReduce: {
      int k = fn.c_name == "count" ? 0 : fn.c_name == "and" ? 1 : 2;
      std::string pred = "(int)" + truth(*e.items[1]);
      if (!d_.barrier_reduce[k].empty()) {
        std::string code = apply(d_.barrier_reduce[k], "", pred);
        return racecheck() ? "(" + race_barrier(e) + ", " + code + ")" : code;
      }
      return shared_counter_reduce(k, pred);
    }
    case sema::Rule::Fence:
      throw std::logic_error("syncthreads() and threadfence() are statements");
    case sema::Rule::Atomic:
    case sema::Rule::AtomicCas:
      return atomic_code(e);
    case sema::Rule::LaneId:
    case sema::Rule::WarpSize:
      throw std::logic_error("laneid and warpsize are attributes");
    case sema::Rule::ActiveMask:
      note_warp_use(e);
      if (d_.threads_are_loops() && !module_.fibers) return cpu_active_mask();
      return d_.activemask.empty() ? "0u" : warp_call(d_.activemask, "", "", "");
    case sema::Rule::ConstArrayLike:
      return constant_array(i);
    case sema::Rule::Shuffle: {
      note_warp_use(e);
      int k = fn.c_name == "idx" ? 0 : fn.c_name == "up" ? 1 : fn.c_name == "down" ? 2 : 3;
      std::string pattern(d_.shuffles[k]);
      if (pattern.empty()) return "0";
      return race_warp_call(e, warp_call(pattern, arg(0, Type::scalar_of(Scalar::UInt32)),
                                         arg(1, i.type), arg(2, Type::scalar_of(Scalar::Int32))));
    }
    case sema::Rule::Vote: {
      note_warp_use(e);
      auto vote = [&](int k) {
        std::string pattern(d_.votes[k]);
        if (pattern.empty()) return std::string("0");
        return warp_call(pattern, arg(0, Type::scalar_of(Scalar::UInt32)),
                         "(int)" + truth(*e.items[2]), "");
      };
      if (fn.c_name == "eq")
        // All lanes agree: all of them or none. Both votes run in every lane (`|`, not
        // `||`), as each is a collective of the warp.
        return race_warp_call(e, "((" + vote(1) + " != 0) | !(" + vote(2) + " != 0))");
      int k = fn.c_name == "ballot" ? 0 : fn.c_name == "all" ? 1 : 2;
      std::string code = vote(k);
      return race_warp_call(e, k == 0 ? "((unsigned int)" + code + ")" : "(" + code + " != 0)");
    }
    case sema::Rule::FloatTernary:
      // float16: float's fma rounded to float16 again would round twice.
      if (s == Scalar::Float16)
        return helpers_.use(Helper::HalfFma, s) + "(" + arg(0, ot) + ", " + arg(1, ot) + ", " +
               arg(2, ot) + ")";
      return math_call(fn.c_name, s, arg(0, ot) + ", " + arg(1, ot) + ", " + arg(2, ot));
    case sema::Rule::IntBits: {
      if (fn.c_name == "bit_count") {
        // |x| in the unsigned type of x's width (the most negative value too).
        Scalar u = sema::unsigned_of(s);
        std::string wide(d_.value_type(sema::bit_width(s) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
        std::string x = arg(0, ot);
        std::string magnitude = sema::is_unsigned(s) ? x
                                                     : "(" + x + " < 0 ? 0 - (" + wide + ")" + x +
                                                           " : (" + wide + ")" + x + ")";
        return "((simt_i64)" + helpers_.use(Helper::PopCount, u) + "((" +
               std::string(d_.value_type(u)) + ")" + magnitude + "))";
      }
      Helper h = fn.c_name == "popc"  ? Helper::PopCount
                 : fn.c_name == "clz" ? Helper::CountLeadingZeros
                 : fn.c_name == "ffs" ? Helper::FindFirstSet
                                      : Helper::BitReverse;
      return helpers_.use(h, s) + "(" + arg(0, ot) + ")";
    }
    case sema::Rule::Select:
      return helpers_.use(Helper::Select, s) + "(" + truth(*e.items[1]) + ", " + arg(1, ot) + ", " +
             arg(2, ot) + ")";
    case sema::Rule::Enumerate:
    case sema::Rule::Zip:
      throw std::logic_error("enumerate() and zip() are iterated over by for loops");
    case sema::Rule::CompareAndSwap:
      return atomic_code(e);
    case sema::Rule::SyncWarp:
      throw std::logic_error("syncwarp() is a statement");
    case sema::Rule::LaneMask:
      note_warp_use(e);
      return "((1u << " + lane_id() + ") - 1u)";
    case sema::Rule::Match: {
      note_warp_use(e);
      if (fn.c_name != "any")
        throw std::logic_error("match_all_sync() is evaluated into temporaries");
      if (d_.matches[0].empty()) return "0u";
      return race_warp_call(
          e, "((unsigned int)" +
                 warp_call(d_.matches[0], arg(0, Type::scalar_of(Scalar::UInt32)), arg(1, ot), "") +
                 ")");
    }
    case sema::Rule::HalfUnary:
    case sema::Rule::HalfBinary:
    case sema::Rule::HalfTernary:
    case sema::Rule::HalfCompare:
      return half_call(fn, arg);
    case sema::Rule::Libdevice:
      if (i.type.is_tuple()) throw std::logic_error("tuple results are evaluated into temporaries");
      return libdevice_part(e, 0);
    case sema::Rule::ThisGrid:
      return "0";  // a grid group has no storage: nothing reads this value
    case sema::Rule::GridSync:
      throw std::logic_error("grid_group.sync() is a statement");
    case sema::Rule::ComplexUnary:
      if (fn.c_name == "conjugate") {
        std::string z = "(" + arg(0, ot) + ")";
        return helpers_.use(Helper::ComplexMake, s) + "(" + z + ".re, -" + z + ".im)";
      }
      if (argc == 2 && s == Scalar::Complex64 && !d_.complex64_work.empty())
        return helpers_.use(Helper::ComplexLogBase, s) + "(" + arg(0, ot) + ", " + arg(1, ot) + ")";
      if (argc == 2)  // cmath.log(z, base)
        return helpers_.use(Helper::ComplexDiv, s) + "(" + complex_call("log", s, arg(0, ot)) +
               ", " + complex_call("log", s, arg(1, ot)) + ")";
      return complex_call(fn.c_name, s, arg(0, ot));
    case sema::Rule::ComplexPhase: {
      Scalar real = sema::real_of(s);
      std::string z = "(" + arg(0, ot) + ")";
      return d_.math_name("atan2", real) + "(" + z + ".im, " + z + ".re)";
    }
    case sema::Rule::ComplexPolar:
      throw std::logic_error("cmath.polar() is evaluated into temporaries");
    case sema::Rule::Reshape:
      throw std::logic_error("a.reshape() is evaluated into a temporary");
    case sema::Rule::ComplexRect: {
      Type rt = Type::scalar_of(s);
      return helpers_.use(Helper::ComplexRect, sema::complex_of(s)) + "(" + arg(0, rt) + ", " +
             arg(1, rt) + ")";
    }
    case sema::Rule::Operator: {
      const Expr& a = argument(0);
      if (fn.c_name == "truth") return truth(a);
      if (fn.c_name == "not") return "(!" + truth(a) + ")";
      if (fn.c_name == "index") return arg(0, i.type);
      if (fn.c_name == "getitem") return subscript(e);
      Op op = sema::operator_of(fn);
      if (fn.max_args == 1) return unary_code(op, i.operand, a);
      if (!i.pair_operands.empty()) return compare_code(op, i.pair_operands[0], a, argument(1));
      return binary_code(op, i.operand, emit_as(a, ot), info(a), argument(1));
    }
  }
  throw std::logic_error("unknown intrinsic");
}

std::optional<PythonLine> Emitter::where(const Expr& e) const { return fn_.python_line(e.span); }

void Emitter::note_warp_use(const Expr& e) {
  if (!module_.warp_use) module_.warp_use = where(e);
  if (!d_.warp_helpers.empty()) helpers_.define_once("simt_warp", std::string(d_.warp_helpers));
  // The kernel's own: device functions reach it only where the device has what
  // the helpers need without it (runtime::check_requirements).
  if (!self_ && !warp_storage_declared_ && !d_.warp_kernel_storage.empty()) {
    prologue_ += d_.warp_kernel_storage;
    warp_storage_declared_ = true;
  }
}

std::string Emitter::warp_call(std::string_view pattern, const std::string& mask,
                               const std::string& value, const std::string& lane) {
  return fill_pattern(
      pattern,
      {{"%m", mask}, {"%x", value}, {"%l", lane}, {"%s", std::to_string(module_.warp_sites++)}});
}

std::string Emitter::linear_thread() {
  auto at = [&](IndexObject o, int c) { return index_value(o, c); };
  return "(" + at(IndexObject::ThreadIdx, 0) + " + " + at(IndexObject::BlockDim, 0) + " * (" +
         at(IndexObject::ThreadIdx, 1) + " + " + at(IndexObject::BlockDim, 1) + " * " +
         at(IndexObject::ThreadIdx, 2) + "))";
}

std::string Emitter::lane_id() { return "((int)(" + linear_thread() + " & 31))"; }

std::string Emitter::cpu_active_mask() {
  std::string threads = "(" + index_value(IndexObject::BlockDim, 0) + " * " +
                        index_value(IndexObject::BlockDim, 1) + " * " +
                        index_value(IndexObject::BlockDim, 2) + ")";
  std::string left = "(" + threads + " - (" + linear_thread() + " & ~(simt_i64)31))";
  return "(" + left + " >= 32 ? 0xffffffffu : (unsigned int)((1ull << " + left + ") - 1u))";
}

std::string Emitter::shared_counter_reduce(int k, const std::string& pred) {
  if (!shared_counter_declared_) {
    prologue_ += "  " + std::string(d_.shared_decl) + "int simt_sync_counter;\n";
    shared_counter_declared_ = true;
  }
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  std::string first = "(" + linear_thread() + " == 0)";
  line(std::string(d_.barrier));
  line("if " + first + " simt_sync_counter = 0;");
  line(std::string(d_.barrier));
  line("if (" + pred + ") atomic_inc(&simt_sync_counter);");
  line(std::string(d_.barrier));
  std::string threads = "(int)(" + index_value(IndexObject::BlockDim, 0) + " * " +
                        index_value(IndexObject::BlockDim, 1) + " * " +
                        index_value(IndexObject::BlockDim, 2) + ")";
  std::string value = k == 0   ? "simt_sync_counter"
                      : k == 1 ? "(simt_sync_counter == " + threads + ")"
                               : "(simt_sync_counter != 0)";
  line("int " + tmp + " = " + value + ";");
  line(std::string(d_.barrier));
  return tmp;
}

std::string Emitter::index_value(IndexObject object, int c) {
  return "((" + std::string(d_.value_type(Scalar::Int64)) + ")" +
         std::string(d_.index_expr(object, c)) + ")";
}

std::string Emitter::grid_component(sema::Rule rule, int c) {
  if (rule == sema::Rule::Grid)
    return "(" + index_value(IndexObject::BlockIdx, c) + " * " +
           std::string(d_.index_expr(IndexObject::BlockDim, c)) + " + " +
           std::string(d_.index_expr(IndexObject::ThreadIdx, c)) + ")";
  return "(" + index_value(IndexObject::BlockDim, c) + " * " +
         std::string(d_.index_expr(IndexObject::GridDim, c)) + ")";
}

}  // namespace simt::codegen::detail
