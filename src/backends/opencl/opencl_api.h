// The OpenCL 1.2 API, loaded with dlopen (see design.md, "No vendor SDK at
// build time").
//
// Types, constants and function signatures below are simt's own, written from
// the OpenCL 1.2 specification: only what simt uses, with the C ABI that every
// ICD loader (libOpenCL.so.1) exports on Linux. No OpenCL header is included
// anywhere in simt's library (one test checks icd_dispatch.h against CL/cl_icd.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/fork_guard.h"
#include "runtime/shared_library.h"

namespace simt::opencl {

// ---- Scalar types (fixed widths per the specification) ----
using cl_int = std::int32_t;
using cl_uint = std::uint32_t;
using cl_ulong = std::uint64_t;
using cl_bool = cl_uint;
using cl_bitfield = cl_ulong;
using cl_device_type = cl_bitfield;
using cl_mem_flags = cl_bitfield;
using cl_command_queue_properties = cl_bitfield;
using cl_device_fp_config = cl_bitfield;
using cl_platform_info = cl_uint;
using cl_device_info = cl_uint;
using cl_program_info = cl_uint;
using cl_program_build_info = cl_uint;
using cl_build_status = cl_int;
using cl_kernel_work_group_info = cl_uint;
using cl_event_info = cl_uint;
using cl_profiling_info = cl_uint;
using cl_kernel_info = cl_uint;
using cl_kernel_arg_info = cl_uint;
using cl_kernel_arg_address_qualifier = cl_uint;
using cl_buffer_create_type = cl_uint;
using cl_context_properties = std::intptr_t;

// ---- Opaque handles; the pointees are the implementation's business ----
struct ClPlatformOpaque;
struct ClDeviceOpaque;
struct ClContextOpaque;
struct ClCommandQueueOpaque;
struct ClProgramOpaque;
struct ClKernelOpaque;
struct ClMemOpaque;
struct ClEventOpaque;
using cl_platform_id = ClPlatformOpaque*;
using cl_device_id = ClDeviceOpaque*;
using cl_context = ClContextOpaque*;
using cl_command_queue = ClCommandQueueOpaque*;
using cl_program = ClProgramOpaque*;
using cl_kernel = ClKernelOpaque*;
using cl_mem = ClMemOpaque*;
using cl_event = ClEventOpaque*;

// ---- Constants ----
inline constexpr cl_bool CL_FALSE = 0;
inline constexpr cl_bool CL_TRUE = 1;

// Error codes: OpenCL 1.2, plus the later ones a newer runtime may return and
// the ICD loader's "no platform".
inline constexpr cl_int CL_SUCCESS = 0;
inline constexpr cl_int CL_DEVICE_NOT_FOUND = -1;
inline constexpr cl_int CL_DEVICE_NOT_AVAILABLE = -2;
inline constexpr cl_int CL_COMPILER_NOT_AVAILABLE = -3;
inline constexpr cl_int CL_MEM_OBJECT_ALLOCATION_FAILURE = -4;
inline constexpr cl_int CL_OUT_OF_RESOURCES = -5;
inline constexpr cl_int CL_OUT_OF_HOST_MEMORY = -6;
inline constexpr cl_int CL_PROFILING_INFO_NOT_AVAILABLE = -7;
inline constexpr cl_int CL_MEM_COPY_OVERLAP = -8;
inline constexpr cl_int CL_IMAGE_FORMAT_MISMATCH = -9;
inline constexpr cl_int CL_IMAGE_FORMAT_NOT_SUPPORTED = -10;
inline constexpr cl_int CL_BUILD_PROGRAM_FAILURE = -11;
inline constexpr cl_int CL_MAP_FAILURE = -12;
inline constexpr cl_int CL_MISALIGNED_SUB_BUFFER_OFFSET = -13;
inline constexpr cl_int CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST = -14;
inline constexpr cl_int CL_COMPILE_PROGRAM_FAILURE = -15;
inline constexpr cl_int CL_LINKER_NOT_AVAILABLE = -16;
inline constexpr cl_int CL_LINK_PROGRAM_FAILURE = -17;
inline constexpr cl_int CL_DEVICE_PARTITION_FAILED = -18;
inline constexpr cl_int CL_KERNEL_ARG_INFO_NOT_AVAILABLE = -19;
inline constexpr cl_int CL_INVALID_VALUE = -30;
inline constexpr cl_int CL_INVALID_DEVICE_TYPE = -31;
inline constexpr cl_int CL_INVALID_PLATFORM = -32;
inline constexpr cl_int CL_INVALID_DEVICE = -33;
inline constexpr cl_int CL_INVALID_CONTEXT = -34;
inline constexpr cl_int CL_INVALID_QUEUE_PROPERTIES = -35;
inline constexpr cl_int CL_INVALID_COMMAND_QUEUE = -36;
inline constexpr cl_int CL_INVALID_HOST_PTR = -37;
inline constexpr cl_int CL_INVALID_MEM_OBJECT = -38;
inline constexpr cl_int CL_INVALID_IMAGE_FORMAT_DESCRIPTOR = -39;
inline constexpr cl_int CL_INVALID_IMAGE_SIZE = -40;
inline constexpr cl_int CL_INVALID_SAMPLER = -41;
inline constexpr cl_int CL_INVALID_BINARY = -42;
inline constexpr cl_int CL_INVALID_BUILD_OPTIONS = -43;
inline constexpr cl_int CL_INVALID_PROGRAM = -44;
inline constexpr cl_int CL_INVALID_PROGRAM_EXECUTABLE = -45;
inline constexpr cl_int CL_INVALID_KERNEL_NAME = -46;
inline constexpr cl_int CL_INVALID_KERNEL_DEFINITION = -47;
inline constexpr cl_int CL_INVALID_KERNEL = -48;
inline constexpr cl_int CL_INVALID_ARG_INDEX = -49;
inline constexpr cl_int CL_INVALID_ARG_VALUE = -50;
inline constexpr cl_int CL_INVALID_ARG_SIZE = -51;
inline constexpr cl_int CL_INVALID_KERNEL_ARGS = -52;
inline constexpr cl_int CL_INVALID_WORK_DIMENSION = -53;
inline constexpr cl_int CL_INVALID_WORK_GROUP_SIZE = -54;
inline constexpr cl_int CL_INVALID_WORK_ITEM_SIZE = -55;
inline constexpr cl_int CL_INVALID_GLOBAL_OFFSET = -56;
inline constexpr cl_int CL_INVALID_EVENT_WAIT_LIST = -57;
inline constexpr cl_int CL_INVALID_EVENT = -58;
inline constexpr cl_int CL_INVALID_OPERATION = -59;
inline constexpr cl_int CL_INVALID_GL_OBJECT = -60;
inline constexpr cl_int CL_INVALID_BUFFER_SIZE = -61;
inline constexpr cl_int CL_INVALID_MIP_LEVEL = -62;
inline constexpr cl_int CL_INVALID_GLOBAL_WORK_SIZE = -63;
inline constexpr cl_int CL_INVALID_PROPERTY = -64;
inline constexpr cl_int CL_INVALID_IMAGE_DESCRIPTOR = -65;
inline constexpr cl_int CL_INVALID_COMPILER_OPTIONS = -66;
inline constexpr cl_int CL_INVALID_LINKER_OPTIONS = -67;
inline constexpr cl_int CL_INVALID_DEVICE_PARTITION_COUNT = -68;
inline constexpr cl_int CL_INVALID_PIPE_SIZE = -69;              // 2.0
inline constexpr cl_int CL_INVALID_DEVICE_QUEUE = -70;           // 2.0
inline constexpr cl_int CL_INVALID_SPEC_ID = -71;                // 2.2
inline constexpr cl_int CL_MAX_SIZE_RESTRICTION_EXCEEDED = -72;  // 2.2
inline constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;       // cl_khr_icd

// clGetPlatformInfo
inline constexpr cl_platform_info CL_PLATFORM_PROFILE = 0x0900;
inline constexpr cl_platform_info CL_PLATFORM_VERSION = 0x0901;
inline constexpr cl_platform_info CL_PLATFORM_NAME = 0x0902;
inline constexpr cl_platform_info CL_PLATFORM_VENDOR = 0x0903;
inline constexpr cl_platform_info CL_PLATFORM_EXTENSIONS = 0x0904;

// clGetDeviceIDs
inline constexpr cl_device_type CL_DEVICE_TYPE_DEFAULT = 1 << 0;
inline constexpr cl_device_type CL_DEVICE_TYPE_CPU = 1 << 1;
inline constexpr cl_device_type CL_DEVICE_TYPE_GPU = 1 << 2;
inline constexpr cl_device_type CL_DEVICE_TYPE_ACCELERATOR = 1 << 3;
inline constexpr cl_device_type CL_DEVICE_TYPE_CUSTOM = 1 << 4;
inline constexpr cl_device_type CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;

// clGetDeviceInfo
inline constexpr cl_device_info CL_DEVICE_TYPE = 0x1000;
inline constexpr cl_device_info CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002;
inline constexpr cl_device_info CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS = 0x1003;
inline constexpr cl_device_info CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
inline constexpr cl_device_info CL_DEVICE_MAX_WORK_ITEM_SIZES = 0x1005;
inline constexpr cl_device_info CL_DEVICE_MAX_CLOCK_FREQUENCY = 0x100C;
inline constexpr cl_device_info CL_DEVICE_ADDRESS_BITS = 0x100D;
inline constexpr cl_device_info CL_DEVICE_SINGLE_FP_CONFIG = 0x101B;
inline constexpr cl_device_info CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010;
inline constexpr cl_device_info CL_DEVICE_MEM_BASE_ADDR_ALIGN = 0x1019;  // in bits
inline constexpr cl_device_info CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F;
inline constexpr cl_device_info CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;
inline constexpr cl_device_info CL_DEVICE_AVAILABLE = 0x1027;
inline constexpr cl_device_info CL_DEVICE_COMPILER_AVAILABLE = 0x1028;
inline constexpr cl_device_info CL_DEVICE_NAME = 0x102B;
inline constexpr cl_device_info CL_DEVICE_VENDOR = 0x102C;
inline constexpr cl_device_info CL_DRIVER_VERSION = 0x102D;
inline constexpr cl_device_info CL_DEVICE_PROFILE = 0x102E;
inline constexpr cl_device_info CL_DEVICE_VERSION = 0x102F;
inline constexpr cl_device_info CL_DEVICE_EXTENSIONS = 0x1030;
inline constexpr cl_device_info CL_DEVICE_PLATFORM = 0x1031;
inline constexpr cl_device_info CL_DEVICE_DOUBLE_FP_CONFIG = 0x1032;
inline constexpr cl_device_info CL_DEVICE_OPENCL_C_VERSION = 0x103D;
inline constexpr cl_device_info CL_DEVICE_SVM_CAPABILITIES = 0x1053;  // 2.0

// CL_DEVICE_SVM_CAPABILITIES bits (OpenCL 2.0)
using cl_device_svm_capabilities = cl_bitfield;
inline constexpr cl_device_svm_capabilities CL_DEVICE_SVM_COARSE_GRAIN_BUFFER = 1 << 0;
inline constexpr cl_device_svm_capabilities CL_DEVICE_SVM_FINE_GRAIN_BUFFER = 1 << 1;

// cl_device_fp_config bits
inline constexpr cl_device_fp_config CL_FP_DENORM = 1 << 0;
inline constexpr cl_device_fp_config CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1 << 7;

// clGetKernelWorkGroupInfo
inline constexpr cl_kernel_work_group_info CL_KERNEL_WORK_GROUP_SIZE = 0x11B0;

// clGetKernelInfo
inline constexpr cl_kernel_info CL_KERNEL_NUM_ARGS = 0x1191;
inline constexpr cl_kernel_info CL_KERNEL_PROGRAM = 0x1194;

// clGetKernelArgInfo (programs built with -cl-kernel-arg-info)
inline constexpr cl_kernel_arg_info CL_KERNEL_ARG_ADDRESS_QUALIFIER = 0x1196;
inline constexpr cl_kernel_arg_info CL_KERNEL_ARG_TYPE_NAME = 0x1198;
inline constexpr cl_kernel_arg_info CL_KERNEL_ARG_NAME = 0x119A;
inline constexpr cl_kernel_arg_address_qualifier CL_KERNEL_ARG_ADDRESS_GLOBAL = 0x119B;
inline constexpr cl_kernel_arg_address_qualifier CL_KERNEL_ARG_ADDRESS_LOCAL = 0x119C;
inline constexpr cl_kernel_arg_address_qualifier CL_KERNEL_ARG_ADDRESS_CONSTANT = 0x119D;
inline constexpr cl_kernel_arg_address_qualifier CL_KERNEL_ARG_ADDRESS_PRIVATE = 0x119E;

// clCreateSubBuffer
inline constexpr cl_buffer_create_type CL_BUFFER_CREATE_TYPE_REGION = 0x1220;
struct cl_buffer_region {
  std::size_t origin;
  std::size_t size;
};

// clCreateContext properties
inline constexpr cl_context_properties CL_CONTEXT_PLATFORM = 0x1084;

// clCreateCommandQueue
inline constexpr cl_command_queue_properties CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE = 1 << 0;
inline constexpr cl_command_queue_properties CL_QUEUE_PROFILING_ENABLE = 1 << 1;

// clGetEventInfo, clGetEventProfilingInfo
inline constexpr cl_event_info CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3;
inline constexpr cl_int CL_COMPLETE = 0x0;
inline constexpr cl_profiling_info CL_PROFILING_COMMAND_END = 0x1283;

// clCreateBuffer
inline constexpr cl_mem_flags CL_MEM_READ_WRITE = 1 << 0;
inline constexpr cl_mem_flags CL_MEM_WRITE_ONLY = 1 << 1;
inline constexpr cl_mem_flags CL_MEM_READ_ONLY = 1 << 2;
inline constexpr cl_mem_flags CL_MEM_USE_HOST_PTR = 1 << 3;
inline constexpr cl_mem_flags CL_MEM_ALLOC_HOST_PTR = 1 << 4;
inline constexpr cl_mem_flags CL_MEM_COPY_HOST_PTR = 1 << 5;

// clSVMAlloc (OpenCL 2.0)
using cl_svm_mem_flags = cl_bitfield;
inline constexpr cl_svm_mem_flags CL_MEM_SVM_FINE_GRAIN_BUFFER = 1 << 10;

// clGetProgramInfo
inline constexpr cl_program_info CL_PROGRAM_NUM_DEVICES = 0x1162;
inline constexpr cl_program_info CL_PROGRAM_DEVICES = 0x1163;
inline constexpr cl_program_info CL_PROGRAM_BINARY_SIZES = 0x1165;
inline constexpr cl_program_info CL_PROGRAM_BINARIES = 0x1166;
inline constexpr cl_program_info CL_PROGRAM_NUM_KERNELS = 0x1167;
inline constexpr cl_program_info CL_PROGRAM_KERNEL_NAMES = 0x1168;

// clGetProgramBuildInfo
inline constexpr cl_program_build_info CL_PROGRAM_BUILD_STATUS = 0x1181;
inline constexpr cl_program_build_info CL_PROGRAM_BUILD_OPTIONS = 0x1182;
inline constexpr cl_program_build_info CL_PROGRAM_BUILD_LOG = 0x1183;

// "CL_BUILD_PROGRAM_FAILURE" for -11; "CL_UNKNOWN_ERROR" for codes the
// specification does not define.
const char* error_name(cl_int code);

// A failed OpenCL call: the message names the call and the error, e.g.
// "clCreateContext failed: CL_OUT_OF_HOST_MEMORY (-6)".
class OpenCLError : public std::runtime_error {
 public:
  OpenCLError(std::string_view call, cl_int code);
  cl_int code() const { return code_; }

