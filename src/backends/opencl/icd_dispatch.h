// Where each OpenCL function simt uses sits in an ICD's dispatch table.
//
// An OpenCL driver built as an ICD (cl_khr_icd: PoCL, the GPU vendors' drivers) starts
// every object it hands out (platform, device, context, queue, buffer, program, kernel,
// event) with a pointer to one table of its entry points, and an ICD loader
// (libOpenCL.so.1) does nothing more than call through the table of a call's first
// object. simt does the same when it opens a driver without a loader (OpenCLApi::
// load_driver): PoCL from pip (pocl-binary-distribution) exports no clCreateContext etc.,
// only clGetExtensionFunctionAddress, so the table is the only way to its functions.
//
// The positions are the fields of the Khronos header's `struct _cl_icd_dispatch`
// (CL/cl_icd.h), pointer-sized each; the table only ever grows at its end, so they hold for
// every driver. tests/cpp/backends/opencl/test_icd_dispatch.cpp checks them against that
// header where it is installed (opencl-c-headers), without simt including it.
#pragma once

// X(name, position) for each function of OpenCLApi, in the order opencl_api.cpp loads them.
#define SIMT_OPENCL_ICD_SLOTS(X)       \
  X(clGetPlatformInfo, 1)              \
  X(clGetDeviceIDs, 2)                 \
  X(clGetDeviceInfo, 3)                \
  X(clCreateContext, 4)                \
  X(clReleaseContext, 7)               \
  X(clCreateCommandQueue, 9)           \
  X(clRetainCommandQueue, 10)          \
  X(clReleaseCommandQueue, 11)         \
  X(clCreateProgramWithSource, 26)     \
  X(clCreateProgramWithBinary, 27)     \
  X(clBuildProgram, 30)                \
  X(clGetProgramBuildInfo, 33)         \
  X(clGetProgramInfo, 32)              \
  X(clReleaseProgram, 29)              \
  X(clCreateKernel, 34)                \
  X(clReleaseKernel, 37)               \
  X(clSetKernelArg, 38)                \
  X(clEnqueueNDRangeKernel, 59)        \
  X(clCreateBuffer, 14)                \
  X(clReleaseMemObject, 18)            \
  X(clEnqueueReadBuffer, 48)           \
  X(clEnqueueWriteBuffer, 49)          \
  X(clEnqueueCopyBuffer, 50)           \
  X(clEnqueueFillBuffer, 102)          \
  X(clGetKernelWorkGroupInfo, 40)      \
  X(clGetKernelInfo, 39)               \
  X(clGetKernelArgInfo, 101)           \
  X(clCreateSubBuffer, 82)             \
  X(clFlush, 46)                       \
  X(clFinish, 47)                      \
  X(clReleaseEvent, 44)                \
  X(clWaitForEvents, 41)               \
  X(clEnqueueMarkerWithWaitList, 105)  \
  X(clEnqueueBarrierWithWaitList, 106) \
  X(clGetEventInfo, 42)                \
  X(clGetEventProfilingInfo, 45)

// X(name, position) for the OpenCL 2.0 functions simt uses where a device has them: read
// from a driver's table only when its platform is 2.0 or later (an older driver's table
// may end before them), and optional in a loader.
#define SIMT_OPENCL_ICD_SVM_SLOTS(X) \
  X(clSVMAlloc, 126)                 \
  X(clSVMFree, 127)

// clGetPlatformIDs (position 0) is the loader's own function; a driver opened directly
// lists its platforms with clIcdGetPlatformIDsKHR, which clGetExtensionFunctionAddress
// (position 65) gives.
namespace simt::opencl::icd {
inline constexpr int kGetPlatformIDsSlot = 0;
inline constexpr int kGetExtensionFunctionAddressSlot = 65;
}  // namespace simt::opencl::icd
