// Device-function calls and effectful intrinsics, evaluated into
// temporaries before the statement that uses them, and returns.
#include <algorithm>
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

void Emitter::return_stmt(const Stmt& s) {
  const Type& rt = fn_.return_type;
  if (rt.kind == TypeKind::None) {
    // `return None`, or a kernel's `return f(x)` of a function returning None.
    if (s.value) prepare(*s.value);
    race_exit(s);
    if (regions_.active && !regions_.thread_exit_label.empty()) {
      // This thread is done; the others go on to the next regions.
      line("simt_exited[simt_t] = 1;");
      line("goto " + regions_.thread_exit_label + ";");
      return;
    }
    line("return;");
    return;
  }
  prepare(*s.value);
  if (!rt.is_tuple()) {
    line("return " + emit_as(*s.value, rt) + ";");
    return;
  }
  std::vector<std::string> parts = values(*s.value);
  std::vector<std::string> names;
  std::vector<Type> from, to;
  flatten(info(*s.value).type, "", names, from);
  flatten(rt, "", names, to);
  for (size_t k = 0; k < parts.size(); ++k) parts[k] = convert(parts[k], from[k], to[k]);
  std::string tmp = "simt_ret" + std::to_string(temp_counter_++);
  line(tuple_struct(rt) + " " + tmp + " = {" + join_list(parts) + "};");
  line("return " + tmp + ";");
}

bool Emitter::effectful_intrinsic(const ExprInfo& i) {
  return i.intrinsic && !i.intrinsic->pure && i.intrinsic->rule != sema::Rule::Print;
}

bool Emitter::has_call(const Expr* e) {
  if (e == nullptr) return false;
  if (auto it = has_call_.find(e); it != has_call_.end()) return it->second;
  auto i = fn_.exprs.find(e);
  bool found =
      i != fn_.exprs.end() && (i->second.function != nullptr || i->second.foreign != nullptr ||
                               effectful_intrinsic(i->second) || checked_division(*e));
  for (const auto& item : e->items) found = has_call(item.get()) || found;
  for (const auto& kw : e->keywords) found = has_call(kw.value.get()) || found;
  has_call_[e] = found;
  return found;
}

void Emitter::prepare(const Expr& e) {
  if (!has_call(&e) || hoisted_.count(&e)) return;
  const ExprInfo& i = info(e);
  switch (e.kind) {
    case ExprKind::Call:
      if (effectful_intrinsic(i)) {
        prepare_arguments(e);
        hoist_intrinsic(e);
        return;
      }
      if (i.foreign) {
        prepare_arguments(e);
        hoist_foreign(e);
        return;
      }
      if (!i.function) break;
      prepare_arguments(e);
      hoist_call(e);
      return;
    case ExprKind::IfExp:
      if (has_call(e.items[0].get()) || has_call(e.items[2].get())) {
        lower_if_exp(e);
      } else {
        prepare(*e.items[1]);
      }
      return;
    case ExprKind::BoolOp:
      for (size_t k = 1; k < e.items.size(); ++k) {
        if (!has_call(e.items[k].get())) continue;
        lower_bool_op(e);
        return;
      }
      prepare(*e.items[0]);
      return;
    case ExprKind::Binary:
      if (!checked_division(e)) break;
      prepare(*e.items[0]);
      prepare(*e.items[1]);
      hoist_divisor(e);
      return;
    case ExprKind::Compare:
      for (size_t k = 2; k < e.items.size(); ++k) {
        if (!has_call(e.items[k].get())) continue;
        lower_compare(e);
        return;
      }
      break;
    default:
      break;
  }
  for (const auto& item : e.items)
    if (item) prepare(*item);
  for (const auto& kw : e.keywords) prepare(*kw.value);
}

void Emitter::prepare_arguments(const Expr& call) {
  for (size_t k = 1; k < call.items.size(); ++k) prepare(*call.items[k]);
  for (const auto& kw : call.keywords) prepare(*kw.value);
}