 private:
  cl_int code_;
};

// Throws OpenCLError unless code is CL_SUCCESS.
void check(cl_int code, std::string_view call);

// The entry points simt uses, named as the OpenCL library exports them: from an ICD
// loader's exports, or from one driver's ICD dispatch table when simt opens the driver
// without a loader (a machine with PoCL from pip and no OpenCL package; icd_dispatch.h).
struct OpenCLApi {
  enum class Kind {
    loader,  // an ICD loader (libOpenCL.so.1): every driver registered with it
    driver,  // one driver opened directly (its ICD library, e.g. PoCL's libpocl.so)
  };

  // Every OpenCL library simt uses, opened once per process (thread-safe) and never
  // unloaded: ICDs misbehave when unloaded while other static destructors may still
  // release objects at exit. With $SIMT_OPENCL_LIBRARY set, only it (see load());
  // otherwise the system's ICD loader, then each driver library named in
  // $SIMT_OPENCL_DRIVERS (colon separated), which `import simt` fills with the drivers
  // that pip wheels installed (python/simt/_opencl_wheels.py).
  struct Libraries {
    std::vector<const OpenCLApi*> apis;  // the loader (when found) first, then the drivers
    std::string loader_path;             // the loader's file; empty without one
    std::string loader_reason;           // why there is no loader (empty with one)
    std::string driver_problems;         // "\n  <path>: <why>" per driver that did not open
  };
  static const Libraries& libraries();

