// CPU kernels with barriers, run as regions. The kernel runs once per
// block. Statements every thread runs alike (barriers, assignments of
// uniform variables, control flow around them) run once, at the "uniform
// level"; the statements between them run in a loop over the block's
// threads (a region). A barrier is then simply the end of one region: every
// thread has finished it before the next starts. Varying locals live in
// per-thread arrays (simt_pt_*); warp operations and
// syncthreads_count/and/or read the other threads' values from arrays
// written in the region before. What the regions cannot place throws
// RegionsRefused, and the kernel runs in fiber mode instead (emit_kernel.cpp).
#include <algorithm>
#include <functional>

#include "codegen/emitter_impl.h"
#include "lang/diagnostics.h"

namespace simt::codegen::detail {

namespace {

// Barriers, warp operations and shared arrays: the kernel runs as regions.
bool collective_or_shared(const sema::TypedFunction& fn) {
  for (const auto& [e, i] : fn.exprs) {
    if (!i.intrinsic) continue;
    if (sema::is_collective(i.intrinsic->rule)) return true;
    if (i.intrinsic->rule == sema::Rule::ArrayAlloc && i.type.space == sema::Space::Shared)
      return true;
  }
  return false;
}

}  // namespace

bool Emitter::needs_regions() const { return collective_or_shared(fn_); }

void Emitter::fail_at(lang::Span span, const std::string& message) const {
  lang::fail(lang::DiagnosticKind::Syntax, *fn_.source, span, message);
}

const Expr* Emitter::first_collective(const Stmt& s) const {
  std::vector<const Expr*> found = regions_.uniformity->collectives(s);
  return found.empty() ? nullptr : found.front();
}

bool Emitter::uniform_level(const Stmt& s) const {
  if (regions_.uniformity->has_collective(s)) return true;
  switch (s.kind) {
    case StmtKind::Break:
    case StmtKind::Continue:
      return !loops_.empty() && loops_.back().uniform;
    case StmtKind::Return:
      return false;  // a thread leaving; at the top of uniform code it is still per thread
    case StmtKind::Assign:
    case StmtKind::AugAssign:
    case StmtKind::AnnAssign:
      return regions_.uniformity->uniform_assignment(s);
    case StmtKind::If:
      return contains_uniform_level(s.body, false) || contains_uniform_level(s.orelse, false);
    case StmtKind::While:
    case StmtKind::For:
      return contains_uniform_level(s.body, true);
    default:
      return false;
  }
}

bool Emitter::contains_uniform_level(const std::vector<lang::StmtPtr>& body, bool in_loop) const {
  for (const auto& s : body) {
    if (regions_.uniformity->has_collective(*s)) return true;
    switch (s->kind) {
      case StmtKind::Break:
      case StmtKind::Continue:
        if (!in_loop && !loops_.empty() && loops_.back().uniform) return true;
        break;
      case StmtKind::Assign:
      case StmtKind::AugAssign:
      case StmtKind::AnnAssign:
        if (regions_.uniformity->uniform_assignment(*s)) return true;
        break;
      case StmtKind::If:
        if (contains_uniform_level(s->body, in_loop) || contains_uniform_level(s->orelse, in_loop))
          return true;
        break;
      case StmtKind::While:
      case StmtKind::For:
        if (contains_uniform_level(s->body, true)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

void Emitter::region_block(const std::vector<lang::StmtPtr>& body) {
  std::vector<const Stmt*> pending;
  for (const auto& sp : body) {
    if (lockstep_loop(*sp)) {
      flush_region(pending);
      lockstep_loop_rounds(*sp);
      continue;
    }
    if (!uniform_level(*sp)) {
      pending.push_back(sp.get());
      continue;
    }
    flush_region(pending);
    uniform_stmt(*sp);
  }
  flush_region(pending);
}

void Emitter::open_thread_loop() {
  line("for (simt_i64 simt_z = 0; simt_z < simt_ctx->block_dim[2]; ++simt_z)");
  line("  for (simt_i64 simt_y = 0; simt_y < simt_ctx->block_dim[1]; ++simt_y)");
  line("    _Pragma(\"clang loop vectorize(disable)\")");
  line("    for (simt_i64 simt_x = 0; simt_x < simt_ctx->block_dim[0]; ++simt_x) {");
  indent_ += 3;
  line(
      "const simt_i64 simt_t = (simt_z * simt_ctx->block_dim[1] + simt_y) * "
      "simt_ctx->block_dim[0] + simt_x;");
  line("const simt_thread simt_tid = {simt_x, simt_y, simt_z};");
  line("(void)simt_t;");
  line("(void)simt_tid;");
  if (regions_.has_exits) line("if (simt_exited[simt_t]) continue;");
  if (!regions_.masks.empty()) line("if (!" + regions_.masks.back() + "[simt_t]) continue;");
  regions_.thread_exit_label = "simt_next" + std::to_string(temp_counter_++);
  line("{");
  ++indent_;
  regions_.uniform_level = false;
}

void Emitter::close_thread_loop() {
  regions_.uniform_level = true;
  --indent_;
  line("}");
  line(regions_.thread_exit_label + ":;");
  regions_.thread_exit_label.clear();
  indent_ -= 3;
  line("}");
}

void Emitter::flush_region(std::vector<const Stmt*>& pending) {
  if (pending.empty()) return;
  open_thread_loop();
  for (const Stmt* s : pending) stmt(*s);
  close_thread_loop();
  pending.clear();
}

void Emitter::uniform_stmt(const Stmt& s) {
  if (const Expr* call = regions_.uniformity->statement_collective(s)) {
    collective_stmt(s, *call);
    return;
  }
  bool compound = s.kind == StmtKind::If || s.kind == StmtKind::While || s.kind == StmtKind::For;
  // What the regions cannot place (fiber mode runs it instead): break and
  // continue under a mask, and a collective inside a larger statement.
  if (!regions_.masks.empty() && (s.kind == StmtKind::Break || s.kind == StmtKind::Continue))
    throw RegionsRefused{};
  if (!compound) {
    if (first_collective(s)) throw RegionsRefused{};
    stmt(s);  // a uniform assignment, break or continue
    return;
  }
  const Expr& header = s.kind == StmtKind::For ? *s.value : *s.test;
  if (!regions_.uniformity->uniform_expr(header) && s.kind != StmtKind::For &&
      warp_collectives_only(s)) {
    // Warp operations under a condition that differs between threads run
    // as the hardware runs them: the threads that took the branch are
    // marked active, and regions skip the others.
    if (s.kind == StmtKind::If)
      masked_if(s);
    else
      masked_while(s);
    return;
  }
  // A block barrier (or a break/continue of a loop with one, or a variable
  // every thread must agree on) under a condition that may differ between
  // threads: fiber mode.
  if (!regions_.uniformity->uniform_expr(header)) throw RegionsRefused{};
  stmt(s);
}

namespace {

bool leaves_loop(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue || passes::leaves_here(fn, *s))
      return true;
    if (leaves_loop(fn, s->body) || leaves_loop(fn, s->orelse)) return true;
  }
  return false;
}

}  // namespace

bool is_grid_stride(const sema::TypedFunction& fn, const Expr& step) {
  auto is_gridsize = [&](const Expr& e) {
    if (e.kind != ExprKind::Call) return false;
    auto found = fn.exprs.find(&e);
    return found != fn.exprs.end() && found->second.intrinsic &&
           found->second.intrinsic->rule == sema::Rule::GridSize;
  };
  if (is_gridsize(step)) return true;
  // `stride = cuda.gridsize(1)` once, and never assigned again.
  if (step.kind != ExprKind::Name) return false;
  auto found = fn.exprs.find(&step);
  if (found == fn.exprs.end() || found->second.local < 0) return false;
  int local = found->second.local;
  if (fn.locals[local].is_param || assignments_to(fn, fn.parsed->def.body, local) != 1)
    return false;
  bool from_gridsize = false;
  std::function<void(const std::vector<lang::StmtPtr>&)> scan =
      [&](const std::vector<lang::StmtPtr>& body) {
        for (const auto& b : body) {
          if (b->kind == StmtKind::Assign && b->targets.size() == 1 &&
              b->targets[0]->kind == ExprKind::Name) {
            auto target = fn.exprs.find(b->targets[0].get());
            if (target != fn.exprs.end() && target->second.local == local)
              from_gridsize = is_gridsize(*b->value);
          }
          scan(b->body);
          scan(b->orelse);
        }
      };
  scan(fn.parsed->def.body);
  return from_gridsize;
}

int assignments_to(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body,
                   int local) {
  int assignments = 0;
  for (const auto& b : body) {
    for (const auto& t : b->targets) {
      auto target = fn.exprs.find(t.get());
      if (t->kind == ExprKind::Name && target != fn.exprs.end() && target->second.local == local)
        ++assignments;
      else if (t->kind == ExprKind::Tuple)
        ++assignments;  // conservative: any tuple target counts
    }
    assignments += assignments_to(fn, b->body, local) + assignments_to(fn, b->orelse, local);
  }
  return assignments;
}

const Expr* grid_stride_step(const sema::TypedFunction& fn, const Stmt& loop) {
  if (loop.kind == StmtKind::For) {
    const Expr& call = *loop.value;
    if (call.kind != ExprKind::Call || call.items.size() != 4) return nullptr;
    return is_grid_stride(fn, *call.items[3]) ? call.items[3].get() : nullptr;
  }
  if (loop.kind != StmtKind::While) return nullptr;
  const Expr& test = *loop.test;
  if (test.kind != ExprKind::Compare || test.items[0]->kind != ExprKind::Name) return nullptr;
  const std::string& counter = test.items[0]->name;
  for (const auto& b : loop.body)
    if (b->kind == StmtKind::AugAssign && b->op == lang::Op::Add &&
        b->targets[0]->kind == ExprKind::Name && b->targets[0]->name == counter &&
        is_grid_stride(fn, *b->value))
      return b->value.get();
  return nullptr;
}

bool wants_lockstep_form(const sema::TypedFunction& fn, const EmitOptions& options) {
  if (options.debug || options.boundscheck || collective_or_shared(fn) ||
      passes::contains_exit(fn, fn.parsed->def.body))
    return false;
  for (const auto& s : fn.parsed->def.body)
    if (grid_stride_step(fn, *s)) return true;
  return false;
}

bool Emitter::lockstep_loop(const Stmt& s) {
  // A grid-stride loop (`while i < n: ...; i += cuda.gridsize(1)`, `for i in
  // range(cuda.grid(1), n, cuda.gridsize(1))`): each thread walks the array with a
  // stride of the whole grid, so run thread by thread its accesses touch a new cache
  // line each, and the block's threads read every line again in turn. Run in lockstep
  // (one iteration of every thread, then the next), neighbouring threads read
  // neighbouring elements, as on a GPU (bench/cpu.py: the grid-stride sum).
  if (!grid_stride_step(fn_, s)) return false;
  if (regions_.uniformity->has_collective(s) || leaves_loop(fn_, s.body)) return false;
  if (contains_uniform_level(s.body, true)) return false;
  if (s.kind == StmtKind::For) {
    // range(start, stop, step): start varying, stop and the grid-sized step the same in
    // every thread (they are read again in every round, outside prepare()'s statements).
    const Expr& call = *s.value;
    const Type& iter = info(call).type;
    if (iter.kind != sema::TypeKind::Range || !iter.items.empty() ||
        s.targets[0]->kind != ExprKind::Name || has_call(&call))
      return false;
    return !regions_.uniformity->uniform_expr(*call.items[1]) &&
           regions_.uniformity->uniform_expr(*call.items[2]) &&
           regions_.uniformity->uniform_expr(*call.items[3]);
  }
  return !regions_.uniformity->uniform_expr(*s.test) && !has_call(s.test.get());
}

bool Emitter::warp_collectives_only(const Stmt& s) const {
  std::vector<const Expr*> found = regions_.uniformity->collectives(s);
  return !found.empty() && std::all_of(found.begin(), found.end(), [&](const Expr* call) {
    sema::Rule rule = info(*call).intrinsic->rule;
    return rule == sema::Rule::Shuffle || rule == sema::Rule::Vote ||
           rule == sema::Rule::SyncWarp || rule == sema::Rule::Match;
  });
}

std::string Emitter::new_mask(const std::function<std::string()>& value) {
  std::string mask = "simt_mask" + std::to_string(temp_counter_++);
  prologue_ +=
      "  unsigned char* " + mask + " = " + scratch("unsigned char", "simt_nthreads") + ";\n";
  line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + mask + "[simt_t] = 0;");
  open_thread_loop();
  line(mask + "[simt_t] = " + value() + ";");
  close_thread_loop();
  return mask;
}

void Emitter::masked_if(const Stmt& s) {
  source_comment(s);
  std::string taken = new_mask([&] {
    prepare(*s.test);
    return "(unsigned char)" + truth(*s.test);
  });
  regions_.masks.push_back(taken);
  block(s.body);
  regions_.masks.pop_back();
  if (s.orelse.empty()) return;
  std::string other = new_mask([&] { return "(unsigned char)!" + taken + "[simt_t]"; });
  regions_.masks.push_back(other);
  block(s.orelse);
  regions_.masks.pop_back();
}

void Emitter::masked_while(const Stmt& s) {
  source_comment(s);
  std::string in_loop = new_mask([] { return std::string("1"); });
  line("while (1) {");
  ++indent_;
  regions_.masks.push_back(in_loop);
  open_thread_loop();
  prepare(*s.test);
  line("if (!" + truth(*s.test) + ") " + in_loop + "[simt_t] = 0;");
  close_thread_loop();
  std::string any = "simt_any" + std::to_string(temp_counter_++);
  line("int " + any + " = 0;");
  line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + any + " |= " + in_loop +
       "[simt_t]" + (regions_.has_exits ? " && !simt_exited[simt_t]" : "") + ";");
  line("if (!" + any + ") break;");
  loops_.push_back({false, "", true});
  block(s.body);
  loops_.pop_back();
  regions_.masks.pop_back();
  --indent_;
  line("}");
}

void Emitter::lockstep_loop_rounds(const Stmt& s) {
  // A grid at least as large as the loop's range gives each thread one iteration at
  // most: nothing to gain from rounds, so the threads run the loop one after another.
  const Expr* stride = grid_stride_step(fn_, s);
  const Expr* stop = nullptr;
  if (s.kind == StmtKind::For)
    stop = s.value->items[2].get();
  else if (s.test->ops.size() == 1 &&
           (s.test->ops[0] == lang::Op::Lt || s.test->ops[0] == lang::Op::LtE) &&
           regions_.uniformity->uniform_expr(*s.test->items[1]))
    stop = s.test->items[1].get();
  // Both are read once, outside the loops over threads: each must be the same in every
  // thread (a stride local assigned under a varying condition lives per thread).
  if (stop && stride && regions_.uniformity->uniform_expr(*stride) &&
      sema::concrete(info(*stop).type) != Scalar::Float32 &&
      sema::concrete(info(*stop).type) != Scalar::Float64) {
    const Type i64 = Type::scalar_of(Scalar::Int64);
    line("if (" + emit_as(*stride, i64) + " >= " + emit_as(*stop, i64) + ") {");
    ++indent_;
    // The loop is emitted twice: each copy evaluates its calls into its own temporaries.
    const auto hoisted_before = hoisted_;
    open_thread_loop();
    stmt(s);
    close_thread_loop();
    hoisted_ = hoisted_before;
    --indent_;
    line("} else {");
    ++indent_;
    lockstep_rounds(s);
    --indent_;
    line("}");
    return;
  }
  lockstep_rounds(s);
}

void Emitter::lockstep_rounds(const Stmt& s) {
  // masked_while's rounds in one pass over the threads (no collective inside needs the
  // others' test results first): each thread still in the loop tests, then runs the body.
  source_comment(s);
  std::string in_loop = new_mask([] { return std::string("1"); });
  std::string n = std::to_string(temp_counter_++);
  std::string any = "simt_any" + n;
  // A range's next value per thread (the loop variable keeps the last one taken, as
  // Python's does), its start set before the first round.
  std::string next = "simt_next_value" + n, ct, u;
  const Expr* range = s.kind == StmtKind::For ? s.value.get() : nullptr;
  Type strong;
  if (range) {
    strong = Type::scalar_of(sema::concrete(info(*range).operand));
    ct = ctype(strong);
    u = range_unsigned(strong.scalar);
    prologue_ += "  " + ct + "* " + next + " = " + scratch(ct, "simt_nthreads") + ";\n";
    regions_.masks.push_back(in_loop);
    open_thread_loop();
    line(next + "[simt_t] = " + emit_as(*range->items[1], strong) + ";");
    close_thread_loop();
    regions_.masks.pop_back();
  }
  const bool gang = gang_rounds(s, next, strong);
  if (gang) ++indent_;
  line("while (1) {");
  ++indent_;
  loop_cancel_check();
  line("int " + any + " = 0;");
  regions_.masks.push_back(in_loop);
  open_thread_loop();
  if (range) {
    std::string stop = emit_as(*range->items[2], strong);
    std::string step = emit_as(*range->items[3], strong);
    line("const " + ct + " simt_stop = " + stop + ", simt_step = " + step + ";");
    line("if (!(" + next + "[simt_t] < simt_stop && simt_step > 0)) {");
  } else {
    prepare(*s.test);
    line("if (!" + truth(*s.test) + ") {");
  }
  line("  " + in_loop + "[simt_t] = 0;");
  line("  goto " + regions_.thread_exit_label + ";");
  line("}");
  line(any + " = 1;");
  if (range) {
    int local = info(*s.targets[0]).local;
    line(local_name(local) + " = " + convert(next + "[simt_t]", strong, fn_.locals[local].type) +
         ";");
    // The next value, or the stop where a step would pass it (no overflow).
    line(next + "[simt_t] = (" + u + ")simt_stop - (" + u + ")" + next + "[simt_t] > (" + u +
         ")simt_step ? (" + ct + ")((" + u + ")" + next + "[simt_t] + (" + u +
         ")simt_step) : simt_stop;");
  }
  for (const auto& b : s.body) stmt(*b);
  close_thread_loop();
  regions_.masks.pop_back();
  line("if (!" + any + ") break;");
  --indent_;
  line("}");
  if (gang) {
    --indent_;
    line("}");
  }
}

void Emitter::collective_stmt(const Stmt& s, const Expr& call) {
  source_comment(s);
  const ExprInfo& i = info(call);
  const sema::Intrinsic& fn = *i.intrinsic;
  std::string n = std::to_string(temp_counter_++);
  auto per_thread_array = [&](const std::string& type, const std::string& name) {
    prologue_ += "  " + type + "* " + name + " = " + scratch(type, "simt_nthreads") + ";\n";
  };
  if (fn.rule == sema::Rule::GridSync) {
    region_grid_sync(call);
    return;
  }
  if (fn.rule == sema::Rule::Barrier || fn.rule == sema::Rule::SyncWarp) {
    // syncwarp: every lane of every warp has run the region above, as a block barrier has.
    if (fn.rule == sema::Rule::SyncWarp) note_warp_use(call);
    line("// barrier: the region above ends here for every thread");
    race_block_barrier(call, fn.rule == sema::Rule::SyncWarp);
    return;
  }
  std::string result = "simt_c" + n + "_result";
  if (fn.rule == sema::Rule::BarrierReduce) {
    std::string pred = "simt_c" + n + "_pred";
    per_thread_array("int", pred);
    open_thread_loop();
    prepare(*call.items[1]);
    line(pred + "[simt_t] = (int)" + truth(*call.items[1]) + ";");
    close_thread_loop();
    race_block_barrier(call);
    std::string op = fn.c_name == "count" ? "+=" : fn.c_name == "and" ? "&=" : "|=";
    line("int " + result + " = " + (fn.c_name == "and" ? "1" : "0") + ";");
    line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t)");
    line(std::string("  ") + (regions_.has_exits ? "if (!simt_exited[simt_t]) " : "") + result +
         " " + op + " (" + pred + "[simt_t] != 0);");
    hoisted_[&call] = {result};
    open_thread_loop();
    stmt_without_comment(s);
    close_thread_loop();
    return;
  }
  // Warp operations: warps are 32 consecutive threads (x fastest).
  note_warp_use(call);
  std::string value = "simt_c" + n + "_value", lane = "simt_c" + n + "_lane";
  bool shuffle = fn.rule == sema::Rule::Shuffle;
  bool match = fn.rule == sema::Rule::Match;
  std::string vt = shuffle ? ctype(i.type) : match ? ctype(i.operand) : "int";
  per_thread_array(vt, value);
  if (shuffle) per_thread_array("simt_i64", lane);
  open_thread_loop();
  for (size_t k = 1; k < call.items.size(); ++k) prepare(*call.items[k]);
  if (racecheck() && call.items.size() > 1)  // the mask
    line(race_warp(call, emit_as(*call.items[1], Type::scalar_of(Scalar::UInt32))) + ";");
  if (shuffle) {
    line(value + "[simt_t] = " + emit_as(*call.items[2], i.type) + ";");
    line(lane + "[simt_t] = " + emit_as(*call.items[3], Type::scalar_of(Scalar::Int64)) + ";");
  } else if (match) {
    line(value + "[simt_t] = " + emit_as(*call.items[2], i.operand) + ";");
  } else {
    line(value + "[simt_t] = (int)" + truth(*call.items[2]) + ";");
  }
  close_thread_loop();
  open_thread_loop();
  line("const simt_i64 simt_lane = simt_t & 31, simt_warp = simt_t - simt_lane;");
  if (shuffle) {
    std::string l = lane + "[simt_t]";
    std::string src =
        fn.c_name == "idx" ? "simt_warp + (" + l + " & 31)"
        : fn.c_name == "up"
            ? "(simt_lane >= " + l + " && " + l + " >= 0 ? simt_t - " + l + " : simt_t)"
        : fn.c_name == "down"
            ? "(simt_lane + " + l + " < 32 && " + l + " >= 0 ? simt_t + " + l + " : simt_t)"
            : "((simt_lane ^ " + l + ") < 32 && " + l + " >= 0 ? simt_warp + " + "(simt_lane ^ " +
                  l + ") : simt_t)";
    line("simt_i64 simt_src = " + src + ";");
    line("if (simt_src >= simt_nthreads) simt_src = simt_t;");
    line(vt + " " + result + " = " + value + "[simt_src];");
  } else if (match) {
    // The lanes in the mask holding this lane's value, compared as bits (as CUDA does).
    Scalar vs = i.operand.scalar;
    std::string mask = emit_as(*call.items[1], Type::scalar_of(Scalar::UInt32));
    lane_bits(result, [&](const std::string& lane) {
      return to_bits(vs, value + "[" + lane + "]") + " == " + to_bits(vs, value + "[simt_t]");
    });
    line("const unsigned int simt_members = " + mask + " & " + cpu_active_mask() + ";");
    line(result + "_bits &= simt_members;");
    if (fn.c_name == "any") {
      line("unsigned int " + result + " = " + result + "_bits;");
    } else {
      line("unsigned int " + result + " = " + result +
           "_bits == simt_members ? simt_members : 0u;");
      hoisted_[&call] = {result, "(" + result + "_bits == simt_members)"};
      stmt_without_comment(s);
      close_thread_loop();
      return;
    }
  } else {
    std::string mask = emit_as(*call.items[1], Type::scalar_of(Scalar::UInt32));
    lane_bits(result, [&](const std::string& lane) { return value + "[" + lane + "]"; });
    line("const unsigned int simt_members = " + mask + " & " + cpu_active_mask() + ";");
    std::string bits = "(" + result + "_bits & simt_members)";
    std::string out = fn.c_name == "ballot" ? bits
                      : fn.c_name == "all"  ? bits + " == simt_members"
                      : fn.c_name == "eq"   ? "(" + bits + " == simt_members || " + bits + " == 0)"
                                            : bits + " != 0";
    line(ctype(i.type) + " " + result + " = " + out + ";");
  }
  hoisted_[&call] = {result};
  stmt_without_comment(s);
  close_thread_loop();
}

