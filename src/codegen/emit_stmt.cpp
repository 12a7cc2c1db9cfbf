// Statements, each preceded by its Python source line as a comment.
#include <functional>
#include <stdexcept>

#include "codegen/emitter_impl.h"
#include "lang/diagnostics.h"

namespace simt::codegen::detail {

bool loop_contains(const std::vector<lang::StmtPtr>& body, StmtKind kind) {
  for (const auto& s : body) {
    if (s->kind == kind) return true;
    if (s->kind == StmtKind::For || s->kind == StmtKind::While) continue;
    if (loop_contains(s->body, kind) || loop_contains(s->orelse, kind)) return true;
  }
  return false;
}

namespace {

// `while i < n: ...; i += 1` (an ordering test of a variable the body steps
// by a constant, at its top level, on every iteration: no `continue`) ends,
// and is the loop a compiler vectorizes, which the cancellation check would
// prevent (bench/interrupt_check.py): it goes without the check.
bool counted_while(const Stmt& s) {
  const lang::Expr& test = *s.test;
  if (test.kind != lang::ExprKind::Compare || test.ops.size() != 1) return false;
  const lang::Op op = test.ops[0];
  if (op != lang::Op::Lt && op != lang::Op::LtE && op != lang::Op::Gt && op != lang::Op::GtE)
    return false;
  if (test.items[0]->kind != lang::ExprKind::Name) return false;
  const std::string& counter = test.items[0]->name;
  if (loop_contains(s.body, StmtKind::Continue)) return false;
  for (const auto& b : s.body) {
    if (b->kind == StmtKind::AugAssign && b->targets[0]->kind == lang::ExprKind::Name &&
        b->targets[0]->name == counter && (b->op == lang::Op::Add || b->op == lang::Op::Sub) &&
        b->value->kind == lang::ExprKind::Int && b->value->int_value > 0)
      return true;
  }
  return false;
}

}  // namespace

void Emitter::line(const std::string& text) {
  body_ += std::string(2 * indent_, ' ') + text + "\n";
}

void Emitter::source_comment(const Stmt& s) {
  if (regions_.suppress_comment) {
    regions_.suppress_comment = false;
    return;
  }
  std::string text = comment_text(fn_.source->line_text(s.span.line));
  line("// " + fn_.source->filename().substr(fn_.source->filename().find_last_of('/') + 1) + ":" +
       std::to_string(s.span.line) + ": " + text);
}

void Emitter::block(const std::vector<lang::StmtPtr>& body) {
  if (regions_.active && regions_.uniform_level) {
    region_block(body);
    return;
  }
  for (const auto& s : body) stmt(*s);
}

void Emitter::stmt(const Stmt& s) {
  try {
    stmt_unchecked(s);
  } catch (const std::logic_error& e) {
    // A case inference let through that the emitter cannot lower: the user
    // gets simt.TypingError at the innermost statement, not a bare
    // RuntimeError without a location.
    lang::fail(lang::DiagnosticKind::Typing, *fn_.source, s.span,
               std::string("simt cannot compile this statement (internal error: ") + e.what() +
                   "; please report it)");
  }
}

void Emitter::stmt_unchecked(const Stmt& s) {
  if (s.kind != StmtKind::If || !in_elif_) source_comment(s);
  switch (s.kind) {
    case StmtKind::Assign:
      prepare(*s.value);
      for (const auto& target : s.targets) prepare_target(*target);
      assign(s);
      break;
    case StmtKind::AnnAssign:
      if (s.value) {
        prepare(*s.value);
        store(*s.targets[0], *s.value);
      }
      break;
    case StmtKind::AugAssign:
      prepare_target(*s.targets[0]);
      prepare(*s.value);
      aug_assign(s);
      break;
    case StmtKind::If:
      prepare(*s.test);
      if_stmt(s);
      break;
    case StmtKind::While:
      if (counted_grid_stride_while(s)) break;
      if (has_call(s.test.get())) {
        // The test calls a device function: evaluate it at the top of
        // every iteration (`continue` comes back here too).
        line("while (1) {");
        ++indent_;
        prepare(*s.test);
        line("if (!" + truth(*s.test) + ") break;");
        --indent_;
      } else {
        line("while (" + condition(*s.test) + ") {");
      }
      if (!counted_while(s)) {
        ++indent_;
        loop_cancel_check();
        --indent_;
      }
      loop_body(s.body, false);
      line("}");
      break;
    case StmtKind::For:
      prepare(*s.value);
      for_stmt(s);
      break;
    case StmtKind::Break:
      if (loops_.back().unrolled)
        line("goto " + loops_.back().break_label + ";");
      else
        line("break;");
      break;
    case StmtKind::Continue:
      // An unrolled iteration is a do { } while (0): continue leaves it.
      line("continue;");
      break;
    case StmtKind::Return:
      return_stmt(s);
      break;
    case StmtKind::Pass:
      break;
    case StmtKind::ExprStmt:
      expr_stmt(*s.value);
      break;
    case StmtKind::Assert:
      assert_stmt(s);
      break;
    case StmtKind::Raise:
      raise_stmt(s);
      break;
  }
}

void Emitter::loop_cancel_check() {
  if (d_.loop_cancel_check.empty()) return;
  helpers_.define_once("simt_cancel", std::string(d_.loop_cancel_flag));
  line(std::string(d_.loop_cancel_check));
}

void Emitter::loop_body(const std::vector<lang::StmtPtr>& body, bool unrolled, std::string label) {
  loops_.push_back({unrolled, std::move(label), regions_.active && regions_.uniform_level});
  ++indent_;
  if (!unrolled && !loops_.back().uniform) stop_loop_after_failure(body);
  block(body);
  --indent_;
  loops_.pop_back();
}

void Emitter::assign(const Stmt& s) {
  if (s.targets.size() == 1) {
    store(*s.targets[0], *s.value);
    return;
  }
  // `a = b = value`: evaluate once.
  std::vector<std::string> parts = values(*s.value);
  std::vector<std::string> temps = temporaries(info(*s.value).type, parts);
  for (const auto& target : s.targets) store_parts(*target, temps, info(*s.value).type);
}

std::vector<std::string> Emitter::temporaries(const Type& t,
                                              const std::vector<std::string>& parts) {
  std::vector<std::string> names;
  std::vector<Type> types;
  flatten(t, "", names, types);
  std::vector<std::string> temps;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::string name = "simt_tmp" + std::to_string(temp_counter_++);
    line(ctype(types[k]) + " " + name + " = " + parts[k] + ";");
    temps.push_back(name);
  }
  return temps;
}

