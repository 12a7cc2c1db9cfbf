#include "sema/intrinsics.h"

#include <array>
#include <string>
#include <utility>

#include "sema/libdevice.h"

namespace simt::sema {

namespace {

constexpr uint8_t kAny = 255;

// Functions shared by Python's math module and NumPy (NumPy's spelling may
// differ: arcsin for asin); both map to one C math name.
#define SIMT_MATH_UNARY(py, c) \
  { "math." py, Rule::FloatUnary, c, 1, 1 }
// NumPy's take an output array second (`np.sin(x, out)`: intrinsic_typing.cpp).
#define SIMT_NUMPY_UNARY(py, c) \
  { "numpy." py, Rule::FloatUnary, c, 1, 2 }

constexpr Intrinsic kIntrinsics[] = {
    // Python builtins.
    {"builtins.range", Rule::Range, "", 1, 3},
    {"builtins.len", Rule::Len, "", 1, 1},
    {"builtins.abs", Rule::Abs, "fabs", 1, 1},
    {"builtins.min", Rule::MinMax, "fmin", 2, kAny},
    {"builtins.max", Rule::MinMax, "fmax", 2, kAny},
    {"builtins.int", Rule::CastInt, "", 1, 1},
    {"builtins.float", Rule::CastFloat, "", 1, 1},
    {"builtins.bool", Rule::CastBool, "", 1, 1},
    {"builtins.complex", Rule::CastComplex, "", 1, 2},
    {"builtins.round", Rule::Round, "rint", 1, 2},
    {"builtins.pow", Rule::Pow, "pow", 2, 2},
    {"builtins.print", Rule::Print, "", 0, kAny, false},
    {"builtins.enumerate", Rule::Enumerate, "", 1, 2},
    {"builtins.zip", Rule::Zip, "", 1, kAny},

    // The simt device API (also reached as numba's cuda.grid).
    {"simt.grid", Rule::Grid, "", 1, 1},
    {"simt.gridsize", Rule::GridSize, "", 1, 1},
    {"simt.shared.array", Rule::ArrayAlloc, "shared", 2, 2, true, "shape,dtype"},
    {"simt.local.array", Rule::ArrayAlloc, "local", 2, 2, true, "shape,dtype"},
    {"simt.const.array_like", Rule::ConstArrayLike, "", 1, 1},
    {"simt.syncthreads", Rule::Barrier, "", 0, 0, false},
    {"simt.syncthreads_count", Rule::BarrierReduce, "count", 1, 1, false},
    {"simt.syncthreads_and", Rule::BarrierReduce, "and", 1, 1, false},
    {"simt.syncthreads_or", Rule::BarrierReduce, "or", 1, 1, false},
    {"simt.threadfence", Rule::Fence, "device", 0, 0, false},
    {"simt.threadfence_block", Rule::Fence, "block", 0, 0, false},
    {"simt.threadfence_system", Rule::Fence, "system", 0, 0, false},
    {"simt.atomic.add", Rule::Atomic, "add", 3, 3, false},
    {"simt.atomic.sub", Rule::Atomic, "sub", 3, 3, false},
    {"simt.atomic.min", Rule::Atomic, "min", 3, 3, false},
    {"simt.atomic.max", Rule::Atomic, "max", 3, 3, false},
    {"simt.atomic.and_", Rule::Atomic, "and", 3, 3, false},
    {"simt.atomic.or_", Rule::Atomic, "or", 3, 3, false},
    {"simt.atomic.xor", Rule::Atomic, "xor", 3, 3, false},
    {"simt.atomic.exch", Rule::Atomic, "exch", 3, 3, false},
    {"simt.atomic.inc", Rule::Atomic, "inc", 3, 3, false},
    {"simt.atomic.dec", Rule::Atomic, "dec", 3, 3, false},
    {"simt.atomic.cas", Rule::AtomicCas, "cas", 4, 4, false},
    {"simt.atomic.compare_and_swap", Rule::CompareAndSwap, "cas", 3, 3, false},
    // NaN is a missing value: the other operand wins (ints: min and max).
    {"simt.atomic.nanmin", Rule::Atomic, "nanmin", 3, 3, false},
    {"simt.atomic.nanmax", Rule::Atomic, "nanmax", 3, 3, false},
    {"simt.laneid", Rule::LaneId, "", 0, 0},
    {"simt.warpsize", Rule::WarpSize, "", 0, 0},
    {"simt.activemask", Rule::ActiveMask, "", 0, 0, false},
    {"simt.shfl_sync", Rule::Shuffle, "idx", 3, 3, false},
    {"simt.shfl_up_sync", Rule::Shuffle, "up", 3, 3, false},
    {"simt.shfl_down_sync", Rule::Shuffle, "down", 3, 3, false},
    {"simt.shfl_xor_sync", Rule::Shuffle, "xor", 3, 3, false},
    {"simt.ballot_sync", Rule::Vote, "ballot", 2, 2, false},
    {"simt.all_sync", Rule::Vote, "all", 2, 2, false},
    {"simt.any_sync", Rule::Vote, "any", 2, 2, false},
    {"simt.eq_sync", Rule::Vote, "eq", 2, 2, false},
    {"simt.syncwarp", Rule::SyncWarp, "", 0, 1, false},
    {"simt.lanemask_lt", Rule::LaneMask, "", 0, 0},
    {"simt.match_any_sync", Rule::Match, "any", 2, 2, false},
    {"simt.match_all_sync", Rule::Match, "all", 2, 2, false},
    // Numba's cuda.cg: the grid group and its barrier. The method is reached
    // only as an attribute of a grid group (infer_access.cpp), never by this name.
    {"simt.cg.this_grid", Rule::ThisGrid, "", 0, 0},
    {"simt.cg.grid_group.sync", Rule::GridSync, "", 0, 0, false},
    // Numba's cuda.* arithmetic (cuda.popc, cuda.fma, ...).
    {"simt.popc", Rule::IntBits, "popc", 1, 1},
    {"simt.clz", Rule::IntBits, "clz", 1, 1},
    {"simt.ffs", Rule::IntBits, "ffs", 1, 1},
    {"simt.brev", Rule::IntBits, "brev", 1, 1},
    {"simt.fma", Rule::FloatTernary, "fma", 3, 3},
    {"simt.cbrt", Rule::FloatUnary, "cbrt", 1, 1},
    {"simt.selp", Rule::Select, "", 3, 3},
    // int.bit_count(x), also written as a method: x.bit_count() (popcount of |x|).
    {"int.bit_count", Rule::IntBits, "bit_count", 1, 1},
    // The operator module: each function is its operator's rule (no arithmetic of its own).
    {"operator.add", Rule::Operator, "+", 2, 2},
    {"operator.sub", Rule::Operator, "-", 2, 2},
    {"operator.mul", Rule::Operator, "*", 2, 2},
    {"operator.truediv", Rule::Operator, "/", 2, 2},
    {"operator.floordiv", Rule::Operator, "//", 2, 2},
    {"operator.mod", Rule::Operator, "%", 2, 2},
    {"operator.pow", Rule::Operator, "**", 2, 2},
    {"operator.and_", Rule::Operator, "&", 2, 2},
    {"operator.or_", Rule::Operator, "|", 2, 2},
    {"operator.xor", Rule::Operator, "^", 2, 2},
    {"operator.lshift", Rule::Operator, "<<", 2, 2},
    {"operator.rshift", Rule::Operator, ">>", 2, 2},
    {"operator.lt", Rule::Operator, "<", 2, 2},
    {"operator.le", Rule::Operator, "<=", 2, 2},
    {"operator.eq", Rule::Operator, "==", 2, 2},
    {"operator.ne", Rule::Operator, "!=", 2, 2},
    {"operator.ge", Rule::Operator, ">=", 2, 2},
    {"operator.gt", Rule::Operator, ">", 2, 2},
    {"operator.neg", Rule::Operator, "u-", 1, 1},
    {"operator.pos", Rule::Operator, "u+", 1, 1},
    {"operator.invert", Rule::Operator, "~", 1, 1},
    {"operator.inv", Rule::Operator, "~", 1, 1},
    {"operator.not_", Rule::Operator, "not", 1, 1},
    {"operator.truth", Rule::Operator, "truth", 1, 1},
    {"operator.index", Rule::Operator, "index", 1, 1},
    {"operator.getitem", Rule::Operator, "getitem", 2, 2},
    {"operator.abs", Rule::Abs, "fabs", 1, 1},
    // Numba's cuda.fp16: float16 in, each result rounded to float16 once (as NumPy's).
    {"simt.fp16.hneg", Rule::HalfUnary, "neg", 1, 1},
    {"simt.fp16.habs", Rule::HalfUnary, "abs", 1, 1},
    {"simt.fp16.hsqrt", Rule::HalfUnary, "sqrt", 1, 1},
    {"simt.fp16.hrsqrt", Rule::HalfUnary, "rsqrt", 1, 1},
    {"simt.fp16.hrcp", Rule::HalfUnary, "rcp", 1, 1},
    {"simt.fp16.hexp", Rule::HalfUnary, "exp", 1, 1},
    {"simt.fp16.hexp2", Rule::HalfUnary, "exp2", 1, 1},
    {"simt.fp16.hexp10", Rule::HalfUnary, "exp10", 1, 1},
    {"simt.fp16.hlog", Rule::HalfUnary, "log", 1, 1},
    {"simt.fp16.hlog2", Rule::HalfUnary, "log2", 1, 1},
    {"simt.fp16.hlog10", Rule::HalfUnary, "log10", 1, 1},
    {"simt.fp16.hsin", Rule::HalfUnary, "sin", 1, 1},
    {"simt.fp16.hcos", Rule::HalfUnary, "cos", 1, 1},
    {"simt.fp16.hceil", Rule::HalfUnary, "ceil", 1, 1},
    {"simt.fp16.hfloor", Rule::HalfUnary, "floor", 1, 1},
    {"simt.fp16.hrint", Rule::HalfUnary, "rint", 1, 1},
    {"simt.fp16.htrunc", Rule::HalfUnary, "trunc", 1, 1},
    {"simt.fp16.hadd", Rule::HalfBinary, "add", 2, 2},
    {"simt.fp16.hsub", Rule::HalfBinary, "sub", 2, 2},
    {"simt.fp16.hmul", Rule::HalfBinary, "mul", 2, 2},
    {"simt.fp16.hdiv", Rule::HalfBinary, "div", 2, 2},
    {"simt.fp16.hmax", Rule::HalfBinary, "max", 2, 2},
    {"simt.fp16.hmin", Rule::HalfBinary, "min", 2, 2},
    {"simt.fp16.hfma", Rule::HalfTernary, "fma", 3, 3},
    {"simt.fp16.heq", Rule::HalfCompare, "==", 2, 2},
    {"simt.fp16.hne", Rule::HalfCompare, "!=", 2, 2},
    {"simt.fp16.hgt", Rule::HalfCompare, ">", 2, 2},
    {"simt.fp16.hge", Rule::HalfCompare, ">=", 2, 2},
    {"simt.fp16.hlt", Rule::HalfCompare, "<", 2, 2},
    {"simt.fp16.hle", Rule::HalfCompare, "<=", 2, 2},

// cmath: complex results (isnan, isinf and isfinite take complex numbers too).
#define SIMT_CMATH_UNARY(py) \
  { "cmath." py, Rule::ComplexUnary, py, 1, 1 }
    SIMT_CMATH_UNARY("exp"),
    // cmath.log(z, base) too: log(z) / log(base).
    {"cmath.log", Rule::ComplexUnary, "log", 1, 2},
    SIMT_CMATH_UNARY("log10"),
    SIMT_CMATH_UNARY("sqrt"),
    SIMT_CMATH_UNARY("sin"),
    SIMT_CMATH_UNARY("cos"),
    SIMT_CMATH_UNARY("tan"),
    SIMT_CMATH_UNARY("asin"),
    SIMT_CMATH_UNARY("acos"),
    SIMT_CMATH_UNARY("atan"),
    SIMT_CMATH_UNARY("sinh"),
    SIMT_CMATH_UNARY("cosh"),
    SIMT_CMATH_UNARY("tanh"),
    SIMT_CMATH_UNARY("asinh"),
    SIMT_CMATH_UNARY("acosh"),
    SIMT_CMATH_UNARY("atanh"),
#undef SIMT_CMATH_UNARY
    // z.conjugate(), as a method only (a receiver that is complex).
    {"complex.conjugate", Rule::ComplexUnary, "conjugate", 1, 1},
    // a.reshape(shape) / a.reshape(d0, d1, ...), as a method only (an array receiver). Not
    // pure: a shape of another size stops the thread (prepare() hoists it).
    {"array.reshape", Rule::Reshape, "reshape", 2, 255, false},
    {"cmath.phase", Rule::ComplexPhase, "atan2", 1, 1},
    // (abs, phase) into temporaries, as frexp's parts (codegen/emit_calls.cpp).
    {"cmath.polar", Rule::ComplexPolar, "", 1, 1, false},
    {"cmath.rect", Rule::ComplexRect, "", 2, 2},
    {"cmath.isnan", Rule::FloatPredicate, "isnan", 1, 1},
    {"cmath.isinf", Rule::FloatPredicate, "isinf", 1, 1},
    {"cmath.isfinite", Rule::FloatPredicate, "isfinite", 1, 1},

    // math: one argument, float result.
    SIMT_MATH_UNARY("sin", "sin"),
    SIMT_MATH_UNARY("cos", "cos"),
    SIMT_MATH_UNARY("tan", "tan"),
    SIMT_MATH_UNARY("asin", "asin"),
    SIMT_MATH_UNARY("acos", "acos"),
    SIMT_MATH_UNARY("atan", "atan"),
    SIMT_MATH_UNARY("sinh", "sinh"),
    SIMT_MATH_UNARY("cosh", "cosh"),
    SIMT_MATH_UNARY("tanh", "tanh"),
    SIMT_MATH_UNARY("asinh", "asinh"),
    SIMT_MATH_UNARY("acosh", "acosh"),
    SIMT_MATH_UNARY("atanh", "atanh"),
    SIMT_MATH_UNARY("exp", "exp"),
    SIMT_MATH_UNARY("exp2", "exp2"),
    SIMT_MATH_UNARY("expm1", "expm1"),
    {"math.log", Rule::FloatUnary, "log", 1, 2},  // math.log(x, base) too
    SIMT_MATH_UNARY("log2", "log2"),
    SIMT_MATH_UNARY("log10", "log10"),
    SIMT_MATH_UNARY("log1p", "log1p"),
    SIMT_MATH_UNARY("sqrt", "sqrt"),
    SIMT_MATH_UNARY("cbrt", "cbrt"),
    SIMT_MATH_UNARY("erf", "erf"),
    SIMT_MATH_UNARY("erfc", "erfc"),
    SIMT_MATH_UNARY("gamma", "tgamma"),
    SIMT_MATH_UNARY("lgamma", "lgamma"),
    SIMT_MATH_UNARY("fabs", "fabs"),
    {"math.degrees", Rule::FloatUnary, "simt_degrees", 1, 1},
    {"math.radians", Rule::FloatUnary, "simt_radians", 1, 1},
    // math: two arguments.
    {"math.atan2", Rule::FloatBinary, "atan2", 2, 2},
    {"math.hypot", Rule::FloatBinary, "hypot", 2, 2},
    {"math.copysign", Rule::FloatBinary, "copysign", 2, 2},
    {"math.fmod", Rule::FloatBinary, "fmod", 2, 2},
    {"math.pow", Rule::FloatBinary, "pow", 2, 2},
    {"math.remainder", Rule::FloatBinary, "remainder", 2, 2},
    {"math.nextafter", Rule::FloatBinary, "nextafter", 2, 2},
    {"math.fma", Rule::FloatTernary, "fma", 3, 3},
    {"math.ldexp", Rule::Ldexp, "ldexp", 2, 2},
    // Two results through a pointer in C: evaluated into temporaries.
    {"math.frexp", Rule::FloatSplit, "frexp", 1, 1, false},
    {"math.modf", Rule::FloatSplit, "modf", 1, 1, false},
    // math: predicates and rounding to int.
    {"math.isnan", Rule::FloatPredicate, "isnan", 1, 1},
    {"math.isinf", Rule::FloatPredicate, "isinf", 1, 1},
    {"math.isfinite", Rule::FloatPredicate, "isfinite", 1, 1},
    {"math.floor", Rule::FloatToInt, "floor", 1, 1},
    {"math.ceil", Rule::FloatToInt, "ceil", 1, 1},
    {"math.trunc", Rule::FloatToInt, "trunc", 1, 1},

    // NumPy's ufuncs on scalars.
    SIMT_NUMPY_UNARY("sin", "sin"),
    SIMT_NUMPY_UNARY("cos", "cos"),
    SIMT_NUMPY_UNARY("tan", "tan"),
    SIMT_NUMPY_UNARY("arcsin", "asin"),
    SIMT_NUMPY_UNARY("arccos", "acos"),
    SIMT_NUMPY_UNARY("arctan", "atan"),
    SIMT_NUMPY_UNARY("sinh", "sinh"),
    SIMT_NUMPY_UNARY("cosh", "cosh"),
    SIMT_NUMPY_UNARY("tanh", "tanh"),
    SIMT_NUMPY_UNARY("arcsinh", "asinh"),
    SIMT_NUMPY_UNARY("arccosh", "acosh"),
    SIMT_NUMPY_UNARY("arctanh", "atanh"),
    SIMT_NUMPY_UNARY("exp", "exp"),
    SIMT_NUMPY_UNARY("exp2", "exp2"),
    SIMT_NUMPY_UNARY("expm1", "expm1"),
    SIMT_NUMPY_UNARY("log", "log"),
    SIMT_NUMPY_UNARY("log2", "log2"),
    SIMT_NUMPY_UNARY("log10", "log10"),
    SIMT_NUMPY_UNARY("log1p", "log1p"),
    SIMT_NUMPY_UNARY("sqrt", "sqrt"),
    SIMT_NUMPY_UNARY("cbrt", "cbrt"),
    SIMT_NUMPY_UNARY("fabs", "fabs"),
    {"numpy.floor", Rule::FloatRound, "floor", 1, 2},
    {"numpy.ceil", Rule::FloatRound, "ceil", 1, 2},
    {"numpy.trunc", Rule::FloatRound, "trunc", 1, 2},
    {"numpy.rint", Rule::FloatRound, "rint", 1, 2},
    {"numpy.arctan2", Rule::FloatBinary, "atan2", 2, 2},
    {"numpy.hypot", Rule::FloatBinary, "hypot", 2, 2},
    {"numpy.copysign", Rule::FloatBinary, "copysign", 2, 2},
    {"numpy.nextafter", Rule::FloatBinary, "nextafter", 2, 2},
    {"numpy.isnan", Rule::FloatPredicate, "isnan", 1, 1},
    {"numpy.isinf", Rule::FloatPredicate, "isinf", 1, 1},
    {"numpy.isfinite", Rule::FloatPredicate, "isfinite", 1, 1},
    {"numpy.abs", Rule::Abs, "fabs", 1, 1},
    {"numpy.absolute", Rule::Abs, "fabs", 1, 1},
    {"numpy.minimum", Rule::MinMax, "fmin", 2, 2},
    {"numpy.maximum", Rule::MinMax, "fmax", 2, 2},
};

#undef SIMT_MATH_UNARY
#undef SIMT_NUMPY_UNARY

struct Member {
  std::string_view module;
  std::string_view attribute;
  NamespaceMember member;
};

const Member kMembers[] = {
    {"math", "pi", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 3.141592653589793}},
    {"math", "e", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 2.718281828459045}},
    {"math", "tau", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 6.283185307179586}},
    {"math", "inf", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_inf()}},
    {"math", "nan", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_nan("")}},
    {"cmath", "pi", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 3.141592653589793}},
    {"cmath", "e", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 2.718281828459045}},
    {"cmath",
     "tau",
     {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 6.283185307179586}},
    {"cmath", "inf", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_inf()}},
    {"cmath",
     "nan",
     {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_nan("")}},
    {"numpy", "pi", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 3.141592653589793}},
    {"numpy", "e", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, 2.718281828459045}},
    {"numpy", "inf", {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_inf()}},
    {"numpy",
     "nan",
     {NamespaceMember::Kind::FloatConstant, "", Scalar::Float64, __builtin_nan("")}},
    {"simt", "cuda", {NamespaceMember::Kind::Module, "simt"}},
    {"simt", "shared", {NamespaceMember::Kind::Module, "simt.shared"}},
    {"simt", "local", {NamespaceMember::Kind::Module, "simt.local"}},
    {"simt", "atomic", {NamespaceMember::Kind::Module, "simt.atomic"}},
    {"simt", "const", {NamespaceMember::Kind::Module, "simt.const"}},
    {"simt", "fp16", {NamespaceMember::Kind::Module, "simt.fp16"}},
    {"simt", "libdevice", {NamespaceMember::Kind::Module, "simt.libdevice"}},
    // Numba's cuda.random: its device functions are simt.funcs the Python
    // side resolves as globals named "simt.random.<name>".
    {"simt", "random", {NamespaceMember::Kind::Module, "simt.random"}},
    {"simt", "cg", {NamespaceMember::Kind::Module, "simt.cg"}},
    {"simt", "thread_idx", {NamespaceMember::Kind::Dim3, "thread_idx"}},
    {"simt", "threadIdx", {NamespaceMember::Kind::Dim3, "thread_idx"}},
    {"simt", "block_idx", {NamespaceMember::Kind::Dim3, "block_idx"}},
    {"simt", "blockIdx", {NamespaceMember::Kind::Dim3, "block_idx"}},
    {"simt", "block_dim", {NamespaceMember::Kind::Dim3, "block_dim"}},
    {"simt", "blockDim", {NamespaceMember::Kind::Dim3, "block_dim"}},
    {"simt", "grid_dim", {NamespaceMember::Kind::Dim3, "grid_dim"}},
    {"simt", "gridDim", {NamespaceMember::Kind::Dim3, "grid_dim"}},
};

}  // namespace

