// The contract between generated code and whatever launches it: one record
// per C parameter of the generated kernel (written once, by codegen; read by
// the launch path's packing and by every backend), what the code requires of
// a device, and the kernel itself as the runtime receives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abi/check_record.h"
#include "abi/race_report.h"
#include "abi/scalar.h"
#include "abi/source_map.h"

namespace simt::abi {

// The source language a device compiles, and the dialect codegen emits for it.
enum class Language : uint8_t { Cuda, OpenCL, Cpp };
const char* language_name(Language language);  // "cuda", "opencl", "cpp"

// One C parameter of a generated kernel. Kernel arguments are flattened: an
// n-dimensional array becomes its data pointer, n extents and n strides (in
// elements), a tuple its items, in the order a launch's classifier visits
// the arguments' leaves (scalars and arrays).
struct Param {
  // SharedBytes: the launch's dynamic shared memory size in bytes (int64),
  // the last parameter of kernels that use `shared.array(0, dtype)`.
  // CheckRecord: the device address of a checked launch's record
  // (abi/check_record.h), passed as an array's data is; only in kernels
  // built with checks.
  // GridBarrier: the device address of a cooperative launch's grid barrier
  // state (two zeroed 32-bit words the launching device provides; the CUDA
  // dialect's cuda.cg.this_grid().sync()), never a Python argument.
  // RaceRecorder: the address of a race-checked launch's recorder (the cpu
  // backend's cpu::RaceRecorder, abi/race_report.h); only in kernels built
  // with racecheck.
  enum class Role : uint8_t {
    Scalar,
    ArrayData,
    ArrayShape,
    ArrayStride,
    SharedBytes,
    CheckRecord,
    GridBarrier,
    RaceRecorder
  };
  Role role = Role::Scalar;
  // Which Python argument it comes from (-1: SharedBytes, CheckRecord, GridBarrier,
  // RaceRecorder).
  int argument = 0;
  std::vector<int> path;          // item indices inside a tuple argument
  int leaf = -1;                  // which leaf of the flattened arguments (-1: none)
  int dim = 0;                    // ArrayShape/ArrayStride: which dimension
  Scalar scalar = Scalar::Int64;  // Scalar: its type; ArrayData: the dtype
  std::string c_type;             // as declared in the generated code
  // How many C parameters the record is. 2 for an OpenCL array (its buffer
  // and a byte offset into it: OpenCL buffers are handles, so a view into one
  // cannot be a plain pointer; a CheckRecord likewise) and for OpenCL dynamic shared memory (the
  // `__local` buffer and its size); else 1.
  int c_params = 1;

  // The bytes of the value a launch passes for it: a scalar in its storage
  // form, else 8 (an address, an extent, a stride, a size).
  size_t bytes() const {
    return role == Role::Scalar ? static_cast<size_t>(bit_width(scalar) / 8) : 8;
  }
};

// Features a device may lack, each with the first Python statement needing it
// (the kernel's own, else a device function's); checked in one place
// (runtime::check_requirements) against the device's capabilities.
struct Requirements {
  // The first statement computing in float64 or complex128; nullopt when
  // none does (float64 parameters may still make the code use double).
  std::optional<PythonLine> float64;
  std::optional<PythonLine> warps;  // shuffles, votes, activemask
  // The first warp operation some threads of a block may skip
  // (passes::first_divergent_warp_call): a device running them as block
  // barriers cannot.
  std::optional<PythonLine> divergent_warps;
  std::optional<PythonLine> int64_atomics;  // atomics on 64-bit words
  // A grid-wide barrier (cuda.cg.this_grid().sync()): the kernel is
  // cooperative, so every block of a launch must be resident at once.
  std::optional<PythonLine> grid_sync;
  // Static shared arrays, in bytes, and the statement of the first of them.
  int64_t shared_bytes = 0;
  std::optional<PythonLine> shared;
  // The dynamic shared bytes a constant index into the dynamic shared array
  // needs (`s[31]` of float64: 256), and where: a launch giving fewer is an
  // error (runtime::validate_shared_memory).
  int64_t dynamic_shared_need = 0;
  std::optional<PythonLine> dynamic_shared_use;
  // CPU: the static shared arrays' bytes in the block's shared memory
  // (CpuBlockContext::static_shared), each array 64-byte aligned.
  int64_t cpu_shared_bytes = 0;
  // CPU: the entry may run several consecutive blocks along x in one call
  // (CpuBlockContext::x_blocks), one longer row of threads for all of them.
  bool x_spans = false;
  // CPU: every access reports to a race recorder (racecheck), which is not
  // thread-safe: the launch runs its blocks one after another on one thread,
  // which also makes the report the same on every run.
  bool serial_blocks = false;
};

// A generated kernel, ready for a backend to compile.
struct GeneratedKernel {
  Language language = Language::Cpp;
  std::string source;
  std::string entry;  // the symbol to launch
  std::vector<Param> params;
  Requirements requirements;
  // What a checked kernel checks (empty without checks): a failed check's
  // record names one of these by its index.
  std::vector<CheckSite> check_sites;
  // What a race-checked kernel reports (empty without racecheck): the
  // recorder's hazards name these by index.
  std::vector<RaceSite> race_sites;
  // Per Python argument: an array no thread writes, whose reads the kernel
  // reports only where the recorder asks for every read (the launch finds it
  // sharing memory with another argument). Empty: every read is reported.
  std::vector<bool> race_unwritten;
  // Per Python argument: a 1-D array each thread touches only its own element
  // of (`x[i]`, `i = simt.grid(1)`), whose accesses the kernel reports only
  // where the recorder asks for every access (shared memory as above, or a
  // launch more than one row of threads high). Empty: none.
  std::vector<bool> race_own;
};

}  // namespace simt::abi
