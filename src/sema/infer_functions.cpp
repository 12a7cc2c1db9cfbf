// Device functions: what they may return, and calls to them, each typed
// once per argument signature by an Inferencer of its own.
#include <algorithm>
#include <exception>

#include "lang/diagnostics.h"
#include "sema/inferencer.h"

namespace simt::sema::detail {

namespace {

// The type a value has as a device-function argument or result: weak
// literals become their concrete type (int64, float64), inside tuples too.
Type concrete_type(const Type& t) {
  if (!t.is_tuple()) return t.strong();
  Type out = t;
  for (auto& item : out.items) item = concrete_type(item);
  return out;
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
// return or a raise, an if/else whose branches both do, or `while True:`
// without break.
bool always_returns(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Return:
      case StmtKind::Raise:
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

}  // namespace

Constant Inferencer::default_value(const lang::Param& param) {
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

void Inferencer::return_stmt(const Stmt& s) {
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
  if (t.is_record()) {
    error(s.value->span, "a device function cannot return a record (it returns " + t.str() +
                             "); return its fields, or pass the array and write into it");
    return;
  }
  if (t.is_array() || (t.is_tuple() && is_data(t) && !is_returnable(t))) {
    error(s.value->span, "a device function cannot return an array (it returns " + t.str() +
                             "); pass the array as an argument and write into it");
    return;
  }
  if (!is_returnable(t)) {
    error(s.value->span, "a device function returns numbers or tuples of numbers, not " + t.str());
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

void Inferencer::check_returns() {
  if (value_return_.valid() && bare_return_.valid())
    error(bare_return_, "'" + self_name() + "' returns a value (line " +
                            std::to_string(value_return_.line) +
                            ") and also returns without one here; return a value on every path");
  if (value_return_.valid() && !always_returns(fn_.def.body))
    error(fn_.def.span, "'" + self_name() + "' returns a value (line " +
                            std::to_string(value_return_.line) +
                            ") but can reach its end without one; end it with a return");
  out_.return_type = value_return_.valid() ? concrete_type(return_type_) : Type::none();
  if (self_ == nullptr || !value_return_.valid()) return;
  // A declared result: what every return converts to, as Numba's signature says.
  for (const DeclaredSignature& d : self_->declared) {
    if (d.params != arg_types_ || !d.result || d.result->kind == TypeKind::None) continue;
    check_convertible(out_.return_type, *d.result, value_return_,
                      "the declared result of '" + self_name() + "'");
    out_.return_type = *d.result;
    return;
  }
}

namespace {

// Numba's conversions for a call of a function with declared signatures:
// numbers to numbers (not complex to real), arrays to the same or a looser
// layout of the same element type and dimensions.
bool converts_to_declared(const Type& from, const Type& to) {
  if (from.is_scalar() && to.is_scalar())
    return !(is_complex(from.scalar) && !is_complex(to.scalar));
  if (from == to) return true;
  std::optional<Type> joined = join(from, to);
  return joined && from.kind == to.kind && *joined == to;
}

}  // namespace

const DeclaredSignature* Inferencer::declared_signature(const DeviceFunctionSource& source,
                                                        const std::vector<Type>& args) {
  for (const DeclaredSignature& d : source.declared)
    if (d.params == args) return &d;
  for (const DeclaredSignature& d : source.declared) {
    if (d.params.size() != args.size()) continue;
    bool all = true;
    for (size_t p = 0; p < args.size() && all; ++p)
      all = converts_to_declared(args[p], d.params[p]);
    if (all) return &d;
  }
  return nullptr;
}

ExprInfo Inferencer::device_call(const Expr& e, const Type& callee) {
  size_t index = std::stoul(callee.name.substr(callee.name.rfind('#') + 1));
  const std::shared_ptr<const DeviceFunctionSource> source = context_.functions.at(index);
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
      return typed(error(kw.span, shown + "() got multiple values for argument '" + kw.name + "'"));
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
    return typed(
        error(e.span, shown + "() missing " + std::to_string(missing.size()) +
                          (missing.size() == 1 ? " required argument: " : " required arguments: ") +
                          names));
  }

  // The signature: argument types, weak literals made concrete; and the
  // constants among the arguments, which the callee may need as values.
  std::vector<Type> signature;
  std::vector<std::optional<Constant>> offered(n);
  for (size_t p = 0; p < n; ++p) {
    const CallArgument& a = arguments[p];
    std::optional<Constant> value = a.expr ? info(*a.expr).constant : a.default_value;
    if (value && is_compile_time_value(*value)) offered[p] = std::move(value);
    Type t = a.expr ? info(*a.expr).type : a.default_value.type;
    if (t.contains_unknown()) return typed(Type::unknown());
    if (!is_data(t) && !is_compile_time_argument(t))
      return typed(error(a.expr ? a.expr->span : e.span,
                         "argument '" + def.params[p].name + "' of " + shown +
                             "() must be a number, an array or a tuple of those, a dtype or a "
                             "function, not " +
                             t.str()));
    signature.push_back(concrete_type(t));
    // Offered as the parameter's type: 64 from a literal and 64 from a
    // parameter given it are one value, one specialization.
    if (offered[p]) offered[p] = constant_as(*offered[p], signature.back());
  }

  if (!source->declared.empty()) {
    const DeclaredSignature* declared = declared_signature(*source, signature);
    if (!declared) {
      std::string given, listed;
      for (size_t p = 0; p < n; ++p) given += (p ? ", " : "") + signature[p].str();
      for (const DeclaredSignature& d : source->declared) {
        listed += listed.empty() ? "" : "; ";
        for (size_t p = 0; p < d.params.size(); ++p) listed += (p ? ", " : "(") + d.params[p].str();
        listed += d.params.empty() ? "()" : ")";
      }
      return typed(error(e.span, shown + "() was declared for " + listed +
                                     " only, and its arguments here are (" + given +
                                     "), which convert to none of them"));
    }
    signature = declared->params;
    for (size_t p = 0; p < n; ++p)
      if (offered[p]) offered[p] = constant_as(*offered[p], signature[p]);
  }

  const TypedDeviceFunction* function = specialize(source, signature, offered, e, arguments);
  if (!function) return typed(Type::unknown());
  ExprInfo i = typed(function->typed.return_type);
  i.function = function;
  // The final pass's callees are the ones called: an earlier pass's may have
  // been typed for arguments that widened since.
  if (final_ && function->typed.raises) out_.raises = true;
  i.arguments = std::move(arguments);
  if (final_ && std::find(out_.callees.begin(), out_.callees.end(), function) == out_.callees.end())
    out_.callees.push_back(function);
  return i;
}

const TypedDeviceFunction* Inferencer::specialize(
    const std::shared_ptr<const DeviceFunctionSource>& source, const std::vector<Type>& signature,
    const std::vector<std::optional<Constant>>& offered, const Expr& call,
    const std::vector<CallArgument>& arguments) {
  const Expr& callee = *call.items[0];
  auto& stack = context_.stack;
  auto on_stack = std::find(stack.begin(), stack.end(), source.get());
  if (on_stack != stack.end()) {
    std::string chain;
    for (auto it = on_stack; it != stack.end(); ++it) chain += (*it)->name + " -> ";
    error(callee.span, "recursive device functions are not supported: " + chain + source->name);
    return nullptr;
  }
  if (stack.size() >= kMaxCallDepth) {
    error(callee.span, "device functions nested more than " + std::to_string(kMaxCallDepth) +
                           " calls deep: " + stack.front()->name + " -> ... -> " +
                           stack.back()->name + " -> " + source->name);
    return nullptr;
  }
  // Typed for the argument types alone first; then again, with the values of
  // the parameters it read at compile-time positions, while it wants more.
  std::vector<std::optional<Constant>> constants(signature.size());
  Specialization* spec = &typed_specialization(source, signature, constants);
  while (spec->error && !spec->wanted.empty()) {
    bool more = false;
    for (const WantedConstant& w : spec->wanted) {
      if (constants[w.param]) continue;
      if (offered[w.param]) {
        constants[w.param] = offered[w.param];
        more = true;
        continue;
      }
      if (!w.required) continue;
      // The caller cannot give it: the error is here, at the argument (and
      // the caller's own parameter, if it is one, is wanted in turn).
      const lang::Param& param = source->parsed->def.params[w.param];
      const Expr* argument = arguments[w.param].expr;
      const Expr& at = argument ? *argument : call;
      if (argument) want_constant(*argument, w.what);
      error(at.span, "argument '" + param.name + "' of " + source->name +
                         "() must be known at compile time (a literal, a global or closure "
                         "constant, a local assigned once, or a parameter whose argument is "
                         "one): " +
                         source->name + "() uses it as " + w.what + " at " +
                         source->source->filename() + ":" + std::to_string(w.where.line) + ":" +
                         std::to_string(w.where.col) + "; here it is a value computed at run time" +
                         (argument ? constant_hint(*argument) : ""));
      return nullptr;
    }
    if (!more) break;
    spec = &typed_specialization(source, signature, constants);
  }
  if (spec->error) {
    // Errors inside the callee are its own (they point into its file);
    // before the final pass the arguments may still widen.
    if (final_) {
      try {
        std::rethrow_exception(spec->error);
      } catch (const lang::CompileError& inner) {
        // Named with the call that led there: the kernel's line is the user's, where the
        // callee may be a library's.
        lang::Diagnostic d = inner.diagnostic();
        d.calls.push_back(lang::CallSite{source->name, src_.filename(), callee.span,
                                         std::string(src_.line_text(callee.span.line))});
        throw lang::CompileError(std::move(d));
      }
    }
    return nullptr;
  }
  return spec->result.get();
}

Specialization& Inferencer::typed_specialization(
    const std::shared_ptr<const DeviceFunctionSource>& source, const std::vector<Type>& signature,
    const std::vector<std::optional<Constant>>& constants) {
  for (const auto& s : context_.specializations)
    if (s->source == source.get() && s->signature == signature &&
        same_constants(s->constants, constants))
      return *s;
  context_.specializations.push_back(std::make_unique<Specialization>());
  Specialization& spec = *context_.specializations.back();
  spec.source = source.get();
  spec.signature = signature;
  spec.constants = constants;
  context_.stack.push_back(source.get());
  Inferencer callee_inferencer(*source->parsed, *source->source, signature, source->globals,
                               context_, source.get(), &spec.constants);
  try {
    auto result = std::make_shared<TypedDeviceFunction>();
    result->source = source;
    result->signature = signature;
    result->constants = constants;
    result->typed = callee_inferencer.run();
    spec.result = std::move(result);
  } catch (const lang::CompileError&) {
    spec.error = std::current_exception();
    spec.wanted = callee_inferencer.wanted();
  }
  context_.stack.pop_back();
  return spec;
}

}  // namespace simt::sema::detail
