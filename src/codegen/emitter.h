// The one emitter: a typed kernel to CUDA C++, OpenCL C or C++ source, with
// every difference between the three taken from the Dialect tables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abi/kernel_abi.h"
#include "codegen/dialect.h"
#include "sema/infer.h"

namespace simt::codegen {

struct EmitOptions {
  bool debug = false;        // check every array index and every `assert` (emit_checks.cpp)
  bool boundscheck = false;  // check every array index (Numba's boundscheck=True)
  // CPU: report every shared and global access, barrier and warp operation to
  // the launch's race recorder (emit_race.cpp); the other dialects ignore it.
  bool racecheck = false;
  // With debug: no division-by-zero checks, as Numba's fastmath (IEEE's inf
  // and nan are what fast code wants).
  bool fastmath = false;
  // Sources the kernel links (cuda.jit(link=[...])): each compiled, by the
  // dialects of its languages, ahead of the code that calls into it.
  std::vector<sema::LinkedSource> link;
  // CPU: run the kernel in fiber mode even where the region lowering could
  // take it (bench/cpu.py compares the two; SIMT_CPU_FIBERS=1).
  bool cpu_fibers = false;
  // The kernel's registers per thread at most (Dialect::max_registers); 0: the
  // compiler's choice.
  int max_registers = 0;
};

// The generated kernel's symbol for a Python function name.
std::string kernel_symbol(const std::string& python_name);

// The generated symbol of a device function's specialization: the
// `ordinal`-th specialization of the Python function `python_name` in one
// kernel (sema::TypedDeviceFunction::ordinal), "simt_func_<name>_<n>".
std::string function_symbol(const std::string& python_name, int ordinal);

// The kernel, preceded by every device function it calls (one static inline
// function per specialization, callees first, with the dialect's
// function_prefix).
abi::GeneratedKernel emit_kernel(const sema::TypedFunction& fn, const Dialect& dialect,
                                 const EmitOptions& options = {});

}  // namespace simt::codegen
