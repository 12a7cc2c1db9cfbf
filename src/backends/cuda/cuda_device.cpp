#include "backends/cuda/cuda_device.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include "abi/compiler_log.h"
#include "backends/cuda/nvrtc.h"
#include "runtime/disk_cache.h"
#include "runtime/fork_guard.h"
#include "runtime/interrupt.h"

namespace simt::cuda {

namespace {

CUdeviceptr to_device(const void* pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
}

void* from_device(CUdeviceptr pointer) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer));
}

std::string device_label(int ordinal) { return "cuda:" + std::to_string(ordinal); }

std::string dims_text(const std::array<int64_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

}  // namespace

// ---------------------------------------------------------------------------
// Pure helpers
// ---------------------------------------------------------------------------

std::string architecture_name(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

CompileTarget choose_compile_target(int device_arch, const std::vector<int>& supported) {
  CompileTarget target;
  target.arch = device_arch;
  if (supported.empty() ||
      std::find(supported.begin(), supported.end(), device_arch) != supported.end()) {
    return target;  // a cubin for the device itself
  }
  // The newest architecture NVRTC knows at or below the device's: its PTX is
  // forward compatible, and the driver compiles it for the device.
  int best = 0;
  for (int arch : supported)
    if (arch <= device_arch) best = std::max(best, arch);
  if (best == 0) {
    target.error = "this NVRTC cannot compile for sm_" + std::to_string(device_arch) +
                   ": it supports sm_" + std::to_string(supported.front()) + " to sm_" +
                   std::to_string(supported.back()) +
                   " (an older CUDA toolkit's NVRTC, chosen with SIMT_NVRTC_PATH, may support it)";
    return target;
  }
  target.arch = best;
  target.cubin = false;
  return target;
}

// ---------------------------------------------------------------------------
// PrimaryContext
// ---------------------------------------------------------------------------

PrimaryContext::PrimaryContext(const Driver& driver, CUdevice device, std::string label)
    : driver_(driver), device_(device), label_(std::move(label)) {
  runtime::note_gpu_device_opened();
  CUresult status = driver_.fn().cuDevicePrimaryCtxRetain(&context_, device_);
  if (status != CUDA_SUCCESS) {
    throw runtime::DeviceError(driver_.describe("cuDevicePrimaryCtxRetain", label_, status));
  }
}

PrimaryContext::~PrimaryContext() {
  // Errors are ignored: at process exit the driver may already be shutting
  // down (CUDA_ERROR_DEINITIALIZED), which releases the context anyway.
  driver_.fn().cuDevicePrimaryCtxRelease_v2(device_);
}

void PrimaryContext::make_current() const {
  // Every launch and copy comes here, nearly always with the context already
  // current: a read of the thread's context skips the heavier set. In a fork's
  // child the context is the parent's, which the driver does not carry over.
  runtime::require_not_forked(label_);
  CUcontext current = nullptr;
  if (driver_.fn().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return;
  CUresult status = driver_.fn().cuCtxSetCurrent(context_);
  if (status != CUDA_SUCCESS) {
    throw runtime::DeviceError(driver_.describe("cuCtxSetCurrent", label_, status));
  }
}

void PrimaryContext::make_current_noexcept() const noexcept {
  driver_.fn().cuCtxSetCurrent(context_);
}

void PrimaryContext::check(CUresult status, const char* call) const {
  if (status != CUDA_SUCCESS) throw runtime::DeviceError(driver_.describe(call, label_, status));
}

bool PrimaryContext::ready(CUresult status, const char* call) const {
  if (status == CUDA_ERROR_NOT_READY) return false;
  check(status, call);
  return true;
}

// ---------------------------------------------------------------------------
// CudaKernel
// ---------------------------------------------------------------------------

LoadedModule::~LoadedModule() {
  context_->make_current_noexcept();
  context_->driver().fn().cuModuleUnload(module_);
}

const std::string* intern_name(std::string name) {
  static std::mutex mutex;
  static auto* names = new std::unordered_set<std::string>;  // never freed: outlives all
  std::lock_guard<std::mutex> lock(mutex);
  return &*names->insert(std::move(name)).first;
}

CudaKernel::CudaKernel(std::shared_ptr<const LoadedModule> module, CUfunction function,
                       std::string entry, std::string target, std::string ptx)
    : module_(std::move(module)),
      function_(function),
      entry_(intern_name(std::move(entry))),
      target_(std::move(target)),
      ptx_(std::move(ptx)) {}

// ---------------------------------------------------------------------------
// CudaDevice
// ---------------------------------------------------------------------------

struct CudaDevice::Probe {
  runtime::DeviceInfo info;
  CUdevice device = 0;
  std::pair<int, int> capability{0, 0};
};

CudaDevice::Probe CudaDevice::probe(const Driver& driver, int ordinal) {
  const DriverFunctions& fn = driver.fn();
  const std::string label = device_label(ordinal);
  auto check = [&](CUresult status, const char* call) {
    if (status != CUDA_SUCCESS) throw runtime::DeviceError(driver.describe(call, label, status));
  };

  Probe probe;
  check(fn.cuDeviceGet(&probe.device, ordinal), "cuDeviceGet");
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(fn.cuDeviceGetAttribute(&value, which, probe.device), "cuDeviceGetAttribute");
    return value;
  };

  char name[256] = {};
  check(fn.cuDeviceGetName(name, static_cast<int>(sizeof name - 1), probe.device),
        "cuDeviceGetName");
  std::size_t total = 0;
  check(fn.cuDeviceTotalMem_v2(&total, probe.device), "cuDeviceTotalMem");

  probe.capability = {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
  runtime::DeviceInfo& info = probe.info;
  info.id = label;
  info.name = name;
  info.backend = runtime::BackendKind::Cuda;
  info.index = ordinal;
  info.gpu = true;
  info.architecture = architecture_name(probe.capability.first, probe.capability.second);
  info.total_memory = total;
  info.compute_units = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_block_dim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  info.max_grid_dim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                       attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                       attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  // Without opting in per kernel (cuFuncSetAttribute), which simt does not.
  info.max_shared_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  return probe;
}

CudaDevice::CudaDevice(const Driver& driver, int ordinal)
    : CudaDevice(driver, ordinal, probe(driver, ordinal)) {}

CudaDevice::CudaDevice(const Driver& driver, int ordinal, Probe probe)
    : Device(std::move(probe.info)),
      driver_(driver),
      ordinal_(ordinal),
      capability_(probe.capability),
      context_(std::make_shared<const PrimaryContext>(driver, probe.device, info_.id)),
      default_stream_(std::make_unique<CudaStream>(context_, nullptr, false, host_queue_)) {}

void CudaDevice::check(CUresult status, const char* call, std::string_view detail) const {
  if (status != CUDA_SUCCESS)
    throw runtime::DeviceError(driver_.describe(call, info_.id, status, detail));
}

void* CudaDevice::allocate(size_t bytes) {
  context_->make_current();
  // cuMemAlloc refuses 0 bytes; a zero-byte array still gets a valid pointer.
  const size_t request = std::max<size_t>(bytes, 1);
  CUdeviceptr pointer = 0;
  CUresult status = driver_.fn().cuMemAlloc_v2(&pointer, request);
  if (status == CUDA_ERROR_OUT_OF_MEMORY) {
    std::string message = "out of memory on " + info_.id + ": could not allocate " +
                          std::to_string(bytes) + " bytes (" + runtime::human_bytes(bytes) + ")";
    std::size_t free_bytes = 0, total_bytes = 0;
    if (driver_.fn().cuMemGetInfo_v2(&free_bytes, &total_bytes) == CUDA_SUCCESS) {
      message +=
          "; " + runtime::human_bytes(free_bytes) + " free of " + runtime::human_bytes(total_bytes);
    }
    message += "; " + driver_.describe("cuMemAlloc", info_.id, status);
    throw runtime::OutOfMemory(message);
  }
  check(status, "cuMemAlloc",
        " allocating " + std::to_string(bytes) + " bytes (" + runtime::human_bytes(bytes) + ")");
  return from_device(pointer);
}

// The pool's segments go while the context is still retained.
CudaDevice::~CudaDevice() { release_pool(); }

void CudaDevice::deallocate(void* pointer, size_t) noexcept {
  if (pointer == nullptr || runtime::inherited_gpu_devices()) return;
  context_->make_current_noexcept();
  // Errors are ignored: a sticky error or driver shutdown frees it anyway.
  driver_.fn().cuMemFree_v2(to_device(pointer));
}

CudaStream::CudaStream(std::shared_ptr<const PrimaryContext> context, CUstream handle, bool owned,
                       std::shared_ptr<runtime::WorkQueue> host_queue)
    : context_(std::move(context)),
      handle_(handle),
      owned_(owned),
      host_queue_(std::move(host_queue)) {}

CudaStream::~CudaStream() {
  if (!owned_ && !grid_barrier_) return;
  context_->make_current_noexcept();
  // The driver lets queued work finish first.
  if (owned_) context_->driver().fn().cuStreamDestroy_v2(handle_);
  // cuMemFree waits for the work using it.
  if (grid_barrier_) context_->driver().fn().cuMemFree_v2(grid_barrier_);
}

CUdeviceptr CudaStream::grid_barrier() {
  std::lock_guard lock(grid_barrier_mutex_);
  if (!grid_barrier_) {
    CUdeviceptr words = 0;
    context_->check(context_->driver().fn().cuMemAlloc_v2(&words, 2 * sizeof(unsigned int)),
                    "cuMemAlloc");
    grid_barrier_ = words;
  }
  return grid_barrier_;
}

void CudaStream::synchronize() {
  context_->make_current();
  // The blocking call cannot be interrupted: an interruptible wait polls first.
  runtime::poll_interruptibly(
      [&] { return context_->driver().fn().cuStreamQuery(handle_) != CUDA_ERROR_NOT_READY; });
  CUresult status = context_->driver().fn().cuStreamSynchronize(handle_);
  if (status == CUDA_SUCCESS) return;
  const std::string* last_entry = last_launch_.load(std::memory_order_relaxed);
  const std::string last = last_entry != nullptr ? *last_entry : std::string();
  if (last.empty()) context_->check(status, "cuStreamSynchronize");
  throw runtime::DeviceError(context_->driver().describe(
      "cuStreamSynchronize", context_->label(), status,
      " (the most recent kernel queued on this stream was " + last + ")"));
}

bool CudaStream::done() {
  context_->make_current();
  return context_->ready(context_->driver().fn().cuStreamQuery(handle_), "cuStreamQuery");
}

void CudaStream::wait_event(runtime::Event& event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(&event);
  if (!cuda_event) throw std::invalid_argument("the event is not a CUDA event");
  context_->make_current();
  context_->check(context_->driver().fn().cuStreamWaitEvent(handle_, cuda_event->handle(), 0),
                  "cuStreamWaitEvent");
}

namespace {

// What cuLaunchHostFunc's host function gets: a callback and the host
// queue to run it on.
struct PendingCallback {
  std::weak_ptr<runtime::WorkQueue> queue;
  std::function<void()> callback;
};

// The host function: hands the callback to its host thread (pushing calls
// no driver function). Exceptions cannot cross the driver's C frames.
void hand_over_callback(void* user_data) {
  auto* pending = static_cast<PendingCallback*>(user_data);
  try {
    if (auto queue = pending->queue.lock()) {
      queue->push(std::move(pending->callback));
      delete pending;
    }
  } catch (...) {
  }
  // Otherwise (the device is being torn down) the callback is leaked: what
  // it holds may call the driver as it goes, which a host function may not.
}

}  // namespace

void CudaStream::add_callback(std::function<void()> callback) {
  context_->make_current();
  auto pending =
      std::make_unique<PendingCallback>(PendingCallback{host_queue_, std::move(callback)});
  context_->check(
      context_->driver().fn().cuLaunchHostFunc(handle_, hand_over_callback, pending.get()),
      "cuLaunchHostFunc");
  pending.release();  // the host function frees it
}

CudaEvent::CudaEvent(std::shared_ptr<const PrimaryContext> context) : context_(std::move(context)) {
  context_->make_current();
  context_->check(context_->driver().fn().cuEventCreate(&handle_, CU_EVENT_DEFAULT),
                  "cuEventCreate");
}

CudaEvent::~CudaEvent() {
  context_->make_current_noexcept();
  context_->driver().fn().cuEventDestroy_v2(handle_);
}

void CudaEvent::record(runtime::Stream& stream) {
  context_->make_current();
  context_->check(
      context_->driver().fn().cuEventRecord(handle_, static_cast<CudaStream&>(stream).handle()),
      "cuEventRecord");
  recorded_ = true;
}

void CudaEvent::synchronize() {
  context_->make_current();
  runtime::poll_interruptibly(
      [&] { return context_->driver().fn().cuEventQuery(handle_) != CUDA_ERROR_NOT_READY; });
  context_->check(context_->driver().fn().cuEventSynchronize(handle_), "cuEventSynchronize");
}

bool CudaEvent::done() {
  context_->make_current();
  return context_->ready(context_->driver().fn().cuEventQuery(handle_), "cuEventQuery");
}

double CudaEvent::elapsed_ms_since(runtime::Event& start) {
  auto* begin = dynamic_cast<CudaEvent*>(&start);
  if (!begin) throw std::invalid_argument("the events of elapsed_time are on different devices");
  if (!recorded_ || !begin->recorded_)
    throw std::invalid_argument("elapsed_time needs two recorded events");
  begin->synchronize();
  synchronize();
  float ms = 0;
  context_->check(context_->driver().fn().cuEventElapsedTime(&ms, begin->handle_, handle_),
                  "cuEventElapsedTime");
  return ms;
}

std::shared_ptr<runtime::Stream> CudaDevice::create_stream() {
  context_->make_current();
  CUstream handle = nullptr;
  check(driver_.fn().cuStreamCreate(&handle, CU_STREAM_DEFAULT), "cuStreamCreate");
  return std::make_shared<CudaStream>(context_, handle, true, host_queue_);
}

std::shared_ptr<runtime::Event> CudaDevice::create_event() {
  return std::make_shared<CudaEvent>(context_);
}

void* CudaDevice::mapped_pointer(void* host, const std::function<void()>& release,
                                 const std::string& detail) {
  CUdeviceptr pointer = 0;
  CUresult status = driver_.fn().cuMemHostGetDevicePointer_v2(&pointer, host, 0);
  if (status != CUDA_SUCCESS) {
    release();  // the memory is not handed out: undo its allocation or registration
    check(status, "cuMemHostGetDevicePointer", detail);
  }
  return from_device(pointer);
}

std::shared_ptr<runtime::HostAllocation> CudaDevice::allocate_host(size_t bytes,
                                                                   runtime::HostMemoryKind kind) {
  context_->make_current();
  const size_t request = std::max<size_t>(bytes, 1);
  const std::string detail = " allocating " + std::to_string(bytes) + " bytes (" +
                             runtime::human_bytes(bytes) + ") of " +
                             runtime::host_memory_name(kind) + " memory";
  auto context = context_;
  if (kind == runtime::HostMemoryKind::Managed) {
    CUdeviceptr pointer = 0;
    check(driver_.fn().cuMemAllocManaged(&pointer, request, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged", detail);
    void* p = from_device(pointer);
    return runtime::HostAllocation::registered(
        std::make_shared<runtime::HostAllocation>(kind, p, p, bytes, [context, pointer] {
          context->make_current_noexcept();
          context->driver().fn().cuMemFree_v2(pointer);
        }));
  }
  const bool mapped = kind == runtime::HostMemoryKind::Mapped;
  void* host = nullptr;
  check(driver_.fn().cuMemHostAlloc(
            &host, request, CU_MEMHOSTALLOC_PORTABLE | (mapped ? CU_MEMHOSTALLOC_DEVICEMAP : 0)),
        "cuMemHostAlloc", detail);
  auto release = [context, host] {
    context->make_current_noexcept();
    context->driver().fn().cuMemFreeHost(host);
  };
  void* device_pointer = mapped ? mapped_pointer(host, release, detail) : nullptr;
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, host, device_pointer, bytes, release));
}

void CudaDevice::release_after(CudaStream& stream, runtime::KeepAlive keep) {
  if (keep.empty()) return;
  CUevent event = nullptr;
  {
    std::lock_guard lock(pending_mutex_);
    if (!spare_events_.empty()) {
      event = spare_events_.back();
      spare_events_.pop_back();
    }
  }
  if (!event) check(driver_.fn().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  CUresult status = driver_.fn().cuEventRecord(event, stream.handle());
  {
    std::lock_guard lock(pending_mutex_);
    if (status == CUDA_SUCCESS) {
      pending_.push_back({event, std::move(keep)});
    } else {
      spare_events_.push_back(event);
    }
  }
  // Unordered: what the work holds stays until the stream is done with it.
  if (status != CUDA_SUCCESS) stream.synchronize();
  collect_released(false);
}

void CudaDevice::collect_released(bool all) {
  std::vector<runtime::KeepAlive> released;  // destroyed after the lock
  std::lock_guard lock(pending_mutex_);
  std::erase_if(pending_, [&](PendingRelease& p) {
    if (!all && driver_.fn().cuEventQuery(p.event) == CUDA_ERROR_NOT_READY) return false;
    released.push_back(std::move(p.keep));
    spare_events_.push_back(p.event);
    return true;
  });
}

std::shared_ptr<runtime::HostAllocation> CudaDevice::register_host(void* host, size_t bytes,
                                                                   runtime::HostMemoryKind kind) {
  if (kind == runtime::HostMemoryKind::Managed)
    throw std::invalid_argument("existing memory cannot become managed memory");
  context_->make_current();
  const std::string detail = " page-locking " + std::to_string(bytes) + " bytes (" +
                             runtime::human_bytes(bytes) + ") of existing host memory";
  const bool mapped = kind == runtime::HostMemoryKind::Mapped;
  // Zero bytes: nothing to lock (the driver rejects it); the registration
  // still lets a kernel take the empty array.
  auto context = context_;
  std::function<void()> release;
  if (bytes > 0) {
    check(
        driver_.fn().cuMemHostRegister_v2(
            host, bytes, CU_MEMHOSTREGISTER_PORTABLE | (mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0)),
        "cuMemHostRegister", detail);
    release = [context, host] {
      context->make_current_noexcept();
      context->driver().fn().cuMemHostUnregister(host);
    };
  }
  void* device_pointer = nullptr;
  if (mapped) device_pointer = bytes > 0 ? mapped_pointer(host, release, detail) : host;
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, host, device_pointer, bytes, release));
}

void CudaDevice::queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                                      runtime::Stream& stream, runtime::KeepAlive keep) {
  if (bytes == 0) return;
  context_->make_current();
  auto& cuda_stream = static_cast<CudaStream&>(stream);
  const std::string detail = " copying " + std::to_string(bytes) + " bytes to the device";
  if (!keep.host && stream.is_default()) {
    check(driver_.fn().cuMemcpyHtoD_v2(to_device(device_dst), host_src, bytes), "cuMemcpyHtoD",
          detail);
    return;
  }
  check(driver_.fn().cuMemcpyHtoDAsync_v2(to_device(device_dst), host_src, bytes,
                                          cuda_stream.handle()),
        "cuMemcpyHtoDAsync", detail);
  // Host memory without an owner may be pinned memory of another library,
  // which the driver reads later: done with it only once the copy is.
  if (!keep.host) return stream.synchronize();
  release_after(cuda_stream, std::move(keep));
}