bool has_complex_form(std::string_view c_name) {
  for (std::string_view name : kComplexForms)
    if (name == c_name) return true;
  return false;
}

bool is_collective(Rule rule) {
  switch (rule) {
    case Rule::Barrier:
    case Rule::BarrierReduce:
    case Rule::Shuffle:
    case Rule::Vote:
    case Rule::SyncWarp:
    case Rule::Match:
    case Rule::GridSync:
      return true;
    default:
      return false;
  }
}

const Intrinsic* find_intrinsic(std::string_view qualified_name) {
  for (const auto& entry : kIntrinsics)
    if (entry.name == qualified_name) return &entry;
  return find_libdevice_intrinsic(qualified_name);
}

std::span<const Intrinsic> intrinsic_table() { return kIntrinsics; }

lang::Op operator_of(const Intrinsic& fn) {
  using lang::Op;
  static constexpr std::pair<std::string_view, Op> kSpellings[] = {
      {"+", Op::Add},       {"-", Op::Sub},    {"*", Op::Mul},     {"/", Op::Div},
      {"//", Op::FloorDiv}, {"%", Op::Mod},    {"**", Op::Pow},    {"&", Op::BitAnd},
      {"|", Op::BitOr},     {"^", Op::BitXor}, {"<<", Op::LShift}, {">>", Op::RShift},
      {"<", Op::Lt},        {"<=", Op::LtE},   {"==", Op::Eq},     {"!=", Op::NotEq},
      {">=", Op::GtE},      {">", Op::Gt},     {"u-", Op::Sub},    {"u+", Op::Add},
      {"~", Op::Invert},    {"not", Op::Not}};
  for (const auto& [text, op] : kSpellings)
    if (text == fn.c_name) return op;
  return Op::Add;
}

