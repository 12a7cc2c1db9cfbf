// The Inferencer behind infer_types, private to sema (infer.h is the
// interface). Its members are defined across infer*.cpp and
// intrinsic_typing.cpp, one file per concern, so the class is declared
// once here, in a named namespace: an anonymous one cannot span files.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sema/infer.h"

namespace simt::sema::detail {

using lang::Expr;
using lang::ExprKind;
using lang::Op;
using lang::Span;
using lang::Stmt;
using lang::StmtKind;

inline std::string quoted(const Type& t) { return "'" + t.str() + "'"; }

// Python's bool takes part in arithmetic as the int it is; as a weak int it
// keeps NumPy's result types (int8 + True is int8).
inline Type arith_view(const Type& t) {
  if (t.is_scalar() && is_bool(t.scalar)) return Type::scalar_of(Scalar::Int64, true);
  return t;
}

inline Constant int_constant(int64_t v, Type t) {
  Constant c;
  c.type = std::move(t);
  c.int_value = v;
  c.real = static_cast<double>(v);
  return c;
}

// A device function used as a value is typed as a Function whose name is
// this prefix, the Python function's name, '#' and its index in
// Context::functions: the name alone identifies it wherever the value
// travels (into another device function as an argument, whose globals do not
// hold it), and two references to one function have equal types (one
// specialization of a callee per distinct function passed).
inline constexpr std::string_view kDeviceFunctionPrefix = "simt.func:";
// ... and of a call to a foreign function (declare_device), likewise.
inline constexpr std::string_view kForeignFunctionPrefix = "simt.foreign:";

inline bool is_device_function(const Type& t) {
  return t.kind == TypeKind::Function && t.name.rfind(kDeviceFunctionPrefix, 0) == 0;
}

// The Python name of a device function's Function type ("g" of "simt.func:g#0").
inline std::string device_function_name(const Type& t) {
  std::string rest = t.name.substr(kDeviceFunctionPrefix.size());
  return rest.substr(0, rest.rfind('#'));
}

// ... and a named tuple class (GlobalValue::Kind::TupleClass), with its index
// in Context::tuple_classes.
inline constexpr std::string_view kTupleClassPrefix = "namedtuple:";

inline bool is_tuple_class(const Type& t) {
  return t.kind == TypeKind::Function && t.name.rfind(kTupleClassPrefix, 0) == 0;
}

// What a device-function parameter can receive beyond data: a dtype or a
// function (a device function or an intrinsic), which become part of the
// callee's specialization (as Numba specializes on them) and are not C
// parameters.
inline bool is_compile_time_argument(const Type& t) {
  return t.kind == TypeKind::DType || t.kind == TypeKind::Function;
}

// The most numbers and arrays one tuple value holds.
inline constexpr size_t kMaxTupleLeaves = abi::kMaxTupleLeaves;

// How deeply device-function calls may nest: each level types its callee on
// the stack.
inline constexpr size_t kMaxCallDepth = 64;

// Numbers, arrays, records and tuples of those: what a variable can hold and a device
// function can receive.
inline bool is_data(const Type& t) {
  if (t.is_scalar() || t.is_array() || t.is_record() || t.kind == TypeKind::GridGroup) return true;
  if (!t.is_tuple()) return false;
  for (const Type& item : t.items)
    if (!is_data(item)) return false;
  return true;
}

// The error for a tuple display holding something that is not a value.
inline std::string not_a_value(const Type& tuple) {
  return "the tuple " + tuple.str() +
         " cannot be evaluated: tuples hold numbers and arrays; write the item itself where it "
         "is used";
}

// A parameter of a device function read where a compile-time value is
// needed (a shared/local array's shape, grid's ndim) without being one: its
// index, the place (in the callee's file) and what needs it.
struct WantedConstant {
  size_t param = 0;
  Span where;
  std::string what;
  // Typing cannot succeed without it (a shape); else it may (an if's
  // condition, which decides a branch once known).
  bool required = true;
};

// Whether `c` can stand for a parameter at a compile-time position: an
// integer or bool, or a tuple of those (a shape).
bool is_compile_time_value(const Constant& c);
// `c` with the type `t` (an integer argument's constant takes its parameter's
// type, int64 for a Python int), items alike.
Constant constant_as(Constant c, const Type& t);
bool same_constant(const Constant& a, const Constant& b);
bool same_constants(const std::vector<std::optional<Constant>>& a,
                    const std::vector<std::optional<Constant>>& b);

// One device function typed for one argument signature, or the error that
// typing it raised (kept: a later pass or caller with the same signature
// gets the same error).
struct Specialization {
  const DeviceFunctionSource* source = nullptr;
  std::vector<Type> signature;
  // Per parameter: the value it was specialized on (only parameters a
  // compile-time position needs get one; sema/infer_constants.cpp says why).
  std::vector<std::optional<Constant>> constants;
  // What typing it wanted as constants and did not get.
  std::vector<WantedConstant> wanted;
  std::shared_ptr<TypedDeviceFunction> result;
  std::exception_ptr error;
};

// Shared by the kernel and every device function it reaches, for one
// infer_types call.
struct Context {
  std::vector<std::unique_ptr<Specialization>> specializations;
  std::vector<const DeviceFunctionSource*> stack;  // device functions being typed, outermost first
  // Every device function named so far, indexed by its Function type's name.
  std::vector<std::shared_ptr<const DeviceFunctionSource>> functions;