void CudaDevice::queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                                    runtime::Stream& stream, runtime::KeepAlive keep) {
  if (bytes == 0) return;
  context_->make_current();
  auto& cuda_stream = static_cast<CudaStream&>(stream);
  const std::string detail = " copying " + std::to_string(bytes) + " bytes from the device";
  if (!keep.host && stream.is_default()) {
    check(driver_.fn().cuMemcpyDtoH_v2(host_dst, to_device(device_src), bytes), "cuMemcpyDtoH",
          detail);
    return;
  }
  check(driver_.fn().cuMemcpyDtoHAsync_v2(host_dst, to_device(device_src), bytes,
                                          cuda_stream.handle()),
        "cuMemcpyDtoHAsync", detail);
  if (!keep.host) return stream.synchronize();
  release_after(cuda_stream, std::move(keep));
}

void CudaDevice::queue_copy_on_device(void* dst, const void* src, size_t bytes,
                                      runtime::Stream& stream, runtime::KeepAlive keep) {
  if (bytes == 0 || dst == src) return;
  context_->make_current();
  CUstream handle = static_cast<CudaStream&>(stream).handle();
  const std::string detail = " copying " + std::to_string(bytes) + " bytes on the device";
  // cuMemcpyDtoD leaves overlapping ranges undefined.
  runtime::copy_overlapping(*this, dst, src, bytes, [&](void* d, const void* s, size_t n) {
    check(driver_.fn().cuMemcpyDtoDAsync_v2(to_device(d), to_device(s), n, handle),
          "cuMemcpyDtoDAsync", detail);
  });
  release_after(static_cast<CudaStream&>(stream), std::move(keep));
}

