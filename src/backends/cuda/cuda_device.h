// The CUDA device: one GPU through the driver API (cuda_driver.h), kernels
// compiled by NVRTC (nvrtc.h) to a cubin for the device's exact architecture.
//
// Every operation makes the device's primary context current on the calling
// thread first, so a device can be used from any thread, next to other
// libraries (PyTorch, CuPy) that share the same primary context. The
// default stream is CUDA's legacy default stream (stream 0), which PyTorch
// and CuPy also use by default; streams the user creates are blocking ones
// (they synchronize with it).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_driver.h"
#include "runtime/device.h"
#include "runtime/disk_cache.h"

namespace simt::cuda {

class Nvrtc;

// What NVRTC should produce for a device: a cubin for sm_XY itself when this
// NVRTC knows the architecture, else PTX for the newest compute_XY it knows
// below the device (the driver JIT-compiles it; PTX runs on later GPUs).
struct CompileTarget {
  int arch = 0;       // 90 for sm_90 / compute_90
  bool cubin = true;  // false: PTX for compute_<arch>
  std::string error;  // non-empty: no usable target (device older than NVRTC supports)
};

// `device_arch` as major*10+minor (90, 100, 120); `supported` the sm_XY list of
// Nvrtc::supported_archs(), sorted; empty means unknown (then the exact
// architecture is tried as a cubin).
CompileTarget choose_compile_target(int device_arch, const std::vector<int>& supported);

// "sm_90" for (9, 0), "sm_100" for (10, 0).
std::string architecture_name(int major, int minor);

// NVRTC's output for one program.
struct CudaBinary {
  std::string target;  // "sm_90" (a cubin) or "compute_90" (PTX)
  std::string image;   // what the driver loads
  std::string ptx;
  std::vector<std::string> lowered_names;  // of the name expressions, in order
};

// Compiles `source` for `target` (which must have no error), or reads the
// output an earlier process stored in `cache` (not when `cacheable` is
// false). The key holds NVRTC's and the driver's versions, the target, the
// options, the name expressions, the program name and the source. Throws
// runtime::BackendCompileError with NVRTC's log; `what` names the code.
CudaBinary compile_cached(const Nvrtc& nvrtc, const runtime::DiskCache& cache, int driver_version,
                          std::string_view source, const std::string& program_name,
                          const CompileTarget& target, const std::vector<std::string>& options,
                          const std::vector<std::string>& name_expressions, bool cacheable,
                          const std::string& what);

// The device's primary context, retained for as long as this object lives.
// Shared by the device and the kernels loaded on it, so a module can always be
// unloaded in the context it was loaded in.
class PrimaryContext {
 public:
  PrimaryContext(const Driver& driver, CUdevice device, std::string label);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  // cuCtxSetCurrent on the calling thread; throws runtime::DeviceError.
  void make_current() const;
  // The same, errors ignored (for destructors).
  void make_current_noexcept() const noexcept;
  // Throws runtime::DeviceError naming this device when `status` is an error.
  void check(CUresult status, const char* call) const;
  // A query's answer: false for CUDA_ERROR_NOT_READY, true for success;
  // throws for anything else.
  bool ready(CUresult status, const char* call) const;

  const Driver& driver() const { return driver_; }
  CUcontext context() const { return context_; }
  CUdevice device() const { return device_; }
  const std::string& label() const { return label_; }  // "cuda:0"

 private:
  const Driver& driver_;
  CUdevice device_;
  CUcontext context_ = nullptr;
  std::string label_;
};

// A module loaded on one device; unloaded (in its context) when the last
// kernel using it goes.
class LoadedModule {
 public:
  LoadedModule(std::shared_ptr<const PrimaryContext> context, CUmodule module)
      : context_(std::move(context)), module_(module) {}
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  CUmodule get() const { return module_; }
  // Its context, current on the calling thread (for lookups in the module).
  void make_current() const { context_->make_current(); }

 private:
  std::shared_ptr<const PrimaryContext> context_;
  CUmodule module_;
};

// `name`, kept for the process's life, one copy per distinct name: what the last
// launch's bookkeeping points at (a pointer store on every launch instead of a locked
// string copy). Kernel and library call names are few.
const std::string* intern_name(std::string name);

// A kernel's function in a loaded module.
class CudaKernel : public runtime::CompiledKernel {
 public:
  CudaKernel(std::shared_ptr<const LoadedModule> module, CUfunction function, std::string entry,
             std::string target, std::string ptx);