void Emitter::prepare_target(const Expr& target) {
  if (target.kind == ExprKind::Subscript) {
    prepare(*target.items[0]);
    prepare(*target.items[1]);
  } else if (target.kind == ExprKind::Attribute) {
    prepare(*target.items[0]);  // a record's field: the record
  } else if (target.kind == ExprKind::Tuple) {
    for (const auto& item : target.items) prepare_target(*item);
  }
}

void Emitter::hoist_intrinsic(const Expr& e) {
  const ExprInfo& i = info(e);
  switch (i.intrinsic->rule) {
    case sema::Rule::Barrier:
      if (racecheck()) line(race_barrier(e) + ";");
      line(std::string(d_.barrier));
      hoisted_[&e] = {};
      return;
    case sema::Rule::Fence: {
      int k = i.intrinsic->c_name == "device" ? 0 : i.intrinsic->c_name == "block" ? 1 : 2;
      line(std::string(d_.fences[k]) + ";");
      hoisted_[&e] = {};
      return;
    }
    case sema::Rule::GridSync:
      grid_sync(e);
      hoisted_[&e] = {};
      return;
    case sema::Rule::SyncWarp: {
      note_warp_use(e);
      std::string mask = e.items.size() > 1 ? emit_as(*e.items[1], Type::scalar_of(Scalar::UInt32))
                                            : "0xffffffffu";
      if (racecheck() && module_.fibers) line(race_syncwarp(e, mask) + ";");
      if (!d_.syncwarp.empty()) line(warp_call(d_.syncwarp, mask, "", "") + ";");
      hoisted_[&e] = {};
      return;
    }
    case sema::Rule::FloatSplit: {
      // frexp(x, &e) / modf(x, &i) in the operand's float type (float16
      // computes in float: both parts of a float16 are exact float16s).
      Scalar s = sema::concrete(i.operand);
      Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
      std::string rt(d_.value_type(real));
      std::string x = "simt_tmp" + std::to_string(temp_counter_++);
      std::string first = "simt_tmp" + std::to_string(temp_counter_++);
      std::string second = "simt_tmp" + std::to_string(temp_counter_++);
      line(rt + " " + x + " = " + emit_as(*e.items[1], Type::scalar_of(real)) + ";");
      bool frexp = i.intrinsic->c_name == "frexp";
      line((frexp ? std::string("int ") : rt + " ") + second + ";");
      line(rt + " " + first + " = " + d_.math_name(i.intrinsic->c_name, real) + "(" + x + ", &" +
           second + ");");
      if (frexp) {
        // C leaves the exponent of an infinity or NaN unspecified; Python says 0.
        hoisted_[&e] = {first, "(" + std::string(d_.isfinite_name) + "(" + x + ") ? (" +
                                   std::string(d_.value_type(Scalar::Int64)) + ")" + second +
                                   " : 0)"};
      } else {
        hoisted_[&e] = {first, second};
      }
      return;
    }
    case sema::Rule::Reshape:
      hoist_reshape(e);
      return;
    case sema::Rule::ComplexPolar: {
      Scalar s = sema::concrete(i.operand);
      Scalar real = sema::real_of(s);
      std::string z = "simt_tmp" + std::to_string(temp_counter_++);
      line(std::string(d_.value_type(s)) + " " + z + " = " + emit_as(*e.items[1], i.operand) + ";");
      hoisted_[&e] = {helpers_.use(Helper::ComplexAbs, s) + "(" + z + ")",
                      d_.math_name("atan2", real) + "(" + z + ".im, " + z + ".re)"};
      return;
    }
    case sema::Rule::Match:
      if (i.intrinsic->c_name == "all") {
        // match_all_sync's predicate comes back through a pointer.
        note_warp_use(e);
        std::string m = "simt_tmp" + std::to_string(temp_counter_++);
        std::string pred = "simt_tmp" + std::to_string(temp_counter_++);
        line("int " + pred + " = 0;");
        std::string code =
            d_.matches[1].empty()
                ? "0u"
                : warp_call(d_.matches[1], emit_as(*e.items[1], Type::scalar_of(Scalar::UInt32)),
                            emit_as(*e.items[2], i.operand), "&" + pred);
        line("unsigned int " + m + " = " + code + ";");
        hoisted_[&e] = {m, "(" + pred + " != 0)"};
        return;
      }
      [[fallthrough]];
    case sema::Rule::Libdevice:
      if (i.type.is_tuple()) {
        // sincos, frexp, ...: one helper per result, each into a temporary.
        std::vector<std::string> parts;
        for (size_t k = 0; k < i.type.items.size(); ++k) {
          std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
          line(ctype(i.type.items[k]) + " " + tmp + " = " + libdevice_part(e, k) + ";");
          parts.push_back(tmp);
        }
        hoisted_[&e] = parts;
        return;
      }
      [[fallthrough]];
    default: {
      std::string code = call(e);
      std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
      line(ctype(i.type) + " " + tmp + " = " + code + ";");
      hoisted_[&e] = {tmp};
      return;
    }
  }
}

