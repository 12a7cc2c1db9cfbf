// The catalogue of analyses over a typed function: one file each, run by the
// compiler pipeline (compiler/pipeline.cpp) between inference and emission.
//
//   uniformity.h/.cpp   which locals and statements are block-uniform (the
//                       CPU's barrier lowering, codegen/emit_regions.cpp)
//   float64_use.cpp     the first statement computing in double precision
//                       (abi::Requirements::float64)
//   warp_convergence.cpp  the first warp operation some threads of a block
//                       may skip (abi::Requirements::divergent_warps)
//   collectives.cpp     barriers and warp operations called from device
//                       functions (the CPU then runs the kernel in fiber mode)
//   thread_guard.h/.cpp a kernel's `if i < n:` guard, when the CPU can test it
//                       once per row of threads (codegen/emit_function.cpp)
//   exits.cpp           where a thread may leave a function early: return,
//                       raise, calls of device functions that raise
//   race_reads.cpp      the array parameters no thread of a kernel writes, and
//                       those each thread touches its own element of
//                       (racecheck: codegen/emit_race.cpp)
#pragma once

#include <optional>
#include <vector>

#include "abi/source_map.h"
#include "passes/thread_guard.h"
#include "passes/uniformity.h"
#include "sema/infer.h"

namespace simt::passes {

// The first Python statement of `kernel` computing in float64 or complex128
// (a non-literal value of that type), else the first of a device function it
// calls; nullopt when none does.
std::optional<abi::PythonLine> first_float64_use(const sema::TypedFunction& kernel);

// The first warp operation exchanging values between lanes (a shuffle, vote,
// match, syncwarp or activemask) that some threads of a block may not reach:
// under a thread-dependent condition or loop, after a thread-dependent return,
// or in a device function; nullopt when every thread reaches each of them.
std::optional<abi::PythonLine> first_divergent_warp_call(const sema::TypedFunction& kernel);

// Whether a device function `kernel` calls makes a collective call
// (sema::is_collective).
bool functions_call_collectives(const sema::TypedFunction& kernel);

// Whether a device function `kernel` calls allocates a shared array: one per
// block, which the CPU keeps in fiber mode's per-block buffer.
bool functions_allocate_shared(const sema::TypedFunction& kernel);

// Whether evaluating `e` (a statement `s`'s own expressions: its test, value
// and targets, not the statements it contains) calls a device function that
// raises, so the thread may leave `fn` there.
bool calls_raising_function(const sema::TypedFunction& fn, const lang::Expr& e);
bool statement_calls_raising_function(const sema::TypedFunction& fn, const lang::Stmt& s);

// `s` is a return or a raise, or calls a device function that raises.
bool leaves_here(const sema::TypedFunction& fn, const lang::Stmt& s);

// Whether a statement of `body`, or one inside it, leaves_here: a thread may
// leave before the others.
bool contains_exit(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body);

// Per parameter of `kernel`: an array (of numbers, in global memory) that no
// store, augmented assignment or atomic of the kernel or its device functions
// can write, as far as the code shows (every global write through a parameter
// by name in the kernel itself, no parameter assigned, no foreign call);
// all false when it cannot tell.
std::vector<bool> unwritten_array_params(const sema::TypedFunction& kernel);

// Per parameter of `kernel`: a 1-D array (of numbers, in global memory) that the
// kernel uses only as `x[i]` (reads, writes, atomics; and x.shape, len(x)) with
// `i = simt.grid(1)` assigned once, at the kernel's top level, before: each
// thread of a launch one row of threads high touches its own element.
std::vector<bool> own_element_params(const sema::TypedFunction& kernel);

}  // namespace simt::passes
