// Type inference: one typed view of a parsed function per argument-type
// signature, kept beside the tree (the tree itself is shared).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "abi/kernel_abi.h"
#include "lang/ast.h"
#include "lang/source.h"
#include "sema/intrinsics.h"
#include "sema/types.h"

namespace simt::sema {

// A compile-time value: a literal, a resolved global constant, or an
// integer expression folded from those.
struct Constant {
  Type type;                    // a Scalar type (weak for Python numbers)
  int64_t int_value = 0;        // integers and bool (uint64 values above 2**63 wrap)
  double real = 0;              // floats; complex real part
  double imag = 0;              // complex imaginary part
  std::vector<Constant> items;  // a tuple of constants (type is then a Tuple)
};

struct DeviceFunctionSource;

// Source text compiled into a kernel beside the generated code
// (`cuda.jit(link=[...])`, `declare_device(..., link=...)`, `cuda.CUSource`),
// by the dialects of the languages it is written in.
struct LinkedSource {
  std::string origin;  // the file's path, or "CUSource"
  std::string text;
  std::vector<abi::Language> languages;
  // A translation (CUDA C++ as OpenCL C, _cuda_to_opencl.py): linked only for a
  // function that no source written in the device's own language is linked for.
  bool translated = false;
};

// A device function written in CUDA C++, OpenCL C or C++ (Numba's
// `declare_device`), called with Numba's ABI: `int symbol(R* result,
// P...)`; the int (Numba's exception status) is ignored.
struct ForeignFunction {
  struct Param {
    Scalar scalar = Scalar::Int64;
    bool pointer = false;  // `CPointer(float32)`: an array's data pointer
  };
  std::string name;    // the Python name of the declaration, for errors
  std::string symbol;  // the C symbol
  Type result;         // a scalar, or None
  std::vector<Param> params;
  std::vector<LinkedSource> sources;  // its own link=
  // declare_device(abi="c"): `T f(args...)` returns its result; else Numba's ABI, `int
  // f(T* result, args...)`, the int ignored.
  bool c_abi = false;
};

// What a free name resolved to on the Python side: the value of a global,
// closure variable or builtin the kernel reads.
struct GlobalValue {
  // Member: an attribute of a module bound to a name (`from simt import
  // threadIdx`). Unsupported: a value kernels cannot use; `name` says what
  // it is, for the error at its use. DeviceFunction: a `@simt.func`.
  // ConstArray: a NumPy array read at compile time (dtype, shape, bytes).
  enum class Kind {
    Module,
    Function,
    DType,
    Constant,
    Tuple,
    Member,
    Unsupported,
    DeviceFunction,
    ConstArray,
    Foreign,
    Exception,
    TupleClass
  };
  Kind kind = Kind::Constant;
  std::string name;                // Module: "math"/"numpy"/"simt"; Function: qualified name;
                                   // Member: the module; Unsupported: a description
  std::string attribute;           // Member
  Scalar dtype = Scalar::Int64;    // DType
  abi::RecordRef record;           // DType, ConstArray: a record dtype (np.dtype([...]))
  Constant constant;               // Constant
  std::vector<GlobalValue> items;  // Tuple (of constants); TupleClass: the defaults of its
                                   // last fields
  // Tuple: a named tuple's field names (else empty); TupleClass: its fields.
  std::vector<std::string> fields;
  std::shared_ptr<const DeviceFunctionSource> function;  // DeviceFunction
  std::vector<int64_t> shape;                            // ConstArray: extents
  std::shared_ptr<const std::string> bytes;              // ConstArray: C-ordered data
  std::shared_ptr<const ForeignFunction> foreign;        // Foreign
  // Exception: a class derived from BaseException, `name` its name and
  // `constant.int_value` the key the host finds the class by after a launch.
  // TupleClass: a named tuple class (collections.namedtuple, typing.NamedTuple),
  // `name` its name: calling it in a kernel makes a named tuple.
};
using Globals = std::map<std::string, GlobalValue, std::less<>>;

// The parsed source of one `@simt.func` and its resolved globals. Shared:
// every kernel (and device function) calling it points at the same one, and
// typed results keep it alive.
// A signature a device function was declared with (Numba's `cuda.jit("int32(int32)",
// device=True)`): its calls convert their arguments to `params`, and its result to `result`.
struct DeclaredSignature {
  std::optional<Type> result;  // none: the result is inferred
  std::vector<Type> params;
};

struct DeviceFunctionSource {
  std::string name;  // the Python function's name
  std::shared_ptr<const lang::SourceText> source;
  std::shared_ptr<const lang::ParsedFunction> parsed;
  Globals globals;  // its own free names, resolved
  // Empty: specialized on its arguments' types; else these, the first that the
  // arguments convert to.
  std::vector<DeclaredSignature> declared;
};

struct TypedDeviceFunction;

// What one parameter of a called device function receives: the argument
// written at the call (positional or keyword), or else its default value.
struct CallArgument {
  const lang::Expr* expr = nullptr;  // null: `default_value` is passed
  Constant default_value;
};

// Every value an integer expression takes lies in [lo, hi] (sema/infer_ranges.cpp).
struct ValueRange {
  int64_t lo = 0;
  int64_t hi = 0;
  bool operator==(const ValueRange&) const = default;
};

// `a op b` (+, -, *) computed in `operand`'s type: its range where no value of the
// operands' ranges can make it wrap, else none (then C must compute it wrapping).
std::optional<ValueRange> arith_range(lang::Op op, const std::optional<ValueRange>& a,
                                      const std::optional<ValueRange>& b, const Type& operand);
std::optional<ValueRange> join_ranges(const std::optional<ValueRange>& a,
                                      const std::optional<ValueRange>& b);
// Whether every value of `r` (known) is a value of the integer type `t`: converting
// to `t` keeps it.
bool range_within(const std::optional<ValueRange>& r, const Type& t);

struct ExprInfo {
  Type type;
  int local = -1;                    // Name: index into TypedFunction::locals
  std::optional<Constant> constant;  // known at compile time
  // Unary/Binary: the type operands are converted to before the operation
  // (int / int computes in float64; comparisons in the promoted type).
  Type operand;
  std::vector<Type> pair_operands;       // Compare: one per comparison in the chain
  const Intrinsic* intrinsic = nullptr;  // Call of an intrinsic
  // Call of a device function: the specialization called (owned by the
  // kernel's TypedFunction::functions) and what each callee parameter gets.
  const TypedDeviceFunction* function = nullptr;
  std::vector<CallArgument> arguments;  // one per callee parameter, in order
  // Call of a foreign function (owned by TypedFunction::foreign).
  const ForeignFunction* foreign = nullptr;
  bool nonnegative = false;  // provably >= 0: indexing skips wraparound
  // An integer's values (a tuple's: every item's); none: any of its type's.
  std::optional<ValueRange> value_range;
  // Call of simt.shared.array / simt.local.array: the extents (a dynamic
  // shared array, `shared.array(0, dtype)`, has the one extent 0).
  std::vector<int64_t> shape;
  // Call of an intrinsic taking keyword arguments: the argument of each
  // parameter in order (positional or keyword).
  std::vector<const lang::Expr*> ordered_args;
  // A global NumPy array (a Name), or simt.const.array_like of one: its
  // C-ordered bytes (extents in `shape`), which the generated code holds as a
  // constant array.
  std::shared_ptr<const std::string> const_array;
  std::string const_array_name;  // the global's name
  // A raise statement (TypedFunction::stmts): the exception's class name and
  // its message as str() shows it; `constant` holds the class's key.
  std::string raised_class;
  std::string raised_message;
  // Call of a named tuple class: the tuple it makes, whose items are
  // `arguments` (one per field, in order).
  bool makes_tuple = false;
};

struct LocalVar {
  std::string name;
  Type type;         // concrete (never weak) once inference ends
  lang::Span first;  // first binding (the parameter for parameters)
  bool is_param = false;
  bool annotated = false;  // its type was declared (`x: float32`), not inferred
};

struct TypedFunction {
  const lang::ParsedFunction* parsed = nullptr;
  const lang::SourceText* source = nullptr;
  std::vector<LocalVar> locals;   // parameters first, in order
  std::vector<Type> param_types;  // the C parameters' types, one per parameter
  std::unordered_map<const lang::Expr*, ExprInfo> exprs;
  // AugAssign statements: the operation `target op value` (operand and
  // result types), as an ExprInfo of the implied binary expression.
  std::unordered_map<const lang::Stmt*, ExprInfo> stmts;
  // Device functions: the join of every `return value` (None when no
  // return has a value). Always None for kernels.
  Type return_type = Type::none();
  // A thread may raise here: a raise statement, or a call of a device
  // function that raises. A caller of such a device function tests a status
  // after each call and leaves as the callee did (codegen/emit_raise.cpp).
  bool raises = false;
  // Kernels: the bytes of dynamic shared memory a constant index into the
  // dynamic shared array needs (`s[31]` of float64: 256), and where; a launch
  // giving fewer is an error (runtime::validate_shared_memory).
  int64_t dynamic_shared_need = 0;
  lang::Span dynamic_shared_use;
  // The device-function specializations this function calls, in order of
  // first call.
  std::vector<const TypedDeviceFunction*> callees;
  // The foreign functions this function calls (not its callees'), kept alive
  // for the emitter.
  std::vector<std::shared_ptr<const ForeignFunction>> foreign;
  // The kernel only: every specialization reachable from it, callees before
  // their callers (the order to emit them in). Owns them.
  std::vector<std::shared_ptr<const TypedDeviceFunction>> functions;