void Emitter::store(const Expr& target, const Expr& value) {
  const Type& vt = info(value).type;
  if (vt.kind == TypeKind::GridGroup) return;  // no storage: nothing to store
  if (target.kind == ExprKind::Tuple || vt.is_tuple()) {
    std::vector<std::string> parts = values(value);
    // Unpacking reads every value before writing any (a, b = b, a); a
    // device function's result is already a copy.
    if (parts.size() > 1 && !hoisted_.count(&value)) parts = temporaries(vt, parts);
    store_parts(target, parts, vt);
    return;
  }
  if (sema::record_field_of(fn_, target) && info(target).type.is_array()) {
    store_array_field(target, expr(value), vt, &value);  // a record's array field set whole
    return;
  }
  if (target.kind != ExprKind::Name && info(target).type.is_record()) {
    store_parts(target, {expr(value)}, vt);  // a whole record, from a record (its own type)
    return;
  }
  // Converted to the target's type already.
  store_parts(target, {emit_as_target(target, value)}, target_type(target));
}

std::string Emitter::emit_as_target(const Expr& target, const Expr& value) {
  return emit_as(value, target_type(target));
}

Type Emitter::target_type(const Expr& target) {
  if (target.kind == ExprKind::Name) return fn_.locals[info(target).local].type;
  return info(target).type;  // an element
}

