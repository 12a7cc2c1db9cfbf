// The gang form of a grid-stride loop on the CPU. In the lockstep rounds
// (emit_regions.cpp) each round runs one iteration of every thread still in
// the loop, testing each thread's mask, so the loop over threads stays scalar.
// Launched as users launch it (`i = cuda.grid(1)`, one-dimensional blocks), a
// block's counters are consecutive: thread t's counter is thread 0's plus t in
// every round, since all of them advance by the same grid-sized stride. The
// threads still in the loop are then a prefix of the block, found from thread
// 0's counter alone, and a round is a plain loop over that prefix whose
// accesses `x[i]` are consecutive: Clang vectorizes it (ISPC's gang, for the
// one shape where no mask is needed). The generated code checks the
// consecutive counters at run time and otherwise runs the masked rounds.
#include <algorithm>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

bool signed_integer(const Type& t) {
  Scalar s = sema::concrete(t);
  return t.is_scalar() && abi::is_integer(s) && abi::is_signed(s);
}

// An expression whose value cannot change while the loop runs, other than
// through locals: it reads no array element (the loop body may write one).
bool reads_no_array(const sema::TypedFunction& fn, const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Int:
    case ExprKind::Bool:
      return true;
    case ExprKind::Attribute: {  // x.size, x.shape, blockDim.x, a tuple's field; not a record's
      auto base = fn.exprs.find(e.items[0].get());
      if (base == fn.exprs.end()) return false;
      const Type& t = base->second.type;
      return (t.is_array() || t.is_tuple() || t.kind == TypeKind::Dim3) &&
             reads_no_array(fn, *e.items[0]);
    }
    case ExprKind::Subscript: {
      auto base = fn.exprs.find(e.items[0].get());
      return base != fn.exprs.end() && base->second.type.is_tuple() &&
             reads_no_array(fn, *e.items[0]) && reads_no_array(fn, *e.items[1]);
    }
    case ExprKind::Call: {  // the launch's sizes
      auto call = fn.exprs.find(&e);
      if (call == fn.exprs.end() || !call->second.intrinsic) return false;
      sema::Rule rule = call->second.intrinsic->rule;
      return rule == sema::Rule::GridSize || rule == sema::Rule::Len;
    }
    case ExprKind::Unary:
    case ExprKind::Binary:
      for (const auto& item : e.items)
        if (!reads_no_array(fn, *item)) return false;
      return true;
    default:
      return false;
  }
}

namespace {

bool reads_local(const sema::TypedFunction& fn, const Expr& e, int local) {
  if (e.kind == ExprKind::Name) {
    auto found = fn.exprs.find(&e);
    return found == fn.exprs.end() || found->second.local == local;
  }
  for (const auto& item : e.items)
    if (item && reads_local(fn, *item, local)) return true;
  for (const auto& keyword : e.keywords)
    if (keyword.value && reads_local(fn, *keyword.value, local)) return true;
  return false;
}

// A statement's reads of `local`; a plain name as an assignment's or a loop's target is
// a write.
bool stmt_reads_local(const sema::TypedFunction& fn, const Stmt& s, int local) {
  const bool writes_names =
      s.kind == StmtKind::Assign || s.kind == StmtKind::AnnAssign || s.kind == StmtKind::For;
  for (const auto& target : s.targets)
    if (!(writes_names && target->kind == ExprKind::Name) && reads_local(fn, *target, local))
      return true;
  for (const Expr* e : {s.value.get(), s.test.get()})
    if (e && reads_local(fn, *e, local)) return true;
  for (const auto* block : {&s.body, &s.orelse})
    for (const auto& b : *block)
      if (stmt_reads_local(fn, *b, local)) return true;
  return false;
}

}  // namespace

bool read_after(const sema::TypedFunction& fn, const Stmt& loop, int local) {
  const auto& body = fn.parsed->def.body;
  auto at = std::find_if(body.begin(), body.end(), [&](const auto& b) { return b.get() == &loop; });
  if (at == body.end()) return true;
  return std::any_of(std::next(at), body.end(),
                     [&](const auto& b) { return stmt_reads_local(fn, *b, local); });
}

