// A grid-stride `while` loop (`i = cuda.grid(1)`, `while i < n: ...; i +=
// cuda.gridsize(1)`) as C's `while (i < n)`: with the step's wraparound
// arithmetic (Python integers wrap as NumPy's int64), the C compiler cannot
// know how often it runs, so it neither unrolls it nor keeps several loads in
// flight: 0.58x nvcc on the H200's grid-stride sum, where the `range` form of
// the same loop, counted, ran at 1.0x. Here the count is computed before the
// loop, where it is exact: the counter is int64 and changed only by the stride
// statement, the stop and the step are fixed for the loop (no element read, no
// local the body assigns), the step is the grid's size (positive), there is no
// `continue` (which would skip the step), and the stop leaves room for one more
// step without overflow (checked at run time, else the plain loop runs).
#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

// Whether a local that `e` reads is assigned in `body`.
bool reads_assigned_local(const sema::TypedFunction& fn, const Expr& e,
                          const std::vector<lang::StmtPtr>& body) {
  if (e.kind == ExprKind::Name) {
    auto found = fn.exprs.find(&e);
    return found != fn.exprs.end() && found->second.local >= 0 &&
           assignments_to(fn, body, found->second.local) > 0;
  }
  for (const auto& item : e.items)
    if (item && reads_assigned_local(fn, *item, body)) return true;
  return false;
}

}  // namespace

bool Emitter::counted_grid_stride_while(const Stmt& s) {
  const Expr* step = grid_stride_step(fn_, s);
  if (!step || has_call(s.test.get()) || loop_contains(s.body, StmtKind::Continue)) return false;
  const Expr& test = *s.test;
  if (test.ops.size() != 1 || test.ops[0] != lang::Op::Lt) return false;
  const int counter = info(*test.items[0]).local;
  if (counter < 0 || sema::concrete(fn_.locals[counter].type) != Scalar::Int64 ||
      assignments_to(fn_, s.body, counter) != 1)
    return false;
  const Expr& stop = *test.items[1];
  if (!signed_integer(info(stop).type) || !reads_no_array(fn_, stop) ||
      reads_assigned_local(fn_, stop, s.body) || !reads_no_array(fn_, *step) ||
      reads_assigned_local(fn_, *step, s.body))
    return false;

  const Type i64 = Type::scalar_of(Scalar::Int64);
  const std::string n = std::to_string(temp_counter_++);
  const std::string stop_v = "simt_stop" + n, step_v = "simt_step" + n, count = "simt_count" + n,
                    i = local_name(counter), u = range_unsigned(Scalar::Int64);
  line("{");
  ++indent_;
  line("const " + ctype(i64) + " " + stop_v + " = " + emit_as(stop, i64) + ", " + step_v + " = " +
       emit_as(*step, i64) + ";");
  // No wraparound before the stop: the last step taken ends below stop + step.
  line("if (" + i + " < " + stop_v + " && " + stop_v +
       " <= " + literal_int(INT64_MAX, Scalar::Int64) + " - " + step_v + ") {");
  ++indent_;
  line("for (" + u + " " + count + " = ((" + u + ")" + stop_v + " - (" + u + ")" + i +
       " - 1u) / (" + u + ")" + step_v + " + 1u; " + count + " != 0u; --" + count + ") {");
  const auto hoisted_before = hoisted_;
  loop_body(s.body, false);
  hoisted_ = hoisted_before;
  line("}");
  --indent_;
  line("} else {");
  ++indent_;
  line("while (" + condition(test) + ") {");
  ++indent_;
  loop_cancel_check();
  --indent_;
  loop_body(s.body, false);
  line("}");
  --indent_;
  line("}");
  --indent_;
  line("}");
  return true;
}

}  // namespace simt::codegen::detail