void Emitter::store_parts(const Expr& target, const std::vector<std::string>& parts,
                          const Type& vt) {
  if (target.kind == ExprKind::Tuple) {
    size_t offset = 0;
    for (size_t k = 0; k < target.items.size(); ++k) {
      std::vector<std::string> n;
      std::vector<Type> t;
      flatten(vt.items[k], "", n, t);
      std::vector<std::string> sub(parts.begin() + offset, parts.begin() + offset + n.size());
      store_parts(*target.items[k], sub, vt.items[k]);
      offset += n.size();
    }
    return;
  }
  if (target.kind == ExprKind::Name) {
    int index = info(target).local;
    const Type& lt = fn_.locals[index].type;
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(lt, local_name(index), names, types);
    std::vector<std::string> vnames;
    std::vector<Type> vtypes;
    flatten(vt, "", vnames, vtypes);
    for (size_t k = 0; k < names.size(); ++k)
      line(
          for_every_thread(index, names[k] + " = " + convert(parts[k], vtypes[k], types[k]) + ";"));
    return;
  }
  // An array element or a record field.
  const Type& element = info(target).type;
  if (element.is_array()) {
    store_array_field(target, parts[0], vt, nullptr);  // a record's array field set whole
    return;
  }
  if (element.is_record() && vt.is_tuple()) {
    store_tuple_in_record(target, parts, vt);
    return;
  }
  if (element.is_record()) {
    // A whole record: the value's bytes (a record of the same layout).
    line(record_copy(expr(target), element, parts[0], vt));
    return;
  }
  line(target_ref(target) + " = " +
       store_conversion(convert(parts[0], vt, element), element.scalar) + ";");
}

void Emitter::aug_assign(const Stmt& s) {
  const Expr& target = *s.targets[0];
  const ExprInfo& op = fn_.at(s);
  Type tt = target_type(target);
  std::string current = expr(target);
  // C widens a real target to the operation's type by itself, but has no
  // conversion between the complex structs (complex64 += float64).
  if (sema::is_complex(sema::concrete(op.operand)))
    current = convert(current, tt, Type::scalar_of(sema::concrete(op.operand)));
  std::string result = binary_code(s.op, op.operand, current, info(target), *s.value);
  std::string value = convert(result, op.type, tt);
  if (target.kind == ExprKind::Name)
    line(local_name(info(target).local) + " = " + value + ";");
  else
    line(target_ref(target) + " = " + store_conversion(value, tt.scalar) + ";");
}

void Emitter::if_stmt(const Stmt& s) {
  if (thread_guard_ && thread_guard_->test_stmt == &s) {
    // In rows where the guard holds for every thread, the test is known (and
    // what it says about the indices is assumed: `0 < j` drops j - 1's
    // negative-index check); elsewhere it is tested.
    std::string test = condition(*s.test);
    bool holds_when = thread_guard_->holds_when;
    if (!d_.assume.empty())
      line("if (simt_guard_holds) " +
           apply(d_.assume, "", std::string(holds_when ? "" : "!") + "(" + test + ")") + ";");
    line(std::string(holds_when ? "if (simt_guard_holds || " : "if (!simt_guard_holds && ") + "(" +
         test + ")) {");
  } else {
    line((in_elif_ ? "} else if (" : "if (") + condition(*s.test) + ") {");
  }
  in_elif_ = false;
  ++indent_;
  block(s.body);
  --indent_;
  if (s.orelse.size() == 1 && s.orelse[0]->kind == StmtKind::If &&
      !has_call(s.orelse[0]->test.get()) && !(regions_.active && regions_.uniform_level)) {
    // The elif's own `} else if` line closes this block.
    in_elif_ = true;
    stmt(*s.orelse[0]);
    return;
  }
  if (!s.orelse.empty()) {
    line("} else {");
    ++indent_;
    block(s.orelse);
    --indent_;
  }
  line("}");
}

void Emitter::range_loop(const std::string& header, const std::string& assign_local,
                         const Stmt& s) {
  line(header);
  ++indent_;
  line(assign_local);
  --indent_;
  loop_body(s.body, false);
  line("}");
}