void Emitter::hoist_call(const Expr& e) {
  const Type& rt = info(e).function->typed.return_type;
  std::string status = raise_status(e);
  std::string code = call_code(e, status);
  if (rt.kind == TypeKind::None) {
    line(code + ";");
    leave_if_raised(status);
    hoisted_[&e] = {};
    return;
  }
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  line(result_ctype(rt) + " " + tmp + " = " + code + ";");
  if (!status.empty()) leave_if_raised(status);
  if (!rt.is_tuple()) {
    hoisted_[&e] = {tmp};
    return;
  }
  std::vector<std::string> parts;
  for (size_t k = 0; k < count_parts(rt); ++k) parts.push_back(tmp + ".v" + std::to_string(k));
  hoisted_[&e] = parts;
}

void Emitter::hoist_foreign(const Expr& e) {
  const sema::ForeignFunction& fn = *info(e).foreign;
  link_foreign(fn, e.span);
  // The result's slot; a function without a result gets an int to write to.
  const bool has_result = fn.result.kind != TypeKind::None;
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  std::vector<std::string> args;
  if (!fn.c_abi) {
    line((has_result ? ctype(fn.result) : std::string("int")) + " " + tmp + " = 0;");
    args.push_back("&" + tmp);
  }
  for (size_t k = 0; k < fn.params.size(); ++k) {
    const Expr& arg = *e.items[k + 1];
    if (fn.params[k].pointer) {
      if (module_.translated_symbols.count(fn.symbol))
        point_into(fn, args.size(), info(arg).type.space, arg.span);
      args.push_back(expr(arg) + ".data");
    } else {
      args.push_back(emit_as(arg, Type::scalar_of(fn.params[k].scalar)));
    }
  }
  const std::string call = fn.symbol + "(" + join_list(args) + ")";
  if (!fn.c_abi)
    line("(void)" + call + ";");
  else if (has_result)
    line(ctype(fn.result) + " " + tmp + " = " + call + ";");
  else
    line(call + ";");
  hoisted_[&e] = has_result ? std::vector<std::string>{tmp} : std::vector<std::string>{};
}

