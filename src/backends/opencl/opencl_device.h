// An OpenCL device (opencl_api.h) as a runtime::Device: one context, an
// in-order command queue per stream, generated OpenCL C built with
// clBuildProgram, launches with clEnqueueNDRangeKernel.
//
// OpenCL memory is a handle (cl_mem), not an address, but the runtime and
// arrays work with addresses (views are base + offset). Each buffer is
// therefore given a range of a private address space that no real memory
// uses; an address inside a range names that buffer and a byte offset into
// it. Kernels take an array as (buffer, offset) (the dialect's
// array_offset_type), so slices work without sub-buffers, whose origins
// must be aligned to the device's base alignment.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/opencl/command_buffer.h"
#include "backends/opencl/opencl_api.h"
#include "runtime/device.h"

namespace simt::opencl {

// One program built for one device, with its kernel and how each launch
// argument slot becomes clSetKernelArg calls.
class OpenCLKernel : public runtime::CompiledKernel {
 public:
  struct Argument {
    // Value: `bytes` at `index`. Buffer: an address, set as its cl_mem at
    // `index` and byte offset at index + 1. LocalMemory: the launch's dynamic
    // shared memory, a __local buffer at `index` and its size at index + 1.
    // RawBuffer: an address, set as one cl_mem at `index` (a raw kernel's
    // pointer parameter): a sub-buffer starting there.
    enum class Kind { Value, Buffer, LocalMemory, RawBuffer };
    Kind kind = Kind::Value;
    cl_uint index = 0;
    std::size_t bytes = 0;  // a value's size
  };

  OpenCLKernel(Program program, Kernel kernel, std::string entry, std::vector<Argument> arguments,
               std::size_t max_work_group_size)
      : program_(std::move(program)),
        kernel_(std::move(kernel)),
        entry_(std::move(entry)),
        arguments_(std::move(arguments)),
        max_work_group_size_(max_work_group_size) {}

  const std::string& entry() const { return entry_; }
  cl_kernel kernel() const { return kernel_.get(); }
  const std::vector<Argument>& arguments() const { return arguments_; }
  // The most work-items a group of this kernel may have on its device
  // (CL_KERNEL_WORK_GROUP_SIZE: may be below the device's maximum).
  std::size_t max_work_group_size() const { return max_work_group_size_; }
  // A cl_kernel's arguments are state shared by every thread using it:
  // setting them and enqueueing happen under this lock.
  std::mutex& launch_mutex() const { return launch_mutex_; }

 private:
  Program program_;
  Kernel kernel_;
  std::string entry_;
  std::vector<Argument> arguments_;
  std::size_t max_work_group_size_;
  mutable std::mutex launch_mutex_;
};

class OpenCLDevice;

// A stream of an OpenCL device is an in-order command queue (profiling on);
// the default stream's is the device's. OpenCLDevice::queue_for keeps the
// legacy default-stream order between queues with markers and barriers,
// inserted only when the other side has queued work since the last time.
// Events are markers, callbacks run on a host thread once their marker
// completes.
class OpenCLStream : public runtime::Stream {
 public:
  // `own`: the stream's queue; empty for the default stream (the device's).
  OpenCLStream(OpenCLDevice& device, CommandQueue own);
  cl_command_queue queue() const;
  void synchronize() override;
  bool done() override;
  void wait_event(runtime::Event& event) override;
  void add_callback(std::function<void()> callback) override;
  bool is_default() const override { return !own_; }

 private:
  friend class OpenCLDevice;
  OpenCLDevice& device_;
  CommandQueue own_;
  std::atomic<uint64_t> enqueued_{0};  // commands queued, and of those
  std::atomic<uint64_t> finished_{0};  // the ones a synchronize() saw finish
  // Under the device's order lock. A user stream: the default stream's
  // count when this stream was last ordered after it, and this stream's
  // count when the default stream was last ordered after this one.
  uint64_t default_seen_ = 0;
  uint64_t seen_by_default_ = 0;
};

class OpenCLEvent : public runtime::Event {
 public:
  explicit OpenCLEvent(OpenCLDevice& device) : device_(device) {}
  void record(runtime::Stream& stream) override;
  void synchronize() override;
  bool done() override;
  bool recorded() const override { return static_cast<bool>(marker_); }
  cl_event marker() const { return marker_.get(); }
  double elapsed_ms_since(runtime::Event& start) override;