void Emitter::for_stmt(const Stmt& s) {
  const Expr& target = *s.targets[0];
  const Type& iter = info(*s.value).type;
  if (iter.is_tuple()) {
    // Unrolled: each item runs the body once; `continue` ends an
    // iteration's do-while, `break` jumps past all of them.
    std::vector<std::string> parts = values(*s.value);
    std::string label = "simt_break" + std::to_string(temp_counter_++);
    bool uses_break = loop_contains(s.body, StmtKind::Break);
    size_t offset = 0;
    // Each copy of the body evaluates its calls anew: a call's temporary from
    // the copy before is out of scope (and of the wrong iteration).
    const auto hoisted_before = hoisted_;
    for (size_t k = 0; k < iter.items.size(); ++k) {
      hoisted_ = hoisted_before;
      std::vector<std::string> n;
      std::vector<Type> t;
      flatten(iter.items[k], "", n, t);
      std::vector<std::string> item(parts.begin() + offset, parts.begin() + offset + n.size());
      offset += n.size();
      line("do {");
      ++indent_;
      store_parts(target, item, iter.items[k]);
      --indent_;
      loop_body(s.body, true, label);
      line("} while (0);");
    }
    if (uses_break) line(label + ":;");
    return;
  }
  if (!iter.items.empty() || iter.is_array()) {
    counted_loop(s);
    return;
  }
  const Expr& call = *s.value;
  const Type& index = info(call).operand;  // the range's integer type
  Type strong = Type::scalar_of(sema::concrete(index));
  std::string it = "simt_i" + std::to_string(temp_counter_++);
  std::string stop = "simt_stop" + std::to_string(temp_counter_);
  std::string step_name = "simt_step" + std::to_string(temp_counter_);
  std::string ct = ctype(strong);
  size_t n = call.items.size() - 1;
  std::string start_code = n == 1 ? "0" : emit_as(*call.items[1], strong);
  std::string stop_code = emit_as(*call.items[n == 1 ? 1 : 2], strong);
  std::optional<int64_t> step;
  if (n < 3)
    step = 1;
  else if (info(*call.items[3]).constant)
    step = info(*call.items[3]).constant->int_value;
  int local = info(target).local;
  std::string assign_local = for_every_thread(
      local, local_name(local) + " = " + convert(it, strong, fn_.locals[local].type) + ";");
  if (step && *step == 1) {
    // `it < stop` holds before every increment, so it can never overflow.
    range_loop("for (" + ct + " " + it + " = " + start_code + ", " + stop + " = " + stop_code +
                   "; " + it + " < " + stop + "; ++" + it + ") {",
               assign_local, s);
    return;
  }
  if ((step && *step > 1) || (!step && info(*call.items[3]).nonnegative)) {
    // A positive step (grid-stride loops: `range(grid(1), n, gridsize(1))`):
    // the trip count, computed once, lets the C compiler unroll the loop and
    // keep several loads in flight (a select in the increment measured 0.6x
    // nvcc's grid-stride sum on the H200). The counter advances in the
    // unsigned type, so the value past the last is never an overflow; a zero
    // step runs no iteration (Python raises there).
    std::string u = range_unsigned(strong.scalar);
    std::string step_code =
        step ? literal_int(*step, strong.scalar) : emit_as(*call.items[3], strong);
    std::string count = "simt_count" + std::to_string(temp_counter_);
    line("{");
    ++indent_;
    line(ct + " " + it + " = " + start_code + ", " + stop + " = " + stop_code + ", " + step_name +
         " = " + step_code + ";");
    line(u + " " + count + " = " + it + " < " + stop + " && " + step_name + " > 0 ? ((" + u + ")" +
         stop + " - (" + u + ")" + it + " - 1u) / (" + u + ")" + step_name + " + 1u : 0u;");
    range_loop("for (; " + count + " != 0; --" + count + ", " + it + " = (" + ct + ")((" + u + ")" +
                   it + " + (" + u + ")" + step_name + ")) {",
               assign_local, s);
    --indent_;
    line("}");
    return;
  }
  // Other steps count iterations in the unsigned type (range_length); a step known
  // only at run time gets C's plain loops where they are exact (versioned_range_loop).
  std::string start = "simt_start" + std::to_string(temp_counter_);
  std::string step_code =
      step ? literal_int(*step, strong.scalar) : emit_as(*call.items[3], strong);
  line("{");
  ++indent_;
  line(ct + " " + start + " = " + start_code + ", " + stop + " = " + stop_code + ", " + step_name +
       " = " + step_code + ";");
  const RangeVars r{strong, start, stop, step_name, it, assign_local};
  if (step || !versioned_range_loop(s, r)) counted_range_loop(s, r, step);
  --indent_;
  line("}");
}

void Emitter::counted_range_loop(const Stmt& s, const RangeVars& r,
                                 std::optional<int64_t> known_step, bool rolled) {
  std::string ct = ctype(r.type), u = range_unsigned(r.type.scalar);
  std::string n = std::to_string(temp_counter_);
  std::string count = "simt_count" + n, k = "simt_k" + n;
  line(u + " " + count + " = " + range_length(u, r.start, r.stop, r.step, known_step) + ";");
  if (rolled && !d_.rolled_loop.empty()) line(std::string(d_.rolled_loop));
  line("for (" + u + " " + k + " = 0; " + k + " < " + count + "; ++" + k + ") {");
  ++indent_;
  line(ct + " " + r.it + " = (" + ct + ")((" + u + ")" + r.start + " + " + k + " * (" + u + ")" +
       r.step + ");");
  line(r.assign_local);
  --indent_;
  loop_body(s.body, false);
  line("}");
}

