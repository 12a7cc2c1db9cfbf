#include "backends/opencl/opencl_device.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "abi/compiler_log.h"
#include "runtime/disk_cache.h"
#include "runtime/fork_guard.h"
#include "runtime/graph.h"
#include "runtime/interrupt.h"

namespace simt::opencl {

namespace {

// PoCL's CPU driver links every kernel into a shared object as a C compiler would: its
// Clang driver runs the system's `ld` (binutils) with `-lc -lgcc -lgcc_s`, which need
// libc.so (libc6-dev) and a GCC installation's libgcc (libgcc-<N>-dev); when any is missing,
// PoCL aborts the whole process at the kernel's first launch ("Final linking of kernel ...
// failed"). Debian's PoCL package brings them along; PoCL from pip (simt[pocl]) cannot. So
// for a PoCL device this names, before any build, what is missing; empty when nothing is (or
// the device is not PoCL's). Looked for where Clang looks on Linux: ld on PATH or in
// /usr/bin, libc.so in the multiarch and lib64 folders, libgcc.a in <lib>/gcc/<triple>/<N>.
std::string missing_pocl_linker(const DeviceInfo& device) {
  namespace fs = std::filesystem;
  if (device.platform_name.find("Portable Computing Language") == std::string::npos) return "";
  std::error_code ignored;
  auto executable = [](const std::string& file) { return access(file.c_str(), X_OK) == 0; };

  bool ld = executable("/usr/bin/ld") || executable("/bin/ld");
  if (const char* path = std::getenv("PATH"); path != nullptr && !ld) {
    std::string_view rest = path;
    while (!ld && !rest.empty()) {
      std::size_t end = rest.find(':');
      std::string dir(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
      ld = !dir.empty() && executable(dir + "/ld");
    }
  }
  bool libc = false;
  for (const char* file : {"/usr/lib/x86_64-linux-gnu/libc.so", "/lib/x86_64-linux-gnu/libc.so",
                           "/usr/lib64/libc.so", "/usr/lib/libc.so"}) {
    libc = libc || fs::exists(file, ignored);
  }
  bool libgcc = false;
  for (const char* root : {"/usr/lib/gcc", "/usr/lib64/gcc"}) {
    for (fs::directory_iterator triple(root, ignored), end; !libgcc && triple != end;
         triple.increment(ignored)) {
      for (fs::directory_iterator version(triple->path(), ignored); !libgcc && version != end;
           version.increment(ignored)) {
        libgcc = fs::exists(version->path() / "libgcc.a", ignored);
      }
    }
  }
  std::string missing;
  auto add = [&](bool found, const char* what) {
    if (!found) missing += (missing.empty() ? "" : ", ") + std::string(what);
  };
  add(ld, "ld (binutils)");
  add(libc, "libc.so (libc6-dev)");
  add(libgcc, "libgcc (libgcc-12-dev on Debian 12, -13-dev on Ubuntu 24.04)");
  if (missing.empty()) return "";
  return "PoCL links each kernel as a C compiler would, and this machine lacks " + missing +
         ": apt install gcc libc6-dev, which bring ld, libgcc and libc.so (PoCL would otherwise "
         "abort this process at the kernel's first launch)";
}

// A note after a build log that says the driver's compiler does not know this machine's
// CPU, which no change to the kernel fixes: PoCL from pip (pocl-binary-distribution 3.0,
// 2022) compiles with LLVM 14, whose Clang rejects CPUs newer than itself (AMD Zen 5, for
// one) as "unknown target CPU 'generic'". Empty for every other log.
std::string unknown_cpu_note(const std::string& log) {
  if (log.find("unknown target CPU") == std::string::npos) return "";
  return "\n(the OpenCL driver's compiler does not know this machine's CPU, whatever the "
         "kernel: PoCL from pip, pocl-binary-distribution 3.0, has LLVM 14, older than CPUs "
         "such as AMD Zen 5; the system's PoCL, apt install ocl-icd-libopencl1 "
         "pocl-opencl-icd, or the cpu device runs this kernel)";
}

// The private address space's first address and the gap between two
// buffers' ranges: far from zero so that no address is null, and gapped so
// that a one-past-the-end address never names the next buffer.
constexpr std::uintptr_t kFirstAddress = std::uintptr_t{1} << 44;
constexpr std::uintptr_t kRangeAlignment = 4096;

std::string dims_text(const std::array<std::size_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

runtime::DeviceInfo runtime_info(const DeviceInfo& device, int index) {
  runtime::DeviceInfo info;
  info.id = "opencl:" + std::to_string(index);
  info.name = device.name;
  info.backend = runtime::BackendKind::OpenCL;
  info.index = index;
  info.gpu = device.type == DeviceType::gpu;
  // What a compiled program depends on: the device and its driver.
  info.architecture = device.name + " (" + device.vendor + ", " + device.driver_version + ")";
  info.total_memory = device.global_mem_size;
  info.compute_units = static_cast<int>(device.compute_units);
  info.max_threads_per_block =
      static_cast<int>(std::min<std::size_t>(device.max_work_group_size, INT_MAX));
  for (int d = 0; d < 3; ++d) {
    info.max_block_dim[d] =
        d < static_cast<int>(device.max_work_item_sizes.size())
            ? static_cast<int64_t>(std::min<std::size_t>(device.max_work_item_sizes[d], INT_MAX))
            : 1;
    // The global size (grid * block) is a size_t: any grid a launch can
    // describe fits; the driver reports what it cannot run.
    info.max_grid_dim[d] = INT_MAX;
  }
  // PoCL crashes from 2**32 work-groups; other drivers may allow more, but
  // one limit keeps a launch valid on every OpenCL device.
  info.max_blocks = (int64_t{1} << 32) - 1;
  info.max_shared_bytes =
      static_cast<int64_t>(std::min<uint64_t>(device.local_mem_size, INT64_MAX));
  // Warp operations run as 32-lane sub-groups where the device has them (Intel's
  // runtimes; neither PoCL nor NVIDIA's OpenCL); 64-bit atomics need
  // cl_khr_int64_base/extended_atomics.
  info.float64 = {device.fp64,
                  "the device lacks cl_khr_fp64; use float32 values (e.g. np.float32 arrays and "
                  "constants) on it"};
  // Without sub-groups, warp operations run through a __local scratch area between
  // work-group barriers (build_options; codegen/dialects.cpp, kOpenCLWarps): every
  // thread of the block must then reach each of them, and warps are 32 consecutive
  // threads of the block's linear order, as in CUDA.
  const bool subgroups = device.warp_subgroups_missing.empty();
  info.divergent_warps = {
      subgroups, "it has no sub-groups (it lacks " + device.warp_subgroups_missing +
                     "), so a warp operation runs as barriers of the whole block and must be "
                     "reached by every thread of the block: move it out of conditions and loops "
                     "that depend on the thread (threadIdx, grid(), array elements), before any "
                     "thread returns, and out of device functions; or use a cuda or cpu device"};
  // Sub-groups are formed along each row (dimension 0) of the work-group.
  info.warps_in_rows = subgroups;
  info.int64_atomics = {
      device.int64_atomics && device.has_extension("cl_khr_int64_extended_atomics"),
      "they need cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics, which the device "
      "lacks; use 32-bit arrays there"};
  // OpenCL cannot promise that a launch's work-groups run at once, so a
  // barrier across them could wait forever.
  info.grid_sync = {false,
                    "OpenCL has no grid-wide barrier (its work-groups need not run at once); "
                    "cooperative kernels run on cuda and cpu devices"};
  return info;
}

// The size of an OpenCL C scalar or vector type as a kernel argument
// ("float" 4, "uint2" 8, "float3" 16); 0 for types simt cannot pass (structs,
// images). size_t and friends assume a 64-bit device, as simt does.
std::size_t opencl_value_bytes(std::string type) {
  while (!type.empty() && type.back() == ' ') type.pop_back();
  static const std::pair<const char*, std::size_t> kScalars[] = {
      {"char", 1},   {"uchar", 1},     {"bool", 1},     {"short", 2},
      {"ushort", 2}, {"half", 2},      {"int", 4},      {"uint", 4},
      {"float", 4},  {"long", 8},      {"ulong", 8},    {"double", 8},
      {"size_t", 8}, {"ptrdiff_t", 8}, {"intptr_t", 8}, {"uintptr_t", 8}};
  for (const auto& [name, bytes] : kScalars) {
    const std::string_view base(name);
    if (type == base) return bytes;
    if (type.size() > base.size() && type.compare(0, base.size(), base) == 0) {
      const std::string lanes = type.substr(base.size());
      if (lanes == "2" || lanes == "4" || lanes == "8" || lanes == "16")
        return bytes * std::stoul(lanes);
      if (lanes == "3") return bytes * 4;  // 3-vectors are sized as 4-vectors
    }
  }
  return 0;
}

// OpenCL C's scalar type names as simt's types; nullopt for vectors and others.
std::optional<abi::Scalar> opencl_scalar(std::string_view type) {
  using abi::Scalar;
  static const std::pair<std::string_view, Scalar> kNames[] = {
      {"bool", Scalar::Bool},     {"char", Scalar::Int8},      {"uchar", Scalar::UInt8},
      {"short", Scalar::Int16},   {"ushort", Scalar::UInt16},  {"int", Scalar::Int32},
      {"uint", Scalar::UInt32},   {"long", Scalar::Int64},     {"ulong", Scalar::UInt64},
      {"half", Scalar::Float16},  {"float", Scalar::Float32},  {"double", Scalar::Float64},
      {"size_t", Scalar::UInt64}, {"ptrdiff_t", Scalar::Int64}};
  for (const auto& [name, scalar] : kNames)
    if (type == name) return scalar;
  return std::nullopt;
}

runtime::RawParam raw_param(const KernelArg& arg) {
  runtime::RawParam param;
  param.type_name = arg.type_name;
  switch (arg.address) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      param.kind = runtime::RawParam::Kind::GlobalPointer;
      param.bytes = sizeof(void*);
      break;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      param.kind = runtime::RawParam::Kind::LocalPointer;
      break;
    default:
      param.kind = runtime::RawParam::Kind::Value;
      param.bytes = opencl_value_bytes(arg.type_name);
      param.scalar = opencl_scalar(arg.type_name);
  }
  return param;
}

using RawKernels = std::map<std::string, std::vector<runtime::RawParam>>;

// Every kernel's parameters, kept in the disk cache beside the binary: a
// program loaded from a binary need not report them.
std::string pack_raw_kernels(const RawKernels& kernels) {
  runtime::PayloadWriter out;
  out.put_u32(static_cast<uint32_t>(kernels.size()));
  for (const auto& [name, params] : kernels) {
    out.put_string(name);
    out.put_u32(static_cast<uint32_t>(params.size()));
    for (const runtime::RawParam& p : params) {
      out.put_u32(static_cast<uint32_t>(p.kind));
      out.put_u32(static_cast<uint32_t>(p.bytes));
      out.put_string(p.type_name);
    }
  }
  return out.take();
}

std::optional<RawKernels> unpack_raw_kernels(std::string_view payload) {
  runtime::PayloadReader in(payload);
  RawKernels kernels;
  uint32_t count = 0;
  if (!in.get_u32(&count)) return std::nullopt;
  for (uint32_t k = 0; k < count; ++k) {
    std::string name;
    uint32_t params = 0;
    if (!in.get_string(&name) || !in.get_u32(&params)) return std::nullopt;
    auto& list = kernels[name];
    for (uint32_t j = 0; j < params; ++j) {
      runtime::RawParam& p = list.emplace_back();
      uint32_t kind = 0, bytes = 0;
      if (!in.get_u32(&kind) || !in.get_u32(&bytes) || !in.get_string(&p.type_name) ||
          kind > static_cast<uint32_t>(runtime::RawParam::Kind::LocalPointer))
        return std::nullopt;
      p.kind = static_cast<runtime::RawParam::Kind>(kind);
      p.bytes = bytes;
      if (p.kind == runtime::RawParam::Kind::Value) p.scalar = opencl_scalar(p.type_name);
    }
  }
  return kernels;
}

// A raw OpenCL C program: kernels are created from it on request.
class OpenCLRawProgram : public runtime::RawProgram,
                         public std::enable_shared_from_this<OpenCLRawProgram> {
 public:
  OpenCLRawProgram(const OpenCLApi& api, cl_device_id device, std::string label, Program program,
                   RawKernels kernels)
      : api_(api),
        device_(device),
        label_(std::move(label)),
        program_(std::move(program)),
        kernels_(std::move(kernels)) {}

  runtime::RawFunction function(const std::string& name) override {
    auto found = kernels_.find(name);
    if (found == kernels_.end()) {
      std::string names;
      for (const auto& [kernel_name, params] : kernels_)
        names += (names.empty() ? "" : ", ") + kernel_name;
      throw std::invalid_argument("no kernel '" + name + "' in this OpenCL C program for " +
                                  label_ + "; its kernels: " + (names.empty() ? "none" : names));
    }
    const std::vector<runtime::RawParam>& params = found->second;
    // Each kernel object holds its own argument state, so each function gets
    // its own (from the one built program).
    cl_int status = CL_SUCCESS;
    Kernel kernel(&api_, api_.clCreateKernel(program_.get(), name.c_str(), &status));
    if (status != CL_SUCCESS)
      throw runtime::DeviceError(OpenCLError("clCreateKernel", status).what() + (" for " + name));
    std::size_t max_group = 0;
    status = api_.clGetKernelWorkGroupInfo(kernel.get(), device_, CL_KERNEL_WORK_GROUP_SIZE,
                                           sizeof max_group, &max_group, nullptr);
    if (status != CL_SUCCESS)
      throw runtime::DeviceError(OpenCLError("clGetKernelWorkGroupInfo", status).what() +
                                 (" for " + name));
    std::vector<OpenCLKernel::Argument> arguments(params.size());
    for (std::size_t k = 0; k < params.size(); ++k) {
      arguments[k].index = static_cast<cl_uint>(k);
      arguments[k].bytes = params[k].bytes;
      if (params[k].kind == runtime::RawParam::Kind::GlobalPointer)
        arguments[k].kind = OpenCLKernel::Argument::Kind::RawBuffer;
    }
    runtime::RawFunction function;
    // The program stays with this object, which each function keeps alive.
    auto* launchable =
        new OpenCLKernel(Program(), std::move(kernel), name, std::move(arguments), max_group);
    function.kernel = std::shared_ptr<const OpenCLKernel>(
        launchable, [keep = shared_from_this()](const OpenCLKernel* k) { delete k; });
    function.entry = name;
    function.params_known = true;
    function.params = params;
    return function;
  }

 private:
  const OpenCLApi& api_;
  cl_device_id device_;
  std::string label_;
  Program program_;
  RawKernels kernels_;
};

}  // namespace

OpenCLDevice::OpenCLDevice(const OpenCLApi& api, DeviceInfo device, int index)
    : Device(runtime_info(device, index)),
      api_(api),
      device_(std::move(device)),
      missing_linker_(missing_pocl_linker(device_)),
      next_address_(kFirstAddress) {
  runtime::note_gpu_device_opened();
  try {
    context_ = create_context(api_, device_.platform, device_.device);
    cl_int status = CL_SUCCESS;
    queue_ = CommandQueue(&api_, api_.clCreateCommandQueue(context_.get(), device_.device,
                                                           CL_QUEUE_PROFILING_ENABLE, &status));
    check(status, "clCreateCommandQueue");
  } catch (const OpenCLError& error) {
    throw runtime::DeviceError(info_.id + " (" + device_.name + "): " + error.what());
  }
}

OpenCLDevice::~OpenCLDevice() {
  // Work still queued may use buffers released below.
  if (queue_) api_.clFinish(queue_.get());
  release_pool();
}

void OpenCLDevice::check(cl_int status, const char* call, const std::string& detail) const {
  if (status != CL_SUCCESS)
    throw runtime::DeviceError(std::string(OpenCLError(call, status).what()) + " on " + info_.id +
                               " (" + device_.name + ")" + detail);
}

void* OpenCLDevice::allocate(size_t bytes) {
  runtime::require_not_forked(info_.id);
  const size_t request = std::max<size_t>(bytes, 1);
  auto out_of_memory = [&](const std::string& why) {
    return runtime::OutOfMemory("out of memory on " + info_.id + " (" + device_.name +
                                "): could not allocate " + std::to_string(bytes) + " bytes (" +
                                runtime::human_bytes(bytes) + "); " + why);
  };
  if (request > device_.max_mem_alloc_size) {
    throw out_of_memory("the largest single allocation the device allows is " +
                        runtime::human_bytes(device_.max_mem_alloc_size));
  }
  cl_int status = CL_SUCCESS;
  MemObject memory(
      &api_, api_.clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, request, nullptr, &status));
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
      status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE) {
    throw out_of_memory(OpenCLError("clCreateBuffer", status).what());
  }
  check(status, "clCreateBuffer", " allocating " + std::to_string(bytes) + " bytes");
  return enter(std::move(memory), request);
}