  // The Function type of `source` (registered on first use).
  Type function_type(const std::shared_ptr<const DeviceFunctionSource>& source) {
    size_t k = 0;
    while (k < functions.size() && functions[k] != source) ++k;
    if (k == functions.size()) functions.push_back(source);
    return Type::function(std::string(kDeviceFunctionPrefix) + source->name + "#" +
                          std::to_string(k));
  }

  // Every named tuple class named so far: globals of the kernel or of a device
  // function, which outlive the inference. Likewise registered on first use.
  std::vector<const GlobalValue*> tuple_classes;
  Type tuple_class_type(const GlobalValue& cls) {
    size_t k = 0;
    while (k < tuple_classes.size() && tuple_classes[k] != &cls) ++k;
    if (k == tuple_classes.size()) tuple_classes.push_back(&cls);
    return Type::function(std::string(kTupleClassPrefix) + cls.name + "#" + std::to_string(k));
  }
};

// Types one kernel, or one device function for one argument signature;
// infer.cpp says how the passes run.
class Inferencer {
 public:
  // `self` is the device function being typed, null for a kernel.
  // `constants`, where given, holds per parameter the value it is
  // specialized on (a compile-time constant inside the function).
  Inferencer(const lang::ParsedFunction& fn, const lang::SourceText& src,
             const std::vector<Type>& arg_types, const Globals& globals, Context& context,
             const DeviceFunctionSource* self,
             const std::vector<std::optional<Constant>>* constants = nullptr)
      : fn_(fn),
        src_(src),
        globals_(globals),
        arg_types_(arg_types),
        context_(context),
        self_(self),
        param_constants_(constants) {
    out_.parsed = &fn;
    out_.source = &src;
  }

  // A parameter default of this (device) function: a constant expression
  // over literals and the function's own globals, as Python evaluates
  // defaults in the function's defining scope.
  Constant default_value(const lang::Param& param);

  TypedFunction run();

  // The parameters this function read at compile-time positions without a
  // value for them (filled as typing goes, also when it fails).
  const std::vector<WantedConstant>& wanted() const { return wanted_; }

 private:
  // ---- passes, locals, errors (infer.cpp) ----------------------------------
  void run_pass();
  void declare_locals(const std::vector<Type>& arg_types);

  // Declared types are fixed before inference so every assignment converts
  // into them rather than widening them.
  void declare_annotations(const std::vector<lang::StmtPtr>& body);

  void bind(int index, const Type& value, Span where, bool nonnegative,
            std::optional<ValueRange> range = std::nullopt);

  // Reports in the final pass; earlier passes carry on with Unknown.
  Type error(Span span, std::string message);

  void check_convertible(const Type& from, const Type& to, Span where, const std::string& what);
  // Names bound to the dynamic shared array (shared.array(0, dt)), and the
  // most bytes a constant index into one needs of the launch's dynamic
  // shared memory (TypedFunction::dynamic_shared_need).
  void note_dynamic_shared(const Expr& target, const Expr& value);
  void note_dynamic_shared_index(const Expr& base, const Expr& index, const Type& array);
  // The first of a device function's declared signatures that `args` match
  // exactly, else the first they convert to; null if none.
  static const DeclaredSignature* declared_signature(const DeviceFunctionSource& source,
                                                     const std::vector<Type>& args);

  // ---- device functions: returns and calls (infer_functions.cpp) -----------
  const std::string& self_name() const { return self_->name; }
  void return_stmt(const Stmt& s);

  // After the final pass of a device function: it returns a value on every
  // path or on none, and its result type is concrete.
  void check_returns();

  ExprInfo device_call(const Expr& e, const Type& callee);

  // A call of a named tuple class (infer_named_tuples.cpp): the named tuple of
  // its arguments, matched to the fields as Python matches them.
  ExprInfo tuple_class_call(const Expr& e, const Type& callee);

  // A call of a declare_device function (infer_foreign.cpp): its declared
  // signature, array arguments for pointer parameters.
  ExprInfo foreign_call(const Expr& e, const Type& callee);