void Emitter::counted_parts(const Expr& iter, const std::string& tag,
                            std::vector<CountedPart>& out) {
  // Each sequence is evaluated once, before the loop, in Python's order.
  const Type& t = info(iter).type;
  const std::string u64(d_.value_type(Scalar::UInt64));
  const std::string i64(d_.value_type(Scalar::Int64));
  const std::string name = tag + "_" + std::to_string(out.size());
  if (t.is_array()) {
    // Its elements along the first axis, or views of its rows.
    std::string seq = "simt_seq" + name, len = "simt_len" + name;
    line(ctype(t) + " " + seq + " = " + expr(iter) + ";");
    line(u64 + " " + len + " = (" + u64 + ")" + seq + ".shape[0];");
    Type row = sema::array_row(t);
    out.push_back({len, [this, t, row, seq, i64](const std::string& k) {
                     std::string index = "(" + i64 + ")" + k;
                     if (row.is_array())
                       return view_call(t, row, seq, index + " * " + seq + ".strides[0]", "i", "");
                     return load_storage(seq + ".data[" + offset(seq, t, {index}) + "]", t.scalar);
                   }});
    return;
  }
  if (t.is_tuple()) {
    // Read by the iteration number (zip with ranges or arrays): its items, evaluated
    // once, converted to the one item type sema gave them.
    std::vector<Type> types;
    std::vector<std::string> names;
    flatten(t, "", names, types);
    std::vector<std::string> items = temporaries(t, values(iter));
    Type joined = t.items.at(0);  // sema refuses empty tuples here
    for (const Type& it : t.items) joined = sema::join(joined, it).value();
    joined = joined.strong();
    for (size_t j = 0; j < items.size(); ++j) items[j] = convert(items[j], types[j], joined);
    std::string len = "simt_len" + name;
    line(u64 + " " + len + " = " + std::to_string(items.size()) + "u;");
    out.push_back({len, [items](const std::string& k) {
                     std::string chosen = items.back();
                     for (size_t j = items.size() - 1; j-- > 0;)
                       chosen = "(" + k + " == " + std::to_string(j) + "u ? " + items[j] + " : " +
                                chosen + ")";
                     return chosen;
                   }});
    return;
  }
  const ExprInfo& i = info(iter);
  if (iter.kind != ExprKind::Call || !i.intrinsic)
    fail_at(iter.span, "enumerate() and zip() take range(...) calls written in the loop header");
  switch (i.intrinsic->rule) {
    case sema::Rule::Enumerate: {
      // The counter first (it comes first in each item), its start read after the
      // sequence, as Python evaluates enumerate's arguments.
      std::vector<CountedPart> inner;
      counted_parts(*iter.items[1], name + "e", inner);
      std::string start = "simt_start" + name;
      Type i64_type = Type::scalar_of(Scalar::Int64);
      line(i64 + " " + start + " = " +
           (iter.items.size() > 2 ? emit_as(*iter.items[2], i64_type) : "0") + ";");
      out.push_back({"", [start, i64, u64](const std::string& k) {
                       return "(" + i64 + ")((" + u64 + ")" + start + " + " + k + ")";
                     }});
      out.insert(out.end(), inner.begin(), inner.end());
      return;
    }
    case sema::Rule::Zip:
      for (size_t k = 1; k < iter.items.size(); ++k) counted_parts(*iter.items[k], tag, out);
      return;
    default: {
      // range(...), in its arguments' integer type: each value computed from the
      // iteration number in the unsigned type, so none past the stop is formed.
      Type rt = Type::scalar_of(sema::concrete(i.operand));
      std::string ct = ctype(rt), u = range_unsigned(rt.scalar);
      std::string start = "simt_start" + name, stop = "simt_stop" + name, step = "simt_step" + name,
                  len = "simt_len" + name;
      size_t n = iter.items.size() - 1;
      line(ct + " " + start + " = " + (n == 1 ? "0" : emit_as(*iter.items[1], rt)) + ", " + stop +
           " = " + emit_as(*iter.items[n == 1 ? 1 : 2], rt) + ", " + step + " = " +
           (n == 3 ? emit_as(*iter.items[3], rt) : literal_int(1, rt.scalar)) + ";");
      line(u64 + " " + len + " = " + range_length(u, start, stop, step, std::nullopt) + ";");
      out.push_back({len, [ct, u, start, step](const std::string& k) {
                       return "(" + ct + ")((" + u + ")" + start + " + (" + u + ")" + k + " * (" +
                              u + ")" + step + ")";
                     }});
      return;
    }
  }
}

