// Graph replay through OpenCL's command buffers (cl_khr_command_buffer).
//
// The runtime's replay (runtime/graph.cpp) queues each recorded launch again,
// and on OpenCL a launch sets every kernel argument (clSetKernelArg, a buffer
// lookup per array) before its clEnqueueNDRangeKernel: a replay of small
// kernels on PoCL cost 5.5-6.7 us a kernel, where the driver's enqueue alone
// costs ~2 (bench/opencl/command_buffer.c). A command buffer records each
// launch's arguments once; a replay is one clEnqueueCommandBufferKHR.
//
// The extension is provisional (0.9.x): the entry points used here kept their
// signatures from 0.9.0 to 0.9.7, and clCommandCopyBufferKHR gained a
// properties argument in 0.9.5, so copies are recorded only below it (a graph
// with copies replays the runtime's way on later versions).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backends/opencl/opencl_api.h"
#include "runtime/graph.h"

namespace simt::opencl {

struct ClCommandBufferOpaque;
using cl_command_buffer_khr = ClCommandBufferOpaque*;
using cl_command_buffer_properties_khr = cl_ulong;
using cl_sync_point_khr = cl_uint;
using cl_mutable_command_khr = void*;

struct CommandBufferApi {
  cl_command_buffer_khr (*create)(cl_uint num_queues, const cl_command_queue* queues,
                                  const cl_command_buffer_properties_khr* properties,
                                  cl_int* errcode_ret) = nullptr;
  cl_int (*finalize)(cl_command_buffer_khr buffer) = nullptr;
  cl_int (*release)(cl_command_buffer_khr buffer) = nullptr;
  cl_int (*enqueue)(cl_uint num_queues, cl_command_queue* queues, cl_command_buffer_khr buffer,
                    cl_uint num_events, const cl_event* wait_list, cl_event* event) = nullptr;
  cl_int (*ndrange)(cl_command_buffer_khr buffer, cl_command_queue queue,
                    const cl_ulong* properties, cl_kernel kernel, cl_uint work_dim,
                    const std::size_t* global_offset, const std::size_t* global_size,
                    const std::size_t* local_size, cl_uint num_sync_points,
                    const cl_sync_point_khr* sync_points, cl_sync_point_khr* sync_point,
                    cl_mutable_command_khr* handle) = nullptr;
  // The 0.9.0-0.9.4 signature; null on later versions.
  cl_int (*copy)(cl_command_buffer_khr buffer, cl_command_queue queue, cl_mem src, cl_mem dst,
                 std::size_t src_offset, std::size_t dst_offset, std::size_t size,
                 cl_uint num_sync_points, const cl_sync_point_khr* sync_points,
                 cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) = nullptr;

  // The entry points for `device`, or nullopt (with the reason in *why_not) where it
  // lacks the extension at a 0.9 version, simultaneous use (a replay queued while the
  // last still runs), or asks for queue properties simt's queues lack;
  // SIMT_OPENCL_COMMAND_BUFFERS=0 turns them off.
  static std::optional<CommandBufferApi> find(const OpenCLApi& api, const DeviceInfo& device,
                                              std::string* why_not);
};

class OpenCLDevice;

// A replay of `commands` on `device` through command buffers: one recorded per
// queue it is launched on (at that first launch), each replay one enqueue. A
// command the driver refuses to record makes the graph replay the runtime's way.
std::unique_ptr<runtime::GraphExec> command_buffer_replay(
    OpenCLDevice& device, const CommandBufferApi& api,
    std::shared_ptr<const runtime::GraphCommands> commands);

}  // namespace simt::opencl
