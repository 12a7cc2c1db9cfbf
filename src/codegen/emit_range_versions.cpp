// `for i in range(start, stop, step)` with a step known only at run time, as C's
// plain loops. The counted form (counted_range_loop: a trip count from an unsigned
// division, then `start + k * step` every iteration) is exact for any step, but it
// costs a 64-bit multiply per iteration, and `i` may be negative, so every `x[i]`
// keeps Python's wraparound select: 0.675x nvcc's `for (i = a; i < b; i += step)` on
// the H200 (docs/performance.md). Here the loop is emitted once per sign of the step,
// each copy under a run-time test that makes it exact, and the counted form runs
// what the tests leave (a zero step, bounds near the ends of the type):
//
//   if (step > 0 && stop <= MAX - step [&& start >= 0]) for (it = start; it < stop; it += step)
//   else if (step < 0 && stop >= MIN - step [&& stop >= -1]) for (it = start; it > stop; it +=
//   step) else counted loop
//
// Why the plain loops are exact. `it` is the emitter's own C variable (the body
// assigns the Python local, never `it`), changed only by the increment, and the
// increment runs only after the loop's test held for the current value (`continue`
// jumps to it from an iteration that passed the test). Positive step: it < stop
// <= MAX - step, so it + step < MAX - step + step = MAX: no overflow, and the values
// are start, start + step, ... while below stop, which is Python's range. Negative
// step: it > stop >= MIN - step, so it + step > MIN, symmetrically. The tests
// themselves cannot overflow: MAX - step with step > 0 is at least MIN + MAX + 1 - 1,
// MIN - step with step < 0 at most 0, and `&&` evaluates each only under its sign
// test. A zero step fails both tests, and the counted loop runs no iteration, as it
// does today (Python raises there).
//
// The bracketed tests are added where the body indexes an array with the loop
// variable and sema cannot tell it is >= 0: then each copy also knows `i >= 0`
// (i >= start on the way up, i > stop >= -1 on the way down), and emits `x[i]`
// without the wraparound select (known_nonnegative); loops over negative values
// take the counted form.
//
// The body is emitted three times, so only small bodies are copied, and only one
// loop of a nest: the innermost runtime-step range (a loop holding another takes the
// counted form), so copies never multiply. Bodies with barriers or warp operations
// are never copied (the copies may be taken by different threads: a barrier must be
// the same one for all of them), nor those with array allocations, and not in debug
// mode (each index check and raise is a site of its own) or in the CPU's barrier
// regions.
#include <algorithm>

#include "codegen/emitter_impl.h"
#include "passes/passes.h"

namespace simt::codegen::detail {

namespace {

// Expressions and statements a body may hold and still be copied three times.
constexpr int kMaxCopiedNodes = 160;

struct BodyScan {
  const sema::TypedFunction& fn;
  int local;                  // the loop variable
  int nodes = 0;              // statements and expressions
  bool refused = false;       // something that must not be copied
  bool indexes_with = false;  // `x[i]` where sema does not know i >= 0

  bool is_local(const Expr& e) const {
    auto found = fn.exprs.find(&e);
    return e.kind == ExprKind::Name && found != fn.exprs.end() && found->second.local == local;
  }

  void index(const Expr& e) {
    if (e.kind == ExprKind::Tuple) {
      for (const auto& item : e.items) index(*item);
      return;
    }
    auto found = fn.exprs.find(&e);
    if (is_local(e) && found != fn.exprs.end() && !found->second.nonnegative) indexes_with = true;
  }

  void expr(const Expr* e) {
    if (!e) return;
    ++nodes;
    auto found = fn.exprs.find(e);
    if (found != fn.exprs.end() && found->second.intrinsic) {
      sema::Rule rule = found->second.intrinsic->rule;
      if (sema::is_collective(rule) || rule == sema::Rule::ArrayAlloc) refused = true;
    }
    if (e->kind == ExprKind::Subscript && e->items.size() > 1) index(*e->items[1]);
    for (const auto& item : e->items) expr(item.get());
  }

  void body(const std::vector<lang::StmtPtr>& stmts) {
    for (const auto& s : stmts) {
      ++nodes;
      // A loop inside with a step known only at run time is the one copied.
      if (s->kind == StmtKind::For && s->value->kind == ExprKind::Call &&
          s->value->items.size() == 4) {
        auto step = fn.exprs.find(s->value->items[3].get());
        if (step != fn.exprs.end() && !step->second.constant) refused = true;
      }
      for (const auto& t : s->targets) expr(t.get());
      expr(s->value.get());
      expr(s->test.get());
      body(s->body);
      body(s->orelse);
    }
  }
};

}  // namespace

bool Emitter::known_nonnegative(const Expr& e) const {
  if (info(e).nonnegative) return true;
  if (e.kind != ExprKind::Name || nonnegative_locals_.empty()) return false;
  int local = info(e).local;
  return local >= 0 && std::find(nonnegative_locals_.begin(), nonnegative_locals_.end(), local) !=
                           nonnegative_locals_.end();
}

bool Emitter::versioned_range_loop(const Stmt& s, const RangeVars& r) {
  if (checked() || regions_.active || !signed_integer(r.type) ||
      passes::functions_call_collectives(fn_))
    return false;
  const int local = info(*s.targets[0]).local;
  BodyScan scan{fn_, local};
  scan.body(s.body);
  if (scan.refused || scan.nodes > kMaxCopiedNodes) return false;
  // The loop variable keeps the range's value through the iteration: only then does
  // what the version's test says of `it` hold for the local.
  const bool keep_nonnegative = scan.indexes_with && assignments_to(fn_, s.body, local) == 0;

  const Scalar type = r.type.scalar;
  const int bits = sema::bit_width(type);
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const std::string ct = ctype(r.type), zero = literal_int(0, type);
  struct Version {
    const char* test_op;  // the step's sign test against 0
    std::string no_overflow, nonnegative, loop_op;
  };
  const Version versions[] = {
      {" > ", r.stop + " <= " + literal_int(max, type) + " - " + r.step, r.start + " >= " + zero,
       " < "},
      {" < ", r.stop + " >= " + literal_int(-max - 1, type) + " - " + r.step,
       r.stop + " >= " + literal_int(-1, type), " > "},
  };
  const auto hoisted_before = hoisted_;
  bool first = true;
  for (const Version& v : versions) {
    std::string test = r.step + v.test_op + zero + " && " + v.no_overflow;
    if (keep_nonnegative) test += " && " + v.nonnegative;
    line((first ? "if (" : "} else if (") + test + ") {");
    first = false;
    ++indent_;
    // Each copy evaluates its calls anew (a temporary of the copy before is out of scope).
    hoisted_ = hoisted_before;
    if (keep_nonnegative) nonnegative_locals_.push_back(local);
    line("for (" + ct + " " + r.it + " = " + r.start + "; " + r.it + v.loop_op + r.stop + "; " +
         r.it + " += " + r.step + ") {");
    ++indent_;
    line(r.assign_local);
    --indent_;
    loop_body(s.body, false);
    line("}");
    if (keep_nonnegative) nonnegative_locals_.pop_back();
    --indent_;
  }
  line("} else {");
  ++indent_;
  hoisted_ = hoisted_before;
  // Rolled: unrolled, this fallback's 64-bit index math took the kernel from nvcc's 26
  // registers to 40 (sm_90), 6 blocks of 256 per multiprocessor instead of 8.
  counted_range_loop(s, r, std::nullopt, /*rolled=*/true);
  --indent_;
  line("}");
  hoisted_ = hoisted_before;
  return true;
}

}  // namespace simt::codegen::detail
