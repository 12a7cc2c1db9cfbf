#include "backends/opencl/command_buffer.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "backends/opencl/opencl_device.h"

namespace simt::opencl {

namespace {

// cl_khr_command_buffer's queries and flags (CL/cl_ext.h).
constexpr cl_device_info kExtensionsWithVersion = 0x1060;  // OpenCL 3.0
constexpr cl_device_info kCapabilities = 0x12A9;
constexpr cl_device_info kRequiredQueueProperties = 0x12AA;
constexpr cl_bitfield kSimultaneousUseCapability = 1 << 2;
constexpr cl_command_buffer_properties_khr kFlags = 0x1293;
constexpr cl_command_buffer_properties_khr kSimultaneousUse = 1 << 0;
// simt's queues: in order, with profiling (OpenCLDevice's constructor, create_stream).
constexpr cl_command_queue_properties kQueueProperties = CL_QUEUE_PROFILING_ENABLE;

struct NameVersion {  // cl_name_version
  cl_uint version;
  char name[64];
};

constexpr cl_uint minor_of(cl_uint version) { return (version >> 12) & 0x3FF; }
constexpr cl_uint major_of(cl_uint version) { return version >> 22; }

// The extension's version on `device`, or 0 where the device cannot say (before
// OpenCL 3.0): its entry points' signatures depend on it.
cl_uint extension_version(const OpenCLApi& api, cl_device_id device, const char* extension) {
  std::size_t bytes = 0;
  if (api.clGetDeviceInfo(device, kExtensionsWithVersion, 0, nullptr, &bytes) != CL_SUCCESS)
    return 0;
  std::vector<NameVersion> listed(bytes / sizeof(NameVersion));
  if (listed.empty() ||
      api.clGetDeviceInfo(device, kExtensionsWithVersion, listed.size() * sizeof(NameVersion),
                          listed.data(), nullptr) != CL_SUCCESS)
    return 0;
  for (const NameVersion& entry : listed)
    if (std::strncmp(entry.name, extension, sizeof entry.name) == 0) return entry.version;
  return 0;
}

template <class Function>
bool look_up(const OpenCLApi& api, cl_platform_id platform, const char* name, Function& into) {
  into = reinterpret_cast<Function>(api.extension_function(platform, name));
  return into != nullptr;
}

class CommandBufferReplay : public runtime::GraphExec {
 public:
  CommandBufferReplay(OpenCLDevice& device, const CommandBufferApi& api,
                      std::shared_ptr<const runtime::GraphCommands> commands)
      : device_(device), api_(api), commands_(std::move(commands)) {}

  ~CommandBufferReplay() override {
    // The driver frees a buffer once its pending replays ran.
    for (Recorded& recorded : recorded_) {
      if (runtime::inherited_gpu_devices()) break;
      api_.release(recorded.buffer);
      device_.api().clReleaseCommandQueue(recorded.queue);
    }
  }

  void launch(runtime::Stream& stream) override {
    if (fallback_) return fallback_->launch(stream);
    cl_command_queue queue = device_.queue_for(stream);
    cl_command_buffer_khr buffer = nullptr;
    try {
      buffer = buffer_for(queue);
    } catch (const OpenCLError&) {
      // The driver would not record a command: the runtime's replay, from now on.
      fallback_ = runtime::replay_commands(device_, commands_);
      return fallback_->launch(stream);
    }
    device_.note_launch("a graph's command buffer");
    device_.check(api_.enqueue(0, nullptr, buffer, 0, nullptr, nullptr),
                  "clEnqueueCommandBufferKHR", " replaying a graph");
  }

 private:
  struct Recorded {
    cl_command_queue queue;
    cl_command_buffer_khr buffer;
  };

  // The buffer recorded for `queue`, recorded now if this is its first replay there.
  cl_command_buffer_khr buffer_for(cl_command_queue queue) {
    std::lock_guard lock(mutex_);
    for (const Recorded& recorded : recorded_)
      if (recorded.queue == queue) return recorded.buffer;
    const cl_command_buffer_properties_khr properties[] = {kFlags, kSimultaneousUse, 0};
    cl_int status = CL_SUCCESS;
    cl_command_buffer_khr buffer = api_.create(1, &queue, properties, &status);
    device_.check(status, "clCreateCommandBufferKHR");
    try {
      for (const runtime::GraphCommand& command : *commands_) record(buffer, command);
      device_.check(api_.finalize(buffer), "clFinalizeCommandBufferKHR");
    } catch (...) {
      api_.release(buffer);
      throw;
    }
    // Held with the buffer: a queue freed and another made at its address would
    // otherwise find this buffer.
    device_.api().clRetainCommandQueue(queue);
    recorded_.push_back({queue, buffer});
    return buffer;
  }