  // The first of libraries(), or nullptr with every library's reason in why_not.
  static const OpenCLApi* get(std::string* why_not);

  // Loads a fresh instance from the current environment, without caching:
  // $SIMT_OPENCL_LIBRARY when set (and then only it; a loader, or a driver's ICD library,
  // which is then opened as load_driver() does), else libOpenCL.so.1, then libOpenCL.so.
  static std::unique_ptr<OpenCLApi> load(std::string* why_not);

  // Opens the OpenCL driver at `path` without an ICD loader: its platforms come from
  // clIcdGetPlatformIDsKHR and every other function from the dispatch table its objects
  // start with. nullptr, with the reason, when the library is no ICD or lists no platform.
  static std::unique_ptr<OpenCLApi> load_driver(const std::string& path, std::string* why_not);

  Kind kind() const { return kind_; }

  cl_int (*clGetPlatformIDs)(cl_uint num_entries, cl_platform_id* platforms,
                             cl_uint* num_platforms) = nullptr;
  cl_int (*clGetPlatformInfo)(cl_platform_id platform, cl_platform_info param_name,
                              std::size_t value_size, void* value,
                              std::size_t* value_size_ret) = nullptr;
  cl_int (*clGetDeviceIDs)(cl_platform_id platform, cl_device_type device_type, cl_uint num_entries,
                           cl_device_id* devices, cl_uint* num_devices) = nullptr;
  cl_int (*clGetDeviceInfo)(cl_device_id device, cl_device_info param_name, std::size_t value_size,
                            void* value, std::size_t* value_size_ret) = nullptr;
  cl_context (*clCreateContext)(const cl_context_properties* properties, cl_uint num_devices,
                                const cl_device_id* devices,
                                void (*notify)(const char* error_info, const void* private_info,
                                               std::size_t private_info_size, void* user_data),
                                void* user_data, cl_int* errcode_ret) = nullptr;
  cl_int (*clReleaseContext)(cl_context context) = nullptr;
  // Deprecated in 2.0 but exported by every loader; 1.2 devices lack the
  // replacement, clCreateCommandQueueWithProperties.
  cl_command_queue (*clCreateCommandQueue)(cl_context context, cl_device_id device,
                                           cl_command_queue_properties properties,
                                           cl_int* errcode_ret) = nullptr;
  cl_int (*clRetainCommandQueue)(cl_command_queue queue) = nullptr;
  cl_int (*clReleaseCommandQueue)(cl_command_queue queue) = nullptr;
  cl_program (*clCreateProgramWithSource)(cl_context context, cl_uint count, const char** strings,
                                          const std::size_t* lengths,
                                          cl_int* errcode_ret) = nullptr;
  cl_program (*clCreateProgramWithBinary)(cl_context context, cl_uint num_devices,
                                          const cl_device_id* devices, const std::size_t* lengths,
                                          const unsigned char** binaries, cl_int* binary_status,
                                          cl_int* errcode_ret) = nullptr;
  cl_int (*clBuildProgram)(cl_program program, cl_uint num_devices, const cl_device_id* devices,
                           const char* options, void (*notify)(cl_program program, void* user_data),
                           void* user_data) = nullptr;
  cl_int (*clGetProgramBuildInfo)(cl_program program, cl_device_id device,
                                  cl_program_build_info param_name, std::size_t value_size,
                                  void* value, std::size_t* value_size_ret) = nullptr;
  cl_int (*clGetProgramInfo)(cl_program program, cl_program_info param_name, std::size_t value_size,
                             void* value, std::size_t* value_size_ret) = nullptr;
  cl_int (*clReleaseProgram)(cl_program program) = nullptr;
  cl_kernel (*clCreateKernel)(cl_program program, const char* kernel_name,
                              cl_int* errcode_ret) = nullptr;
  cl_int (*clReleaseKernel)(cl_kernel kernel) = nullptr;
  cl_int (*clSetKernelArg)(cl_kernel kernel, cl_uint arg_index, std::size_t arg_size,
                           const void* arg_value) = nullptr;
  cl_int (*clEnqueueNDRangeKernel)(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                   const std::size_t* global_work_offset,
                                   const std::size_t* global_work_size,
                                   const std::size_t* local_work_size,
                                   cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                   cl_event* event) = nullptr;
  cl_mem (*clCreateBuffer)(cl_context context, cl_mem_flags flags, std::size_t size, void* host_ptr,
                           cl_int* errcode_ret) = nullptr;
  cl_int (*clReleaseMemObject)(cl_mem memobj) = nullptr;
  cl_int (*clEnqueueReadBuffer)(cl_command_queue queue, cl_mem buffer, cl_bool blocking_read,
                                std::size_t offset, std::size_t size, void* ptr,
                                cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                cl_event* event) = nullptr;
  cl_int (*clEnqueueWriteBuffer)(cl_command_queue queue, cl_mem buffer, cl_bool blocking_write,
                                 std::size_t offset, std::size_t size, const void* ptr,
                                 cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                 cl_event* event) = nullptr;
  cl_int (*clEnqueueCopyBuffer)(cl_command_queue queue, cl_mem src, cl_mem dst,
                                std::size_t src_offset, std::size_t dst_offset, std::size_t size,
                                cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                cl_event* event) = nullptr;
  // OpenCL 1.2: patterns of 1, 2, 4, ..., 128 bytes.
  cl_int (*clEnqueueFillBuffer)(cl_command_queue queue, cl_mem buffer, const void* pattern,
                                std::size_t pattern_size, std::size_t offset, std::size_t size,
                                cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                cl_event* event) = nullptr;
  cl_int (*clGetKernelWorkGroupInfo)(cl_kernel kernel, cl_device_id device,
                                     cl_kernel_work_group_info param_name, std::size_t value_size,
                                     void* value, std::size_t* value_size_ret) = nullptr;
  cl_int (*clGetKernelInfo)(cl_kernel kernel, cl_kernel_info param_name, std::size_t value_size,
                            void* value, std::size_t* value_size_ret) = nullptr;
  cl_int (*clGetKernelArgInfo)(cl_kernel kernel, cl_uint arg_index, cl_kernel_arg_info param_name,
                               std::size_t value_size, void* value,
                               std::size_t* value_size_ret) = nullptr;
  cl_mem (*clCreateSubBuffer)(cl_mem buffer, cl_mem_flags flags,
                              cl_buffer_create_type buffer_create_type,
                              const void* buffer_create_info, cl_int* errcode_ret) = nullptr;
  cl_int (*clFlush)(cl_command_queue queue) = nullptr;
  cl_int (*clFinish)(cl_command_queue queue) = nullptr;
  cl_int (*clReleaseEvent)(cl_event event) = nullptr;
  cl_int (*clWaitForEvents)(cl_uint num_events, const cl_event* event_list) = nullptr;
  // OpenCL 1.2.
  cl_int (*clEnqueueMarkerWithWaitList)(cl_command_queue queue, cl_uint num_events_in_wait_list,
                                        const cl_event* event_wait_list, cl_event* event) = nullptr;
  cl_int (*clEnqueueBarrierWithWaitList)(cl_command_queue queue, cl_uint num_events_in_wait_list,
                                         const cl_event* event_wait_list,
                                         cl_event* event) = nullptr;
  cl_int (*clGetEventInfo)(cl_event event, cl_event_info param_name, std::size_t value_size,
                           void* value, std::size_t* value_size_ret) = nullptr;
  cl_int (*clGetEventProfilingInfo)(cl_event event, cl_profiling_info param_name,
                                    std::size_t value_size, void* value,
                                    std::size_t* value_size_ret) = nullptr;