  // The specialization of `source` for `signature`, typed on first use;
  // specialized further on the values of those `offered` constants that it
  // needs at compile time (`call` and `arguments` place the errors). Null
  // (with the error held back until the final pass) when typing it fails.
  const TypedDeviceFunction* specialize(const std::shared_ptr<const DeviceFunctionSource>& source,
                                        const std::vector<Type>& signature,
                                        const std::vector<std::optional<Constant>>& offered,
                                        const Expr& call,
                                        const std::vector<CallArgument>& arguments);
  // The specialization for `signature` and `constants`, typed on first use.
  Specialization& typed_specialization(const std::shared_ptr<const DeviceFunctionSource>& source,
                                       const std::vector<Type>& signature,
                                       const std::vector<std::optional<Constant>>& constants);

  // ---- constants that flow (infer_constants.cpp) ---------------------------
  // How often each local is bound in the body (parameters: besides the call).
  void count_bindings(const std::vector<lang::StmtPtr>& body);
  // Parameters specialized on a value, never rebound: constants from the start.
  void declare_constant_params();
  // After `target = value`: a local bound only there holds value's constant.
  void note_constant(const Expr& target, const ExprInfo& value);
  // `e` is needed at compile time and is not constant: the parameters it
  // reads (directly, in a tuple, or indexed) are wanted as constants.
  void want_constant(const Expr& e, const std::string& what, bool required = true);
  // The hint that ends a "known at compile time" error about `e`.
  std::string constant_hint(const Expr& e) const;

  // ---- statements (infer_stmt.cpp) -----------------------------------------
  void block(const std::vector<lang::StmtPtr>& body);
  void stmt(const Stmt& s);
  void record_target_name(const Expr& target);
  void assign(const Expr& target, const Type& value, bool nonneg,
              std::optional<ValueRange> range = std::nullopt);
  void aug_assign(const Stmt& s);
  void for_loop(const Stmt& s);
  // `raise E` / `raise E(constants...)`: E a class derived from Exception;
  // records the exception's message text for the emitter.
  void raise_stmt(const Stmt& s);

  // range(stop) and range(start, stop[, step >= 0]) with start >= 0 never
  // yield a negative index.
  bool range_nonnegative(const Expr& call);
  // The values range(...)'s variable takes: between its start and its stop.
  std::optional<ValueRange> range_values(const Expr& call);

  // ---- value ranges (infer_ranges.cpp) ---------------------------------------
  // An expression's range from its constant value or its type (narrow integers),
  // narrowing what its typing computed.
  void finish_range(ExprInfo& i) const;

  // ---- expressions (infer_expr.cpp) ----------------------------------------
  const ExprInfo& info(const Expr& e) { return out_.exprs[&e]; }
  std::optional<int64_t> const_int(const Expr& e);
  Type expr(const Expr& e);
  ExprInfo typed(Type t, bool nonneg = false);
  ExprInfo compute(const Expr& e);
  ExprInfo name(const Expr& e);
  ExprInfo global(const std::string& id, Span span);
  ExprInfo global_value(const GlobalValue& g, const std::string& id, Span span);

  // The scalar type an annotation or dtype argument names.
  Type type_expression(const Expr& e);

  // ---- operators, conditions (infer_operators.cpp) -------------------------
  ExprInfo unary(const Expr& e);
  // `op operand` with the operand already typed (unary(e), operator.neg(x)).
  ExprInfo unary_op(Op op, const Expr& operand, Span span);
  // The type both sides of `a op b` (a comparison of numbers) convert to.
  std::optional<Type> compare_operand(Op op, const Type& a, const Type& b, Span span);
  ExprInfo binary(Op op, const Type& a, const Type& b, const ExprInfo& ai, const ExprInfo& bi,
                  Span span);
  ExprInfo compare(const Expr& e);

  // A Python int compares exactly with any integer (NumPy 2 does too), so
  // it is not narrowed to the other operand's type: `u > -1` holds for
  // every uint32 u. Weak variables hold int64, so the same holds for them.
  static Type exact_int(const Type& t);

  ExprInfo bool_op(const Expr& e);

  // Conditions: bool and numbers (non-zero is true), as in Python.
  void truth(const Expr& e, const char* context);
  // Guard facts (lower_bounds_): what `test` says of locals `body` never assigns.
  void add_lower_bounds(const Expr& test, const std::vector<lang::StmtPtr>& body);
  std::optional<int64_t> lower_bound(const Expr& e) const;
  // `i - k` (or `i + -k`) where i is known to be at least k.
  bool nonnegative_offset(const Expr& e) const;

  // ---- calls (infer_calls.cpp) ---------------------------------------------
  ExprInfo call(const Expr& e);

