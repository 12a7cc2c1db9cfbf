// Where simt finds the CUDA toolkit's run-time libraries (NVRTC, cuBLAS,
// cuFFT), which it loads with dlopen (design.md, "No vendor SDK at build
// time"): one search order for all of them, so that a library and its
// siblings come from the same toolkit or the same set of NVIDIA wheels.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/shared_library.h"

namespace simt::cuda {

// The directories searched, in order: $CUDA_HOME/lib64, $CUDA_PATH/lib64, each
// directory of $SIMT_NVRTC_SEARCH_DIRS (colon separated; the Python package
// appends the lib directories of the environment's nvidia-* wheels there,
// simt/_cuda_wheels.py; the name predates the other libraries), then
// /usr/local/cuda/lib64.
std::vector<std::string> toolkit_library_directories();

// The files to try, in order: each of `sonames` (newest first) that exists in
// each directory above, then the bare sonames for the dynamic loader's own
// search. Directories holding none of them are appended to
// *directories_without (", "-joined) when given.
std::vector<std::string> toolkit_library_candidates(std::span<const char* const> sonames,
                                                    std::string* directories_without);

// One toolkit library as loaders describe it.
struct ToolkitLibrary {
  const char* display_name;              // "cuBLAS", for messages
  std::span<const char* const> sonames;  // newest first
  const char* path_variable;             // e.g. "SIMT_CUBLAS_PATH": an explicit file
  const char* install_hint;              // what provides it, for the not-found message
};

// Opens `library`: the file $<path_variable> names when set (nothing else is
// tried then, so an explicit choice never silently falls back), else the
// first candidate that loads. On failure returns nullopt with a reason that
// lists what was tried and `install_hint`.
std::optional<runtime::SharedLibrary> open_toolkit_library(const ToolkitLibrary& library,
                                                           std::string* why_not);

}  // namespace simt::cuda
