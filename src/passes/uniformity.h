// Which values and statements are the same for every thread of a block: what
// the CPU backend needs to run a kernel with barriers as a sequence of loops
// over the block's threads (codegen/emit_regions.cpp).
//
// A barrier (syncthreads, a warp shuffle or vote) ends one loop over the
// block's threads and starts the next; so every barrier must be reached by
// all threads together. Control flow around a barrier is allowed when its
// conditions are block-uniform: built from constants, parameters,
// blockIdx/blockDim/gridDim, array shapes, and variables every thread
// assigns the same value at the same point. Array elements, threadIdx,
// grid() and device-function results are taken as varying (a conservative
// rule: an element all threads read alike is still treated as varying).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lang/ast.h"
#include "sema/infer.h"

namespace simt::passes {

class Uniformity {
 public:
  // Analyzes a kernel; uniform_local(i) then tells whether every thread of a
  // block holds the same value in local i wherever it is read.
  explicit Uniformity(const sema::TypedFunction& fn);

  bool uniform_local(int index) const { return uniform_[index]; }
  bool uniform_expr(const lang::Expr& e) const;

  // The collective calls (sema::is_collective) in `s` or `e`, in source order.
  std::vector<const lang::Expr*> collectives(const lang::Stmt& s) const;
  std::vector<const lang::Expr*> collectives(const lang::Expr& e) const;
  bool has_collective(const lang::Stmt& s) const { return !collectives(s).empty(); }

  // The collective call `s` is made of, when `s` is `x = c(...)`, `x op=
  // c(...)`, `x: T = c(...)` or the expression statement `c(...)`: the forms
  // the CPU lowering splits. nullptr otherwise.
  const lang::Expr* statement_collective(const lang::Stmt& s) const;

  // Whether a thread may leave `body` (a loop's) before the others: a break or
  // continue of this loop, or a return, under a condition that is not
  // uniform, or a call of a device function that raises.
  bool leaves_early(const std::vector<lang::StmtPtr>& body) const;

  // Whether `s` assigns a uniform local (a plain `x = uniform value` the CPU
  // runs once per block rather than once per thread).
  bool uniform_assignment(const lang::Stmt& s) const;

 private:
  bool assigns_varying(const lang::Stmt& s, bool uniform_context);
  // A for loop's iterable yields array elements (or rows): an array, or
  // enumerate/zip of one.
  bool iterates_array(const lang::Expr& iterable) const;
  void collect(const lang::Expr& e, std::vector<const lang::Expr*>& out) const;
  void collect(const lang::Stmt& s, std::vector<const lang::Expr*>& out) const;
  void mark_targets(const lang::Expr& target, bool uniform);

  const sema::TypedFunction& fn_;
  std::vector<bool> uniform_;
  bool changed_ = false;
};

}  // namespace simt::passes