  // The arguments of an intrinsic with named parameters, in parameter
  // order, from positional and keyword arguments; nullopt after an error.
  std::optional<std::vector<const Expr*>> bind_keywords(const Expr& e, const Intrinsic& fn,
                                                        const std::string& shown);

  // The compile-time extents of `shape` (an int or a tuple of ints).
  std::optional<std::vector<int64_t>> const_shape(const Expr& shape);

  // simt.shared.array / simt.local.array(shape, dtype): a C-ordered array in
  // that space, its extents known at compile time.
  ExprInfo array_alloc(const Expr& e, const Intrinsic& fn, const std::string& shown,
                       const std::vector<const Expr*>& args);

  static std::string display_name(const std::string& qualified);
  ExprInfo cast(const Expr& e, const Type& from, Scalar to);

  // ---- intrinsic calls (intrinsic_typing.cpp) ------------------------------
  // Requires a real (non-complex) number at argument k.
  bool number_arg(const Expr& e, size_t k, const Type& t, const std::string& fn);
  bool real_arg(const Expr& e, size_t k, const Type& t, const std::string& fn);

  // A NumPy unary ufunc with an output array (`np.sin(x, out)`): typed as `out`.
  ExprInfo ufunc_into(const Expr& e, const std::string& shown, const std::vector<Type>& args);
  ExprInfo intrinsic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                          const std::vector<Type>& args);
  bool mask_arg(const Expr& e, size_t k, const Type& t, const std::string& shown);

  // simt.atomic.<op>(array, index, value) and cas(array, index, old, value):
  // the array's element type, on the types CUDA and OpenCL have atomics for.
  ExprInfo atomic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                       const std::vector<Type>& args);

  // ---- attributes, subscripts (infer_access.cpp) ---------------------------
  // `module.attribute`: a sub-namespace, dtype, constant, index object or
  // intrinsic function.
  ExprInfo module_member(const std::string& module, const std::string& attr, Span span);

  ExprInfo attribute(const Expr& e);
  ExprInfo subscript(const Expr& e);
  ExprInfo tuple_item(const Expr& e, const Type& base, const Expr& index);

  // ---- records (infer_records.cpp) -------------------------------------------
  // `r.name`, `r['name']`: the field of the record `r` (of type `base`): a number, a
  // nested record, or a view of a fixed-size array field, in `r`'s space.
  ExprInfo record_field(const Expr& e, const Type& base, const std::string& name, Span at);
  // `r['name']`, `r[k]` (a constant string or integer).
  ExprInfo record_subscript(const Expr& e, const Type& base, const Expr& index);
  // Storing `value` into `target`, an element or field of `container` whose type is
  // `element`: read-only containers, array views and records are checked here.
  void check_store(const Expr& target, const Type& container, const Type& element,
                   const Type& value);

  const lang::ParsedFunction& fn_;
  const lang::SourceText& src_;
  const Globals& globals_;
  const std::vector<Type>& arg_types_;
  std::set<std::string> dynamic_shared_names_;
  Context& context_;
  const DeviceFunctionSource* self_;
  TypedFunction out_;
  Type return_type_;   // device functions: the join of this pass's returned values
  Span value_return_;  // the first `return value` of this pass
  Span bare_return_;   // the first `return` without a value of this pass
  std::unordered_map<std::string, int> local_index_;
  std::vector<Type> param_types_;
  std::vector<Span> origin_;       // where each local got its current type
  std::vector<bool> nonneg_;       // per local, from the previous pass
  std::vector<bool> next_nonneg_;  // per local, being computed in this pass
  // Per local, the join of every value it is bound to (and 0, the C variable's first
  // value): from the previous pass (read), and being joined in this one. Each pass
  // computes them from the previous pass's, sound from the first (none: any value),
  // so every pass's are sound, whichever pass is the last.
  std::vector<std::optional<ValueRange>> ranges_;
  std::vector<std::optional<ValueRange>> next_ranges_;
  // Inside `if 0 < i ...:` bodies that never assign i: (local, its least value), which
  // makes `i - 1` a non-negative index (no wraparound check).
  std::vector<std::pair<int, int64_t>> lower_bounds_;
  // Per local: how often the body binds it, and the constant it holds where
  // its one binding (or, for a parameter, the call) gives one.
  std::vector<int> bindings_;
  std::vector<std::optional<Constant>> local_constants_;
  const std::vector<std::optional<Constant>>* param_constants_;
  std::vector<WantedConstant> wanted_;
  // Inside this many branches a compile-time condition never takes: there
  // assignments convert into the variables' types and never widen them.
  int dead_depth_ = 0;
  bool final_ = false;
  bool changed_ = false;
  bool ranges_changed_ = false;  // the last pass narrowed a local's range
  int loop_depth_ = 0;
};

}  // namespace simt::sema::detail