bool Emitter::gang_rounds(const Stmt& s, const std::string& next, const Type& strong) {
  // The stop, and for a range the step, are read once per round outside the
  // loop over threads; counters are 64-bit, so `first + t` cannot wrap.
  const Expr* stop = nullptr;
  const Expr* step = nullptr;
  std::string counter;  // the per-thread array of the counters (a range's next values)
  std::string tail;     // LtE: one more thread in the loop
  if (s.kind == StmtKind::For) {
    if (sema::concrete(strong) != Scalar::Int64) return false;
    stop = s.value->items[2].get();
    step = s.value->items[3].get();
    counter = next;
  } else {
    const Expr& test = *s.test;
    if (test.ops.size() != 1 || (test.ops[0] != lang::Op::Lt && test.ops[0] != lang::Op::LtE))
      return false;
    int local = info(*test.items[0]).local;
    if (local < 0 || !per_thread(local) || sema::concrete(fn_.locals[local].type) != Scalar::Int64)
      return false;
    // The counter advances only by the stride statement grid_stride_step found.
    if (assignments_to(fn_, s.body, local) != 1) return false;
    stop = test.items[1].get();
    counter = per_thread_array(local);
    if (test.ops[0] == lang::Op::LtE) tail = " + 1";
  }
  if (!regions_.uniformity->uniform_expr(*stop) || !signed_integer(info(*stop).type) ||
      !reads_no_array(fn_, *stop))
    return false;
  if (step && (!regions_.uniformity->uniform_expr(*step) || !reads_no_array(fn_, *step)))
    return false;

  // The counter (a range's loop variable) in a C local when nothing after the loop
  // reads it: stored to its per-thread array in every iteration, it cost a second
  // store stream beside the loads (bench/cpu.py's sum: 9.5-10 ms against 7 ms in a
  // C++ model of the rounds, bench/cpu/grid_stride_rounds.cpp). Thread 0's next
  // counter, the next round's first, is then the first plus the stride.
  const int counter_local = info(s.kind == StmtKind::For ? *s.targets[0] : *s.test->items[0]).local;
  const Expr* stride = s.kind == StmtKind::For ? nullptr : grid_stride_step(fn_, s);
  const bool in_register =
      !read_after(fn_, s, counter_local) &&
      (s.kind == StmtKind::For ||
       (stride && regions_.uniformity->uniform_expr(*stride) && reads_no_array(fn_, *stride)));

  const std::string n = std::to_string(temp_counter_++);
  const std::string gang = "simt_gang" + n, first = "simt_first" + n;
  const std::string in_c_local = "simt_counter" + n;
  const Type i64 = Type::scalar_of(Scalar::Int64);
  const std::string counter_at = counter + "[simt_t]";
  line("int " + gang + " = simt_ctx->block_dim[1] * simt_ctx->block_dim[2] == 1;");
  line("simt_i64 " + first + " = 0;");
  line("for (simt_i64 simt_t = 0; " + gang + " && simt_t < simt_nthreads; ++simt_t) {");
  line("  if (simt_t == 0) " + first + " = (simt_i64)" + counter_at + ";");
  std::string idle = regions_.has_exits ? " || simt_exited[simt_t]" : "";
  if (!regions_.masks.empty()) idle += " || !" + regions_.masks.back() + "[simt_t]";
  line("  if ((simt_i64)" + counter_at + " != " + first + " + simt_t" + idle + ") " + gang +
       " = 0;");
  line("}");
  line("if (" + gang + ") {");
  ++indent_;
  line("for (;;) {");
  ++indent_;
  loop_cancel_check();
  line("const simt_i64 simt_stop = " + emit_as(*stop, i64) + ";");
  if (in_register && stride) line("const simt_i64 simt_stride = " + emit_as(*stride, i64) + ";");
  if (step) {
    line("const simt_i64 simt_step = " + emit_as(*step, i64) + ";");
    line("if (!(" + first + " < simt_stop && simt_step > 0)) break;");
  } else {
    line(std::string("if (!(") + first + (tail.empty() ? " < " : " <= ") + "simt_stop)) break;");
  }
  // The threads whose counter is still below the stop: a prefix of the block.
  line(
      "const unsigned long long simt_left = (unsigned long long)simt_stop - "
      "(unsigned long long)" +
      first + ";");
  line(
      "const simt_i64 simt_count = simt_left >= (unsigned long long)simt_nthreads ? "
      "simt_nthreads : (simt_i64)simt_left" +
      tail + ";");
  line("for (simt_i64 simt_t = 0; simt_t < simt_count; ++simt_t) {");
  ++indent_;
  line("const simt_thread simt_tid = {simt_t, 0, 0};");
  line("(void)simt_tid;");
  regions_.thread_exit_label = "simt_next" + std::to_string(temp_counter_++);
  regions_.uniform_level = false;
  const auto hoisted_before = hoisted_;
  if (in_register) {
    line(ctype(fn_.locals[counter_local].type) + " " + in_c_local + " = " +
         convert(first + " + simt_t", i64, fn_.locals[counter_local].type) + ";");
    regions_.register_local = counter_local;
    regions_.register_name = in_c_local;
  } else if (step) {
    // As lockstep_rounds: the loop variable, then the next value or the stop.
    line("const simt_i64 simt_value = " + first + " + simt_t;");
    line(local_name(counter_local) + " = " +
         convert("simt_value", i64, fn_.locals[counter_local].type) + ";");
    line(next +
         "[simt_t] = (unsigned long long)simt_stop - (unsigned long long)simt_value > "
         "(unsigned long long)simt_step ? simt_value + simt_step : simt_stop;");
  } else {
    // Known to the compiler, not only equal: x[i] becomes a consecutive access.
    line(counter_at + " = " + first + " + simt_t;");
  }
  line("{");
  ++indent_;
  for (const auto& b : s.body) stmt(*b);
  --indent_;
  line("}");
  hoisted_ = hoisted_before;
  line(regions_.thread_exit_label + ":;");
  regions_.thread_exit_label.clear();
  regions_.uniform_level = true;
  regions_.register_local = -1;
  --indent_;
  line("}");
  if (!in_register) {
    line(first + " = (simt_i64)" + counter + "[0];");
  } else if (step) {
    // Thread 0's next value, or the stop where a step would pass it (no overflow).
    line(first + " = (unsigned long long)simt_stop - (unsigned long long)" + first +
         " > (unsigned long long)simt_step ? " + first + " + simt_step : simt_stop;");
  } else {
    // The body's `counter += stride`, which wraps as the body's does.
    line(first + " = (simt_i64)((unsigned long long)" + first +
         " + (unsigned long long)simt_stride);");
  }
  --indent_;
  line("}");
  --indent_;
  line("} else {");
  return true;
}

}  // namespace simt::codegen::detail