void CudaDevice::fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) {
  if (pattern_bytes == 0 || count == 0) return;
  const auto* bytes = static_cast<const unsigned char*>(pattern);
  context_->make_current();
  if (std::all_of(bytes, bytes + pattern_bytes, [&](unsigned char b) { return b == bytes[0]; }) &&
      count <= SIZE_MAX / pattern_bytes) {
    check(driver_.fn().cuMemsetD8_v2(to_device(dst), bytes[0], pattern_bytes * count), "cuMemsetD8",
          " filling " + std::to_string(pattern_bytes * count) + " bytes");
    return;
  }
  runtime::fill_by_doubling(*this, dst, pattern, pattern_bytes, count,
                            [&](void* d, const void* s, size_t n) {
                              check(driver_.fn().cuMemcpyDtoD_v2(to_device(d), to_device(s), n),
                                    "cuMemcpyDtoD", " filling " + std::to_string(n) + " bytes");
                            });
}

std::vector<std::string> CudaDevice::nvrtc_options(const runtime::CompileOptions& options) {
  std::vector<std::string> out;
  // Without fastmath, no contraction of a*b+c into an FMA: results then equal
  // NumPy's and the CPU backend's (-ffp-contract=off) bit for bit. NVRTC's
  // other defaults are already IEEE (-prec-div, -prec-sqrt, no -ftz).
  out.emplace_back(options.fastmath ? "--use_fast_math" : "--fmad=false");
  // Line tables only: they cost no speed, and let a profiler or
  // compute-sanitizer point into the generated source (-G would deoptimize).
  if (options.debug) out.emplace_back("-lineinfo");
  return out;
}