  void record(cl_command_buffer_khr buffer, const runtime::GraphCommand& command) {
    if (command.kind == runtime::GraphCommand::Kind::Copy) {
      auto [src, src_offset] = device_.resolve(command.src, command.bytes);
      auto [dst, dst_offset] = device_.resolve(command.dst, command.bytes);
      device_.check(api_.copy(buffer, nullptr, src, dst, src_offset, dst_offset, command.bytes, 0,
                              nullptr, nullptr, nullptr),
                    "clCommandCopyBufferKHR");
      return;
    }
    const auto& kernel = static_cast<const OpenCLKernel&>(*command.kernel);
    const OpenCLDevice::NDRange range = device_.ndrange(kernel, command.dims);
    std::vector<void*> pointers;
    for (const runtime::ArgSlot& slot : command.args)
      pointers.push_back(const_cast<runtime::ArgSlot&>(slot).data());
    // The extension says a command keeps the argument values set when it is
    // recorded, but PoCL 3.1's commands read the kernel object's arguments when
    // they run: each command gets a kernel object of its own, never set again.
    const OpenCLApi& cl = device_.api();
    cl_program program = nullptr;
    device_.check(
        cl.clGetKernelInfo(kernel.kernel(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr),
        "clGetKernelInfo", " (the program of " + kernel.entry() + ")");
    Kernel own = device_.kernel_object(program, kernel.entry());
    device_.set_arguments(kernel, own.get(), command.dims, pointers.data());
    device_.check(api_.ndrange(buffer, nullptr, nullptr, own.get(), 3, nullptr, range.global.data(),
                               range.local.data(), 0, nullptr, nullptr, nullptr),
                  "clCommandNDRangeKernelKHR", " recording " + kernel.entry());
    kernels_.push_back(std::move(own));
  }

  OpenCLDevice& device_;
  const CommandBufferApi& api_;
  std::shared_ptr<const runtime::GraphCommands> commands_;
  std::mutex mutex_;
  std::vector<Recorded> recorded_;
  std::vector<Kernel> kernels_;  // the recorded commands' (released after the buffers)
  std::unique_ptr<runtime::GraphExec> fallback_;
};

}  // namespace

std::optional<CommandBufferApi> CommandBufferApi::find(const OpenCLApi& api,
                                                       const DeviceInfo& device,
                                                       std::string* why_not) {
  auto no = [&](std::string reason) -> std::optional<CommandBufferApi> {
    if (why_not != nullptr) *why_not = std::move(reason);
    return std::nullopt;
  };
  const char* setting = std::getenv("SIMT_OPENCL_COMMAND_BUFFERS");
  if (setting != nullptr && std::strcmp(setting, "0") == 0)
    return no("SIMT_OPENCL_COMMAND_BUFFERS=0");
  if (!device.has_extension("cl_khr_command_buffer")) return no("no cl_khr_command_buffer");
  const cl_uint version = extension_version(api, device.device, "cl_khr_command_buffer");
  if (major_of(version) != 0 || minor_of(version) != 9)
    return no("cl_khr_command_buffer at a version other than 0.9");
  cl_bitfield capabilities = 0;
  cl_command_queue_properties required = 0;
  if (api.clGetDeviceInfo(device.device, kCapabilities, sizeof capabilities, &capabilities,
                          nullptr) != CL_SUCCESS ||
      (capabilities & kSimultaneousUseCapability) == 0)
    return no("command buffers without simultaneous use");
  if (api.clGetDeviceInfo(device.device, kRequiredQueueProperties, sizeof required, &required,
                          nullptr) != CL_SUCCESS ||
      (required & ~kQueueProperties) != 0)
    return no("command buffers need queue properties simt's queues lack");
  CommandBufferApi found;
  const cl_platform_id platform = device.platform;
  if (!look_up(api, platform, "clCreateCommandBufferKHR", found.create) ||
      !look_up(api, platform, "clFinalizeCommandBufferKHR", found.finalize) ||
      !look_up(api, platform, "clReleaseCommandBufferKHR", found.release) ||
      !look_up(api, platform, "clEnqueueCommandBufferKHR", found.enqueue) ||
      !look_up(api, platform, "clCommandNDRangeKernelKHR", found.ndrange))
    return no("the driver lists cl_khr_command_buffer without its entry points");
  const cl_uint patch = version & 0xFFF;
  if (patch < 5) look_up(api, platform, "clCommandCopyBufferKHR", found.copy);
  return found;
}

std::unique_ptr<runtime::GraphExec> command_buffer_replay(
    OpenCLDevice& device, const CommandBufferApi& api,
    std::shared_ptr<const runtime::GraphCommands> commands) {
  return std::make_unique<CommandBufferReplay>(device, api, std::move(commands));
}

}  // namespace simt::opencl
