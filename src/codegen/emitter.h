// The one emitter: a typed kernel to CUDA C++, OpenCL C or C++ source, with
// every difference between the three taken from the Dialect tables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "codegen/source_map.h"
#include "sema/infer.h"

namespace simt::codegen {

struct EmitOptions {
  bool debug = false;  // emit assert checks (their reporting comes with the runtime)
};

// One C parameter of the generated kernel. Kernel arguments are flattened:
// an n-dimensional array becomes its data pointer, n extents and n strides
// (in elements), a tuple its items; the launcher packs them in this order.
// Launchers pass one value per slot; in a dialect with an array_offset_type
// (OpenCL) an ArrayData slot is two C parameters, the buffer and the byte
// offset into it, which that backend derives from the one data pointer.
struct ParamSlot {
  // SharedBytes: the launch's dynamic shared memory size in bytes (int64),
  // the last parameter of kernels that use `shared.array(0, dtype)`; on
  // OpenCL it is two C parameters, the `__local` buffer and the size.
  enum class Kind { Scalar, ArrayData, ArrayShape, ArrayStride, SharedBytes };
  Kind kind = Kind::Scalar;
  int argument = 0;                           // which Python argument it comes from
  std::vector<int> path;                      // item indices inside a tuple argument
  int dim = 0;                                // ArrayShape/ArrayStride: which dimension
  sema::Scalar scalar = sema::Scalar::Int64;  // Scalar: its type; ArrayData: the dtype
  std::string c_type;                         // as declared in the generated code
};

struct EmittedKernel {
  std::string source;
  std::string entry;  // the symbol to launch
  std::vector<ParamSlot> params;
  // The first Python statement that computes in float64 or complex128 (the
  // kernel's own, else a device function's), for errors on devices without
  // double precision; nullopt when none does (parameters may still be).
  std::optional<PythonLine> float64_use;
  // The first statement using a warp operation, and one using a 64-bit
  // atomic: features an OpenCL device may lack.
  std::optional<PythonLine> warp_use;
  std::optional<PythonLine> int64_atomic_use;
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
EmittedKernel emit_kernel(const sema::TypedFunction& fn, const Dialect& dialect,
                          const EmitOptions& options = {});

}  // namespace simt::codegen