bool is_comparison(lang::Op op) {
  using lang::Op;
  return op == Op::Lt || op == Op::LtE || op == Op::Eq || op == Op::NotEq || op == Op::GtE ||
         op == Op::Gt;
}

std::optional<NamespaceMember> find_member(std::string_view module, std::string_view attribute) {
  for (const auto& m : kMembers)
    if (m.module == module && m.attribute == attribute) return m.member;
  // Dtypes are members of numpy and simt under NumPy's names (np.float32,
  // simt.int8) and of builtins under Python's (int, float, bool, complex).
  bool dtype_namespace = module == "numpy" || module == "simt";
  bool python_type = module == "builtins" && (attribute == "int" || attribute == "float" ||
                                              attribute == "bool" || attribute == "complex");
  if (dtype_namespace || python_type) {
    if (auto s = scalar_from_name(attribute)) {
      NamespaceMember m{NamespaceMember::Kind::DType, ""};
      m.dtype = *s;
      return m;
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> canonical_module(std::string_view module_name) {
  if (module_name == "math") return "math";
  if (module_name == "cmath") return "cmath";
  if (module_name == "numpy") return "numpy";
  if (module_name == "operator") return "operator";
  if (module_name == "simt" || module_name == "simt.cuda" || module_name == "numba.cuda")
    return "simt";
  return std::nullopt;
}

}  // namespace simt::sema
