// The catalogue of analyses over a typed function: one file each, run by the
// compiler pipeline (compiler/pipeline.cpp) between inference and emission.
//
//   uniformity.h/.cpp   which locals and statements are block-uniform (the
//                       CPU's barrier lowering, codegen/emit_regions.cpp)
//   float64_use.cpp     the first statement computing in double precision
//                       (abi::Requirements::float64)
//   collectives.cpp     barriers and warp operations called from device
//                       functions (the CPU then runs the kernel in fiber mode)
//   thread_guard.h/.cpp a kernel's `if i < n:` guard, when the CPU can test it
//                       once per row of threads (codegen/emit_function.cpp)
#pragma once

#include <optional>

#include "abi/source_map.h"
#include "passes/thread_guard.h"
#include "passes/uniformity.h"
#include "sema/infer.h"

namespace simt::passes {

// The first Python statement of `kernel` computing in float64 or complex128
// (a non-literal value of that type), else the first of a device function it
// calls; nullopt when none does.
std::optional<abi::PythonLine> first_float64_use(const sema::TypedFunction& kernel);

// Whether a device function `kernel` calls makes a collective call
// (sema::is_collective).
bool functions_call_collectives(const sema::TypedFunction& kernel);

}  // namespace simt::passes
