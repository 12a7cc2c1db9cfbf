// The CUDA driver API (libcuda), loaded with dlopen (see design.md, "No vendor
// SDK at build time").
//
// The declarations below are simt's own, written from the driver API's public
// documentation: only the types, constants and functions simt calls, with the
// C ABI libcuda exports. Where the API has versioned entry points (`_v2`), the
// exported symbol simt binds is named explicitly: the unversioned names are
// old ABIs kept for binaries built against CUDA 3.x (32-bit sizes). No CUDA
// header is included anywhere in simt.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/shared_library.h"

namespace simt::cuda {

// Status codes (values are part of the driver's ABI). Only those simt names;
// any other value is still reported by the driver's cuGetErrorName.
enum CUresult : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_UNKNOWN = 999,
};

// Device attributes simt queries (CUdevice_attribute values).
enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: the ordinal of the device a pointer's
// memory belongs to (an int).
constexpr int kPointerAttributeDeviceOrdinal = 9;

// Options of cuModuleLoadDataEx (CUjit_option values) simt passes.
enum CUjit_option : int {
  CU_JIT_ERROR_LOG_BUFFER = 5,             // value: char* the driver writes into
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,  // value: the size, cast to void*; updated
};

using CUdevice = int;
// Device addresses are 64-bit on every platform simt supports.
using CUdeviceptr = unsigned long long;
// Opaque handles; the driver never exposes the pointees.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
struct CUgraph_st;
struct CUgraphExec_st;
using CUgraph = CUgraph_st*;
using CUgraphExec = CUgraphExec_st*;
// A host function queued on a stream (cuLaunchHostFunc).
using CUhostFn = void (*)(void* user_data);

// Flags simt passes (values are part of the driver's ABI).
constexpr unsigned int CU_STREAM_DEFAULT = 0x0;  // synchronizes with the legacy stream
constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;
// CUstreamCaptureMode: in relaxed mode the capturing thread may still call
// what would be unsafe while capturing (a cooperative launch's first
// cuMemAlloc of its barrier words).
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;
constexpr unsigned int CU_EVENT_DEFAULT = 0x0;  // timing on
constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned int CU_MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned int CU_MEMHOSTALLOC_DEVICEMAP = 0x02;
constexpr unsigned int CU_MEM_ATTACH_GLOBAL = 0x1;
constexpr unsigned int CU_MEMHOSTREGISTER_PORTABLE = 0x01;
constexpr unsigned int CU_MEMHOSTREGISTER_DEVICEMAP = 0x02;

// The entry points simt uses. Each member is named after the symbol libcuda
// exports (hence the _v2 suffixes); all are required unless marked optional.
struct DriverFunctions {
  CUresult (*cuInit)(unsigned int flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;

  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, CUdevice_attribute attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(std::size_t* bytes, CUdevice device) = nullptr;

  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext* context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;

  CUresult (*cuMemAlloc_v2)(CUdeviceptr* pointer, std::size_t bytes) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemGetInfo_v2)(std::size_t* free_bytes, std::size_t* total_bytes) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, std::size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, std::size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) = nullptr;
  CUresult (*cuMemsetD8_v2)(CUdeviceptr dst, unsigned char value, std::size_t count) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned int value, std::size_t count,
                               CUstream stream) = nullptr;
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr dst, const void* src, std::size_t bytes,
                                   CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync_v2)(void* dst, CUdeviceptr src, std::size_t bytes,
                                   CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                                   CUstream stream) = nullptr;
  CUresult (*cuMemHostAlloc)(void** pointer, std::size_t bytes, unsigned int flags) = nullptr;
  CUresult (*cuMemFreeHost)(void* pointer) = nullptr;
  CUresult (*cuMemHostGetDevicePointer_v2)(CUdeviceptr* device_pointer, void* host,
                                           unsigned int flags) = nullptr;
  CUresult (*cuMemHostRegister_v2)(void* host, std::size_t bytes, unsigned int flags) = nullptr;
  CUresult (*cuMemHostUnregister)(void* host) = nullptr;
  CUresult (*cuMemAllocManaged)(CUdeviceptr* pointer, std::size_t bytes,
                                unsigned int flags) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned int flags) = nullptr;
  CUresult (*cuStreamDestroy_v2)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamQuery)(CUstream stream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned int flags) = nullptr;
  CUresult (*cuLaunchHostFunc)(CUstream stream, CUhostFn function, void* user_data) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent event) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventQuery)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent end) = nullptr;
  // `attribute` is a CUpointer_attribute (kPointerAttributeDeviceOrdinal).
  CUresult (*cuPointerGetAttribute)(void* data, int attribute, CUdeviceptr pointer) = nullptr;

  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned int option_count,
                                 CUjit_option* options, void** option_values) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module,
                                  const char* name) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void** kernel_params, void** extra) = nullptr;
  // A launch whose blocks may wait for each other (cooperative groups' grid
  // barrier): the driver refuses it unless every block can be resident at once.
  CUresult (*cuLaunchCooperativeKernel)(CUfunction function, unsigned int grid_x,
                                        unsigned int grid_y, unsigned int grid_z,
                                        unsigned int block_x, unsigned int block_y,
                                        unsigned int block_z, unsigned int shared_bytes,
                                        CUstream stream, void** kernel_params) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(
      int* blocks, CUfunction function, int block_threads,
      std::size_t dynamic_shared_bytes) = nullptr;

  // Optional (CUDA 11.4+; null on older drivers): stream capture into a CUDA
  // graph, and its instantiation and launch (simt.graph(), cuda_graph.cpp).
  CUresult (*cuStreamBeginCapture_v2)(CUstream stream, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec* exec, CUgraph graph,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;

  // Optional (CUDA 12.4+; null on older drivers): the offset and size of a
  // kernel's parameter; CUDA_ERROR_INVALID_VALUE past the last one.
  CUresult (*cuFuncGetParamInfo)(CUfunction function, std::size_t index, std::size_t* offset,
                                 std::size_t* size) = nullptr;
};