  CUfunction function() const { return function_; }
  const std::string& entry() const { return *entry_; }
  const std::string* interned_entry() const { return entry_; }
  // "sm_90" (a cubin) or "compute_90" (PTX the driver compiled).
  const std::string& target() const { return target_; }
  // NVRTC's PTX for the kernel, when it handed it out (for display).
  const std::string& ptx() const { return ptx_; }
  // The index of its GridBarrier parameter (a cooperative kernel's), else -1.
  int grid_barrier_param = -1;
  size_t param_count = 0;  // the C parameters of a generated kernel

 private:
  std::shared_ptr<const LoadedModule> module_;
  CUfunction function_;
  // Interned (kept for the process's life): the device and its streams note the last
  // launch's entry as this pointer, which outlives the kernel.
  const std::string* entry_;
  std::string target_;
  std::string ptx_;
};

// A CUDA stream; the legacy default stream when `handle` is null. Streams
// the device creates are destroyed with this object. Callbacks run on
// `host_queue`, a host thread the driver's host function hands them to:
// code run inside a host function may not call the driver, and a callback
// (or what it releases: arrays, streams, pinned memory) may.
class CudaStream : public runtime::Stream {
 public:
  CudaStream(std::shared_ptr<const PrimaryContext> context, CUstream handle, bool owned,
             std::shared_ptr<runtime::WorkQueue> host_queue);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  CUstream handle() const { return handle_; }
  void synchronize() override;
  bool done() override;
  void wait_event(runtime::Event& event) override;
  void add_callback(std::function<void()> callback) override;
  bool is_default() const override { return handle_ == nullptr; }
  // What was queued here last (a kernel's entry, a library call; a name from
  // intern_name()): a fault it causes surfaces at a later wait, whose error then
  // names it.
  void note_launch(const std::string* interned) {
    last_launch_.store(interned, std::memory_order_relaxed);
  }
  // The grid barrier state (two 32-bit words) of cooperative launches queued
  // here, zeroed on the stream before each: launches on one stream run one
  // after another, so one suffices. Allocated on first use, freed with the
  // stream.
  CUdeviceptr grid_barrier();

 private:
  std::shared_ptr<const PrimaryContext> context_;
  CUstream handle_;
  bool owned_;
  std::shared_ptr<runtime::WorkQueue> host_queue_;
  std::atomic<const std::string*> last_launch_{nullptr};  // an interned entry
  std::mutex grid_barrier_mutex_;
  CUdeviceptr grid_barrier_ = 0;
};

class CudaEvent : public runtime::Event {
 public:
  explicit CudaEvent(std::shared_ptr<const PrimaryContext> context);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  CUevent handle() const { return handle_; }
  void record(runtime::Stream& stream) override;
  void synchronize() override;
  bool done() override;
  bool recorded() const override { return recorded_; }
  double elapsed_ms_since(runtime::Event& start) override;

 private:
  std::shared_ptr<const PrimaryContext> context_;
  CUevent handle_ = nullptr;
  bool recorded_ = false;
};

class CudaDevice : public runtime::Device {
 public:
  // Opens device `ordinal` of an initialised driver and retains its primary
  // context. Throws runtime::DeviceError.
  CudaDevice(const Driver& driver, int ordinal);
  ~CudaDevice() override;

  abi::Language language() const override { return abi::Language::Cuda; }
  bool host_accessible() const override { return false; }