void Emitter::link_foreign(const sema::ForeignFunction& fn, lang::Span at) {
  if (!module_.foreign_symbols.insert(fn.symbol).second) return;
  auto for_device = [&](const sema::LinkedSource& s) {
    return std::find(s.languages.begin(), s.languages.end(), d_.id) != s.languages.end();
  };
  // Sources written in the device's language first; a translation (a CUDA source
  // for OpenCL) only where none is linked, so a .cu beside its .cl twin is not
  // defined twice.
  const std::vector<sema::LinkedSource>* lists[] = {&fn.sources, &options_.link};
  bool native = false;
  for (const auto* list : lists)
    for (const auto& s : *list) native = native || (for_device(s) && !s.translated);
  bool defined = false;
  for (const auto* list : lists)
    for (const auto& s : *list) {
      if (!for_device(s) || s.translated == native) continue;
      defined = true;
      if (module_.linked.insert(s.text).second)
        module_.linked_sources.emplace_back(s.origin, s.text);
    }
  if (defined && !native) module_.translated_symbols.insert(fn.symbol);
  if (!defined)
    fail_at(at, fn.name + "() (declare_device('" + fn.symbol + "', ...)) has no source for " +
                    std::string(abi::language_name(d_.id)) +
                    " devices: link one with cuda.jit(link=[...]) or declare_device(..., "
                    "link=[...]) (.cu or cuda.CUSource for CUDA, the CPU and OpenCL, which "
                    "translates it to OpenCL C; .cl for OpenCL, .c/.cpp for the CPU)");
}

void Emitter::point_into(const sema::ForeignFunction& fn, size_t param, sema::Space space,
                         lang::Span at) {
  const std::string macro = "SIMT_SPACE_" + fn.symbol + "_" + std::to_string(param);
  const std::string qualifier(d_.pointer_space(space));
  auto [it, inserted] = module_.pointer_spaces.emplace(macro, qualifier);
  if (!inserted && it->second != qualifier)
    fail_at(at, fn.name + "() (declare_device('" + fn.symbol +
                    "', ...)) is CUDA C++ translated to OpenCL C, whose pointers each point "
                    "into one address space: this kernel passes its parameter " +
                    std::to_string(param + 1) +
                    " arrays of two (global, shared or local memory); pass one kind, or "
                    "link an OpenCL C source (.cl) that defines a function for each");
}

std::string Emitter::linked_text(size_t lines, const std::string& file) const {
  auto quoted = [](const std::string& name) {
    std::string out = "\"";
    for (char c : name) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
  };
  std::string out;
  for (const auto& [macro, qualifier] : module_.pointer_spaces)
    out += "#define " + macro + " " + qualifier + "\n";
  for (const auto& [origin, text] : module_.linked_sources) {
    out += std::string(d_.linked_prelude) + "#line 1 " + quoted(origin) + "\n" + text;
    if (text.empty() || text.back() != '\n') out += "\n";
    size_t here = lines + static_cast<size_t>(std::count(out.begin(), out.end(), '\n'));
    out += "#line " + std::to_string(here + 2) + " " + quoted(file) + "\n";
  }
  return out;
}

std::string Emitter::call_code(const Expr& e, const std::string& status) {
  const ExprInfo& i = info(e);
  const sema::TypedFunction& callee = i.function->typed;
  // A callee that raises is called as a statement of its own (prepare()),
  // where its status can be tested after it.
  if (callee.raises && status.empty())
    throw std::logic_error("a device function that raises called inside an expression");
  std::vector<std::string> args;
  if (!d_.function_hidden_args.empty()) args.emplace_back(d_.function_hidden_args);
  if (checked()) args.emplace_back("simt_checks");
  if (racecheck()) args.emplace_back("simt_race");
  if (!grid_barrier_param().empty()) args.emplace_back("simt_grid_barrier");
  if (!status.empty()) args.push_back(status);
  for (std::string& slot : shared_slot_args(*i.function)) args.push_back(std::move(slot));
  for (size_t p = 0; p < i.arguments.size(); ++p) {
    const sema::CallArgument& a = i.arguments[p];
    const Type& pt = callee.param_types[p];
    if (pt.kind == TypeKind::DType || pt.kind == TypeKind::Function) continue;  // compile time
    if (pt.kind == TypeKind::GridGroup) continue;  // no storage: no C parameter
    if (pt.is_tuple()) {
      std::vector<std::string> parts, names;
      std::vector<Type> from, to;
      flatten(pt, "", names, to);
      if (a.expr) {
        parts = values(*a.expr);
        flatten(info(*a.expr).type, "", names, from);
      } else {
        constant_parts(a.default_value, parts);
        from = to;
      }
      for (size_t k = 0; k < parts.size(); ++k) args.push_back(convert(parts[k], from[k], to[k]));
    } else if (!a.expr) {
      args.push_back(literal(a.default_value, pt));
    } else if (pt.is_array()) {
      args.push_back(expr(*a.expr));
    } else {
      args.push_back(emit_as(*a.expr, pt));
    }
  }
  return function_symbol(i.function->source->name, i.function->ordinal) + "(" + join_list(args) +
         ")";
}