void Emitter::counted_loop(const Stmt& s) {
  std::string n = std::to_string(temp_counter_++);
  std::string u64(d_.value_type(Scalar::UInt64));
  std::string count = "simt_count" + n, k = "simt_k" + n;
  line("{");
  ++indent_;
  std::vector<CountedPart> parts;
  counted_parts(*s.value, n, parts);
  // The loop runs as long as the shortest sequence, as zip does.
  line(u64 + " " + count + " = ~(" + u64 + ")0;");
  for (const CountedPart& p : parts)
    if (!p.length.empty())
      line("if (" + p.length + " < " + count + ") " + count + " = " + p.length + ";");
  line("for (" + u64 + " " + k + " = 0; " + k + " < " + count + "; ++" + k + ") {");
  ++indent_;
  // The parts are in the order the yielded tuple flattens to; its leaves are
  // stored with the parts' own (strong) types.
  std::function<Type(const Type&)> strong_items = [&](const Type& t) {
    if (!t.is_tuple()) return t.strong();
    std::vector<Type> items;
    for (const Type& item : t.items) items.push_back(strong_items(item));
    return Type::tuple(std::move(items));
  };
  std::vector<std::string> values_now;
  for (const CountedPart& p : parts) values_now.push_back(p.value(k));
  const Type& iter = info(*s.value).type;
  Type item = iter.is_array() ? sema::array_row(iter) : iter.range_item();
  store_parts(*s.targets[0], values_now, strong_items(item));
  --indent_;
  loop_body(s.body, false);
  line("}");
  --indent_;
  line("}");
}

std::vector<std::string> Emitter::tuple_iteration_parts(const Expr& call) {
  std::vector<std::string> out;
  auto item_parts = [&](const Expr& tuple, const std::vector<std::string>& parts, size_t j) {
    const Type& t = info(tuple).type;
    size_t offset = item_offset(t, static_cast<int64_t>(j));
    out.insert(out.end(), parts.begin() + offset, parts.begin() + offset + count_parts(t.items[j]));
  };
  size_t rows = info(call).type.items.size();
  if (info(call).intrinsic->rule == sema::Rule::Enumerate) {
    const Expr& x = *call.items[1];
    std::vector<std::string> parts = values(x);
    Type i64 = Type::scalar_of(Scalar::Int64);
    std::string start = call.items.size() > 2 ? emit_as(*call.items[2], i64) : "";
    for (size_t j = 0; j < rows; ++j) {
      std::string index = literal_int(static_cast<int64_t>(j), Scalar::Int64);
      out.push_back(start.empty() ? index : "(" + start + " + " + index + ")");
      item_parts(x, parts, j);
    }
    return out;
  }
  std::vector<std::vector<std::string>> each;
  for (size_t k = 1; k < call.items.size(); ++k) each.push_back(values(*call.items[k]));
  for (size_t j = 0; j < rows; ++j)
    for (size_t k = 1; k < call.items.size(); ++k) item_parts(*call.items[k], each[k - 1], j);
  return out;
}