  // OpenCL 2.0's shared virtual memory: null where the library lacks them (a 1.2
  // loader, or a driver whose platform is older than 2.0, whose dispatch table may
  // end before their positions).
  void* (*clSVMAlloc)(cl_context context, cl_svm_mem_flags flags, std::size_t size,
                      cl_uint alignment) = nullptr;
  void (*clSVMFree)(cl_context context, void* svm_pointer) = nullptr;

  // An extension's entry point on `platform` (a device's cl_khr_command_buffer), or
  // nullptr: through the loader's clGetExtensionFunctionAddressForPlatform (OpenCL 1.2),
  // or a driver's own clGetExtensionFunctionAddress.
  void* extension_function(cl_platform_id platform, const char* name) const;

  // The library in use: the loader's libOpenCL file, or the driver's.
  const std::string& library_path() const { return library_.path(); }

 private:
  OpenCLApi(runtime::SharedLibrary library, Kind kind)
      : library_(std::move(library)), kind_(kind) {}
  static std::unique_ptr<OpenCLApi> from_loader(runtime::SharedLibrary library,
                                                std::string* why_not);
  static std::unique_ptr<OpenCLApi> from_driver(runtime::SharedLibrary library,
                                                std::string* why_not);
  runtime::SharedLibrary library_;
  Kind kind_;
  void* (*for_platform_)(cl_platform_id platform, const char* name) = nullptr;  // a loader's
  void* (*driver_address_)(const char* name) = nullptr;                         // a driver's
};

// Owns one OpenCL object and releases it on destruction. Keeps the API it was
// created through, so objects from a test's own load() release correctly.
template <class Handle, cl_int (*OpenCLApi::*Release)(Handle)>
class Owned {
 public:
  Owned() = default;
  Owned(const OpenCLApi* api, Handle handle) : api_(api), handle_(handle) {}
  Owned(Owned&& other) noexcept
      : api_(other.api_), handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      api_ = other.api_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  const OpenCLApi* api() const { return api_; }

