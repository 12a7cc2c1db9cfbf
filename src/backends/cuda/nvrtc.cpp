#include "backends/cuda/nvrtc.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <tuple>

#include "backends/cuda/libs/toolkit_library.h"

namespace simt::cuda {

namespace {

// Newest first: a machine with both toolkits should get the one that knows
// the most architectures.
constexpr const char* kNvrtcSonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

constexpr ToolkitLibrary kNvrtcLibrary{
    "NVRTC", kNvrtcSonames, "SIMT_NVRTC_PATH",
    "pip install 'simt[cuda13]', which installs nvidia-cuda-nvrtc, or install the CUDA toolkit"};

constexpr auto kNvrtcEntries = std::tuple{
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcVersion),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetErrorString),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcCreateProgram),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcDestroyProgram),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcCompileProgram),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetProgramLogSize),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetProgramLog),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetCUBINSize),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetCUBIN),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetPTXSize),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetPTX),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcAddNameExpression),
    SIMT_LIBRARY_ENTRY(NvrtcFunctions, nvrtcGetLoweredName),
};

bool is_directory(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string parent_directory(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool starts_with_any(const std::string& option, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view prefix) { return option.starts_with(prefix); });
}

// Destroys the program on every exit path of compile().
class ProgramGuard {
 public:
  ProgramGuard(const NvrtcFunctions& fn, nvrtcProgram program) : fn_(fn), program_(program) {}
  ProgramGuard(const ProgramGuard&) = delete;
  ProgramGuard& operator=(const ProgramGuard&) = delete;
  ~ProgramGuard() {
    if (program_ != nullptr) fn_.nvrtcDestroyProgram(&program_);
  }

 private:
  const NvrtcFunctions& fn_;
  nvrtcProgram program_;
};

// Reads one of NVRTC's size-then-copy outputs (log, CUBIN, PTX). NVRTC counts
// the terminating NUL of text outputs; it is dropped here.
template <class SizeFn, class CopyFn>
nvrtcResult read_output(nvrtcProgram program, SizeFn size_fn, CopyFn copy_fn, bool is_text,
                        std::string* out) {
  std::size_t size = 0;
  nvrtcResult status = size_fn(program, &size);
  if (status != NVRTC_SUCCESS) return status;
  std::string buffer(size, '\0');
  if (size > 0) {
    status = copy_fn(program, buffer.data());
    if (status != NVRTC_SUCCESS) return status;
  }
  if (is_text) {
    while (!buffer.empty() && buffer.back() == '\0') buffer.pop_back();
  }
  *out = std::move(buffer);
  return NVRTC_SUCCESS;
}

}  // namespace

Nvrtc::Nvrtc(runtime::SharedLibrary library, const NvrtcFunctions& functions)
    : library_(std::move(library)), fn_(functions) {
  int major = 0;
  int minor = 0;
  if (fn_.nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) version_ = {major, minor};
}

std::vector<std::string> Nvrtc::search_candidates(std::string* directories_without_nvrtc) {
  return toolkit_library_candidates(kNvrtcSonames, directories_without_nvrtc);
}

std::unique_ptr<Nvrtc> Nvrtc::load(std::string* why_not) {
  auto loaded = load_toolkit_library<NvrtcFunctions>(
      kNvrtcLibrary, kNvrtcEntries,
      [](const runtime::SharedLibrary& library, NvrtcFunctions& fn) {
        // Only newer NVRTCs export these.
        fn.nvrtcGetNumSupportedArchs =
            library.symbol<decltype(fn.nvrtcGetNumSupportedArchs)>("nvrtcGetNumSupportedArchs");
        fn.nvrtcGetSupportedArchs =
            library.symbol<decltype(fn.nvrtcGetSupportedArchs)>("nvrtcGetSupportedArchs");
      },
      why_not);
  if (!loaded) return nullptr;
  return std::unique_ptr<Nvrtc>(new Nvrtc(std::move(loaded->library), loaded->fn));
}

const Nvrtc* Nvrtc::get(std::string* why_not) { return runtime::load_once<Nvrtc>(why_not); }