void* OpenCLDevice::enter(MemObject memory, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  const std::uintptr_t base = next_address_;
  const std::uintptr_t span = (bytes + kRangeAlignment - 1) / kRangeAlignment * kRangeAlignment;
  next_address_ += span + kRangeAlignment;
  allocations_.emplace(base, Allocation{std::move(memory), bytes, {}});
  return reinterpret_cast<void*>(base);
}

void OpenCLDevice::deallocate(void* pointer, size_t) noexcept {
  if (pointer == nullptr || runtime::inherited_gpu_devices()) return;
  MemObject released;
  {
    std::lock_guard<std::mutex> lock(allocations_mutex_);
    auto found = allocations_.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == allocations_.end()) return;
    released = std::move(found->second.memory);
    allocations_.erase(found);
  }
  // OpenCL defers the release until queued commands using it have finished.
}

std::pair<cl_mem, std::size_t> OpenCLDevice::resolve(const void* address, std::size_t bytes) const {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  auto next = allocations_.upper_bound(at);
  if (next != allocations_.begin()) {
    const auto& [base, allocation] = *std::prev(next);
    const std::size_t offset = at - base;
    if (offset <= allocation.bytes && bytes <= allocation.bytes - offset)
      return {allocation.memory.get(), offset};
  }
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(at));
  throw runtime::DeviceError("address " + std::string(text) + " (" + std::to_string(bytes) +
                             " bytes) is not memory of " + info_.id + " (" + device_.name + ")");
}

