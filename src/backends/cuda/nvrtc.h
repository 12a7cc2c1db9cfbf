// NVRTC, the CUDA run-time compiler, loaded with dlopen (see design.md, "No
// vendor SDK at build time").
//
// The declarations below are simt's own, written from NVRTC's public API
// documentation: only what simt calls, with the C ABI the library exports.
// No CUDA header is included anywhere in simt.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/shared_library.h"

namespace simt::cuda {

// Status codes as NVRTC defines them (values are part of its ABI).
enum nvrtcResult : int {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6,
  NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  NVRTC_ERROR_INTERNAL_ERROR = 11,
};

// Opaque program handle; NVRTC never exposes the pointee.
struct NvrtcProgramOpaque;
using nvrtcProgram = NvrtcProgramOpaque*;

// The entry points simt uses, named as NVRTC exports them.
struct NvrtcFunctions {
  nvrtcResult (*nvrtcVersion)(int* major, int* minor) = nullptr;
  const char* (*nvrtcGetErrorString)(nvrtcResult result) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram* program, const char* source, const char* name,
                                    int header_count, const char* const* header_sources,
                                    const char* const* header_include_names) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram* program) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram program, int option_count,
                                     const char* const* options) = nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram program, char* log) = nullptr;
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram program, char* cubin) = nullptr;
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram program, char* ptx) = nullptr;
  // For templated raw kernels: register "kernel<float>" before compiling, then
  // ask for its mangled name after.
  nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram program,
                                        const char* name_expression) = nullptr;
  nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram program, const char* name_expression,
                                     const char** lowered_name) = nullptr;
  // Optional (absent from old libraries): which sm_XY targets this NVRTC can
  // emit, so a device newer than the compiler can get the closest older cubin.
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int* count) = nullptr;
  nvrtcResult (*nvrtcGetSupportedArchs)(int* archs) = nullptr;
};

struct CompileResult {
  bool ok = false;
  std::string log;    // NVRTC's diagnostics (warnings too when ok), or why compiling failed
  std::string cubin;  // ELF image for the exact sm_XY; empty unless want_cubin
  std::string ptx;    // PTX text; may be empty when want_cubin (see Nvrtc::compile)
  // The mangled name of each of compile()'s name_expressions, in order.
  std::vector<std::string> lowered_names;
};

// Pseudo-option for Nvrtc::compile's extra_options: replaced by -I<toolkit
// include dir> for raw CUDA sources that include toolkit headers. Off by
// default because simt's generated code includes no headers, and an include
// path makes the result depend on files outside the cache key.
inline constexpr std::string_view kToolkitIncludesOption = "--simt-toolkit-includes";

class Nvrtc {
 public:
  // The process-wide instance, loaded on first use (thread-safe). Returns
  // nullptr when no usable libnvrtc is found, with the reason in why_not.
  // Never unloaded: other static destructors may still compile at exit.
  static const Nvrtc* get(std::string* why_not);

  // Searches and loads a fresh instance from the current environment, without
  // caching. get() uses it once; tests use it to try other settings.
  //
  // Search order: $SIMT_NVRTC_PATH (a file; when set, nothing else is tried,
  // so an explicit choice never silently falls back to another toolkit), then
  // libnvrtc.so.13 / .so.12 / .so in $CUDA_HOME/lib64, $CUDA_PATH/lib64, each
  // directory of $SIMT_NVRTC_SEARCH_DIRS (colon separated; the Python package
  // appends the lib directories of the environment's nvidia-cuda-nvrtc wheels,
  // simt/_cuda_wheels.py) and /usr/local/cuda/lib64, then the same sonames
  // through the dynamic loader's own search.
  static std::unique_ptr<Nvrtc> load(std::string* why_not);

  // The files load() tries in order when $SIMT_NVRTC_PATH is unset: the libnvrtc files
  // that exist in the directories above, then the bare sonames for the loader. The
  // directories without any are appended to *directories_without_nvrtc (", "-joined).
  static std::vector<std::string> search_candidates(std::string* directories_without_nvrtc);

  // NVRTC's (major, minor), e.g. (13, 0).
  std::pair<int, int> version() const { return version_; }

  // The sm_XY targets this NVRTC supports as integers (e.g. 75, 80, 90), in
  // increasing order; empty when the library cannot say.
  std::vector<int> supported_archs() const;

  // Compiles one CUDA C++ translation unit for compute capability
  // sm_major.sm_minor.
  //
  // want_cubin: compile with --gpu-architecture=sm_XY and return the CUBIN.
  //   This is simt's normal path: a cubin loads without the driver's JIT, and
  //   a driver older than NVRTC cannot JIT its PTX anyway. NVRTC 12.x/13 also
  //   keep the PTX of an sm_XY compile; it is returned in `ptx` when the
  //   library hands it out (for inspect_source-style display), else left empty.
  // otherwise: compile with --gpu-architecture=compute_XY and return PTX only
  //   (for the driver to JIT, e.g. a device newer than this NVRTC knows).
  //
  // Default options are minimal: the architecture and -std=c++17. C++17 is
  // enough for simt's generated code and is accepted by every NVRTC from 11.x
  // on; pinning it keeps the output independent of NVRTC's default. (NVRTC 13
  // accepts -std=c++20 too, at no measurable cost, for raw kernels that want
  // it.) Callers
  // may override either with their own --gpu-architecture/-arch or -std in
  // extra_options. Nothing else (no fast math, no -G/-lineinfo, no include
  // path) is implied. kToolkitIncludesOption in extra_options adds the toolkit
  // include directory.
  //
  // Compilation errors give ok=false with NVRTC's log ("name(line): error:
  // ..."); failures of NVRTC itself are reported the same way, with the
  // NVRTC_ERROR_* name in the log. Does not throw for bad input.
  //
  // name_expressions ("scale<float>", "&f<int, 3>") are registered before
  // compiling, which instantiates them; their mangled names come back in
  // lowered_names, for cuModuleGetFunction.
  CompileResult compile(std::string_view source, std::string_view program_name, int sm_major,
                        int sm_minor, const std::vector<std::string>& extra_options,
                        bool want_cubin,
                        const std::vector<std::string>& name_expressions = {}) const;

  // The libnvrtc file in use (resolved to an absolute path when the loader
  // found it by soname).
  const std::string& library_path() const { return library_.path(); }

  // <library dir>/../include when it exists (toolkit and pip layouts both keep
  // headers there: nvidia/cu13/{lib,include} of the nvidia-cuda-nvrtc,
  // -runtime and -cccl wheels), where raw kernels find e.g. cuda_fp16.h.
  std::optional<std::string> toolkit_include_dir() const;

  // NVRTC's name for a status code, e.g. "NVRTC_ERROR_COMPILATION".
  const char* error_string(nvrtcResult result) const;

  // The raw entry points, for uses compile() does not cover (name expressions).
  const NvrtcFunctions& functions() const { return fn_; }

 private:
  Nvrtc(runtime::SharedLibrary library, const NvrtcFunctions& functions);

  runtime::SharedLibrary library_;
  NvrtcFunctions fn_;
  std::pair<int, int> version_{0, 0};
};

}  // namespace simt::cuda