  // Gives up ownership without releasing.
  Handle release() { return std::exchange(handle_, nullptr); }

  // A release error cannot be reported from a destructor and leaves nothing
  // to undo, so it is ignored. A fork's child leaves what it inherited to the
  // parent: its driver's threads are gone (runtime/fork_guard.h).
  void reset() {
    Handle handle = std::exchange(handle_, nullptr);
    if (handle != nullptr && !runtime::inherited_gpu_devices()) (api_->*Release)(handle);
  }

 private:
  const OpenCLApi* api_ = nullptr;
  Handle handle_ = nullptr;
};

using Context = Owned<cl_context, &OpenCLApi::clReleaseContext>;
using CommandQueue = Owned<cl_command_queue, &OpenCLApi::clReleaseCommandQueue>;
using Program = Owned<cl_program, &OpenCLApi::clReleaseProgram>;
using Kernel = Owned<cl_kernel, &OpenCLApi::clReleaseKernel>;
using MemObject = Owned<cl_mem, &OpenCLApi::clReleaseMemObject>;
using Event = Owned<cl_event, &OpenCLApi::clReleaseEvent>;

enum class DeviceType { cpu, gpu, accelerator, other };

const char* device_type_name(DeviceType type);  // "cpu", "gpu", "accelerator", "other"

struct DeviceInfo {
  const OpenCLApi* api = nullptr;  // the library it was listed through (OpenCLApi::libraries())
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name;
  std::string name;
  std::string vendor;
  std::string version;           // "OpenCL 3.0 PoCL ..." (CL_DEVICE_VERSION)
  std::string driver_version;    // CL_DRIVER_VERSION
  std::string opencl_c_version;  // "OpenCL C 1.2 ..." (what build options may ask for)
  DeviceType type = DeviceType::other;
  cl_uint compute_units = 0;
  cl_ulong global_mem_size = 0;
  cl_ulong local_mem_size = 0;
  cl_ulong max_mem_alloc_size = 0;
  std::size_t max_work_group_size = 0;
  cl_uint mem_base_addr_align = 0;  // bytes a sub-buffer's origin must be a multiple of
  std::vector<std::size_t> max_work_item_sizes;
  std::string extensions;      // space separated, as the device reports them
  bool fp64 = false;           // cl_khr_fp64, or a non-zero double FP config
  bool fp16 = false;           // cl_khr_fp16
  bool int64_atomics = false;  // cl_khr_int64_base_atomics
  bool subgroups = false;      // cl_khr_subgroups or cl_intel_subgroups
  // Fine-grained SVM buffers (CL_DEVICE_SVM_FINE_GRAIN_BUFFER, OpenCL 2.0) that the
  // library can allocate: memory kernels and the host use at once (mapped and
  // managed arrays).
  bool svm_fine_grain_buffer = false;
  // What the device lacks for CUDA's warps as 32-lane sub-groups (codegen's OpenCL
  // warp spellings), comma separated; empty when it has all of it.
  std::string warp_subgroups_missing;
  // float32 division and sqrt can be made correctly rounded (the
  // -cl-fp32-correctly-rounded-divide-sqrt build option is honoured).
  bool fp32_correctly_rounded_divide_sqrt = false;

