// Inference runs passes over the function until the type of every local
// stops changing (each local has one type, the join of everything assigned
// to it), then one final pass that reports errors and records the results.
// Errors are held back until the final pass because a local's type may
// still widen in a later pass.
#include "sema/infer.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <set>

#include "lang/diagnostics.h"

namespace simt::sema {

namespace {

using lang::Expr;
using lang::ExprKind;
using lang::Op;
using lang::Span;
using lang::Stmt;
using lang::StmtKind;

constexpr int kMaxPasses = 64;

std::string quoted(const Type& t) { return "'" + t.str() + "'"; }

bool is_arith(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::FloorDiv:
    case Op::Mod:
    case Op::Pow:
      return true;
    default:
      return false;
  }
}

bool is_bitwise(Op op) { return op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor; }
bool is_shift(Op op) { return op == Op::LShift || op == Op::RShift; }

// Python's bool takes part in arithmetic as the int it is; as a weak int it
// keeps NumPy's result types (int8 + True is int8).
Type arith_view(const Type& t) {
  if (t.is_scalar() && is_bool(t.scalar)) return Type::scalar_of(Scalar::Int64, true);
  return t;
}

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

Constant int_constant(int64_t v, Type t) {
  Constant c;
  c.type = std::move(t);
  c.int_value = v;
  c.real = static_cast<double>(v);
  return c;
}

// Folds an operation on two Python int literals; Python ints do not
// overflow, ours wrap at 64 bits like the int64 they become.
std::optional<int64_t> fold_int(Op op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case Op::Add:
      return static_cast<int64_t>(ua + ub);
    case Op::Sub:
      return static_cast<int64_t>(ua - ub);
    case Op::Mul:
      return static_cast<int64_t>(ua * ub);
    case Op::FloorDiv:
    case Op::Mod: {
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return op == Op::FloorDiv ? q : r;
    }
    case Op::BitAnd:
      return a & b;
    case Op::BitOr:
      return a | b;
    case Op::BitXor:
      return a ^ b;
    case Op::LShift:
      return b >= 0 && b < 64 ? static_cast<int64_t>(ua << b) : std::optional<int64_t>();
    case Op::RShift:
      return b >= 0 && b < 64 ? a >> b : std::optional<int64_t>();
    default:
      return std::nullopt;
  }
}

// Whether a Python int literal (stored as int64, or as the bits of a uint64
// when `literal` is UInt64) is a value of `target`.
bool fits(int64_t value, Scalar literal, Scalar target) {
  if (literal == Scalar::UInt64 && value < 0) return target == Scalar::UInt64;
  int bits = bit_width(target);
  if (is_unsigned(target)) return value >= 0 && (bits == 64 || value < (int64_t{1} << bits));
  if (bits == 64) return true;
  int64_t bound = int64_t{1} << (bits - 1);
  return value >= -bound && value < bound;
}

std::string literal_text(const ExprInfo& literal) {
  if (literal.type.scalar == Scalar::UInt64 && literal.constant->int_value < 0)
    return std::to_string(static_cast<uint64_t>(literal.constant->int_value));
  return std::to_string(literal.constant->int_value);
}

// The callee of a call to a device function is typed as a Function whose
// name is this prefix and the global name it was resolved through.
constexpr std::string_view kDeviceFunctionPrefix = "simt.func:";

// The type a value has as a device-function argument or result: weak
// literals become their concrete type (int64, float64), inside tuples too.
Type concrete_type(const Type& t) {
  if (!t.is_tuple()) return t.strong();
  Type out = t;
  for (auto& item : out.items) item = concrete_type(item);
  return out;
}

// Numbers, arrays and tuples of those: what a device function can receive.
bool is_data(const Type& t) {
  if (t.is_scalar() || t.is_array()) return true;
  if (!t.is_tuple()) return false;
  return std::all_of(t.items.begin(), t.items.end(), is_data);
}

// Numbers and tuples of numbers: what a device function can return.
bool is_returnable(const Type& t) {
  if (t.is_scalar()) return true;
  if (!t.is_tuple()) return false;
  return std::all_of(t.items.begin(), t.items.end(), is_returnable);
}

bool contains_break(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::Break) return true;
    if (s->kind == StmtKind::For || s->kind == StmtKind::While) continue;  // their own
    if (contains_break(s->body) || contains_break(s->orelse)) return true;
  }
  return false;
}

// Whether running `body` always ends in a return (or never ends): a
// return, an if/else whose branches both do, or `while True:` without break.
bool always_returns(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Return:
        return true;
      case StmtKind::If:
        if (always_returns(s->body) && !s->orelse.empty() && always_returns(s->orelse)) return true;
        break;
      case StmtKind::While: {
        const Expr& t = *s->test;
        bool forever = (t.kind == ExprKind::Bool && t.bool_value) ||
                       (t.kind == ExprKind::Int && t.int_value != 0);
        if (forever && !contains_break(s->body)) return true;
        break;
      }
      default:
        break;
    }
  }
  return false;
}

// One device function typed for one argument signature, or the error that
// typing it raised (kept: a later pass or caller with the same signature
// gets the same error).
struct Specialization {
  const DeviceFunctionSource* source = nullptr;
  std::vector<Type> signature;
  std::shared_ptr<TypedDeviceFunction> result;
  std::exception_ptr error;
};

// Shared by the kernel and every device function it reaches, for one
// infer_types call.
struct Context {
  std::vector<std::unique_ptr<Specialization>> specializations;
  std::vector<const DeviceFunctionSource*> stack;  // device functions being typed, outermost first
};

class Inferencer {
 public:
  // `self` is the device function being typed, null for a kernel.
  Inferencer(const lang::ParsedFunction& fn, const lang::SourceText& src,
             const std::vector<Type>& arg_types, const Globals& globals, Context& context,
             const DeviceFunctionSource* self)
      : fn_(fn),
        src_(src),
        globals_(globals),
        arg_types_(arg_types),
        context_(context),
        self_(self) {
    out_.parsed = &fn;
    out_.source = &src;
  }

  // A parameter default of this (device) function: a constant expression
  // over literals and the function's own globals, as Python evaluates
  // defaults in the function's defining scope.
  Constant default_value(const lang::Param& param) {
    final_ = true;
    const Expr& e = *param.default_value;
    Type t = expr(e);
    const ExprInfo& i = info(e);
    if (!i.constant)
      error(e.span, "the default of parameter '" + param.name + "' of '" + self_->name +
                        "' must be a constant (a literal or a global number or tuple), not " +
                        t.str());
    return *i.constant;
  }