cl_mem OpenCLDevice::buffer_at(const void* address) const {
  runtime::require_not_forked(info_.id);
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::lock_guard<std::mutex> lock(allocations_mutex_);
  auto next = allocations_.upper_bound(at);
  if (next != allocations_.begin()) {
    Allocation& allocation = std::prev(next)->second;
    const std::size_t offset = at - std::prev(next)->first;
    // An empty array's address may be the allocation's end: nothing is read there.
    if (offset == 0 || offset == allocation.bytes) return allocation.memory.get();
    if (offset < allocation.bytes) {
      auto found = allocation.sub_buffers.find(offset);
      if (found != allocation.sub_buffers.end()) return found->second.get();
      const std::size_t alignment = std::max<std::size_t>(device_.mem_base_addr_align, 1);
      if (offset % alignment != 0)
        throw std::invalid_argument(
            "an array view starting at byte " + std::to_string(offset) + " of its allocation on " +
            info_.id + " cannot be a raw OpenCL kernel's buffer argument: " + device_.name +
            " requires buffers to start on multiples of " + std::to_string(alignment) +
            " bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN); pass the whole array and an offset, or "
            "a copy of the view");
      cl_buffer_region region{offset, allocation.bytes - offset};
      cl_int status = CL_SUCCESS;
      MemObject sub(&api_, api_.clCreateSubBuffer(allocation.memory.get(), 0,
                                                  CL_BUFFER_CREATE_TYPE_REGION, &region, &status));
      check(status, "clCreateSubBuffer",
            " (a view " + std::to_string(offset) + " bytes into a buffer)");
      return allocation.sub_buffers.emplace(offset, std::move(sub)).first->second.get();
    }
  }
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(at));
  throw runtime::DeviceError("address " + std::string(text) + " is not memory of " + info_.id +
                             " (" + device_.name + ")");
}