namespace {

// The arguments are views, not const std::string&: GCC 13's -Wdangling-reference takes a
// reference returned by a call with a temporary string argument for one into it.
const Nvrtc& require_nvrtc(std::string_view what, std::string_view device) {
  std::string why;
  const Nvrtc* nvrtc = Nvrtc::get(&why);
  if (nvrtc == nullptr)
    throw runtime::DeviceError("cannot compile " + std::string(what) + " for " +
                               std::string(device) + ": NVRTC is unavailable: " + why);
  return *nvrtc;
}

std::string nvrtc_version_string(const Nvrtc& nvrtc) {
  return std::to_string(nvrtc.version().first) + "." + std::to_string(nvrtc.version().second);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += item + "\n";
  return out;
}

// The cache's payload: the lowered names, the PTX (for display), then the image.
std::string pack_binary(const std::vector<std::string>& lowered, const std::string& ptx,
                        const std::string& image) {
  runtime::PayloadWriter out;
  out.put_u32(static_cast<uint32_t>(lowered.size()));
  for (const std::string& name : lowered) out.put_string(name);
  out.put_string(ptx);
  out.put_tail(image);
  return out.take();
}

// A raw CUDA C++ program: one module, its kernels looked up by name or by
// name expression.
class CudaRawProgram : public runtime::RawProgram {
 public:
  CudaRawProgram(const Driver& driver, std::string label,
                 std::shared_ptr<const LoadedModule> module, std::string target,
                 std::vector<std::pair<std::string, std::string>> lowered)
      : driver_(driver),
        label_(std::move(label)),
        module_(std::move(module)),
        target_(std::move(target)),
        lowered_(std::move(lowered)) {}