void Emitter::stmt_without_comment(const Stmt& s) {
  regions_.suppress_comment = true;
  stmt(s);
}

std::string Emitter::scratch(const std::string& type, const std::string& count) {
  regions_.scratch_sizes.push_back("(simt_i64)sizeof(" + type + ") * " + count);
  return "(" + type + "*)(simt_scratch + simt_scratch_at" +
         std::to_string(regions_.scratch_sizes.size() - 1) + ")";
}

std::string Emitter::scratch_setup() const {
  std::string out = "  simt_i64 simt_scratch_bytes = 0;\n";
  for (size_t k = 0; k < regions_.scratch_sizes.size(); ++k) {
    std::string at = "simt_scratch_at" + std::to_string(k);
    out += "  const simt_i64 " + at + " = simt_scratch_bytes;\n";
    out += "  simt_scratch_bytes += (" + regions_.scratch_sizes[k] + " + 63) & ~(simt_i64)63;\n";
  }
  out +=
      "  unsigned char* simt_scratch = (unsigned char*)calloc(1, (unsigned long)"
      "simt_scratch_bytes + 1);\n"
      "  if (!simt_scratch) __builtin_trap();\n";
  return out;
}

std::string Emitter::region_function_body() {
  std::string decls, fills;
  auto alloc = [&](const std::string& type, const std::string& name) {
    decls += "  " + type + "* " + name + " = " + scratch(type, "simt_nthreads") + ";\n";
  };
  regions_.bare_names = true;
  for (size_t i = 0; i < fn_.locals.size(); ++i) {
    int index = static_cast<int>(i);
    std::vector<std::string> names, bare;
    std::vector<Type> types;
    std::string base = mangle(fn_.locals[i].name);
    if (per_thread(index)) {
      flatten(fn_.locals[i].type, "simt_pt_" + base, names, types);
      flatten(fn_.locals[i].type, base, bare, types);
      for (size_t k = 0; k < names.size(); ++k) {
        alloc(ctype(types[k]), names[k]);
        if (i < fn_.param_count())
          fills += "  for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + names[k] +
                   "[simt_t] = " + bare[k] + ";\n";
      }
    } else if (i >= fn_.param_count()) {
      flatten(fn_.locals[i].type, base, names, types);
      for (size_t k = 0; k < names.size(); ++k) {
        bool aggregate = types[k].is_array() || sema::is_complex(types[k].scalar);
        decls += "  " + ctype(types[k]) + " " + names[k] + (aggregate ? " = {0};\n" : " = 0;\n");
      }
    }
  }
  regions_.bare_names = false;
  if (regions_.has_exits) alloc("unsigned char", "simt_exited");
  indent_ = 1;
  body_.clear();
  regions_.uniform_level = true;
  block(fn_.parsed->def.body);
  regions_.uniform_level = false;
  return prologue_ + decls + fills + body_;
}

void Emitter::lane_bits(const std::string& result,
                        const std::function<std::string(const std::string&)>& holds) {
  const std::string lane = "simt_warp + simt_k";
  line("unsigned int " + result + "_bits = 0;");
  line("for (simt_i64 simt_k = 0; simt_k < 32 && " + lane + " < simt_nthreads; ++simt_k)");
  line(std::string("  if (") + (regions_.has_exits ? "!simt_exited[" + lane + "] && " : "") +
       (regions_.masks.empty() ? "" : regions_.masks.back() + "[" + lane + "] && ") + holds(lane) +
       ") " + result + "_bits |= 1u << simt_k;");
}

}  // namespace simt::codegen::detail