std::vector<int> Nvrtc::supported_archs() const {
  if (fn_.nvrtcGetNumSupportedArchs == nullptr || fn_.nvrtcGetSupportedArchs == nullptr) {
    return {};
  }
  int count = 0;
  if (fn_.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (fn_.nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::optional<std::string> Nvrtc::toolkit_include_dir() const {
  std::string include = parent_directory(parent_directory(library_.path())) + "/include";
  if (is_directory(include)) return include;
  return std::nullopt;
}

const char* Nvrtc::error_string(nvrtcResult result) const {
  const char* text = fn_.nvrtcGetErrorString(result);
  return text != nullptr ? text : "NVRTC_ERROR (unknown)";
}

CompileResult Nvrtc::compile(std::string_view source, std::string_view program_name, int sm_major,
                             int sm_minor, const std::vector<std::string>& extra_options,
                             bool want_cubin,
                             const std::vector<std::string>& name_expressions) const {
  CompileResult result;
  auto fail = [&](const char* call, nvrtcResult status) {
    result.ok = false;
    std::string prefix = std::string(call) + " failed: " + error_string(status);
    result.log = result.log.empty() ? prefix : prefix + "\n" + result.log;
    return result;
  };

  std::vector<std::string> options;
  bool caller_sets_arch = false;
  bool caller_sets_std = false;
  for (const std::string& option : extra_options) {
    if (option == kToolkitIncludesOption) {
      std::optional<std::string> include = toolkit_include_dir();
      if (!include) {
        result.log = "toolkit headers requested, but " + library_path() +
                     " has no ../include directory next to it";
        return result;
      }
      options.push_back("--include-path=" + *include);
      // CUDA 13 keeps CCCL (<cuda/std/...>, CUB, Thrust) in include/cccl, toolkit and
      // nvidia-cuda-cccl wheel alike; nvcc adds it on its own, NVRTC does not.
      if (is_directory(*include + "/cccl"))
        options.push_back("--include-path=" + *include + "/cccl");
      continue;
    }
    caller_sets_arch |= starts_with_any(option, {"--gpu-architecture", "-arch"});
    caller_sets_std |= starts_with_any(option, {"--std", "-std"});
    options.push_back(option);
  }
  if (!caller_sets_arch) {
    std::string arch = std::to_string(sm_major) + std::to_string(sm_minor);
    options.push_back(std::string("--gpu-architecture=") + (want_cubin ? "sm_" : "compute_") +
                      arch);
  }
  if (!caller_sets_std) options.emplace_back("-std=c++17");

  std::vector<const char*> option_pointers;
  option_pointers.reserve(options.size());
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  // NVRTC wants NUL-terminated strings; string_views need not be.
  std::string source_text(source);
  std::string name_text =
      program_name.empty() ? std::string("simt_kernel.cu") : std::string(program_name);

  nvrtcProgram program = nullptr;
  nvrtcResult status =
      fn_.nvrtcCreateProgram(&program, source_text.c_str(), name_text.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) return fail("nvrtcCreateProgram", status);
  ProgramGuard guard(fn_, program);
  for (const std::string& expression : name_expressions) {
    status = fn_.nvrtcAddNameExpression(program, expression.c_str());
    if (status != NVRTC_SUCCESS) return fail("nvrtcAddNameExpression", status);
  }

  nvrtcResult compile_status = fn_.nvrtcCompileProgram(
      program, static_cast<int>(option_pointers.size()), option_pointers.data());
  // The log is wanted on success too: it carries warnings.
  status =
      read_output(program, fn_.nvrtcGetProgramLogSize, fn_.nvrtcGetProgramLog, true, &result.log);
  if (status != NVRTC_SUCCESS) return fail("nvrtcGetProgramLog", status);
  if (compile_status != NVRTC_SUCCESS) return fail("nvrtcCompileProgram", compile_status);

  if (want_cubin) {
    status = read_output(program, fn_.nvrtcGetCUBINSize, fn_.nvrtcGetCUBIN, false, &result.cubin);
    if (status != NVRTC_SUCCESS) return fail("nvrtcGetCUBIN", status);
    if (result.cubin.empty()) {
      // Happens when a caller's own --gpu-architecture=compute_XY overrides ours.
      result.log += result.log.empty() ? "" : "\n";
      result.log += "NVRTC produced no CUBIN (was a compute_XY architecture requested?)";
      return result;
    }
    // Best effort: older NVRTCs refuse PTX for an sm_XY target, which is fine.
    std::string ptx;
    if (read_output(program, fn_.nvrtcGetPTXSize, fn_.nvrtcGetPTX, true, &ptx) == NVRTC_SUCCESS) {
      result.ptx = std::move(ptx);
    }
  } else {
    status = read_output(program, fn_.nvrtcGetPTXSize, fn_.nvrtcGetPTX, true, &result.ptx);
    if (status != NVRTC_SUCCESS) return fail("nvrtcGetPTX", status);
  }
  for (const std::string& expression : name_expressions) {
    const char* lowered = nullptr;
    status = fn_.nvrtcGetLoweredName(program, expression.c_str(), &lowered);
    if (status != NVRTC_SUCCESS || lowered == nullptr) {
      result.log += (result.log.empty() ? "" : "\n") + std::string("name expression '") +
                    expression + "' names no kernel NVRTC instantiated";
      return fail("nvrtcGetLoweredName",
                  status != NVRTC_SUCCESS ? status : NVRTC_ERROR_INVALID_INPUT);
    }
    result.lowered_names.emplace_back(lowered);
  }
  result.ok = true;
  return result;
}

}  // namespace simt::cuda