  size_t param_count() const { return parsed->def.params.size(); }
  const ExprInfo& at(const lang::Expr& e) const { return exprs.at(&e); }
  const ExprInfo& at(const lang::Stmt& s) const { return stmts.at(&s); }
  // The user's line at `span` (file, line, its text, column), as the layers
  // after typing report a place (abi::Requirements, check sites).
  abi::PythonLine python_line(lang::Span span) const {
    return abi::PythonLine{source->filename(), static_cast<int>(span.line),
                           std::string(source->line_text(span.line)), static_cast<int>(span.col)};
  }
};

// One device function typed for one signature.
struct TypedDeviceFunction {
  std::shared_ptr<const DeviceFunctionSource> source;  // keeps tree and text alive
  std::vector<Type> signature;  // the argument types (concrete) it was made for
  // Per parameter: the value it was made for, where it needs one at compile
  // time (sema/infer_constants.cpp); the argument is still passed.
  std::vector<std::optional<Constant>> constants;
  TypedFunction typed;  // typed.return_type is its result
  // Which specialization of this Python name it is within the kernel (in
  // emission order): the emitter names it simt_func_<name>_<ordinal>.
  int ordinal = 0;
};

// The field a record access reads or writes: `r.x`, `r['x']` or `r[0]` of a record
// `r`; null for any other expression.
const abi::RecordField* record_field_of(const TypedFunction& f, const lang::Expr& e);

// `x.bit_count()`, `z.conjugate()`, `a.reshape(n, m)`: a call of a number's or an
// array's method (the intrinsic "int.<name>", "complex.<name>" or "array.<name>")
// passes the receiver as its first argument; the receiver, or null for other calls.
const lang::Expr* method_receiver(const TypedFunction& f, const lang::Expr& call);

// Types `fn` for parameters of `arg_types` (one per parameter, after
// defaults; a parameter annotated with a scalar type takes that type).
// Calls of device functions (GlobalValue::Kind::DeviceFunction) type their
// callees once per distinct argument signature; the results land in
// TypedFunction::functions. Throws lang::CompileError
// (DiagnosticKind::Typing) naming the expression and the types involved,
// located in the file of the function (kernel or callee) where it occurs.
TypedFunction infer_types(const lang::ParsedFunction& fn, const lang::SourceText& src,
                          const std::vector<Type>& arg_types, const Globals& globals);

}  // namespace simt::sema
