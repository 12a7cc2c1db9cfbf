// Whether OpenCL's command-buffer extension (cl_khr_command_buffer) replays a
// sequence of small kernels faster than enqueuing them one by one: the question
// that decides how simt replays a graph on an OpenCL device (runtime/graph.h).
// 100 launches of a 64-element kernel, per kernel, rounds of the sequence then
// clFinish, medians of 15 rounds; first through clEnqueueNDRangeKernel, then one
// clEnqueueCommandBufferKHR of the same 100 recorded commands.
// Build: gcc -O2 command_buffer.c -o /tmp/command_buffer -lOpenCL
// Run:   /tmp/command_buffer [platform name part, default "Portable"]
// The entry points used (create, NDRange, finalize, enqueue) kept their
// signatures from the extension's version 0.9.0 to 0.9.7.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kKernels = 100, kRounds = 15 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void fail(const char* what, cl_int status) {
  fprintf(stderr, "%s failed: %d\n", what, status);
  exit(1);
}

int main(int argc, char** argv) {
  const char* wanted = argc > 1 ? argv[1] : "Portable";
  cl_platform_id platforms[8], platform = NULL;
  cl_uint count = 0;
  clGetPlatformIDs(8, platforms, &count);
  for (cl_uint i = 0; i < count; ++i) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strstr(name, wanted)) platform = platforms[i];
  }
  if (!platform) fail("finding the platform", -1);
  cl_device_id device;
  cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  if (status) fail("clGetDeviceIDs", status);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &status);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &status);
  const char* source =
      "__kernel void scale(__global float* a, float s) {"
      "  size_t i = get_global_id(0); a[i] = a[i] * s + 1.0f; }";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &status);
  if ((status = clBuildProgram(program, 1, &device, "", NULL, NULL))) fail("clBuildProgram", status);
  cl_kernel kernel = clCreateKernel(program, "scale", &status);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &status);
  float s = 0.5f;
  clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  clSetKernelArg(kernel, 1, sizeof s, &s);
  size_t global = 64, local = 64;

#define ENTRY(name) ((name##_fn)clGetExtensionFunctionAddressForPlatform(platform, #name))
  clCreateCommandBufferKHR_fn create = ENTRY(clCreateCommandBufferKHR);
  clCommandNDRangeKernelKHR_fn record = ENTRY(clCommandNDRangeKernelKHR);
  clFinalizeCommandBufferKHR_fn finalize = ENTRY(clFinalizeCommandBufferKHR);
  clEnqueueCommandBufferKHR_fn replay = ENTRY(clEnqueueCommandBufferKHR);
  if (!create || !record || !finalize || !replay) fail("finding cl_khr_command_buffer", -1);
  cl_command_buffer_properties_khr properties[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                   CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  cl_command_buffer_khr commands = create(1, &queue, properties, &status);
  if (status) fail("clCreateCommandBufferKHR", status);
  for (int k = 0; k < kKernels; ++k)
    if ((status = record(commands, NULL, NULL, kernel, 1, NULL, &global, &local, 0, NULL, NULL,
                         NULL)))
      fail("clCommandNDRangeKernelKHR", status);
  if ((status = finalize(commands))) fail("clFinalizeCommandBufferKHR", status);

  double loop[kRounds], buffered[kRounds];
  for (int warm = 0; warm < 2; ++warm) {
    for (int r = 0; r < kRounds; ++r) {
      double start = now_us();
      for (int k = 0; k < kKernels; ++k)
        clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
      clFinish(queue);
      loop[r] = (now_us() - start) / kKernels;
      start = now_us();
      if ((status = replay(0, NULL, commands, 0, NULL, NULL))) fail("clEnqueueCommandBufferKHR", status);
      clFinish(queue);
      buffered[r] = (now_us() - start) / kKernels;
    }
  }
  qsort(loop, kRounds, sizeof(double), by_value);
  qsort(buffered, kRounds, sizeof(double), by_value);
  printf("per kernel, median of %d rounds of %d: clEnqueueNDRangeKernel loop %.2f us, "
         "command buffer %.2f us\n", kRounds, kKernels, loop[kRounds / 2], buffered[kRounds / 2]);
  return 0;
}
