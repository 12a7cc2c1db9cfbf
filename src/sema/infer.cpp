// Inference runs passes over the function until the type of every local
// stops changing (each local has one type, the join of everything assigned
// to it), then one final pass that reports errors and records the results.
// Errors are held back until the final pass because a local's type may
// still widen in a later pass.
#include "sema/infer.h"

#include <set>

#include "lang/diagnostics.h"
#include "sema/inferencer.h"

namespace simt::sema::detail {

namespace {

constexpr int kMaxPasses = 64;
constexpr int kRangePasses = 2;

}  // namespace

TypedFunction Inferencer::run() {
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
  // Ranges follow chains of locals one link a pass (y from cuda.grid(), then y + 1 read
  // through another local): a few more passes while they still narrow.
  for (int extra = 0; extra < kRangePasses && ranges_changed_; ++extra) run_pass();
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

void Inferencer::run_pass() {
  return_type_ = Type::unknown();
  value_return_ = Span{};
  bare_return_ = Span{};
  next_nonneg_ = nonneg_;
  // Every C variable starts at 0 (local_declarations(); the CPU regions' per-thread
  // arrays are calloc'd); a parameter at its argument.
  next_ranges_.assign(out_.locals.size(), ValueRange{});
  for (size_t i = 0; i < fn_.def.params.size(); ++i) {
    int index = local_index_.at(fn_.def.params[i].name);
    const Type& t = param_types_[i];
    next_nonneg_[index] = t.is_scalar() && (is_unsigned(t.scalar) || is_bool(t.scalar));
    ExprInfo argument = typed(t);
    finish_range(argument);
    next_ranges_[index] = argument.value_range;
  }
  block(fn_.def.body);
  if (next_nonneg_ != nonneg_) {
    nonneg_ = next_nonneg_;
    changed_ = true;
  }
  ranges_changed_ = next_ranges_ != ranges_;
  ranges_ = next_ranges_;
  if (changed_) {
    // A read of a local took its range from the type the local had then (a uint8
    // read's [0, 255]); a local whose type widened since would pass that on, link by
    // link along copies. Ranges start afresh (unknown, which is sound) once types settle.
    ranges_.assign(out_.locals.size(), std::nullopt);
    ranges_changed_ = true;
  }
}

void Inferencer::declare_locals(const std::vector<Type>& arg_types) {
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
  ranges_.assign(out_.locals.size(), std::nullopt);
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
        error(params[i].span, "parameter '" + params[i].name + "' is annotated " + declared.str() +
                                  " but receives " + t.str());
    }
    int index = local_index_.at(params[i].name);
    LocalVar& v = out_.locals[index];
    v.is_param = true;
    v.type = t;
    origin_[index] = params[i].span;
    param_types_.push_back(t);
    nonneg_[index] = t.is_scalar() && (is_unsigned(t.scalar) || is_bool(t.scalar));
  }
  bindings_.assign(out_.locals.size(), 0);
  local_constants_.assign(out_.locals.size(), std::nullopt);
  count_bindings(fn_.def.body);
  declare_constant_params();
}

void Inferencer::declare_annotations(const std::vector<lang::StmtPtr>& body) {
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

void Inferencer::bind(int index, const Type& value, Span where, bool nonnegative,
                      std::optional<ValueRange> range) {
  LocalVar& v = out_.locals[index];
  if (dead_depth_ > 0 && !v.type.is_unknown() && !value.is_unknown() && is_data(value) &&
      !is_device_function(value)) {
    check_convertible(value, v.type, where, "'" + v.name + "'");
    return;
  }
  if (!nonnegative) next_nonneg_[index] = false;
  next_ranges_[index] = join_ranges(next_ranges_[index], range);
  if (value.is_unknown()) return;
  if (value.kind == TypeKind::None) {
    error(where, "'" + v.name +
                     "' cannot be assigned None (a function without a return value "
                     "gives None); variables hold numbers, arrays and tuples");
    return;
  }
  if (is_device_function(value)) {
    error(where, "the device function '" + device_function_name(value) +
                     "' can only be called or passed to a device function, not assigned to '" +
                     v.name + "'");
    return;
  }
  if (is_tuple_class(value)) {
    std::string cls = value.name.substr(kTupleClassPrefix.size());
    cls = cls.substr(0, cls.rfind('#'));
    error(where, "'" + v.name + "' cannot hold the named tuple class '" + cls + "': call it, " +
                     cls + "(...), to make a named tuple");
    return;
  }
  if (!is_data(value) && !value.contains_unknown()) {
    error(where, "'" + v.name + "' cannot hold " + value.str() +
                     ": variables hold numbers, arrays and tuples of them; write " + value.str() +
                     " where it is used instead");
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

Type Inferencer::error(Span span, std::string message) {
  if (final_) lang::fail(lang::DiagnosticKind::Typing, src_, span, std::move(message));
  return Type::unknown();
}

void Inferencer::check_convertible(const Type& from, const Type& to, Span where,
                                   const std::string& what) {
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

}  // namespace simt::sema::detail

namespace simt::sema {

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
  detail::Context context;
  TypedFunction kernel = detail::Inferencer(fn, src, arg_types, globals, context, nullptr).run();
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