OpenCLStream::OpenCLStream(OpenCLDevice& device, CommandQueue own)
    : device_(device), own_(std::move(own)) {}

cl_command_queue OpenCLStream::queue() const { return own_ ? own_.get() : device_.queue(); }

void OpenCLStream::synchronize() { device_.finish(*this); }

bool OpenCLStream::done() {
  runtime::require_not_forked(device_.info().id);
  if (finished_ == enqueued_) return true;
  cl_event raw = nullptr;
  device_.check(device_.api().clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &raw),
                "clEnqueueMarkerWithWaitList");
  Event marker(&device_.api(), raw);
  device_.api().clFlush(queue());
  cl_int status = CL_COMPLETE;
  device_.check(device_.api().clGetEventInfo(raw, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                             &status, nullptr),
                "clGetEventInfo");
  return status == CL_COMPLETE;
}

void OpenCLStream::wait_event(runtime::Event& event) {
  auto* opencl_event = dynamic_cast<OpenCLEvent*>(&event);
  if (!opencl_event) throw std::invalid_argument("the event is not an OpenCL event");
  cl_event marker = opencl_event->marker();
  if (!marker) return;  // never recorded: nothing to wait for (CUDA's rule)
  device_.check(
      device_.api().clEnqueueBarrierWithWaitList(device_.queue_for(*this), 1, &marker, nullptr),
      "clEnqueueBarrierWithWaitList");
}

void OpenCLStream::add_callback(std::function<void()> callback) {
  auto marker = std::make_shared<Event>(device_.enqueue_marker(*this));
  device_.callbacks().push([&api = device_.api(), marker, callback = std::move(callback)] {
    cl_event event = marker->get();
    api.clWaitForEvents(1, &event);
    callback();
  });
}

std::vector<std::shared_ptr<OpenCLStream>> OpenCLDevice::live_streams() {
  std::vector<std::shared_ptr<OpenCLStream>> live;
  std::erase_if(streams_, [](const auto& s) { return s.expired(); });
  for (const auto& s : streams_)
    if (auto stream = s.lock()) live.push_back(std::move(stream));
  return live;
}

cl_command_queue OpenCLDevice::queue_for(runtime::Stream& stream) {
  runtime::require_not_forked(info_.id);
  auto& s = static_cast<OpenCLStream&>(stream);
  std::lock_guard lock(order_mutex_);
  auto marker_on = [&](OpenCLStream& on) {
    cl_event event = nullptr;
    check(api_.clEnqueueMarkerWithWaitList(on.queue(), 0, nullptr, &event),
          "clEnqueueMarkerWithWaitList");
    ++on.enqueued_;
    api_.clFlush(on.queue());  // another queue waits for it
    return Event(&api_, event);
  };
  auto barrier_on = [&](OpenCLStream& on, const std::vector<Event>& after) {
    std::vector<cl_event> events;
    for (const auto& e : after) events.push_back(e.get());
    check(api_.clEnqueueBarrierWithWaitList(on.queue(), static_cast<cl_uint>(events.size()),
                                            events.data(), nullptr),
          "clEnqueueBarrierWithWaitList");
    ++on.enqueued_;
  };
  if (s.is_default()) {
    // Legacy order: after what every other stream queued since last time.
    std::vector<Event> after;
    for (const auto& other : live_streams()) {
      if (other->enqueued_ == other->seen_by_default_) continue;
      after.push_back(marker_on(*other));
      other->seen_by_default_ = other->enqueued_;
    }
    if (!after.empty()) barrier_on(s, after);
  } else if (default_stream_.enqueued_ != s.default_seen_) {
    // And every other stream after what the default stream queued.
    std::vector<Event> after;
    after.push_back(marker_on(default_stream_));
    barrier_on(s, after);
    s.default_seen_ = default_stream_.enqueued_;
    s.seen_by_default_ = s.enqueued_;  // the barrier is not work the default stream awaits
  }
  ++s.enqueued_;
  return s.queue();
}