  // Whole-word match in `extensions` (a substring test would confuse e.g.
  // cl_khr_fp16 with a hypothetical cl_khr_fp16_ext).
  bool has_extension(std::string_view extension) const;
};

// Every device of every platform of every library (OpenCLApi::libraries()), platforms in
// loader order. Returns an empty list when OpenCL is unavailable or has no device, with
// the reason in why_not. When some devices were found but a platform failed to enumerate,
// why_not describes the skipped platform (it is cleared otherwise), since one broken ICD
// must not hide the working ones. A platform of a driver opened directly is skipped, with
// a note there, when an earlier library lists a platform of the same name: PoCL from pip
// beside the system's PoCL would otherwise give every CPU twice.
std::vector<DeviceInfo> list_devices(std::string* why_not);

struct BuildResult {
  bool ok = false;
  std::string log;  // the compiler's output; on failure also the OpenCL error name
};

// Builds OpenCL C `source` for one device in a fresh context and returns the
// build log. A program that does not compile gives ok=false (not an
// exception); OpenCLError is thrown for failures outside the compiler (no
// library, context creation).
BuildResult build_program(const DeviceInfo& device, std::string_view source,
                          std::string_view options);

// The same on an existing context, keeping the program for kernel creation;
// `program` is left empty when the build fails.
BuildResult build_program(const Context& context, cl_device_id device, std::string_view source,
                          std::string_view options, Program* program);

// The same from a binary that program_binary() returned on this device and
// driver (the disk cache): a driver that no longer takes it gives ok=false.
BuildResult build_program_from_binary(const Context& context, cl_device_id device,
                                      std::string_view binary, std::string_view options,
                                      Program* program);

// A kernel's parameters as the compiler reports them (the program must be
// built with -cl-kernel-arg-info): each one's address qualifier and type
// name ("float*", "uint"). Throws OpenCLError when the driver cannot say.
struct KernelArg {
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  std::string type_name;
};
std::vector<KernelArg> kernel_args(const OpenCLApi& api, cl_kernel kernel);

// The names of a built program's kernels.
std::vector<std::string> program_kernel_names(const Program& program);

// The built program's binary for its one device; empty if the driver offers none.
std::string program_binary(const Program& program);

// A context holding just `device` (of `platform`).
Context create_context(const OpenCLApi& api, cl_platform_id platform, cl_device_id device);

}  // namespace simt::opencl