std::vector<std::string> Emitter::declare_temporaries(const Type& t) {
  std::vector<std::string> names;
  std::vector<Type> types;
  flatten(t, "", names, types);
  std::vector<std::string> temps;
  for (const Type& item : types) {
    std::string name = "simt_tmp" + std::to_string(temp_counter_++);
    bool aggregate = sema::is_complex(sema::concrete(item));
    line(ctype(item) + " " + name + (aggregate ? " = {0};" : " = 0;"));
    temps.push_back(name);
  }
  return temps;
}

void Emitter::assign_temporaries(const std::vector<std::string>& temps, const Expr& e,
                                 const Type& t) {
  std::vector<std::string> parts = values(e);
  std::vector<std::string> names;
  std::vector<Type> from, to;
  flatten(info(e).type, "", names, from);
  flatten(t, "", names, to);
  for (size_t k = 0; k < parts.size(); ++k)
    line(temps[k] + " = " + convert(parts[k], from[k], to[k]) + ";");
}

void Emitter::lower_if_exp(const Expr& e) {
  const Type& t = info(e).type;
  std::vector<std::string> temps = declare_temporaries(t);
  prepare(*e.items[1]);
  line("if (" + truth(*e.items[1]) + ") {");
  for (int branch : {0, 2}) {
    if (branch == 2) line("} else {");
    ++indent_;
    prepare(*e.items[branch]);
    assign_temporaries(temps, *e.items[branch], t);
    --indent_;
  }
  line("}");
  hoisted_[&e] = temps;
}

void Emitter::lower_bool_op(const Expr& e) {
  const Type& t = info(e).type;
  bool is_bool = sema::is_bool(sema::concrete(t));
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  Type bool_type = Type::scalar_of(Scalar::Bool);
  int opened = 0;
  for (size_t k = 0; k < e.items.size(); ++k) {
    if (k > 0) {
      std::string test = is_bool ? tmp : convert(tmp, t, bool_type);
      line("if (" + (e.op == Op::And ? test : "!" + test) + ") {");
      ++indent_;
      ++opened;
    }
    prepare(*e.items[k]);
    std::string value = is_bool ? truth(*e.items[k]) : emit_as(*e.items[k], t);
    line((k == 0 ? ctype(t) + " " : std::string()) + tmp + " = " + value + ";");
  }
  for (; opened > 0; --opened) {
    --indent_;
    line("}");
  }
  hoisted_[&e] = {tmp};
}

void Emitter::lower_compare(const Expr& e) {
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  prepare(*e.items[0]);
  int opened = 0;
  for (size_t k = 0; k < e.ops.size(); ++k) {
    if (k > 0) {
      line("if (" + tmp + ") {");
      ++indent_;
      ++opened;
    }
    prepare(*e.items[k + 1]);
    line((k == 0 ? ctype(Type::scalar_of(Scalar::Bool)) + " " : std::string()) + tmp + " = " +
         compare_pair(e, k) + ";");
  }
  for (; opened > 0; --opened) {
    --indent_;
    line("}");
  }
  hoisted_[&e] = {tmp};
}

}  // namespace simt::codegen::detail