Event OpenCLDevice::enqueue_marker(runtime::Stream& stream) {
  runtime::require_not_forked(info_.id);
  cl_command_queue queue = queue_for(stream);
  cl_event event = nullptr;
  check(api_.clEnqueueMarkerWithWaitList(queue, 0, nullptr, &event), "clEnqueueMarkerWithWaitList");
  api_.clFlush(queue);
  return Event(&api_, event);
}

// clFinish and clWaitForEvents cannot be interrupted: an interruptible wait
// first polls `event`'s status (errors are left to the blocking call).
void OpenCLDevice::poll_event(cl_event event) {
  runtime::require_not_forked(info_.id);
  runtime::poll_interruptibly([&] {
    cl_int status = CL_COMPLETE;
    if (api_.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                            nullptr) != CL_SUCCESS)
      return true;
    return status <= CL_COMPLETE;
  });
}

void OpenCLDevice::finish(OpenCLStream& stream) {
  runtime::require_not_forked(info_.id);
  const uint64_t queued = stream.enqueued_;
  if (runtime::interruptible() && stream.finished_ != queued) {
    cl_event raw = nullptr;
    check(api_.clEnqueueMarkerWithWaitList(stream.queue(), 0, nullptr, &raw),
          "clEnqueueMarkerWithWaitList");
    Event marker(&api_, raw);
    api_.clFlush(stream.queue());
    poll_event(raw);
  }
  cl_int status = api_.clFinish(stream.queue());
  if (status == CL_SUCCESS) {
    stream.finished_ = queued;
    return;
  }
  std::string last;
  {
    std::lock_guard<std::mutex> lock(last_launch_mutex_);
    last = last_launch_;
  }
  check(status, "clFinish",
        last.empty() ? std::string()
                     : " (the most recent kernel launched on " + info_.id + " was " + last + ")");
}

void OpenCLEvent::record(runtime::Stream& stream) { marker_ = device_.enqueue_marker(stream); }

void OpenCLEvent::synchronize() {
  if (!marker_) return;
  cl_event event = marker_.get();
  device_.poll_event(event);
  device_.check(device_.api().clWaitForEvents(1, &event), "clWaitForEvents");
}

bool OpenCLEvent::done() {
  runtime::require_not_forked(device_.info().id);
  if (!marker_) return true;
  cl_int status = CL_COMPLETE;
  device_.check(device_.api().clGetEventInfo(marker_.get(), CL_EVENT_COMMAND_EXECUTION_STATUS,
                                             sizeof status, &status, nullptr),
                "clGetEventInfo");
  if (status < 0) device_.check(status, "an event's command");
  return status == CL_COMPLETE;
}

cl_ulong OpenCLEvent::end_time() {
  synchronize();
  cl_ulong ns = 0;
  device_.check(device_.api().clGetEventProfilingInfo(marker_.get(), CL_PROFILING_COMMAND_END,
                                                      sizeof ns, &ns, nullptr),
                "clGetEventProfilingInfo");
  return ns;
}

double OpenCLEvent::elapsed_ms_since(runtime::Event& start) {
  auto* begin = dynamic_cast<OpenCLEvent*>(&start);
  if (!begin || &begin->device_ != &device_)
    throw std::invalid_argument("the events of elapsed_time are on different devices");
  if (!recorded() || !begin->recorded())
    throw std::invalid_argument("elapsed_time needs two recorded events");
  const double begin_ns = static_cast<double>(begin->end_time());
  return (static_cast<double>(end_time()) - begin_ns) / 1e6;
}

std::shared_ptr<runtime::Stream> OpenCLDevice::create_stream() {
  runtime::require_not_forked(info_.id);
  cl_int status = CL_SUCCESS;
  CommandQueue queue(&api_, api_.clCreateCommandQueue(context_.get(), device_.device,
                                                      CL_QUEUE_PROFILING_ENABLE, &status));
  check(status, "clCreateCommandQueue");
  auto stream = std::make_shared<OpenCLStream>(*this, std::move(queue));
  std::lock_guard lock(order_mutex_);
  streams_.push_back(stream);
  return stream;
}

std::shared_ptr<runtime::Event> OpenCLDevice::create_event() {
  return std::make_shared<OpenCLEvent>(*this);
}

std::shared_ptr<runtime::HostAllocation> OpenCLDevice::allocate_host(size_t bytes,
                                                                     runtime::HostMemoryKind kind) {
  if (kind != runtime::HostMemoryKind::Pinned) return allocate_shared(bytes, kind);
  constexpr size_t kAlignment = 4096;
  void* p = std::aligned_alloc(
      kAlignment, (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment);
  if (!p)
    throw runtime::OutOfMemory("out of host memory: could not allocate " +
                               runtime::human_bytes(bytes) + " of pinned memory");
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, p, nullptr, bytes, [p] { std::free(p); }));
}