 private:
  cl_ulong end_time();
  OpenCLDevice& device_;
  opencl::Event marker_;
};

class OpenCLDevice : public runtime::Device {
 public:
  // Opens `device` (as list_devices describes it) as opencl:<index>: creates
  // its context and command queue. Throws runtime::DeviceError.
  OpenCLDevice(const OpenCLApi& api, DeviceInfo device, int index);
  ~OpenCLDevice() override;

  abi::Language language() const override { return abi::Language::OpenCL; }
  bool host_accessible() const override { return false; }

  void* allocate(size_t bytes) override;
  void deallocate(void* pointer, size_t bytes) noexcept override;
  // Copies with host memory block until done (no asynchronous host copies
  // on OpenCL yet).
  void queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                            runtime::Stream& stream, runtime::KeepAlive keep) override;
  void queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                          runtime::Stream& stream, runtime::KeepAlive keep) override;
  void queue_copy_on_device(void* dst, const void* src, size_t bytes, runtime::Stream& stream,
                            runtime::KeepAlive keep) override;
  void fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) override;

  // Throws runtime::BackendCompileError with the build log when the OpenCL
  // compiler rejects the code (what the device lacks, Device::compile has
  // checked against its capabilities before).
  std::unique_ptr<runtime::CompiledKernel> build(const abi::GeneratedKernel& kernel,
                                                 const runtime::CompileOptions& options) override;
  void queue_launch(const runtime::CompiledKernel& kernel, const runtime::LaunchDims& dims,
                    void* const* args, runtime::Stream& stream, runtime::KeepAlive keep) override;
  void synchronize() override;
  // A graph's replay: one command buffer per queue where the device has
  // cl_khr_command_buffer (command_buffer.h), else the runtime's replay.
  std::unique_ptr<runtime::GraphExec> instantiate(
      std::shared_ptr<const runtime::GraphCommands> commands) override;

  // A launch's work sizes, checked against the kernel's largest work-group.
  struct NDRange {
    std::array<std::size_t, 3> global{}, local{};
  };
  NDRange ndrange(const OpenCLKernel& kernel, const runtime::LaunchDims& dims) const;
  // Sets every argument of `kernel` from one launch's packed parameters, on
  // `target`: kernel.kernel() (whose caller holds kernel.launch_mutex() until it
  // is enqueued) or another kernel object of the same function.
  void set_arguments(const OpenCLKernel& kernel, cl_kernel target, const runtime::LaunchDims& dims,
                     void* const* args) const;
  // A new kernel object of `program`'s function `entry` (OpenCLError where the driver
  // refuses it).
  Kernel kernel_object(cl_program program, const std::string& entry) const;
  // The kernel named by a failure's message (queue_launch's, a replay's).
  void note_launch(const std::string& entry);

  runtime::Stream& default_stream() override { return default_stream_; }
  std::shared_ptr<runtime::Stream> create_stream() override;
  std::shared_ptr<runtime::Event> create_event() override;
  // Pinned memory is ordinary host memory here (copies block anyway); mapped
  // and managed memory are fine-grained SVM (allocate_shared), where the device
  // has it, else std::invalid_argument saying what it lacks. Existing host
  // memory is registered as pinned only.
  std::shared_ptr<runtime::HostAllocation> allocate_host(size_t bytes,
                                                         runtime::HostMemoryKind kind) override;
  std::shared_ptr<runtime::HostAllocation> register_host(void* host, size_t bytes,
                                                         runtime::HostMemoryKind kind) override;

  const OpenCLApi& api() const { return api_; }
  cl_command_queue queue() const { return queue_.get(); }
  // The queue a command for `stream` goes to, once the default stream's
  // order with the other streams is kept (markers and barriers); counts the
  // command. Throws runtime::DeviceError.
  cl_command_queue queue_for(runtime::Stream& stream);
  // A marker event after the work queued on `stream` so far, flushed.
  Event enqueue_marker(runtime::Stream& stream);
  // Waits for `stream`'s queue and notes its queued work as finished.
  void finish(OpenCLStream& stream);
  void poll_event(cl_event event);
  // Runs host callbacks after their markers.
  runtime::WorkQueue& callbacks() { return callbacks_; }
  // OpenCL C source, built with the options given and -cl-kernel-arg-info
  // (launches are checked against each kernel's parameters).
  std::shared_ptr<runtime::RawProgram> compile_raw(const runtime::RawSource& source) override;

  const DeviceInfo& opencl_info() const { return device_; }

  // clBuildProgram options for `options` on this device.
  std::string build_options(const runtime::CompileOptions& options) const;

  // The buffer and byte offset of `bytes` bytes at `address`, an address
  // this device handed out. Throws runtime::DeviceError for any other.
  std::pair<cl_mem, std::size_t> resolve(const void* address, std::size_t bytes) const;

  // A buffer starting at `address` (a raw kernel's pointer argument): the
  // allocation itself at its base, else a sub-buffer from there to the
  // allocation's end, kept while the allocation lives. Throws
  // std::invalid_argument when the address is not aligned as sub-buffers
  // must be (CL_DEVICE_MEM_BASE_ADDR_ALIGN).
  cl_mem buffer_at(const void* address) const;

 private:
  struct Allocation {
    MemObject memory;
    std::size_t bytes = 0;
    // By origin; declared after `memory`, so released before it.
    std::map<std::size_t, MemObject> sub_buffers;
  };

 public:
  void check(cl_int status, const char* call, const std::string& detail = {}) const;

 private:
  // Builds `source`, or loads the binary the disk cache holds under `key`
  // (an empty key: no caching).
  // `describe` (may be empty) says what else to keep with the binary (what a
  // program loaded from a binary may no longer report); *description gets it
  // back either way. `program` is left empty when the build fails.
  BuildResult build_cached(const std::string& key, const std::string& source,
                           const std::string& flags, Program* program,
                           const std::function<std::string(const Program&)>& describe,
                           std::string* description);

  // Gives `memory` (of `bytes`) a range of the private address space; returns its base.
  void* enter(MemObject memory, std::size_t bytes);
  // Mapped or managed memory: fine-grained SVM as a buffer of this device.
  std::shared_ptr<runtime::HostAllocation> allocate_shared(size_t bytes,
                                                           runtime::HostMemoryKind kind);

  const OpenCLApi& api_;
  DeviceInfo device_;
  // Why this device cannot build kernels although it is there (a PoCL without the system's
  // linker); empty when it can.
  std::string missing_linker_;
  Context context_;
  CommandQueue queue_;
  OpenCLStream default_stream_{*this, CommandQueue()};
  std::mutex order_mutex_;
  std::vector<std::weak_ptr<OpenCLStream>> streams_;  // the user's, for legacy order
  std::vector<std::shared_ptr<OpenCLStream>> live_streams();
  runtime::WorkQueue callbacks_;

  mutable std::mutex allocations_mutex_;
  mutable std::map<std::uintptr_t, Allocation> allocations_;  // by base address
  std::uintptr_t next_address_;

  mutable std::mutex last_launch_mutex_;
  std::string last_launch_;
  // cl_khr_command_buffer's entry points, looked up at the first graph's
  // instantiation; nullopt where the device lacks them.
  std::once_flag command_buffers_looked_up_;
  std::optional<CommandBufferApi> command_buffers_;
};

}  // namespace simt::opencl