std::string Emitter::range_unsigned(Scalar s) const {
  return std::string(d_.value_type(sema::bit_width(s) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
}

std::string Emitter::range_length(const std::string& u, const std::string& start,
                                  const std::string& stop, const std::string& step,
                                  std::optional<int64_t> known_step) const {
  std::string up = "(" + start + " < " + stop + " ? ((" + u + ")" + stop + " - (" + u + ")" +
                   start + " - 1u) / (" + u + ")" + step + " + 1u : 0u)";
  std::string down = "(" + start + " > " + stop + " ? ((" + u + ")" + start + " - (" + u + ")" +
                     stop + " - 1u) / (0u - (" + u + ")" + step + ") + 1u : 0u)";
  if (known_step) return *known_step > 0 ? up : *known_step < 0 ? down : "0u";
  return "(" + step + " > 0 ? " + up + " : " + step + " < 0 ? " + down + " : 0u)";
}

void Emitter::expr_stmt(const Expr& e) {
  if (e.kind == ExprKind::String || e.kind == ExprKind::None) return;
  if (e.kind == ExprKind::Tuple) {
    // Each item is a statement of its own: a string, None or module inside a
    // tuple (`"doc",`) has no value to emit, as it has none alone.
    for (const auto& item : e.items) expr_stmt(*item);
    return;
  }
  const ExprInfo& i = info(e);
  if (e.kind == ExprKind::Call && i.function) {
    // A device function called for its effects: its result is dropped.
    prepare_arguments(e);
    std::string status = raise_status(e);
    line(call_code(e, status) + ";");
    if (!status.empty()) leave_if_raised(status);
    return;
  }
  prepare(e);
  if (e.kind == ExprKind::Call && i.intrinsic && i.intrinsic->rule == sema::Rule::Print) {
    print(e);
    return;
  }
  if (i.type.is_tuple()) {
    for (const auto& part : values(e)) line("(void)(" + part + ");");
    return;
  }
  if (i.type.is_scalar() || i.type.is_array()) line("(void)(" + expr(e) + ");");
}

void Emitter::print(const Expr& call) {
  std::string format;
  std::string args;
  // One number, formatted as Python prints it.
  auto number = [&](const std::string& value, const Type& t) {
    Scalar s = sema::concrete(t);
    if (sema::is_bool(s)) {
      format += "%s";
      args += ", " + value + " ? \"True\" : \"False\"";
    } else if (sema::is_signed(s)) {
      format += std::string(d_.printf_int64);
      args += ", " + convert(value, t, Type::scalar_of(Scalar::Int64));
    } else if (sema::is_unsigned(s)) {
      format += std::string(d_.printf_uint64);
      args += ", " + convert(value, t, Type::scalar_of(Scalar::UInt64));
    } else if (sema::is_complex(s)) {
      std::string tmp = temporaries(t.strong(), {value})[0];
      format += "(%g%+gj)";
      args += ", (double)" + tmp + ".re, (double)" + tmp + ".im";
    } else {
      // Python's 3.0, not C's 3: an integral value %g prints whole gets ".0".
      const Type f64 = Type::scalar_of(Scalar::Float64);
      std::string x = temporaries(f64, {"(double)" + value})[0];
      format += "%g%s";
      args += ", " + x + ", (" + x + " == " + d_.math_name("floor", Scalar::Float64) + "(" + x +
              ") && " + d_.math_name("fabs", Scalar::Float64) + "(" + x +
              ") < 1e6) ? \".0\" : \"\"";
    }
  };
  // A tuple's leaves, in order, inside its parentheses: (1, (2.5, 3), (4,)).
  std::function<void(const Type&, const std::vector<std::string>&, size_t&)> tuple =
      [&](const Type& t, const std::vector<std::string>& leaves, size_t& next) {
        if (!t.is_tuple()) {
          number(leaves[next++], t);
          return;
        }
        format += '(';
        for (size_t k = 0; k < t.items.size(); ++k) {
          if (k > 0) format += ", ";
          tuple(t.items[k], leaves, next);
        }
        format += t.items.size() == 1 ? ",)" : ")";
      };
  for (size_t k = 1; k < call.items.size(); ++k) {
    const Expr& a = *call.items[k];
    const Type& t = info(a).type;
    if (k > 1) format += ' ';
    if (t.kind == TypeKind::String) {
      for (char c : a.str_value) {
        if (c == '%')
          format += "%%";
        else if (c == '"' || c == '\\')
          format += std::string("\\") + c;
        else if (c == '\n')
          format += "\\n";
        else
          format += c;
      }
      continue;
    }
    if (t.kind == TypeKind::None) {
      format += "None";
      continue;
    }
    if (t.kind == TypeKind::Dim3) {  // print(cuda.threadIdx): (x, y, z)
      const Type int64 = Type::scalar_of(Scalar::Int64);
      format += '(';
      for (int c = 0; c < 3; ++c) {
        if (c > 0) format += ", ";
        number(index_value(index_object(t), c), int64);
      }
      format += ')';
      continue;
    }
    if (t.is_tuple()) {
      size_t next = 0;
      tuple(t, values(a), next);
      continue;
    }
    number(expr(a), t);
  }
  line("printf(\"" + format + "\\n\"" + args + ");");
}

}  // namespace simt::codegen::detail