// Mapped and managed memory are one thing here: a fine-grained SVM allocation, which the
// host reads and writes at its own address while kernels use it, with what a kernel wrote
// visible to the host once the kernel has completed (OpenCL 2.0, 5.6.2). Kernels take it
// as every array, a cl_mem and an offset: a buffer created over the SVM memory with
// CL_MEM_USE_HOST_PTR has that memory as its storage (5.2.1), so copies, fills,
// sub-buffers and launches treat it as any other allocation of this device.
std::shared_ptr<runtime::HostAllocation> OpenCLDevice::allocate_shared(
    size_t bytes, runtime::HostMemoryKind kind) {
  runtime::require_not_forked(info_.id);
  const std::string what = runtime::host_memory_name(kind);
  if (!device_.svm_fine_grain_buffer)
    throw std::invalid_argument(
        what + " memory on " + info_.id + " (" + device_.name + ", " + device_.version +
        ") needs fine-grained shared virtual memory (OpenCL 2.0's "
        "CL_DEVICE_SVM_FINE_GRAIN_BUFFER), which the device lacks; copy arrays to the device "
        "instead (simt.asarray, cuda.to_device)");
  const size_t request = std::max<size_t>(bytes, 1);
  const std::string detail = " allocating " + std::to_string(bytes) + " bytes (" +
                             runtime::human_bytes(bytes) + ") of " + what + " memory";
  void* host =
      api_.clSVMAlloc(context_.get(), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, request, 0);
  if (host == nullptr)
    throw runtime::OutOfMemory("out of memory on " + info_.id + " (" + device_.name +
                               "): clSVMAlloc failed" + detail);
  cl_int status = CL_SUCCESS;
  MemObject memory(
      &api_, api_.clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, request,
                                 host, &status));
  if (status != CL_SUCCESS) {
    api_.clSVMFree(context_.get(), host);
    check(status, "clCreateBuffer", detail);
  }
  void* address = enter(std::move(memory), request);
  // Devices are never destroyed (registry.cpp), so the release may use this one.
  auto release = [this, host, address] {
    // clSVMFree does not wait for the commands using the memory: work queued on any
    // stream goes first. A device that cannot say it finished keeps the memory.
    try {
      synchronize();
    } catch (...) {
      return;
    }
    deallocate(address, 0);
    if (!runtime::inherited_gpu_devices()) api_.clSVMFree(context_.get(), host);
  };
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, host, address, bytes, std::move(release)));
}

std::shared_ptr<runtime::HostAllocation> OpenCLDevice::register_host(void* host, size_t bytes,
                                                                     runtime::HostMemoryKind kind) {
  if (kind != runtime::HostMemoryKind::Pinned)
    throw std::invalid_argument(std::string(runtime::host_memory_name(kind)) + " memory on " +
                                info_.id +
                                " (OpenCL) is allocated by simt (mapped_empty, "
                                "managed_empty), not made of existing host memory");
  // OpenCL copies from host memory wait for their data whatever the memory
  // is, so a registration changes nothing but is accepted as Numba's is.
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, host, nullptr, bytes, nullptr));
}

void OpenCLDevice::queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                                        runtime::Stream& stream, runtime::KeepAlive) {
  if (bytes == 0) return;
  auto [memory, offset] = resolve(device_dst, bytes);
  check(api_.clEnqueueWriteBuffer(queue_for(stream), memory, CL_TRUE, offset, bytes, host_src, 0,
                                  nullptr, nullptr),
        "clEnqueueWriteBuffer", " copying " + std::to_string(bytes) + " bytes to the device");
}

void OpenCLDevice::queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                                      runtime::Stream& stream, runtime::KeepAlive) {
  if (bytes == 0) return;
  auto [memory, offset] = resolve(device_src, bytes);
  check(api_.clEnqueueReadBuffer(queue_for(stream), memory, CL_TRUE, offset, bytes, host_dst, 0,
                                 nullptr, nullptr),
        "clEnqueueReadBuffer", " copying " + std::to_string(bytes) + " bytes from the device");
}

void OpenCLDevice::queue_copy_on_device(void* dst, const void* src, size_t bytes,
                                        runtime::Stream& stream, runtime::KeepAlive) {
  // clEnqueueCopyBuffer rejects overlapping ranges of one buffer.
  runtime::copy_overlapping(*this, dst, src, bytes, [&](void* d, const void* s, size_t n) {
    auto [to, to_offset] = resolve(d, n);
    auto [from, from_offset] = resolve(s, n);
    check(api_.clEnqueueCopyBuffer(queue_for(stream), from, to, from_offset, to_offset, n, 0,
                                   nullptr, nullptr),
          "clEnqueueCopyBuffer", " copying " + std::to_string(n) + " bytes on the device");
  });
}

void OpenCLDevice::fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) {
  runtime::require_not_forked(info_.id);
  if (pattern_bytes == 0 || count == 0) return;
  if (count > SIZE_MAX / pattern_bytes)
    throw std::invalid_argument("fill_bytes: " + std::to_string(count) + " items of " +
                                std::to_string(pattern_bytes) + " bytes overflow size_t");
  const size_t total = pattern_bytes * count;
  auto [memory, offset] = resolve(dst, total);
  // clEnqueueFillBuffer takes patterns of 1, 2, 4, ..., 128 bytes at offsets
  // that are multiples of the pattern's size.
  const bool power_of_two = (pattern_bytes & (pattern_bytes - 1)) == 0;
  if (power_of_two && pattern_bytes <= 128 && offset % pattern_bytes == 0) {
    check(api_.clEnqueueFillBuffer(queue_for(default_stream_), memory, pattern, pattern_bytes,
                                   offset, total, 0, nullptr, nullptr),
          "clEnqueueFillBuffer", " filling " + std::to_string(total) + " bytes");
    return;
  }
  runtime::fill_by_doubling(*this, dst, pattern, pattern_bytes, count,
                            [&](void* d, const void* s, size_t n) { copy_on_device(d, s, n); });
}

