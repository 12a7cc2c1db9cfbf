// Where a device without sub-groups runs warp operations as work-group barriers
// (OpenCL's PoCL: codegen/dialects.cpp, kOpenCLWarps), every thread of the block
// must reach each of them, as with syncthreads(): this finds the first one that
// some threads may skip, which the device then rejects
// (abi::Requirements::divergent_warps).
#include "passes/passes.h"
#include "sema/intrinsics.h"

namespace simt::passes {

using lang::Expr;
using lang::ExprKind;
using lang::Stmt;
using lang::StmtKind;

namespace {

// The warp operations that exchange values between lanes (or report which lanes
// are there, activemask): lanemask_lt and laneid are the lane's own.
bool exchanges_between_lanes(sema::Rule rule) {
  switch (rule) {
    case sema::Rule::Shuffle:
    case sema::Rule::Vote:
    case sema::Rule::SyncWarp:
    case sema::Rule::Match:
    case sema::Rule::ActiveMask:
      return true;
    default:
      return false;
  }
}

class Walk {
 public:
  explicit Walk(const sema::TypedFunction& fn) : fn_(fn), uniformity_(fn) {}

  std::optional<abi::PythonLine> run() {
    block(fn_.parsed->def.body, true);
    return found_;
  }

 private:
  // `uniform`: every thread that has not left the function runs this code.
  void block(const std::vector<lang::StmtPtr>& body, bool uniform) {
    for (const auto& s : body) {
      if (found_) return;
      stmt(*s, uniform && !exited_);
    }
  }

  void stmt(const Stmt& s, bool uniform) {
    if (s.test) expr(*s.test, uniform);
    for (const auto& t : s.targets) expr(*t, uniform);
    if (s.value) expr(*s.value, uniform);
    // From a thread-dependent return (or a raising call) on, some threads are gone
    // for the rest of the function.
    if (!uniform && leaves_here(fn_, s)) exited_ = true;
    switch (s.kind) {
      case StmtKind::If: {
        bool u = uniform && uniformity_.uniform_expr(*s.test);
        block(s.body, u);
        block(s.orelse, u);
        break;
      }
      case StmtKind::While:
      case StmtKind::For: {
        const Expr& header = s.kind == StmtKind::While ? *s.test : *s.value;
        // A thread leaving early makes the later iterations differ between threads.
        bool u = uniform && uniformity_.uniform_expr(header) && !uniformity_.leaves_early(s.body);
        block(s.body, u);
        break;
      }
      default:
        break;
    }
  }

  // Operands after the first of `and`/`or`, and the branches of `a if c else b`,
  // run only where the condition says.
  void expr(const Expr& e, bool uniform) {
    if (found_) return;
    if (e.kind == ExprKind::Call) {
      auto i = fn_.exprs.find(&e);
      if (i != fn_.exprs.end() && i->second.intrinsic &&
          exchanges_between_lanes(i->second.intrinsic->rule) && !uniform) {
        found_ = fn_.python_line(e.span);
        return;
      }
    }
    if (e.kind == ExprKind::BoolOp) {
      bool u = uniform;
      for (const auto& item : e.items) {
        expr(*item, u);
        u = u && uniformity_.uniform_expr(*item);
      }
      return;
    }
    if (e.kind == ExprKind::IfExp) {
      expr(*e.items[1], uniform);
      bool u = uniform && uniformity_.uniform_expr(*e.items[1]);
      expr(*e.items[0], u);
      expr(*e.items[2], u);
      return;
    }
    for (const auto& item : e.items)
      if (item) expr(*item, uniform);
    for (const auto& kw : e.keywords) expr(*kw.value, uniform);
  }

  const sema::TypedFunction& fn_;
  Uniformity uniformity_;
  bool exited_ = false;
  std::optional<abi::PythonLine> found_;
};

}  // namespace

std::optional<abi::PythonLine> first_divergent_warp_call(const sema::TypedFunction& kernel) {
  if (auto line = Walk(kernel).run()) return line;
  // A device function's body is not the block's: which threads call it is
  // unknown here.
  for (const auto& f : kernel.functions)
    for (const auto& [e, i] : f->typed.exprs)
      if (i.intrinsic && exchanges_between_lanes(i.intrinsic->rule))
        return f->typed.python_line(e->span);
  return std::nullopt;
}

}  // namespace simt::passes