  runtime::RawFunction function(const std::string& name) override {
    module_->make_current();
    std::string entry = name;
    for (const auto& [expression, mangled] : lowered_)
      if (expression == name) entry = mangled;
    CUfunction function = nullptr;
    CUresult status = driver_.fn().cuModuleGetFunction(&function, module_->get(), entry.c_str());
    if (status == CUDA_ERROR_NOT_FOUND)
      throw std::invalid_argument(
          "no kernel '" + name + "' in this CUDA program for " + label_ +
          ": declare it extern \"C\" __global__, or list a template instance such as "
          "'kernel<float>' in name_expressions");
    if (status != CUDA_SUCCESS)
      throw runtime::DeviceError(
          driver_.describe("cuModuleGetFunction", label_, status, " looking up " + name));
    runtime::RawFunction out;
    out.kernel = std::make_shared<CudaKernel>(module_, function, entry, target_, std::string());
    out.entry = entry;
    // The driver knows each parameter's size (not its type) from 12.4 on.
    if (driver_.fn().cuFuncGetParamInfo != nullptr) {
      out.params_known = true;
      for (std::size_t k = 0;; ++k) {
        std::size_t offset = 0, size = 0;
        CUresult info = driver_.fn().cuFuncGetParamInfo(function, k, &offset, &size);
        if (info == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
        if (info != CUDA_SUCCESS) {                   // the driver cannot say: nothing is checked
          out.params_known = false;
          out.params.clear();
          break;
        }
        runtime::RawParam param;
        param.bytes = size;
        out.params.push_back(param);
      }
    }
    return out;
  }

 private:
  const Driver& driver_;
  std::string label_;
  std::shared_ptr<const LoadedModule> module_;
  std::string target_;
  std::vector<std::pair<std::string, std::string>> lowered_;
};

// Include paths name files whose contents no key can cover: a program
// compiled with one is kept in memory only.
bool has_include_path(const std::vector<std::string>& options) {
  for (const std::string& option : options)
    if (option.starts_with("-I") || option.starts_with("--include-path")) return true;
  return false;
}

}  // namespace

CudaBinary compile_cached(const Nvrtc& nvrtc, const runtime::DiskCache& cache, int driver_version,
                          std::string_view source, const std::string& program_name,
                          const CompileTarget& target, const std::vector<std::string>& options,
                          const std::vector<std::string>& name_expressions, bool cacheable,
                          const std::string& what) {
  const std::string nvrtc_version = nvrtc_version_string(nvrtc);
  CudaBinary binary;
  binary.target = (target.cubin ? "sm_" : "compute_") + std::to_string(target.arch);
  auto use = [&](std::string_view payload) {
    runtime::PayloadReader in(payload);
    uint32_t count = 0;
    if (!in.get_u32(&count) || count != name_expressions.size()) return false;
    binary.lowered_names.assign(count, std::string());
    for (std::string& name : binary.lowered_names)
      if (!in.get_string(&name)) return false;
    if (!in.get_string(&binary.ptx) || in.tail().empty()) return false;
    binary.image = std::string(in.tail());
    return true;
  };
  auto build = [&]() -> std::optional<std::string> {
    CompileResult result = nvrtc.compile(source, program_name, target.arch / 10, target.arch % 10,
                                         options, target.cubin, name_expressions);
    if (!result.ok) {
      throw runtime::BackendCompileError("NVRTC " + nvrtc_version + " rejected " + what + " for " +
                                         binary.target + ":\n" +
                                         abi::shortened_compiler_log(result.log));
    }
    return pack_binary(result.lowered_names, result.ptx, target.cubin ? result.cubin : result.ptx);
  };
  if (!cacheable) {
    use(*build());
    return binary;
  }
  // The driver's version is in the key too, so that a driver update (which
  // may load older images differently) starts afresh.
  const std::string key = runtime::cache_key(
      "cuda", {nvrtc_version, driver_version_string(driver_version), binary.target, joined(options),
               joined(name_expressions), program_name, source});
  cache.load_or_build("cuda", key, use, build);
  return binary;
}

std::unique_ptr<runtime::CompiledKernel> CudaDevice::build(const abi::GeneratedKernel& kernel,
                                                           const runtime::CompileOptions& options) {
  const Nvrtc& nvrtc = require_nvrtc(kernel.entry, info_.id);
  const int device_arch = capability_.first * 10 + capability_.second;
  return compile_for(kernel, options, choose_compile_target(device_arch, nvrtc.supported_archs()));
}

CudaBinary CudaDevice::compile_target_checked(std::string_view source,
                                              const std::string& program_name,
                                              const CompileTarget& target,
                                              const std::vector<std::string>& options,
                                              const std::vector<std::string>& name_expressions,
                                              bool cacheable, const std::string& what) {
  const Nvrtc& nvrtc = require_nvrtc(what, info_.id);
  if (!target.error.empty()) {
    throw runtime::DeviceError("cannot compile " + what + " for " + info_.id + " (" + info_.name +
                               "): NVRTC " + nvrtc_version_string(nvrtc) + " (" +
                               nvrtc.library_path() + "): " + target.error);
  }
  return compile_cached(nvrtc, runtime::DiskCache::instance(), driver_.version(), source,
                        program_name, target, options, name_expressions, cacheable, what);
}

std::shared_ptr<const LoadedModule> CudaDevice::load_module(const CudaBinary& binary,
                                                            const std::string& what) {
  context_->make_current();
  // The driver's own log, for PTX it fails to compile (and rare cubin faults).
  char jit_log[8192] = {};
  CUjit_option jit_options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* jit_values[] = {jit_log,
                        reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof jit_log - 1))};
  CUmodule module = nullptr;
  CUresult status =
      driver_.fn().cuModuleLoadDataEx(&module, binary.image.c_str(), 2, jit_options, jit_values);
  if (status != CUDA_SUCCESS) {
    std::string why;
    const Nvrtc* nvrtc = Nvrtc::get(&why);
    std::string detail = " loading " + what + " (" + binary.target + ", driver " +
                         driver_version_string(driver_.version());
    if (nvrtc != nullptr) {
      detail += ", from NVRTC " + nvrtc_version_string(*nvrtc);
      const int nvrtc_as_driver = nvrtc->version().first * 1000 + nvrtc->version().second * 10;
      if (driver_.version() < nvrtc_as_driver) {
        detail +=
            "; this driver is older than NVRTC and may not load its output: update the "
            "driver, or point SIMT_NVRTC_PATH at the NVRTC of a CUDA toolkit no newer than "
            "the driver";
      }
    }
    detail += ")";
    jit_log[sizeof jit_log - 1] = '\0';
    if (jit_log[0] != '\0') detail += "\n" + std::string(jit_log);
    check(status, "cuModuleLoadDataEx", detail);
  }
  return std::make_shared<const LoadedModule>(context_, module);
}