std::string OpenCLDevice::build_options(const runtime::CompileOptions& options) const {
  // Without sub-groups, a kernel's warp operations exchange values through a __local
  // array of one 8-byte slot per work-item (kOpenCLWarps), as many as the largest
  // work-group, rounded up to whole warps.
  std::string warps;
  if (!device_.warp_subgroups_missing.empty())
    warps = "-D SIMT_WARP_SCRATCH=" + std::to_string((device_.max_work_group_size + 31) / 32 * 32);
  // Without fastmath, float32 division and sqrt are correctly rounded as in
  // NumPy (OpenCL otherwise allows 2.5 and 3 ulp) where the device can.
  std::string rounding;
  if (options.fastmath)
    rounding = "-cl-fast-relaxed-math";
  else if (device_.fp32_correctly_rounded_divide_sqrt)
    rounding = "-cl-fp32-correctly-rounded-divide-sqrt";
  if (warps.empty() || rounding.empty()) return warps + rounding;
  return warps + " " + rounding;
}

BuildResult OpenCLDevice::build_cached(const std::string& key, const std::string& source,
                                       const std::string& flags, Program* program,
                                       const std::function<std::string(const Program&)>& describe,
                                       std::string* description) {
  if (!missing_linker_.empty()) {
    throw runtime::DeviceError(info_.id + " (" + device_.name +
                               ") cannot build kernels: " + missing_linker_);
  }
  BuildResult built;
  if (key.empty()) {  // not to be cached
    built = build_program(context_, device_.device, source, flags, program);
    if (built.ok && describe && description != nullptr) *description = describe(*program);
    return built;
  }
  runtime::DiskCache::instance().load_or_build(
      "opencl", key,
      [&](std::string_view payload) {
        if (built.ok) return true;  // just built from source
        runtime::PayloadReader in(payload);
        std::string kept;
        if (!in.get_string(&kept)) return false;
        // A cached binary the driver still takes skips the OpenCL C compiler.
        built = build_program_from_binary(context_, device_.device, in.tail(), flags, program);
        if (built.ok && description != nullptr) *description = std::move(kept);
        return built.ok;
      },
      [&]() -> std::optional<std::string> {
        built = build_program(context_, device_.device, source, flags, program);
        if (!built.ok) return std::nullopt;
        std::string kept = describe ? describe(*program) : std::string();
        if (description != nullptr) *description = kept;
        std::string binary = program_binary(*program);
        if (binary.empty()) return std::nullopt;
        runtime::PayloadWriter out;
        out.put_string(kept);
        out.put_tail(binary);
        return out.take();
      });
  return built;
}

std::unique_ptr<runtime::CompiledKernel> OpenCLDevice::build(
    const abi::GeneratedKernel& kernel, const runtime::CompileOptions& options) {
  runtime::require_not_forked(info_.id);
  Program program;
  BuildResult built;
  const std::string build_flags = build_options(options);
  // The program binary depends on the driver and device as much as on the
  // source: all are in the key.
  const std::string key = runtime::cache_key(
      "opencl", {device_.name, device_.vendor, device_.version, device_.driver_version, build_flags,
                 kernel.entry, kernel.source});
  try {
    built = build_cached(key, kernel.source, build_flags, &program, {}, nullptr);
  } catch (const OpenCLError& error) {
    throw runtime::DeviceError("building " + kernel.entry + " for " + info_.id + " (" +
                               device_.name + "): " + error.what());
  }
  if (!built.ok) {
    throw runtime::BackendCompileError(
        "the OpenCL compiler of " + info_.id + " (" + device_.name + ", " + device_.version +
        ") rejected the OpenCL C code of " + kernel.entry + ":\n" +
        abi::shortened_compiler_log(abi::annotate_compiler_log(built.log, kernel.source)) +
        unknown_cpu_note(built.log));
  }

  Kernel cl_kernel_object = kernel_object(program.get(), kernel.entry);

  std::size_t max_group = 0;
  check(api_.clGetKernelWorkGroupInfo(cl_kernel_object.get(), device_.device,
                                      CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group,
                                      nullptr),
        "clGetKernelWorkGroupInfo", " for " + kernel.entry);

  std::vector<OpenCLKernel::Argument> arguments;
  cl_uint index = 0;
  for (const abi::Param& param : kernel.params) {
    OpenCLKernel::Argument argument;
    argument.index = index;
    argument.bytes = param.bytes();
    if (param.role == abi::Param::Role::ArrayData || param.role == abi::Param::Role::CheckRecord)
      argument.kind = OpenCLKernel::Argument::Kind::Buffer;
    else if (param.role == abi::Param::Role::SharedBytes)
      argument.kind = OpenCLKernel::Argument::Kind::LocalMemory;
    index += static_cast<cl_uint>(param.c_params);
    arguments.push_back(argument);
  }
  return std::make_unique<OpenCLKernel>(std::move(program), std::move(cl_kernel_object),
                                        kernel.entry, std::move(arguments), max_group);
}

std::shared_ptr<runtime::RawProgram> OpenCLDevice::compile_raw(const runtime::RawSource& source) {
  runtime::require_not_forked(info_.id);
  if (!source.name_expressions.empty())
    throw std::invalid_argument(
        "name_expressions name CUDA C++ template instances; OpenCL C (the language of " + info_.id +
        ") has no templates");
  std::string flags;
  for (const std::string& option : source.options) flags += option + " ";
  flags += "-cl-kernel-arg-info";
  // Include paths name files whose contents no key can cover: such a program
  // is kept in memory only.
  const bool includes = flags.find("-I") != std::string::npos;
  const std::string key =
      includes ? std::string()
               : runtime::cache_key("opencl-raw", {device_.name, device_.vendor, device_.version,
                                                   device_.driver_version, flags, source.source});
  Program program;
  BuildResult built;
  std::string description;
  try {
    built = build_cached(
        key, source.source, flags, &program,
        [&](const Program& p) {
          RawKernels kernels;
          for (const std::string& name : program_kernel_names(p)) {
            Kernel kernel = kernel_object(p.get(), name);
            for (const KernelArg& arg : kernel_args(api_, kernel.get()))
              kernels[name].push_back(raw_param(arg));
            kernels.try_emplace(name);  // a kernel without parameters
          }
          return pack_raw_kernels(kernels);
        },
        &description);
  } catch (const OpenCLError& error) {
    throw runtime::DeviceError("building a raw OpenCL C program for " + info_.id + " (" +
                               device_.name + "): " + error.what());
  }
  if (!built.ok) {
    throw runtime::BackendCompileError(
        "the OpenCL compiler of " + info_.id + " (" + device_.name + ", " + device_.version +
        ") rejected the OpenCL C source:\n" + abi::shortened_compiler_log(built.log) +
        unknown_cpu_note(built.log));
  }
  std::optional<RawKernels> kernels = unpack_raw_kernels(description);
  if (!kernels) throw runtime::DeviceError("a raw program's kernel list did not read back");
  return std::make_shared<OpenCLRawProgram>(api_, device_.device, info_.id, std::move(program),
                                            std::move(*kernels));
}