  TypedFunction run() {
    // Declarations are checked once, up front, and their errors are final.
    final_ = true;
    declare_locals(arg_types_);
    declare_annotations(fn_.def.body);
    final_ = false;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      changed_ = false;
      run_pass();
      if (!changed_) break;
    }
    final_ = true;
    run_pass();
    if (self_) check_returns();
    for (size_t i = 0; i < out_.locals.size(); ++i) {
      LocalVar& local = out_.locals[i];
      if (local.type.contains_unknown())
        error(local.first, "cannot determine the type of '" + local.name +
                               "': it is only assigned values computed from itself");
      local.type = local.type.strong();
    }
    for (size_t i = 0; i < fn_.def.params.size(); ++i)
      out_.param_types.push_back(param_types_[i].strong());
    return std::move(out_);
  }

 private:
  // ---- device functions: returns and calls --------------------------------

  const std::string& self_name() const { return self_->name; }

  void return_stmt(const Stmt& s) {
    Type t = s.value ? expr(*s.value) : Type::none();
    if (!self_) {
      if (t.kind != TypeKind::None && !t.is_unknown())
        error(s.value->span, "a kernel cannot return a value (it returns " + t.str() +
                                 "); write results into an array argument");
      return;
    }
    if (t.is_unknown()) return;
    if (t.kind == TypeKind::None) {
      if (!bare_return_.valid()) bare_return_ = s.span;
      return;
    }
    if (t.is_array() || (t.is_tuple() && is_data(t) && !is_returnable(t))) {
      error(s.value->span, "a device function cannot return an array (it returns " + t.str() +
                               "); pass the array as an argument and write into it");
      return;
    }
    if (!is_returnable(t)) {
      error(s.value->span,
            "a device function returns numbers or tuples of numbers, not " + t.str());
      return;
    }
    if (!value_return_.valid()) {
      value_return_ = s.span;
      return_type_ = t;
      return;
    }
    auto joined = join(return_type_, t);
    if (!joined || joined->kind != t.kind) {
      error(s.value->span, "'" + self_name() + "' returns " + return_type_.str() + " (line " +
                               std::to_string(value_return_.line) + ") but " + t.str() +
                               " here; a function returns one type");
      return;
    }
    return_type_ = *joined;
  }

  // After the final pass of a device function: it returns a value on every
  // path or on none, and its result type is concrete.
  void check_returns() {
    if (value_return_.valid() && bare_return_.valid())
      error(bare_return_, "'" + self_name() + "' returns a value (line " +
                              std::to_string(value_return_.line) +
                              ") and also returns without one here; return a value on every path");
    if (value_return_.valid() && !always_returns(fn_.def.body))
      error(fn_.def.span, "'" + self_name() + "' returns a value (line " +
                              std::to_string(value_return_.line) +
                              ") but can reach its end without one; end it with a return");
    out_.return_type = value_return_.valid() ? concrete_type(return_type_) : Type::none();
  }

  ExprInfo device_call(const Expr& e, const Type& callee) {
    std::string id = callee.name.substr(kDeviceFunctionPrefix.size());
    auto g = globals_.find(id);
    if (g == globals_.end() || g->second.kind != GlobalValue::Kind::DeviceFunction ||
        !g->second.function || !g->second.function->parsed || !g->second.function->source)
      return typed(error(e.items[0]->span, "'" + id + "' is not a device function"));
    const std::shared_ptr<const DeviceFunctionSource>& source = g->second.function;
    const lang::FunctionDef& def = source->parsed->def;
    const std::string& shown = source->name;
    const size_t n = def.params.size();
    const size_t positional = e.items.size() - 1;

    // Match the arguments to the parameters, as Python does.
    std::vector<CallArgument> arguments(n);
    if (positional > n)
      return typed(error(e.items[n + 1]->span,
                         shown + "() takes " + std::to_string(n) +
                             (n == 1 ? " positional argument" : " positional arguments") + " but " +
                             std::to_string(positional) + " were given"));
    for (size_t k = 0; k < positional; ++k) arguments[k].expr = e.items[k + 1].get();
    for (const auto& kw : e.keywords) {
      size_t p = 0;
      while (p < n && def.params[p].name != kw.name) ++p;
      if (p == n)
        return typed(
            error(kw.span, shown + "() got an unexpected keyword argument '" + kw.name + "'"));
      if (arguments[p].expr)
        return typed(
            error(kw.span, shown + "() got multiple values for argument '" + kw.name + "'"));
      arguments[p].expr = kw.value.get();
    }
    std::vector<std::string> missing;
    for (size_t p = 0; p < n; ++p) {
      if (arguments[p].expr) continue;
      if (!def.params[p].default_value) {
        missing.push_back("'" + def.params[p].name + "'");
        continue;
      }
      static const std::vector<Type> kNoArguments;
      Inferencer defaults(*source->parsed, *source->source, kNoArguments, source->globals, context_,
                          source.get());
      arguments[p].default_value = defaults.default_value(def.params[p]);
    }
    if (!missing.empty()) {
      std::string names;
      for (size_t k = 0; k < missing.size(); ++k)
        names += (k == 0 ? "" : k + 1 == missing.size() ? " and " : ", ") + missing[k];
      return typed(error(
          e.span, shown + "() missing " + std::to_string(missing.size()) +
                      (missing.size() == 1 ? " required argument: " : " required arguments: ") +
                      names));
    }

    // The signature: argument types, weak literals made concrete.
    std::vector<Type> signature;
    for (size_t p = 0; p < n; ++p) {
      const CallArgument& a = arguments[p];
      Type t = a.expr ? info(*a.expr).type : a.default_value.type;
      if (t.contains_unknown()) return typed(Type::unknown());
      if (!is_data(t))
        return typed(error(a.expr ? a.expr->span : e.span,
                           "argument '" + def.params[p].name + "' of " + shown +
                               "() must be a number, an array or a tuple of those, not " +
                               t.str()));
      signature.push_back(concrete_type(t));
    }

    const TypedDeviceFunction* function = specialize(source, signature, *e.items[0]);
    if (!function) return typed(Type::unknown());
    ExprInfo i = typed(function->typed.return_type);
    i.function = function;
    i.arguments = std::move(arguments);
    if (final_ &&
        std::find(out_.callees.begin(), out_.callees.end(), function) == out_.callees.end())
      out_.callees.push_back(function);
    return i;
  }

  // The specialization of `source` for `signature`, typed on first use.
  // Null (with the error held back until the final pass) when typing it fails.
  const TypedDeviceFunction* specialize(const std::shared_ptr<const DeviceFunctionSource>& source,
                                        const std::vector<Type>& signature, const Expr& callee) {
    auto& stack = context_.stack;
    auto on_stack = std::find(stack.begin(), stack.end(), source.get());
    if (on_stack != stack.end()) {
      std::string chain;
      for (auto it = on_stack; it != stack.end(); ++it) chain += (*it)->name + " -> ";
      error(callee.span, "recursive device functions are not supported: " + chain + source->name);
      return nullptr;
    }
    Specialization* spec = nullptr;
    for (const auto& s : context_.specializations)
      if (s->source == source.get() && s->signature == signature) spec = s.get();
    if (!spec) {
      context_.specializations.push_back(std::make_unique<Specialization>());
      spec = context_.specializations.back().get();
      spec->source = source.get();
      spec->signature = signature;
      stack.push_back(source.get());
      try {
        Inferencer callee_inferencer(*source->parsed, *source->source, signature, source->globals,
                                     context_, source.get());
        auto result = std::make_shared<TypedDeviceFunction>();
        result->source = source;
        result->signature = signature;
        result->typed = callee_inferencer.run();
        spec->result = std::move(result);
      } catch (const lang::CompileError&) {
        spec->error = std::current_exception();
      }
      stack.pop_back();
    }
    if (spec->error) {
      // Errors inside the callee are its own (they point into its file);
      // before the final pass the arguments may still widen.
      if (final_) std::rethrow_exception(spec->error);
      return nullptr;
    }
    return spec->result.get();
  }

  // ---- locals --------------------------------------------------------------

  void declare_locals(const std::vector<Type>& arg_types) {
    const auto& params = fn_.def.params;
    if (arg_types.size() != params.size())
      error(fn_.def.span, "'" + fn_.def.name + "' takes " + std::to_string(params.size()) +
                              (params.size() == 1 ? " argument" : " arguments") +
                              " but the signature has " + std::to_string(arg_types.size()));
    for (const auto& name : fn_.local_names) {
      local_index_.emplace(name.name, static_cast<int>(out_.locals.size()));
      LocalVar v;
      v.name = name.name;
      v.first = name.span;
      out_.locals.push_back(std::move(v));
    }
    nonneg_.assign(out_.locals.size(), true);
    origin_.assign(out_.locals.size(), Span{});
    for (size_t i = 0; i < params.size(); ++i) {
      Type t = arg_types[i];
      if (params[i].annotation) {
        // `x: float32` converts a scalar argument at launch (Python floats
        // would otherwise be float64).
        Type declared = type_expression(*params[i].annotation);
        if (declared.is_scalar() && t.is_scalar())
          t = declared;
        else if (declared.is_scalar())
          error(params[i].span, "parameter '" + params[i].name + "' is annotated " +
                                    declared.str() + " but receives " + t.str());
      }
      int index = local_index_.at(params[i].name);
      LocalVar& v = out_.locals[index];
      v.is_param = true;
      v.type = t;
      origin_[index] = params[i].span;
      param_types_.push_back(t);
      nonneg_[index] = t.is_scalar() && (is_unsigned(t.scalar) || is_bool(t.scalar));
    }
  }

  // Declared types are fixed before inference so every assignment converts
  // into them rather than widening them.
  void declare_annotations(const std::vector<lang::StmtPtr>& body) {
    for (const auto& s : body) {
      if (s->kind == StmtKind::AnnAssign && s->targets[0]->kind == ExprKind::Name) {
        int index = local_index_.at(s->targets[0]->name);
        LocalVar& v = out_.locals[index];
        Type declared = type_expression(*s->annotation);
        if (!declared.is_scalar())
          error(s->annotation->span,
                "a variable annotation must be a scalar type such as "
                "float32 or int64, not " +
                    declared.str());
        if (v.annotated && v.type != declared)
          error(s->annotation->span, "'" + v.name + "' was already declared " + v.type.str());
        if (v.is_param)
          error(s->annotation->span, "parameter '" + v.name + "' cannot be re-declared");
        v.type = declared;
        v.annotated = true;
        origin_[index] = s->span;
      }
      declare_annotations(s->body);
      declare_annotations(s->orelse);
    }
  }

  void bind(int index, const Type& value, Span where, bool nonnegative) {
    LocalVar& v = out_.locals[index];
    if (!nonnegative) next_nonneg_[index] = false;
    if (value.is_unknown()) return;
    if (value.kind == TypeKind::None) {
      error(where, "'" + v.name +
                       "' cannot be assigned None (a function without a return value "
                       "gives None); variables hold numbers, arrays and tuples");
      return;
    }
    if (value.kind == TypeKind::Function && value.name.rfind(kDeviceFunctionPrefix, 0) == 0) {
      error(where, "the device function '" + value.name.substr(kDeviceFunctionPrefix.size()) +
                       "' can only be called, not assigned to '" + v.name + "'");
      return;
    }
    if (v.annotated) {
      check_convertible(value, v.type, where, "'" + v.name + "'");
      return;
    }
    auto joined = join(v.type, value);
    if (!joined) {
      error(where, "'" + v.name + "' is " + v.type.str() + " (line " +
                       std::to_string(origin_[index].line) + ") but is assigned " + value.str() +
                       " here; a variable has one type");
      return;
    }
    if (*joined != v.type) {
      if (v.type.is_unknown()) origin_[index] = where;
      v.type = *joined;
      changed_ = true;
    }
  }

  // ---- errors --------------------------------------------------------------

  // Reports in the final pass; earlier passes carry on with Unknown.
  Type error(Span span, std::string message) {
    if (final_) lang::fail(lang::DiagnosticKind::Typing, src_, span, std::move(message));
    return Type::unknown();
  }

  void check_convertible(const Type& from, const Type& to, Span where, const std::string& what) {
    if (from.is_unknown() || to.is_unknown()) return;
    if (from.is_scalar() && to.is_scalar()) {
      if (is_complex(from.scalar) && !is_complex(to.scalar))
        error(where, "cannot store " + from.str() + " in " + what + " of type " + to.str() +
                         ": it would drop the imaginary part (use .real)");
      return;
    }
    if (!join(from, to) || from.kind != to.kind)
      error(where, "cannot store " + from.str() + " in " + what + " of type " + to.str());
  }

  // ---- statements ----------------------------------------------------------

  void run_pass() {
    return_type_ = Type::unknown();
    value_return_ = Span{};
    bare_return_ = Span{};
    next_nonneg_ = nonneg_;
    for (size_t i = 0; i < fn_.def.params.size(); ++i) {
      int index = local_index_.at(fn_.def.params[i].name);
      const Type& t = param_types_[i];
      next_nonneg_[index] = t.is_scalar() && (is_unsigned(t.scalar) || is_bool(t.scalar));
    }
    block(fn_.def.body);
    if (next_nonneg_ != nonneg_) {
      nonneg_ = next_nonneg_;
      changed_ = true;
    }
  }

  void block(const std::vector<lang::StmtPtr>& body) {
    for (const auto& s : body) stmt(*s);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign: {
        Type value = expr(*s.value);
        bool nonneg = info(*s.value).nonnegative;
        for (const auto& target : s.targets) assign(*target, value, nonneg);
        break;
      }
      case StmtKind::AnnAssign:
        if (s.targets[0]->kind != ExprKind::Name)
          error(s.targets[0]->span, "only plain variables can be annotated");
        type_expression(*s.annotation);
        if (s.value) {
          Type value = expr(*s.value);
          assign(*s.targets[0], value, info(*s.value).nonnegative);
        } else {
          record_target_name(*s.targets[0]);
        }
        break;
      case StmtKind::AugAssign:
        aug_assign(s);
        break;
      case StmtKind::If:
        truth(*s.test, "if");
        block(s.body);
        block(s.orelse);
        break;
      case StmtKind::While:
        truth(*s.test, "while");
        ++loop_depth_;
        block(s.body);
        --loop_depth_;
        break;
      case StmtKind::For:
        for_loop(s);
        break;
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loop_depth_ == 0)
          error(s.span, std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") +
                            "' outside loop");
        break;
      case StmtKind::Return:
        return_stmt(s);
        break;
      case StmtKind::Pass:
        break;
      case StmtKind::ExprStmt:
        expr(*s.value);
        break;
      case StmtKind::Assert:
        truth(*s.test, "assert");
        if (s.value) {
          Type m = expr(*s.value);
          if (m.kind != TypeKind::String)
            error(s.value->span, "an assert message must be a string literal, not " + m.str());
        }
        break;
    }
  }

  void record_target_name(const Expr& target) {
    int index = local_index_.at(target.name);
    ExprInfo& i = out_.exprs[&target];
    i = ExprInfo{};
    i.type = out_.locals[index].type;
    i.local = index;
  }

  void assign(const Expr& target, const Type& value, bool nonneg) {
    switch (target.kind) {
      case ExprKind::Name: {
        int index = local_index_.at(target.name);
        bind(index, value, target.span, nonneg);
        record_target_name(target);
        break;
      }
      case ExprKind::Tuple: {
        if (value.is_unknown()) {
          for (const auto& item : target.items) assign(*item, Type::unknown(), nonneg);
          break;
        }
        if (!value.is_tuple()) {
          error(target.span, "cannot unpack " + value.str() + " into " +
                                 std::to_string(target.items.size()) + " variables");
          break;
        }
        if (value.items.size() != target.items.size()) {
          error(target.span, "cannot unpack a tuple of " + std::to_string(value.items.size()) +
                                 " values into " + std::to_string(target.items.size()) +
                                 " variables");
          break;
        }
        out_.exprs[&target].type = value;
        for (size_t i = 0; i < target.items.size(); ++i)
          assign(*target.items[i], value.items[i], nonneg);
        break;
      }
      case ExprKind::Subscript: {
        Type base = expr(*target.items[0]);
        Type element = expr(target);
        if (base.is_tuple()) {
          error(target.span, "a tuple cannot be assigned to: tuples are immutable");
          break;
        }
        if (element.is_array()) {
          error(target.span, "cannot assign to the array view " + element.str() +
                                 "; index every dimension of " + base.str());
          break;
        }
        if (base.is_array() && base.readonly)
          error(target.span, "the array " + base.str() + " is read-only");
        check_convertible(value, element, target.span, "an element of " + base.str());
        break;
      }
      case ExprKind::Attribute:
        error(target.span, "cannot assign to the attribute '" + target.name + "'");
        break;
      default:
        error(target.span, "cannot assign to this expression");
        break;
    }
  }

  void aug_assign(const Stmt& s) {
    const Expr& target = *s.targets[0];
    if (target.kind != ExprKind::Name && target.kind != ExprKind::Subscript) {
      error(target.span, "augmented assignment needs a variable or an array element");
      return;
    }
    Type current = expr(target);
    Type value = expr(*s.value);
    if (current.is_array() && target.kind == ExprKind::Subscript) {
      error(target.span,
            "cannot assign to the array view " + current.str() + "; index every dimension");
      return;
    }
    ExprInfo op_info = binary(s.op, current, value, info(target), info(*s.value), s.span);
    out_.stmts[&s] = op_info;
    if (target.kind == ExprKind::Name) {
      int index = local_index_.at(target.name);
      bind(index, op_info.type, target.span, op_info.nonnegative);
    } else {
      Type base = info(*target.items[0]).type;
      if (base.is_tuple())
        error(target.span, "a tuple cannot be assigned to: tuples are immutable");
      else
        check_convertible(op_info.type, current, target.span, "an element of " + base.str());
    }
  }

  void for_loop(const Stmt& s) {
    const Expr& target = *s.targets[0];
    Type iter = expr(*s.value);
    if (iter.kind == TypeKind::Range) {
      if (target.kind != ExprKind::Name) {
        error(target.span, "a range loop binds one variable");
      } else {
        Type index = Type::scalar_of(iter.scalar, iter.weak);
        bind(local_index_.at(target.name), index, target.span, range_nonnegative(*s.value));
        record_target_name(target);
      }
    } else if (iter.is_tuple()) {
      // Unrolled: the variable takes each item in turn, so it has their join.
      for (const auto& item : iter.items) assign(target, item, false);
      if (iter.items.empty()) assign(target, Type::unknown(), false);
    } else if (!iter.is_unknown()) {
      error(s.value->span, "a for loop iterates over range(...) or a tuple, not " + iter.str() +
                               (iter.is_array() ? "; use range(len(a)) and index the array" : ""));
    }
    ++loop_depth_;
    block(s.body);
    --loop_depth_;
  }

  // range(stop) and range(start, stop[, step >= 0]) with start >= 0 never
  // yield a negative index.
  bool range_nonnegative(const Expr& call) {
    if (call.kind != ExprKind::Call) return false;
    size_t n = call.items.size() - 1;
    if (n == 1) return true;
    if (!info(*call.items[1]).nonnegative) return false;
    if (n == 3) {
      // A step known >= 0 (gridsize(1)) keeps every value >= start.
      if (auto step = const_int(*call.items[3])) return *step > 0;
      return info(*call.items[3]).nonnegative;
    }
    return true;
  }

  // ---- expressions ---------------------------------------------------------

  const ExprInfo& info(const Expr& e) { return out_.exprs[&e]; }

  std::optional<int64_t> const_int(const Expr& e) {
    const ExprInfo& i = info(e);
    if (!i.constant || !i.constant->type.is_scalar() || !i.constant->type.is_int_like())
      return std::nullopt;
    return i.constant->int_value;
  }

  Type expr(const Expr& e) {
    ExprInfo result = compute(e);
    if (result.type.is_scalar() && (is_unsigned(result.type.scalar) || is_bool(result.type.scalar)))
      result.nonnegative = true;
    Type t = result.type;
    out_.exprs[&e] = std::move(result);
    return t;
  }

  ExprInfo typed(Type t, bool nonneg = false) {
    ExprInfo i;
    i.type = std::move(t);
    i.nonnegative = nonneg;
    return i;
  }

  ExprInfo compute(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name:
        return name(e);
      case ExprKind::Int: {
        bool big = e.int_value > static_cast<uint64_t>(INT64_MAX);
        ExprInfo i = typed(Type::scalar_of(big ? Scalar::UInt64 : Scalar::Int64, true), true);
        i.constant = int_constant(static_cast<int64_t>(e.int_value), i.type);
        return i;
      }
      case ExprKind::Float: {
        ExprInfo i = typed(Type::scalar_of(Scalar::Float64, true), e.float_value >= 0);
        Constant c;
        c.type = i.type;
        c.real = e.float_value;
        i.constant = c;
        return i;
      }
      case ExprKind::Imaginary: {
        ExprInfo i = typed(Type::scalar_of(Scalar::Complex128, true));
        Constant c;
        c.type = i.type;
        c.imag = e.float_value;
        i.constant = c;
        return i;
      }
      case ExprKind::Bool: {
        ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
        i.constant = int_constant(e.bool_value ? 1 : 0, i.type);
        return i;
      }
      case ExprKind::None:
        return typed(Type::none());
      case ExprKind::String:
        return typed(Type::string());
      case ExprKind::Tuple: {
        std::vector<Type> items;
        bool all_nonneg = true, all_const = true;
        Constant c;
        for (const auto& item : e.items) {
          items.push_back(expr(*item));
          const ExprInfo& ii = info(*item);
          all_nonneg = all_nonneg && ii.nonnegative;
          if (ii.constant)
            c.items.push_back(*ii.constant);
          else
            all_const = false;
        }
        ExprInfo i = typed(Type::tuple(std::move(items)), all_nonneg);
        if (all_const) {
          c.type = i.type;
          i.constant = std::move(c);
        }
        return i;
      }
      case ExprKind::Unary:
        return unary(e);
      case ExprKind::Binary: {
        Type a = expr(*e.items[0]);
        Type b = expr(*e.items[1]);
        return binary(e.op, a, b, info(*e.items[0]), info(*e.items[1]), e.span);
      }
      case ExprKind::Compare:
        return compare(e);
      case ExprKind::BoolOp:
        return bool_op(e);
      case ExprKind::IfExp: {
        Type body = expr(*e.items[0]);
        truth(*e.items[1], "a conditional expression");
        Type orelse = expr(*e.items[2]);
        if (body.is_unknown() || orelse.is_unknown()) return typed(Type::unknown());
        auto joined = join(body, orelse);
        if (!joined || joined->kind == TypeKind::String)
          return typed(error(e.span,
                             "the branches of a conditional expression have different "
                             "types: " +
                                 body.str() + " and " + orelse.str()));
        return typed(*joined, info(*e.items[0]).nonnegative && info(*e.items[2]).nonnegative);
      }
      case ExprKind::Call:
        return call(e);
      case ExprKind::Attribute:
        return attribute(e);
      case ExprKind::Subscript:
        return subscript(e);
      case ExprKind::Slice:
        return typed(error(e.span, "a slice can only appear inside [...]"));
    }
    return typed(Type::unknown());
  }

  ExprInfo name(const Expr& e) {
    auto local = local_index_.find(e.name);
    if (local != local_index_.end()) {
      ExprInfo i = typed(out_.locals[local->second].type, nonneg_[local->second]);
      i.local = local->second;
      if (final_ && i.type.is_unknown())
        error(e.span, "local variable '" + e.name + "' is used before it is assigned a value");
      return i;
    }
    return global(e.name, e.span);
  }

  ExprInfo global(const std::string& id, Span span) {
    auto g = globals_.find(id);
    if (g == globals_.end()) {
      if (find_intrinsic("builtins." + id)) return typed(Type::function("builtins." + id));
      return typed(error(span, "name '" + id + "' is not defined"));
    }
    return global_value(g->second, id, span);
  }

  ExprInfo global_value(const GlobalValue& g, const std::string& id, Span span) {
    switch (g.kind) {
      case GlobalValue::Kind::Module: {
        auto canonical = canonical_module(g.name);
        if (!canonical)
          return typed(error(
              span, "module '" + g.name + "' (global '" + id + "') cannot be used in kernels"));
        return typed(Type::module(std::string(*canonical)));
      }
      case GlobalValue::Kind::Function:
        if (!find_intrinsic(g.name))
          return typed(error(span, "'" + id + "' (" + g.name + ") is not supported in kernels"));
        return typed(Type::function(g.name));
      case GlobalValue::Kind::DType:
        return typed(Type::dtype(g.dtype));
      case GlobalValue::Kind::Member: {
        auto canonical = canonical_module(g.name);
        if (!canonical) return typed(error(span, "'" + id + "' cannot be used in kernels"));
        return module_member(std::string(*canonical), g.attribute, span);
      }
      case GlobalValue::Kind::Unsupported:
        return typed(error(span, "'" + id + "' is " + g.name + ", which kernels cannot use"));
      case GlobalValue::Kind::DeviceFunction:
        return typed(Type::function(std::string(kDeviceFunctionPrefix) + id));
      case GlobalValue::Kind::Constant: {
        ExprInfo i = typed(g.constant.type, g.constant.real >= 0 && g.constant.int_value >= 0);
        i.constant = g.constant;
        return i;
      }
      case GlobalValue::Kind::ConstArray: {
        ExprInfo i = typed(
            Type::array(g.dtype, static_cast<int>(g.shape.size()), Layout::C, Space::Constant));
        i.type.readonly = true;
        i.const_array = g.bytes;
        i.shape = g.shape;
        i.const_array_name = id;
        return i;
      }
      case GlobalValue::Kind::Tuple: {
        Constant c;
        std::vector<Type> items;
        for (const auto& item : g.items) {
          ExprInfo ii = global_value(item, id, span);
          if (!ii.constant) return typed(error(span, "the tuple '" + id + "' must hold numbers"));
          items.push_back(ii.type);
          c.items.push_back(*ii.constant);
        }
        ExprInfo i = typed(Type::tuple(std::move(items)));
        c.type = i.type;
        i.constant = std::move(c);
        return i;
      }
    }
    return typed(Type::unknown());
  }

  // The scalar type an annotation or dtype argument names.
  Type type_expression(const Expr& e) {
    Type t;
    if (e.kind == ExprKind::Name && !local_index_.count(e.name) && !globals_.count(e.name)) {
      if (auto m = find_member("builtins", e.name)) return Type::scalar_of(m->dtype);
    }
    t = expr(e);
    if (t.kind == TypeKind::DType) return Type::scalar_of(t.scalar);
    if (t.kind == TypeKind::Function) {
      std::string_view name = t.name;
      if (name.substr(0, 9) == "builtins.")
        if (auto m = find_member("builtins", name.substr(9))) return Type::scalar_of(m->dtype);
    }
    if (t.is_unknown()) return t;
    return error(e.span, "expected a type such as float32 or int64, not " + t.str());
  }

  ExprInfo unary(const Expr& e) {
    Type a = expr(*e.items[0]);
    const ExprInfo& ai = info(*e.items[0]);
    if (a.is_unknown()) return typed(a);
    if (e.op == Op::Not) {
      truth(*e.items[0], "not");
      ExprInfo i = typed(Type::scalar_of(Scalar::Bool));
      i.operand = a;
      return i;
    }
    if (!a.is_scalar())
      return typed(error(e.span, std::string("bad operand type for unary ") + lang::op_text(e.op) +
                                     ": " + quoted(a)));
    Type t = a;
    if (e.op == Op::Invert) {
      if (is_float(a.scalar) || is_complex(a.scalar))
        return typed(error(e.span, "bad operand type for unary ~: " + quoted(a)));
    } else {
      t = arith_view(a);
    }
    ExprInfo i = typed(t, e.op == Op::Add && ai.nonnegative);
    i.operand = t;
    if (ai.constant && t.is_scalar() && t.is_int_like() && e.op != Op::Invert) {
      int64_t v = ai.constant->int_value;
      i.constant =
          int_constant(e.op == Op::Sub ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v, t);
    } else if (ai.constant && t.is_scalar() && (is_float(t.scalar) || is_complex(t.scalar))) {
      Constant c = *ai.constant;
      c.type = t;
      if (e.op == Op::Sub) {
        c.real = -c.real;
        c.imag = -c.imag;
      }
      i.constant = c;
    }
    return i;
  }

  ExprInfo binary(Op op, const Type& a, const Type& b, const ExprInfo& ai, const ExprInfo& bi,
                  Span span) {
    if (a.is_unknown() || b.is_unknown()) return typed(Type::unknown());
    std::string types = quoted(a) + " and " + quoted(b);
    if (op == Op::MatMul) return typed(error(span, "the @ operator is not supported in kernels"));
    if (!a.is_scalar() || !b.is_scalar()) {
      std::string hint = a.is_array() || b.is_array()
                             ? " (whole-array arithmetic is not supported inside kernels; "
                               "index the array)"
                             : "";
      return typed(error(span, std::string("unsupported operand types for ") + lang::op_text(op) +
                                   ": " + types + hint));
    }
    ExprInfo i;
    for (const auto& [literal, other] : {std::pair{&ai, &b}, std::pair{&bi, &a}}) {
      if (literal->constant && literal->type.weak && is_integer(literal->type.scalar) &&
          !other->weak && is_integer(other->scalar) &&
          !fits(literal->constant->int_value, literal->type.scalar, other->scalar))
        return typed(error(span, "the literal " + literal_text(*literal) + " does not fit in " +
                                     other->str() +
                                     " (NumPy raises OverflowError); convert one "
                                     "operand, e.g. with np.int64(...)"));
    }
    if (is_arith(op)) {
      Type t = promote(arith_view(a), arith_view(b));
      if (op == Op::Pow && is_complex(t.scalar))
        return typed(error(span, "complex powers are not supported in kernels yet"));
      if ((op == Op::FloorDiv || op == Op::Mod) && is_complex(t.scalar))
        return typed(error(span, std::string("unsupported operand types for ") + lang::op_text(op) +
                                     ": " + types + " (complex numbers)"));
      i.operand = t;
      i.type = t;
      if (op == Op::Div && !is_float(t.scalar) && !is_complex(t.scalar)) {
        i.operand = Type::scalar_of(Scalar::Float64, t.weak);
        i.type = i.operand;
      }
      bool nn = ai.nonnegative && bi.nonnegative;
      i.nonnegative = (op == Op::Add || op == Op::Mul || op == Op::FloorDiv || op == Op::Mod ||
                       op == Op::Div) &&
                      nn;
    } else if (is_bitwise(op) || is_shift(op)) {
      if (is_bitwise(op) && is_bool(a.scalar) && is_bool(b.scalar)) {
        i.operand = i.type = a;
        i.nonnegative = true;
      } else {
        if (!a.is_int_like() || !b.is_int_like())
          return typed(error(span, std::string("unsupported operand types for ") +
                                       lang::op_text(op) + ": " + types +
                                       " (bitwise operations need integers)"));
        Type t = promote(arith_view(a), arith_view(b));
        i.operand = i.type = t;
        if (op == Op::BitAnd)
          i.nonnegative = ai.nonnegative || bi.nonnegative;
        else if (op == Op::RShift)
          i.nonnegative = ai.nonnegative;
        else if (op == Op::BitOr || op == Op::BitXor)
          i.nonnegative = ai.nonnegative && bi.nonnegative;
      }
    } else {
      return typed(error(span, std::string("unsupported operator ") + lang::op_text(op)));
    }
    if (ai.constant && bi.constant && i.type.weak && is_integer(i.type.scalar) && a.is_int_like() &&
        b.is_int_like()) {
      if (auto v = fold_int(op, ai.constant->int_value, bi.constant->int_value))
        i.constant = int_constant(*v, i.type);
    }
    return i;
  }

  ExprInfo compare(const Expr& e) {
    std::vector<Type> types;
    for (const auto& item : e.items) types.push_back(expr(*item));
    ExprInfo i = typed(Type::scalar_of(Scalar::Bool), true);
    for (size_t k = 0; k < e.ops.size(); ++k) {
      const Type& a = types[k];
      const Type& b = types[k + 1];
      Op op = e.ops[k];
      if (a.is_unknown() || b.is_unknown()) return typed(Type::unknown());
      if (op == Op::Is || op == Op::IsNot) {
        bool a_none = a.kind == TypeKind::None, b_none = b.kind == TypeKind::None;
        if (!a_none && !b_none)
          return typed(error(e.span, "'is' compares with None only; use == to compare values"));
        if (e.ops.size() == 1) {
          bool same = a_none && b_none;
          i.constant = int_constant((op == Op::Is) == same ? 1 : 0, i.type);
        }
        i.pair_operands.push_back(Type::none());
        continue;
      }
      if (op == Op::In || op == Op::NotIn)
        return typed(error(e.span, "'in' is not supported in kernels"));
      if (!a.is_scalar() || !b.is_scalar())
        return typed(error(e.span, std::string("cannot compare ") + quoted(a) + " and " +
                                       quoted(b) + " with " + lang::op_text(op)));
      Type t = promote(exact_int(a), exact_int(b));
      if (is_complex(t.scalar) && op != Op::Eq && op != Op::NotEq)
        return typed(error(e.span, std::string("complex numbers have no order: ") +
                                       lang::op_text(op) + " on " + quoted(a) + " and " +
                                       quoted(b)));
      i.pair_operands.push_back(t);
    }
    return i;
  }

  // A Python int compares exactly with any integer (NumPy 2 does too), so
  // it is not narrowed to the other operand's type: `u > -1` holds for
  // every uint32 u. Weak variables hold int64, so the same holds for them.
  static Type exact_int(const Type& t) {
    if (t.is_scalar() && t.weak && is_integer(t.scalar)) return Type::scalar_of(t.scalar);
    return t;
  }

  ExprInfo bool_op(const Expr& e) {
    Type t;
    bool all_bool = true, all_nonneg = true;
    for (const auto& item : e.items) {
      Type it = expr(*item);
      truth(*item, e.op == Op::And ? "and" : "or");
      if (it.is_unknown()) return typed(it);
      all_nonneg = all_nonneg && info(*item).nonnegative;
      if (!(it.is_scalar() && is_bool(it.scalar))) all_bool = false;
      t = t.is_unknown() ? it : promote(t, it);
    }
    ExprInfo i = typed(all_bool ? Type::scalar_of(Scalar::Bool) : t, all_nonneg);
    i.operand = i.type;
    return i;
  }

  // Conditions: bool and numbers (non-zero is true), as in Python.
  void truth(const Expr& e, const char* context) {
    Type t = expr(e);
    if (t.is_unknown() || t.is_scalar()) return;
    if (t.is_array())
      error(e.span, std::string("the truth value of an array is ambiguous (in ") + context + ")");
    else
      error(e.span, std::string("a condition (in ") + context + ") must be a number or bool, not " +
                        t.str());
  }

  // ---- calls, attributes, subscripts ----------------------------------------

  ExprInfo call(const Expr& e) {
    Type callee = expr(*e.items[0]);
    std::vector<Type> args;
    for (size_t k = 1; k < e.items.size(); ++k) args.push_back(expr(*e.items[k]));
    for (const auto& kw : e.keywords) expr(*kw.value);
    if (callee.is_unknown()) return typed(callee);
    if (callee.kind == TypeKind::Function && callee.name.rfind(kDeviceFunctionPrefix, 0) == 0)
      return device_call(e, callee);
    for (const auto& a : args)
      if (a.is_unknown()) return typed(a);
    if (callee.kind == TypeKind::DType) {
      if (!e.keywords.empty() || args.size() != 1)
        return typed(error(e.span, std::string(scalar_name(callee.scalar)) +
                                       "() takes exactly one positional argument"));
      return cast(e, args[0], callee.scalar);
    }
    if (callee.kind != TypeKind::Function)
      return typed(error(e.items[0]->span, quoted(callee) + " is not callable"));
    const Intrinsic* fn = find_intrinsic(callee.name);
    std::string shown = display_name(callee.name);
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
                             : fn->max_args == 255 ? "at least " + std::to_string(fn->min_args)
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

  // The arguments of an intrinsic with named parameters, in parameter
  // order, from positional and keyword arguments; nullopt after an error.
  std::optional<std::vector<const Expr*>> bind_keywords(const Expr& e, const Intrinsic& fn,
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

  // The compile-time extents of `shape` (an int or a tuple of ints).
  std::optional<std::vector<int64_t>> const_shape(const Expr& shape) {
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

  // simt.shared.array / simt.local.array(shape, dtype): a C-ordered array in
  // that space, its extents known at compile time.
  ExprInfo array_alloc(const Expr& e, const Intrinsic& fn, const std::string& shown,
                       const std::vector<const Expr*>& args) {
    bool shared = fn.c_name == "shared";
    const Type& dtype = info(*args[1]).type;
    if (dtype.kind != TypeKind::DType)
      return typed(error(args[1]->span, shown +
                                            "() needs a dtype (np.float32, simt.int32, ...), "
                                            "not " +
                                            dtype.str()));
    auto extents = const_shape(*args[0]);
    if (!extents)
      return typed(error(args[0]->span,
                         shown + "() needs a shape known at compile time: an int or a tuple of "
                                 "ints (literals or global constants)"));
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
    if (self_ != nullptr && shared)
      return typed(error(e.span, shown +
                                     "() in a device function: allocate the shared array in the "
                                     "kernel and pass it as an argument (OpenCL declares local "
                                     "memory only in kernels)"));
    ExprInfo i = typed(Type::array(dtype.scalar, static_cast<int>(extents->size()), Layout::C,
                                   shared ? Space::Shared : Space::Local));
    i.shape = std::move(*extents);
    return i;
  }

  static std::string display_name(const std::string& qualified) {
    if (qualified.rfind("builtins.", 0) == 0) return qualified.substr(9);
    return qualified;
  }

  // Requires a real (non-complex) number at argument k.
  bool real_arg(const Expr& e, size_t k, const Type& t, const std::string& fn) {
    if (t.is_scalar() && !is_complex(t.scalar)) return true;
    error(e.items[k + 1]->span, fn + "() needs a real number, not " + t.str());
    return false;
  }

  ExprInfo intrinsic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                          const std::vector<Type>& args) {
    auto arg_nonneg = [&](size_t k) { return info(*e.items[k + 1]).nonnegative; };
    bool numpy = fn.name.substr(0, 6) == "numpy.";
    switch (fn.rule) {
      case Rule::FloatUnary:
      case Rule::FloatRound: {
        if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
        ExprInfo i = typed(numpy ? numpy_float_view(args[0]) : float_view(args[0]));
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
      case Rule::FloatSplit: {
        if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
        Type f = float_view(args[0]).strong();
        ExprInfo i =
            typed(Type::tuple({f, fn.c_name == "frexp" ? Type::scalar_of(Scalar::Int64) : f}));
        i.operand = f;
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
      case Rule::FloatPredicate: {
        if (!real_arg(e, 0, args[0], shown)) return typed(Type::unknown());
        ExprInfo i = typed(Type::scalar_of(Scalar::Bool));
        i.operand = float_view(args[0]);
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
        for (size_t k = 0; k < args.size(); ++k) {
          if (!real_arg(e, k, args[k], shown)) return typed(Type::unknown());
          t = k == 0 ? args[k] : promote(t, args[k]);
          all_nn = all_nn && arg_nonneg(k);
          any_nn = any_nn || arg_nonneg(k);
        }
        ExprInfo i = typed(t, fn.c_name == "fmin" ? all_nn : any_nn);
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
        if (args[0].is_array()) return typed(Type::scalar_of(Scalar::Int64), true);
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
        for (size_t k = 0; k < args.size(); ++k) {
          const Type& a = args[k];
          if (!a.is_scalar() && a.kind != TypeKind::String && a.kind != TypeKind::None)
            return typed(
                error(e.items[k + 1]->span,
                      "print() in kernels prints numbers and string literals, not " + a.str()));
        }
        return typed(Type::none());
      }
      case Rule::Grid:
      case Rule::GridSize: {
        auto n = const_int(*e.items[1]);
        if (!n || *n < 1 || *n > 3)
          return typed(error(e.items[1]->span, shown + "() takes a constant 1, 2 or 3"));
        Type index = Type::scalar_of(Scalar::Int64);
        return typed(*n == 1 ? index : Type::uniform_tuple(index, static_cast<int>(*n)), true);
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
          return typed(error(e.items[2]->span,
                             shown +
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
        if (!args[1].is_scalar() || is_complex(args[1].scalar))
          return typed(error(e.items[2]->span, shown + "() needs a number or bool predicate"));
        ExprInfo i =
            typed(Type::scalar_of(fn.c_name == "ballot" ? Scalar::UInt32 : Scalar::Bool), true);
        i.operand = Type::scalar_of(Scalar::Bool);
        return i;
      }
      case Rule::Atomic:
      case Rule::AtomicCas:
        return atomic_call(e, fn, shown, args);
    }
    return typed(Type::unknown());
  }

  bool mask_arg(const Expr& e, size_t k, const Type& t, const std::string& shown) {
    if (t.is_int_like() && !is_bool(t.scalar)) return true;
    error(e.items[k + 1]->span, shown + "() mask must be an integer (0xffffffff: the whole warp)");
    return false;
  }

  // simt.atomic.<op>(array, index, value) and cas(array, index, old, value):
  // the array's element type, on the types CUDA and OpenCL have atomics for.
  ExprInfo atomic_call(const Expr& e, const Intrinsic& fn, const std::string& shown,
                       const std::vector<Type>& args) {
    const Type& a = args[0];
    if (!a.is_array())
      return typed(error(e.items[1]->span, shown + "() needs an array, not " + a.str()));
    if (a.space == Space::Local)
      return typed(error(e.items[1]->span, shown + "() works on global and shared arrays, not "
                                                   "on a local array (each thread has its own)"));
    if (a.readonly)
      return typed(error(e.items[1]->span, shown + "() cannot write a read-only array"));
    Scalar s = a.scalar;
    bool supported = s == Scalar::Int32 || s == Scalar::UInt32 || s == Scalar::Int64 ||
                     s == Scalar::UInt64 || s == Scalar::Float32 || s == Scalar::Float64;
    if (!supported)
      return typed(error(e.items[1]->span,
                         shown +
                             "() works on int32, uint32, int64, uint64, float32 and float64 "
                             "arrays, not " +
                             a.str()));
    std::string_view op = fn.c_name;
    bool bitwise = op == "and" || op == "or" || op == "xor";
    if ((bitwise || op == "inc" || op == "dec") && is_float(s))
      return typed(error(e.items[1]->span, shown + "() needs an integer array, not " + a.str()));
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
    for (size_t k = 2; k < args.size(); ++k) {
      if (!args[k].is_scalar() || (is_complex(args[k].scalar) && !is_complex(s)))
        return typed(error(e.items[k + 1]->span,
                           shown + "() value must be a real number, not " + args[k].str()));
    }
    ExprInfo i = typed(Type::scalar_of(s), is_unsigned(s));
    i.operand = Type::scalar_of(s);
    return i;
  }

  ExprInfo cast(const Expr& e, const Type& from, Scalar to) {
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

  // `module.attribute`: a sub-namespace, dtype, constant, index object or
  // intrinsic function.
  ExprInfo module_member(const std::string& module, const std::string& attr, Span span) {
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

  ExprInfo attribute(const Expr& e) {
    Type base = expr(*e.items[0]);
    const std::string& attr = e.name;
    if (base.is_unknown()) return typed(base);
    switch (base.kind) {
      case TypeKind::Module:
        return module_member(base.name, attr, e.span);
      case TypeKind::Dim3:
        if (attr == "x" || attr == "y" || attr == "z")
          return typed(Type::scalar_of(Scalar::Int64), true);
        return typed(
            error(e.span, base.name + " has the attributes x, y and z, not '" + attr + "'"));
      case TypeKind::Array: {
        Type index = Type::scalar_of(Scalar::Int64);
        if (attr == "shape" || attr == "strides")
          return typed(Type::uniform_tuple(index, base.ndim), attr == "shape");
        if (attr == "size") return typed(index, true);
        if (attr == "ndim" || attr == "itemsize") {
          ExprInfo i = typed(Type::scalar_of(Scalar::Int64, true), true);
          int64_t v = attr == "ndim" ? base.ndim : bit_width(base.scalar) / 8;
          i.constant = int_constant(v, i.type);
          return i;
        }
        return typed(error(e.span, "array attribute '" + attr +
                                       "' is not supported in kernels (shape, size, ndim, "
                                       "strides and itemsize are)"));
      }
      case TypeKind::Scalar:
        if (is_complex(base.scalar) && (attr == "real" || attr == "imag"))
          return typed(Type::scalar_of(real_of(base.scalar), base.weak));
        return typed(error(e.span, quoted(base) + " has no attribute '" + attr + "' in kernels"));
      default:
        return typed(error(e.span, quoted(base) + " has no attribute '" + attr + "'"));
    }
  }

  ExprInfo subscript(const Expr& e) {
    Type base = expr(*e.items[0]);
    const Expr& index = *e.items[1];
    if (base.is_tuple()) return tuple_item(e, base, index);
    std::vector<const Expr*> indices;
    if (index.kind == ExprKind::Tuple) {
      out_.exprs[&index].type = Type::unknown();
      for (const auto& item : index.items) indices.push_back(item.get());
    } else {
      indices.push_back(&index);
    }
    for (const Expr* i : indices) {
      if (i->kind == ExprKind::Slice) {
        error(i->span,
              "slicing arrays inside kernels is not supported yet; index single "
              "elements");
        return typed(Type::unknown());
      }
      Type it = expr(*i);
      if (it.is_unknown()) return typed(it);
      if (!it.is_int_like() || is_bool(it.scalar))
        return typed(error(i->span, "an array index must be an integer, not " + it.str()));
    }
    if (base.is_unknown()) return typed(base);
    if (!base.is_array())
      return typed(error(e.items[0]->span, quoted(base) + " is not subscriptable"));
    if (indices.size() > base.ndim)
      return typed(error(index.span, "too many indices: the array is " + std::to_string(base.ndim) +
                                         "-dimensional, but " + std::to_string(indices.size()) +
                                         " were indexed"));
    if (indices.size() == base.ndim) return typed(Type::scalar_of(base.scalar));
    int rest = base.ndim - static_cast<int>(indices.size());
    Layout layout = base.layout == Layout::C ? Layout::C : Layout::Any;
    Type view = Type::array(base.scalar, rest, layout, base.space);
    view.readonly = base.readonly;
    return typed(view);
  }

  ExprInfo tuple_item(const Expr& e, const Type& base, const Expr& index) {
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
      ExprInfo i = typed(base.items[at], info(*e.items[0]).nonnegative);
      const ExprInfo& bi = info(*e.items[0]);
      if (bi.constant && static_cast<size_t>(at) < bi.constant->items.size())
        i.constant = bi.constant->items[at];
      return i;
    }
    for (const auto& item : base.items)
      if (item != base.items[0])
        return typed(error(index.span, "a tuple of mixed types needs a constant index"));
    if (n == 0) return typed(error(index.span, "index into an empty tuple"));
    return typed(base.items[0], info(*e.items[0]).nonnegative);
  }

  const lang::ParsedFunction& fn_;
  const lang::SourceText& src_;
  const Globals& globals_;
  const std::vector<Type>& arg_types_;
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
  bool final_ = false;
  bool changed_ = false;
  int loop_depth_ = 0;
};

}  // namespace

namespace {

// Callees before callers, each once, in order of first call.
void collect_functions(const TypedFunction& fn, std::set<const TypedDeviceFunction*>& seen,
                       std::vector<const TypedDeviceFunction*>& order) {
  for (const TypedDeviceFunction* callee : fn.callees) {
    if (!seen.insert(callee).second) continue;
    collect_functions(callee->typed, seen, order);
    order.push_back(callee);
  }
}

}  // namespace

TypedFunction infer_types(const lang::ParsedFunction& fn, const lang::SourceText& src,
                          const std::vector<Type>& arg_types, const Globals& globals) {
  Context context;
  TypedFunction kernel = Inferencer(fn, src, arg_types, globals, context, nullptr).run();
  std::set<const TypedDeviceFunction*> seen;
  std::vector<const TypedDeviceFunction*> order;
  collect_functions(kernel, seen, order);
  std::map<std::string, int> ordinals;
  for (const TypedDeviceFunction* f : order) {
    for (const auto& spec : context.specializations) {
      if (spec->result.get() != f) continue;
      spec->result->ordinal = ordinals[f->source->name]++;
      kernel.functions.push_back(spec->result);
    }
  }
  return kernel;
}

}  // namespace simt::sema
