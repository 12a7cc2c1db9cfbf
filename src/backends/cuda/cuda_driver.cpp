#include "backends/cuda/cuda_driver.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <utility>

namespace simt::cuda {

namespace {

// The driver's library is versioned by its soname; the unversioned libcuda.so
// is a development symlink (or the toolkit's stub) and is not searched.
constexpr const char* kDriverSoname = "libcuda.so.1";

// Descriptions for the codes simt declares, for when the driver cannot give
// its own (the toolkit's stub library, for one, answers every call with
// CUDA_ERROR_STUB_LIBRARY and fills in no string).
struct KnownError {
  int code;
  const char* name;
  const char* text;
};

constexpr KnownError kKnownErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "CUDA driver is a stub library, not the real driver"},
    {CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
     "API call is not supported by the installed CUDA driver"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "an illegal memory access was encountered (hardware stack error)"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "operation not supported on global/shared address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const KnownError* find_known(int code) {
  for (const KnownError& e : kKnownErrors)
    if (e.code == code) return &e;
  return nullptr;
}

std::string known_error_text(int code) {
  const KnownError* e = find_known(code);
  return e != nullptr ? std::string(e->text) : std::string("unrecognized error code");
}

}  // namespace

std::string known_error_name(int code) {
  const KnownError* e = find_known(code);
  return e != nullptr ? std::string(e->name) : "CUDA_ERROR_" + std::to_string(code);
}

bool is_sticky_error(int code) {
  switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
      return true;
    default:
      return false;
  }
}

std::string format_driver_error(std::string_view call, std::string_view device, int code,
                                std::string_view name, std::string_view text,
                                std::string_view detail) {
  std::string out(call);
  out += " failed";
  if (!device.empty()) {
    out += " on ";
    out += device;
  }
  out += ": ";
  out += name.empty() ? known_error_name(code) : std::string(name);
  out += " (";
  out += text.empty() ? known_error_text(code) : std::string(text);
  out += ")";
  out += detail;
  if (is_sticky_error(code)) {
    out +=
        "; the device's context is now unusable: every later CUDA call in this process "
        "fails, restart it";
  }
  return out;
}

std::string driver_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Driver::Driver(runtime::SharedLibrary library, const DriverFunctions& functions, int version)
    : library_(std::move(library)), fn_(functions), version_(version) {}

