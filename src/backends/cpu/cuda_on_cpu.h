// CUDA C++ on the CPU device: raw kernels (RawKernel, RawModule) and the
// snippet kernels (ElementwiseKernel, ReductionKernel), which are CUDA C++
// too, compiled by the embedded Clang as C++ with a prelude that gives CUDA's
// vocabulary a CPU meaning, and run by the CPU runtime's block entry
// (abi/cpu_entry.h) as simt's own kernels are:
//
// - each kernel takes the running thread (threadIdx, blockIdx, blockDim,
//   gridDim) as a hidden first parameter, its body declaring them as locals;
//   inlined into the entry's loop over the block's threads, threadIdx.x is
//   that loop's variable. Device functions and kernels a macro defines read
//   the same values from thread-local variables of the OS thread running the
//   block (emulated_tls.h), set only where such code names them (and in fiber
//   mode); the block context is one too. `__shared__` is `thread_local`: the
//   blocks an OS thread runs run one after the other, so its copy is its
//   running block's;
// - a kernel whose source names no barrier or warp operation runs its
//   block's threads as a loop around the (inlined) kernel; one that does runs
//   each thread as a fiber (fibers.h), `__syncthreads()` and the warp
//   operations being the fiber runtime's calls (the running fiber's threadIdx
//   is saved around each, as the fibers share the OS thread);
// - `extern __shared__ T name[]` (the launch's dynamic shared memory) becomes
//   an object that indexes and converts as the array does;
// - CUDA's atomics, math overloads (float and double), intrinsics and vector
//   types are inline functions over Clang's builtins.
//
// Each kernel gets an entry `simt_raw_entry_<k>` that unpacks the launch's
// arguments by the kernel's own parameter types, and `simt_raw_params_<k>`,
// which describes them for the launch's argument checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace simt::cpu {

// A parameter as simt_raw_params_<k> describes it (the prelude declares the
// same struct).
struct CudaParamDesc {
  int32_t kind;    // 0 a value, 1 a pointer, -1 the end of the list
  int32_t bytes;   // the value's size
  int32_t scalar;  // abi::Scalar of a value or a pointer's element; -1 for others
  const char* type_name;
};

// A raw program's translation unit and how to compile it.
struct CudaOnCpuUnit {
  std::string text;
  // kernels[k]'s entry is simt_raw_entry_<k>, its parameters simt_raw_params_<k>.
  std::vector<std::string> kernels;
  std::vector<std::string> include_dirs;  // -I
  bool fastmath = false;                  // --use_fast_math
  bool fibers = false;                    // threads run as fibers (barriers, warp operations)
  // The thread indices are also kept in thread-local storage, as code other than
  // the kernels' bodies (device functions, macros) names them.
  bool tls_indices = false;
};

// The kernels `__global__` defines in `source` outside templates, by name.
std::vector<std::string> cuda_kernel_names(const std::string& source);

// Whether `name` is an identifier of `source` (outside comments): a kernel
// the program may define.
bool cuda_source_names(const std::string& source, const std::string& name);

// The unit compiling `source` with entries for `kernels` (names or name
// expressions). Throws runtime::BackendCompileError naming `kernel` for
// what the CPU cannot run (inline PTX assembly, textures) and for options it
// does not take.
CudaOnCpuUnit cuda_on_cpu_unit(const runtime::RawSource& source,
                               const std::vector<std::string>& kernels, const std::string& kernel);

}  // namespace simt::cpu