  void* allocate(size_t bytes) override;
  void deallocate(void* pointer, size_t bytes) noexcept override;
  void queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                            runtime::Stream& stream, runtime::KeepAlive keep) override;
  void queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                          runtime::Stream& stream, runtime::KeepAlive keep) override;
  void queue_copy_on_device(void* dst, const void* src, size_t bytes, runtime::Stream& stream,
                            runtime::KeepAlive keep) override;
  void fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) override;

  std::unique_ptr<runtime::CompiledKernel> build(const abi::GeneratedKernel& kernel,
                                                 const runtime::CompileOptions& options) override;
  // Blocks resident at once: the occupancy of `kernel` per multiprocessor
  // times the multiprocessors (what cuLaunchCooperativeKernel accepts).
  int64_t max_cooperative_blocks(const runtime::CompiledKernel& kernel, int64_t threads_per_block,
                                 size_t dynamic_shared_bytes) override;
  void queue_launch(const runtime::CompiledKernel& kernel, const runtime::LaunchDims& dims,
                    void* const* args, runtime::Stream& stream, runtime::KeepAlive keep) override;
  void synchronize() override;
  // A CUDA graph captured from the commands (cuda_graph.cpp).
  std::unique_ptr<runtime::GraphExec> instantiate(
      std::shared_ptr<const runtime::GraphCommands> commands) override;
  // Asks the driver which device the pointer's memory is on (unified
  // addressing makes every device pointer name its device).
  bool holds_pointer(const void* pointer) const override;

  runtime::Stream& default_stream() override { return *default_stream_; }
  std::shared_ptr<runtime::Stream> create_stream() override;
  std::shared_ptr<runtime::Event> create_event() override;
  std::shared_ptr<runtime::HostAllocation> allocate_host(size_t bytes,
                                                         runtime::HostMemoryKind kind) override;
  std::shared_ptr<runtime::HostAllocation> register_host(void* host, size_t bytes,
                                                         runtime::HostMemoryKind kind) override;

 private:
  // The device address of mapped host memory; on failure calls `release`, then throws.
  void* mapped_pointer(void* host, const std::function<void()>& release, const std::string& detail);

 public:
  // CUDA C++ source, compiled by NVRTC with the options given (the toolkit's
  // headers on the include path) for this device's architecture.
  std::shared_ptr<runtime::RawProgram> compile_raw(const runtime::RawSource& source) override;

  // build() for an explicit target instead of choose_compile_target's:
  // e.g. {90, false} loads compute_90 PTX that the driver compiles.
  std::unique_ptr<CudaKernel> compile_for(const abi::GeneratedKernel& kernel,
                                          const runtime::CompileOptions& options,
                                          const CompileTarget& target);

  int ordinal() const { return ordinal_; }
  std::pair<int, int> compute_capability() const { return capability_; }
  const Driver& driver() const { return driver_; }
  // The device's primary context, for the toolkit's libraries (cuBLAS, cuFFT),
  // whose handles and plans keep it retained.
  const std::shared_ptr<const PrimaryContext>& context() const { return context_; }

  // The NVRTC options compile() passes for `options` (the architecture and
  // -std are added by Nvrtc::compile): --fmad=false, or --use_fast_math with
  // fastmath; -lineinfo with debug.
  static std::vector<std::string> nvrtc_options(const runtime::CompileOptions& options);

  // Keeps `keep` until the work queued on `stream` so far is done: an event
  // recorded after it is polled at later calls and at synchronize() (a host
  // function in the stream would delay its later work by a driver thread's
  // wake-up, tens of microseconds).
  void release_after(CudaStream& stream, runtime::KeepAlive keep);

 private:
  struct Probe;
  static Probe probe(const Driver& driver, int ordinal);
  CudaDevice(const Driver& driver, int ordinal, Probe probe);

  // compile_cached through the process's disk cache, after checking that
  // NVRTC is there and `target` usable on this device.
  CudaBinary compile_target_checked(std::string_view source, const std::string& program_name,
                                    const CompileTarget& target,
                                    const std::vector<std::string>& options,
                                    const std::vector<std::string>& name_expressions,
                                    bool cacheable, const std::string& what);
  // Loads a cubin or PTX image; throws runtime::DeviceError with the driver's
  // log. `what` names the code in messages.
  std::shared_ptr<const LoadedModule> load_module(const CudaBinary& binary,
                                                  const std::string& what);

  // Throws runtime::DeviceError with the formatted message when `status` is
  // not CUDA_SUCCESS.
  void check(CUresult status, const char* call, std::string_view detail = {}) const;

  const Driver& driver_;
  int ordinal_;
  std::pair<int, int> capability_{0, 0};
  std::shared_ptr<const PrimaryContext> context_;
  // Runs streams' callbacks.
  std::shared_ptr<runtime::WorkQueue> host_queue_ = std::make_shared<runtime::WorkQueue>();
  std::unique_ptr<CudaStream> default_stream_;
  // Releases what completed work kept; all of it with `all` (after a
  // synchronize). Destroys the kept objects outside the lock.
  void collect_released(bool all);
  struct PendingRelease {
    CUevent event = nullptr;
    runtime::KeepAlive keep;
  };
  std::mutex pending_mutex_;
  std::vector<PendingRelease> pending_;
  std::vector<CUevent> spare_events_;

  // The entry of the most recent launch (interned: CudaKernel), named when
  // synchronize() reports a kernel's fault (the driver reports faults at the next
  // synchronizing call).
  std::atomic<const std::string*> last_launch_{nullptr};
};

}  // namespace simt::cuda
