// The guard of a one-thread-per-element kernel, as the CPU backend sees it:
// `i = cuda.grid(1)` (and other plain assignments), then `if i < n:` (or
// `if i >= n: return`). On the CPU a block's threads run as a loop over
// threadIdx.x; when the guard's truth is monotone along that loop, testing it
// at the row's first and last thread tells whether it holds for the whole
// row, and such rows run the body without the test: a loop the C++ compiler
// can vectorize, with the guard's facts (`0 < j < m - 1`) assumed, so
// neighbour indices lose their negative-index checks (codegen/
// emit_function.cpp emits both loops).
#pragma once

#include <cstddef>
#include <optional>

#include "lang/ast.h"
#include "sema/infer.h"

namespace simt::passes {

struct ThreadGuard {
  const lang::Stmt* test_stmt = nullptr;  // the top-level `if` whose test guards the threads
  size_t prefix = 0;                      // top-level statements before it (plain assignments)
  // The value of the test on the threads that go on: true for `if i < n: body`, false for
  // `if i >= n: return`.
  bool holds_when = true;
  // The guarded code has no `if` of its own: vectorizing the row loop does not turn
  // branches into masked loads and stores (docs/performance.md: those ran slower than
  // scalar code).
  bool straight_line = false;
};

// The kernel's thread guard, when its body has that shape and the guard's
// test is monotone in threadIdx.x (integer comparisons of values that only
// grow or only shrink along a row of threads against values fixed within it,
// joined by `and`/`not`); nullopt otherwise.
std::optional<ThreadGuard> find_thread_guard(const sema::TypedFunction& kernel);

}  // namespace simt::passes
