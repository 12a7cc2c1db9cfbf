// The table of everything a kernel can name that is not its own variable:
// builtins, the `math` and `numpy` functions, the simt device API, modules,
// dtypes and named constants. The inferencer types calls by each entry's
// rule and the emitter spells them through the dialect's tables; a new
// intrinsic is a new row here plus, where it needs one, a rule (a typing
// case, a lowering case and a test snippet).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "lang/ast.h"
#include "sema/types.h"

namespace simt::sema {

// How a call's argument types determine its result. Each rule is one case
// of the typing switch (sema/intrinsic_typing.cpp) and one of the lowering
// switch (codegen/emit_intrinsics.cpp), both in this order;
// tests/cpp/compiler/test_intrinsic_table.cpp types and emits every row.
enum class Rule : uint8_t {
  FloatUnary,      // math.sin: int/bool -> float64, floats keep their type
  FloatBinary,     // math.atan2: both promote, ints become float64
  Ldexp,           // math.ldexp(x, i): x's float type times 2**i
  FloatSplit,      // math.frexp(x) -> (float, int64), math.modf(x) -> (float, float)
  FloatPredicate,  // math.isnan: -> bool
  FloatToInt,      // math.floor: -> int64 (Python's math.floor returns int)
  FloatRound,      // numpy.floor: floats keep their type, ints become float64
  Abs,             // abs: same type; complex -> its real type
  MinMax,          // min/max of two or more numbers: promoted type
  CastInt,         // int(x)
  CastFloat,       // float(x)
  CastBool,        // bool(x)
  CastComplex,     // complex(re, im=0)
  Round,           // round(x) -> int64; round(x, n) -> x's float type
  Pow,             // pow(a, b): as a ** b
  Len,             // len(array) -> int64; len(tuple) -> constant
  Range,           // range(stop) / range(start, stop[, step])
  Print,           // print(*numbers_and_strings)
  Grid,            // simt.grid(ndim) -> int64 or a tuple of ndim int64
  GridSize,        // simt.gridsize(ndim)
  ArrayAlloc,      // simt.shared.array / simt.local.array(shape, dtype): c_name the space
  Barrier,         // simt.syncthreads()
  BarrierReduce,   // simt.syncthreads_count/and/or(pred) -> int32: c_name "count"/"and"/"or"
  Fence,           // simt.threadfence*(): c_name "device", "block", "system"
  Atomic,          // simt.atomic.<op>(array, index, value) -> old value: c_name the op
  AtomicCas,       // simt.atomic.cas(array, index, old, value) -> old value
  LaneId,          // simt.laneid (an attribute) -> int32
  WarpSize,        // simt.warpsize (an attribute) -> int32
  ActiveMask,      // simt.activemask() -> uint32
  ConstArrayLike,  // simt.const.array_like(global ndarray): the array as constant memory
  Shuffle,         // simt.shfl_*_sync(mask, value, lane): c_name "idx"/"up"/"down"/"xor"
  Vote,            // simt.ballot/all/any/eq_sync(mask, pred): c_name "ballot"/"all"/"any"/"eq"
  FloatTernary,    // fma(a, b, c): all promote, as FloatBinary (one rounding)
  IntBits,         // simt.popc/clz/ffs/brev(x) on an integer: c_name the helper; ffs -> int32
  Select,          // simt.selp(pred, a, b): a or b, promoted
  Enumerate,       // enumerate(x[, start]) in for loops: over a range or an array (a counted
                   // loop) or a tuple (unrolled)
  Zip,             // zip(a, b, ...) in for loops: of ranges, arrays and tuples (one counted
                   // loop) or of tuples only (unrolled)
  CompareAndSwap,  // simt.atomic.compare_and_swap(array, old, value): cas of a 1-D array's [0]
  SyncWarp,        // simt.syncwarp(mask=0xffffffff): the warp's lanes in mask wait for each other
  LaneMask,        // simt.lanemask_lt() -> uint32: the lanes below this one
  Match,  // simt.match_any/all_sync(mask, value): c_name "any" -> uint32, "all" -> (uint32, bool)
  // Numba's cuda.fp16.h*: arguments become float16; c_name the operation ("add", "sqrt", ...).
  HalfUnary,    // -> float16
  HalfBinary,   // -> float16
  HalfTernary,  // hfma -> float16, rounded once
  HalfCompare,  // heq, hne, ... -> bool: c_name the C operator
  // Numba's cuda.libdevice.<name>: c_name the name in sema/libdevice.h's table,
  // which gives the types and the code.
  Libdevice,
  // Numba's cooperative groups.
  ThisGrid,  // simt.cg.this_grid() -> a grid group (zero-size)
  GridSync,  // grid_group.sync(): every thread of the launch waits for the others
  // cmath: the argument becomes complex (float32 and float16 complex64, other numbers
  // complex128); c_name the C math name of the function.
  ComplexUnary,  // cmath.exp, cmath.sqrt, ... -> the complex type
  ComplexPhase,  // cmath.phase(z) -> the complex type's real type
  ComplexPolar,  // cmath.polar(z) -> (abs, phase)
  Reshape,       // a.reshape(shape): a C-contiguous view; a thread stops where the size differs
  ComplexRect,   // cmath.rect(r, phi) -> complex
  // operator.add, operator.lt, ...: the operator's own rule, c_name its Python spelling
  // ("+", "<", "not", "truth", "getitem"; "u-" and "u+" the unary ones).
  Operator,
};

// The C math functions with a complex form (cmath's, and NumPy's on complex numbers):
// exp, log, log10, sqrt and the trigonometric and hyperbolic functions and their
// inverses. codegen/complex_math.cpp has a helper for each.
bool has_complex_form(std::string_view c_name);
inline constexpr std::string_view kComplexForms[] = {
    "exp",  "log",  "log10", "sqrt", "sin",  "cos",   "tan",   "asin",
    "acos", "atan", "sinh",  "cosh", "tanh", "asinh", "acosh", "atanh"};

// Whether a rule makes the threads of a block (or a warp) wait for each
// other: such calls split CPU kernels into regions (codegen/emit_regions.cpp).
bool is_collective(Rule rule);

struct Intrinsic {
  std::string_view name;  // qualified: "math.sin", "builtins.range", "simt.grid"
  Rule rule;
  std::string_view c_name;  // the C math name (float64 spelling) where Rule is a math rule
  uint8_t min_args;
  uint8_t max_args;  // 255: any number
  bool pure = true;  // false: has effects, may not be evaluated twice or dropped
  // The parameter names, comma separated, where keyword arguments are
  // accepted (`shared.array(shape=..., dtype=...)`); empty: positional only.
  std::string_view keywords = "";
};

// The operator an operator.* row (Rule::Operator) applies: its c_name read
// as Python writes the operator ("u-", "u+": the unary ones).
lang::Op operator_of(const Intrinsic& fn);

// Whether `op` is one of the six ordering and equality comparisons.
bool is_comparison(lang::Op op);

// The array (or tuple) and the index of a subscript: `a[i]`, or the call
// `operator.getitem(a, i)`.
inline const lang::Expr& subscript_base(const lang::Expr& e) {
  return e.kind == lang::ExprKind::Call ? *e.items[1] : *e.items[0];
}
inline const lang::Expr& subscript_index(const lang::Expr& e) {
  return e.kind == lang::ExprKind::Call ? *e.items[2] : *e.items[1];
}

// The intrinsic with this qualified name, or nullptr.
const Intrinsic* find_intrinsic(std::string_view qualified_name);
// Every row, for tests that walk the table.
std::span<const Intrinsic> intrinsic_table();

// What `module.attribute` (or a builtin name, as "builtins.name") denotes
// other than an intrinsic: a sub-namespace, a dtype, a named constant or a
// thread-index object.
struct NamespaceMember {
  enum class Kind { Module, DType, FloatConstant, Dim3 } kind;
  std::string_view target;  // Module: its canonical name; Dim3: canonical object name
  Scalar dtype = Scalar::Float64;
  double value = 0;  // FloatConstant
};
std::optional<NamespaceMember> find_member(std::string_view module, std::string_view attribute);

// The canonical name of a module the Python side reports by its import name
// ("numpy" for np, "simt" for simt and simt.cuda); nullopt for modules that
// kernels cannot use.
std::optional<std::string_view> canonical_module(std::string_view module_name);

}  // namespace simt::sema