// "<call> failed on <device>: <name> (<text>)<detail>", the form of every
// driver error simt reports; `device` may be empty ("<call> failed: ..."), an
// empty name or text is replaced by what simt knows of the code, and `detail`
// (e.g. " launching simt_kernel_saxpy ...") follows as given. Errors that leave
// the context unusable (is_sticky_error) end with a sentence saying so.
std::string format_driver_error(std::string_view call, std::string_view device, int code,
                                std::string_view name, std::string_view text,
                                std::string_view detail = {});

// simt's own name for a status code ("CUDA_ERROR_ILLEGAL_ADDRESS"), used when
// the driver cannot say (stub libraries, a driver too broken to answer);
// "CUDA_ERROR_<code>" for codes simt does not declare.
std::string known_error_name(int code);

// Errors after which the context cannot be used again (an exception in a
// kernel): every later call on it fails the same way, until the process ends.
bool is_sticky_error(int code);

// The driver's version number as "major.minor": 13000 -> "13.0", 12040 -> "12.4".
std::string driver_version_string(int version);

class Driver {
 public:
  // The process-wide instance, loaded and initialised (cuInit) on first use
  // (thread-safe). Returns nullptr when no usable driver is found or cuInit
  // fails (e.g. no GPU), with the reason in why_not. Never unloaded: devices
  // in static objects may still release contexts at exit.
  static const Driver* get(std::string* why_not);

  // Loads and initialises a fresh instance from the current environment,
  // without caching; get() uses it once, tests use it to try other settings.
  //
  // The library is $SIMT_CUDA_DRIVER_PATH when set (a file; nothing else is
  // tried then), else libcuda.so.1 through the dynamic loader's search (the
  // driver installs it on the loader's path; simt never loads the toolkit's
  // stubs/libcuda.so, which only answers CUDA_ERROR_STUB_LIBRARY).
  static std::unique_ptr<Driver> load(std::string* why_not);

  // The version cuDriverGetVersion reports, e.g. 13000 for 13.0.
  int version() const { return version_; }
  const std::string& library_path() const { return library_.path(); }
  const DriverFunctions& fn() const { return fn_; }

  // The driver's name and description of a status code; simt's own when the
  // driver has none.
  std::string error_name(CUresult code) const;
  std::string error_text(CUresult code) const;
  // format_driver_error with the driver's name and text for `code`.
  std::string describe(std::string_view call, std::string_view device, CUresult code,
                       std::string_view detail = {}) const;

 private:
  Driver(runtime::SharedLibrary library, const DriverFunctions& functions, int version);

  runtime::SharedLibrary library_;
  DriverFunctions fn_;
  int version_ = 0;
};

}  // namespace simt::cuda