std::unique_ptr<CudaKernel> CudaDevice::compile_for(const abi::GeneratedKernel& kernel,
                                                    const runtime::CompileOptions& options,
                                                    const CompileTarget& target) {
  CudaBinary binary =
      compile_target_checked(kernel.source, kernel.entry + ".cu", target, nvrtc_options(options),
                             {}, true, "the CUDA code of " + kernel.entry);
  std::shared_ptr<const LoadedModule> module = load_module(binary, kernel.entry);
  CUfunction function = nullptr;
  check(driver_.fn().cuModuleGetFunction(&function, module->get(), kernel.entry.c_str()),
        "cuModuleGetFunction", " looking up kernel " + kernel.entry);
  auto compiled = std::make_unique<CudaKernel>(std::move(module), function, kernel.entry,
                                               binary.target, std::move(binary.ptx));
  compiled->param_count = kernel.params.size();
  for (size_t k = 0; k < kernel.params.size(); ++k)
    if (kernel.params[k].role == abi::Param::Role::GridBarrier)
      compiled->grid_barrier_param = static_cast<int>(k);
  return compiled;
}

int64_t CudaDevice::max_cooperative_blocks(const runtime::CompiledKernel& compiled,
                                           int64_t threads_per_block, size_t dynamic_shared_bytes) {
  const auto& kernel = static_cast<const CudaKernel&>(compiled);
  if (threads_per_block < 1 || threads_per_block > info_.max_threads_per_block) return 0;
  context_->make_current();
  int per_multiprocessor = 0;
  check(driver_.fn().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_multiprocessor, kernel.function(), static_cast<int>(threads_per_block),
            dynamic_shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", " for kernel " + kernel.entry());
  return static_cast<int64_t>(per_multiprocessor) * info_.compute_units;
}

std::shared_ptr<runtime::RawProgram> CudaDevice::compile_raw(const runtime::RawSource& source) {
  const Nvrtc& nvrtc = require_nvrtc("a raw CUDA program", info_.id);
  const int device_arch = capability_.first * 10 + capability_.second;
  std::vector<std::string> options = source.options;
  // CuPy's RawKernel finds the toolkit's headers (cuda_fp16.h...) too.
  if (nvrtc.toolkit_include_dir()) options.emplace_back(kToolkitIncludesOption);
  CudaBinary binary = compile_target_checked(
      source.source, "raw_kernel.cu", choose_compile_target(device_arch, nvrtc.supported_archs()),
      options, source.name_expressions, !has_include_path(options), "the CUDA C++ source");
  std::shared_ptr<const LoadedModule> module = load_module(binary, "a raw CUDA program");
  std::vector<std::pair<std::string, std::string>> lowered;
  for (std::size_t k = 0; k < source.name_expressions.size(); ++k)
    lowered.emplace_back(source.name_expressions[k], binary.lowered_names[k]);
  return std::make_shared<CudaRawProgram>(driver_, info_.id, std::move(module), binary.target,
                                          std::move(lowered));
}

void CudaDevice::queue_launch(const runtime::CompiledKernel& compiled,
                              const runtime::LaunchDims& dims, void* const* args,
                              runtime::Stream& stream, runtime::KeepAlive keep) {
  const auto& kernel = static_cast<const CudaKernel&>(compiled);
  unsigned int grid[3], block[3];
  for (int d = 0; d < 3; ++d) {
    if (dims.grid[d] < 1 || dims.grid[d] > UINT_MAX || dims.block[d] < 1 ||
        dims.block[d] > UINT_MAX) {
      throw std::invalid_argument("launch of " + kernel.entry() + " on " + info_.id + ": grid " +
                                  dims_text(dims.grid) + " and block " + dims_text(dims.block) +
                                  " must be between 1 and " + std::to_string(UINT_MAX));
    }
    grid[d] = static_cast<unsigned int>(dims.grid[d]);
    block[d] = static_cast<unsigned int>(dims.block[d]);
  }
  if (dims.shared_bytes > UINT_MAX) {
    throw std::invalid_argument("launch of " + kernel.entry() + " on " + info_.id + ": " +
                                std::to_string(dims.shared_bytes) +
                                " bytes of shared memory is too many");
  }
  context_->make_current();
  last_launch_.store(kernel.interned_entry(), std::memory_order_relaxed);
  auto& cuda_stream = static_cast<CudaStream&>(stream);
  CUresult status;
  const char* call = "cuLaunchKernel";
  if (kernel.cooperative) {
    // The grid barrier's words, zeroed in stream order before the kernel
    // runs, replace the placeholder the launch packed for them.
    std::vector<void*> params;
    CUdeviceptr barrier = 0;
    if (kernel.grid_barrier_param >= 0) {
      barrier = cuda_stream.grid_barrier();
      check(driver_.fn().cuMemsetD32Async(barrier, 0, 2, cuda_stream.handle()), "cuMemsetD32Async",
            " zeroing the grid barrier of " + kernel.entry());
      params.assign(args, args + kernel.param_count);
      params[static_cast<size_t>(kernel.grid_barrier_param)] = &barrier;
    }
    call = "cuLaunchCooperativeKernel";
    status = driver_.fn().cuLaunchCooperativeKernel(
        kernel.function(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
        static_cast<unsigned int>(dims.shared_bytes), cuda_stream.handle(),
        params.empty() ? const_cast<void**>(args) : params.data());
  } else {
    status = driver_.fn().cuLaunchKernel(kernel.function(), grid[0], grid[1], grid[2], block[0],
                                         block[1], block[2],
                                         static_cast<unsigned int>(dims.shared_bytes),
                                         cuda_stream.handle(), const_cast<void**>(args), nullptr);
  }
  if (status != CUDA_SUCCESS) {
    check(status, call,
          " launching " + kernel.entry() + " with grid " + dims_text(dims.grid) + ", block " +
              dims_text(dims.block) + " and " + std::to_string(dims.shared_bytes) +
              " bytes of dynamic shared memory");
  }
  static_cast<CudaStream&>(stream).note_launch(kernel.interned_entry());
  release_after(static_cast<CudaStream&>(stream), std::move(keep));
}

bool CudaDevice::holds_pointer(const void* pointer) const {
  if (!context_) return false;
  context_->make_current_noexcept();
  int ordinal = -1;
  // Host memory the driver does not know answers CUDA_ERROR_INVALID_VALUE.
  CUresult status = driver_.fn().cuPointerGetAttribute(&ordinal, kPointerAttributeDeviceOrdinal,
                                                       reinterpret_cast<CUdeviceptr>(pointer));
  return status == CUDA_SUCCESS && ordinal == ordinal_;
}

void CudaDevice::synchronize() {
  context_->make_current();
  // The context has no query: an interruptible wait polls the legacy default
  // stream (where launches without a stream go); work on other streams is
  // then waited for by cuCtxSynchronize, uninterruptibly.
  runtime::poll_interruptibly(
      [&] { return driver_.fn().cuStreamQuery(nullptr) != CUDA_ERROR_NOT_READY; });
  CUresult status = driver_.fn().cuCtxSynchronize();
  if (status == CUDA_SUCCESS) collect_released(true);
  if (status != CUDA_SUCCESS) {
    const std::string* last_entry = last_launch_.load(std::memory_order_relaxed);
    const std::string last = last_entry != nullptr ? *last_entry : std::string();
    check(status, "cuCtxSynchronize",
          last.empty() ? std::string()
                       : " (the most recent kernel launched on " + info_.id + " was " + last + ")");
  }
}

}  // namespace simt::cuda