std::unique_ptr<Driver> Driver::load(std::string* why_not) {
  auto fail = [&](std::string reason) -> std::unique_ptr<Driver> {
    if (why_not != nullptr) *why_not = std::move(reason);
    return nullptr;
  };

  std::string reason;
  std::optional<runtime::SharedLibrary> library;
  const char* explicit_path = std::getenv("SIMT_CUDA_DRIVER_PATH");
  if (explicit_path != nullptr && *explicit_path != '\0') {
    library = runtime::SharedLibrary::open(explicit_path, &reason);
    if (!library) {
      return fail(std::string("SIMT_CUDA_DRIVER_PATH=") + explicit_path +
                  " could not be loaded: " + reason);
    }
  } else {
    library = runtime::SharedLibrary::open(kDriverSoname, &reason);
    if (!library) {
      return fail(std::string("the CUDA driver (") + kDriverSoname +
                  ") was not found; is an NVIDIA driver installed? (" + reason + ")");
    }
  }

  DriverFunctions fn;
  try {
#define SIMT_CUDA_REQUIRE(name) fn.name = library->require<decltype(fn.name)>(#name)
    SIMT_CUDA_REQUIRE(cuInit);
    SIMT_CUDA_REQUIRE(cuDriverGetVersion);
    SIMT_CUDA_REQUIRE(cuGetErrorName);
    SIMT_CUDA_REQUIRE(cuGetErrorString);
    SIMT_CUDA_REQUIRE(cuDeviceGetCount);
    SIMT_CUDA_REQUIRE(cuDeviceGet);
    SIMT_CUDA_REQUIRE(cuDeviceGetName);
    SIMT_CUDA_REQUIRE(cuDeviceGetAttribute);
    SIMT_CUDA_REQUIRE(cuDeviceTotalMem_v2);
    SIMT_CUDA_REQUIRE(cuDevicePrimaryCtxRetain);
    SIMT_CUDA_REQUIRE(cuDevicePrimaryCtxRelease_v2);
    SIMT_CUDA_REQUIRE(cuCtxSetCurrent);
    SIMT_CUDA_REQUIRE(cuCtxGetCurrent);
    SIMT_CUDA_REQUIRE(cuCtxSynchronize);
    SIMT_CUDA_REQUIRE(cuMemAlloc_v2);
    SIMT_CUDA_REQUIRE(cuMemFree_v2);
    SIMT_CUDA_REQUIRE(cuMemGetInfo_v2);
    SIMT_CUDA_REQUIRE(cuMemcpyHtoD_v2);
    SIMT_CUDA_REQUIRE(cuMemcpyDtoH_v2);
    SIMT_CUDA_REQUIRE(cuMemcpyDtoD_v2);
    SIMT_CUDA_REQUIRE(cuMemsetD8_v2);
    SIMT_CUDA_REQUIRE(cuMemsetD32Async);
    SIMT_CUDA_REQUIRE(cuMemcpyHtoDAsync_v2);
    SIMT_CUDA_REQUIRE(cuMemcpyDtoHAsync_v2);
    SIMT_CUDA_REQUIRE(cuMemcpyDtoDAsync_v2);
    SIMT_CUDA_REQUIRE(cuMemHostAlloc);
    SIMT_CUDA_REQUIRE(cuMemFreeHost);
    SIMT_CUDA_REQUIRE(cuMemHostGetDevicePointer_v2);
    SIMT_CUDA_REQUIRE(cuMemHostRegister_v2);
    SIMT_CUDA_REQUIRE(cuMemHostUnregister);
    SIMT_CUDA_REQUIRE(cuMemAllocManaged);
    SIMT_CUDA_REQUIRE(cuStreamCreate);
    SIMT_CUDA_REQUIRE(cuStreamDestroy_v2);
    SIMT_CUDA_REQUIRE(cuStreamSynchronize);
    SIMT_CUDA_REQUIRE(cuStreamQuery);
    SIMT_CUDA_REQUIRE(cuStreamWaitEvent);
    SIMT_CUDA_REQUIRE(cuLaunchHostFunc);
    SIMT_CUDA_REQUIRE(cuEventCreate);
    SIMT_CUDA_REQUIRE(cuEventDestroy_v2);
    SIMT_CUDA_REQUIRE(cuEventRecord);
    SIMT_CUDA_REQUIRE(cuEventSynchronize);
    SIMT_CUDA_REQUIRE(cuEventQuery);
    SIMT_CUDA_REQUIRE(cuEventElapsedTime);
    SIMT_CUDA_REQUIRE(cuPointerGetAttribute);
    SIMT_CUDA_REQUIRE(cuModuleLoadDataEx);
    SIMT_CUDA_REQUIRE(cuModuleUnload);
    SIMT_CUDA_REQUIRE(cuModuleGetFunction);
    SIMT_CUDA_REQUIRE(cuLaunchKernel);
    SIMT_CUDA_REQUIRE(cuLaunchCooperativeKernel);
    SIMT_CUDA_REQUIRE(cuOccupancyMaxActiveBlocksPerMultiprocessor);
#undef SIMT_CUDA_REQUIRE
    fn.cuFuncGetParamInfo = library->symbol<decltype(fn.cuFuncGetParamInfo)>("cuFuncGetParamInfo");
#define SIMT_CUDA_OPTIONAL(name) fn.name = library->symbol<decltype(fn.name)>(#name)
    SIMT_CUDA_OPTIONAL(cuStreamBeginCapture_v2);
    SIMT_CUDA_OPTIONAL(cuStreamEndCapture);
    SIMT_CUDA_OPTIONAL(cuGraphInstantiateWithFlags);
    SIMT_CUDA_OPTIONAL(cuGraphLaunch);
    SIMT_CUDA_OPTIONAL(cuGraphExecDestroy);
    SIMT_CUDA_OPTIONAL(cuGraphDestroy);
#undef SIMT_CUDA_OPTIONAL
  } catch (const std::exception& error) {
    return fail(std::string("unusable CUDA driver: ") + error.what());
  }

  std::unique_ptr<Driver> driver(new Driver(std::move(*library), fn, 0));
  CUresult status = fn.cuInit(0);
  if (status != CUDA_SUCCESS) {
    return fail(driver->describe("cuInit", "", status) + " [" + driver->library_path() + "]");
  }
  int version = 0;
  status = fn.cuDriverGetVersion(&version);
  if (status != CUDA_SUCCESS) {
    return fail(driver->describe("cuDriverGetVersion", "", status) + " [" + driver->library_path() +
                "]");
  }
  driver->version_ = version;
  return driver;
}

const Driver* Driver::get(std::string* why_not) { return runtime::load_once<Driver>(why_not); }

std::string Driver::error_name(CUresult code) const {
  const char* name = nullptr;
  if (fn_.cuGetErrorName(code, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return known_error_name(code);
}

std::string Driver::error_text(CUresult code) const {
  const char* text = nullptr;
  if (fn_.cuGetErrorString(code, &text) == CUDA_SUCCESS && text != nullptr) return text;
  return known_error_text(code);
}

std::string Driver::describe(std::string_view call, std::string_view device, CUresult code,
                             std::string_view detail) const {
  return format_driver_error(call, device, code, error_name(code), error_text(code), detail);
}

}  // namespace simt::cuda