OpenCLDevice::NDRange OpenCLDevice::ndrange(const OpenCLKernel& kernel,
                                            const runtime::LaunchDims& dims) const {
  NDRange range;
  std::size_t group = 1;
  for (int d = 0; d < 3; ++d) {
    range.local[d] = static_cast<std::size_t>(dims.block[d]);
    range.global[d] = static_cast<std::size_t>(dims.grid[d]) * range.local[d];
    group *= range.local[d];
  }
  if (group > kernel.max_work_group_size()) {
    throw std::invalid_argument(
        "launch of " + kernel.entry() + " on " + info_.id + ": a block of " +
        std::to_string(group) + " threads is more than this kernel can run on " + device_.name +
        " (" + std::to_string(kernel.max_work_group_size()) + ", CL_KERNEL_WORK_GROUP_SIZE)");
  }
  return range;
}

void OpenCLDevice::set_arguments(const OpenCLKernel& kernel, cl_kernel target,
                                 const runtime::LaunchDims& dims, void* const* args) const {
  const auto& arguments = kernel.arguments();
  // Error texts are built only on failure: this loop runs on every launch.
  auto set = [&](cl_uint index, std::size_t bytes, const void* value, std::size_t slot) {
    cl_int status = api_.clSetKernelArg(target, index, bytes, value);
    if (status != CL_SUCCESS)
      check(status, "clSetKernelArg",
            " (argument slot " + std::to_string(slot) + " of " + kernel.entry() + ")");
  };
  for (std::size_t k = 0; k < arguments.size(); ++k) {
    const OpenCLKernel::Argument& argument = arguments[k];
    if (argument.kind == OpenCLKernel::Argument::Kind::Buffer) {
      auto [memory, offset] = resolve(*static_cast<void* const*>(args[k]), 0);
      cl_ulong byte_offset = offset;
      set(argument.index, sizeof memory, &memory, k);
      set(argument.index + 1, sizeof byte_offset, &byte_offset, k);
    } else if (argument.kind == OpenCLKernel::Argument::Kind::RawBuffer) {
      cl_mem memory = buffer_at(*static_cast<void* const*>(args[k]));
      set(argument.index, sizeof memory, &memory, k);
    } else if (argument.kind == OpenCLKernel::Argument::Kind::LocalMemory) {
      // A __local buffer is sized by the launch: no value, just its size
      // (OpenCL refuses 0 bytes).
      set(argument.index, std::max<std::size_t>(dims.shared_bytes, 1), nullptr, k);
      set(argument.index + 1, argument.bytes, args[k], k);
    } else {
      set(argument.index, argument.bytes, args[k], k);
    }
  }
}

Kernel OpenCLDevice::kernel_object(cl_program program, const std::string& entry) const {
  cl_int status = CL_SUCCESS;
  Kernel kernel(&api_, api_.clCreateKernel(program, entry.c_str(), &status));
  check(status, "clCreateKernel", " for " + entry);
  return kernel;
}

void OpenCLDevice::note_launch(const std::string& entry) {
  std::lock_guard<std::mutex> last(last_launch_mutex_);
  last_launch_ = entry;
}

void OpenCLDevice::queue_launch(const runtime::CompiledKernel& compiled,
                                const runtime::LaunchDims& dims, void* const* args,
                                runtime::Stream& stream, runtime::KeepAlive) {
  runtime::require_not_forked(info_.id);
  const auto& kernel = static_cast<const OpenCLKernel&>(compiled);
  const NDRange range = ndrange(kernel, dims);
  std::lock_guard<std::mutex> lock(kernel.launch_mutex());
  set_arguments(kernel, kernel.kernel(), dims, args);
  note_launch(kernel.entry());
  cl_int status =
      api_.clEnqueueNDRangeKernel(queue_for(stream), kernel.kernel(), 3, nullptr,
                                  range.global.data(), range.local.data(), 0, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    check(status, "clEnqueueNDRangeKernel",
          " launching " + kernel.entry() + " with global size " + dims_text(range.global) +
              " and work-group size " + dims_text(range.local));
  }
}

std::unique_ptr<runtime::GraphExec> OpenCLDevice::instantiate(
    std::shared_ptr<const runtime::GraphCommands> commands) {
  std::call_once(command_buffers_looked_up_,
                 [&] { command_buffers_ = CommandBufferApi::find(api_, device_, nullptr); });
  bool recordable = command_buffers_.has_value();
  for (const runtime::GraphCommand& command : *commands)
    if (recordable && command.kind == runtime::GraphCommand::Kind::Copy && !command_buffers_->copy)
      recordable = false;
  if (!recordable) return runtime::replay_commands(*this, std::move(commands));
  return command_buffer_replay(*this, *command_buffers_, std::move(commands));
}

void OpenCLDevice::synchronize() {
  runtime::require_not_forked(info_.id);
  std::vector<std::shared_ptr<OpenCLStream>> streams;
  {
    std::lock_guard lock(order_mutex_);
    streams = live_streams();
  }
  for (const auto& stream : streams) finish(*stream);
  finish(default_stream_);
}

}  // namespace simt::opencl
