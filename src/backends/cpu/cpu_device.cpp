#include "backends/cpu/cpu_device.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "abi/compiler_log.h"
#include "abi/cpu_entry.h"
#include "backends/cpu/clang_jit.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/fault_guard.h"
#include "backends/cpu/fibers.h"
#include "backends/cpu/grid_barrier.h"
#include "backends/cpu/shared_arena.h"
#include "runtime/disk_cache.h"
#include "runtime/interrupt.h"

namespace simt::cpu {

namespace {

using BlockContext = abi::CpuBlockContext;
using KernelEntry = abi::CpuKernelEntry;

}  // namespace

class CpuStream : public runtime::Stream {
 public:
  explicit CpuStream(std::shared_ptr<runtime::WorkQueue> callbacks)
      : callbacks_(std::move(callbacks)) {}
  void push(std::function<void()> task) { queue_.push(std::move(task)); }
  void synchronize() override { queue_.drain(); }
  bool done() override { return queue_.idle(); }
  void wait_event(runtime::Event& event) override;
  // The stream's worker hands the callback to the device's callback thread
  // when it gets there, so a callback may use the stream (even wait for it)
  // without waiting for itself.
  void add_callback(std::function<void()> callback) override {
    queue_.push([callbacks = callbacks_, callback = std::move(callback)]() mutable {
      callbacks->push(std::move(callback));
    });
  }
  bool is_default() const override { return false; }

 private:
  std::shared_ptr<runtime::WorkQueue> callbacks_;
  runtime::WorkQueue queue_;
};

namespace {

// Its work ran inline, so it is always done; waiting on it means waiting
// for what it waits for.
class CpuDefaultStream : public runtime::Stream {
 public:
  explicit CpuDefaultStream(CpuDevice& device) : device_(device) {}
  void synchronize() override {}
  bool done() override { return true; }
  void wait_event(runtime::Event& event) override { event.synchronize(); }
  void add_callback(std::function<void()> callback) override {
    device_.submit(*this, std::move(callback));
  }
  bool is_default() const override { return true; }

 private:
  CpuDevice& device_;
};

class CpuEvent : public runtime::Event {
 public:
  explicit CpuEvent(CpuDevice& device) : device_(device) {}
  // Each recording completes a state of its own: a stream waiting for an
  // earlier recording is not held up by a later one.
  void record(runtime::Stream& stream) override {
    auto state = std::make_shared<runtime::HostEvent>();
    uint64_t recording = state->arm();
    device_.submit(stream, [state, recording] { state->complete(recording); });
    state_ = std::move(state);
    recorded_ = true;
  }
  void synchronize() override { state_->wait(); }
  bool done() override { return state_->done(); }
  bool recorded() const override { return recorded_; }
  const std::shared_ptr<runtime::HostEvent>& state() const { return state_; }
  double elapsed_ms_since(runtime::Event& start) override {
    auto* begin = dynamic_cast<CpuEvent*>(&start);
    if (!begin) throw std::invalid_argument("the events of elapsed_time are on different devices");
    if (!recorded_ || !begin->recorded_)
      throw std::invalid_argument("elapsed_time needs two recorded events");
    begin->synchronize();
    synchronize();
    return std::chrono::duration<double, std::milli>(state_->completed_at() -
                                                     begin->state_->completed_at())
        .count();
  }

 private:
  CpuDevice& device_;
  std::shared_ptr<runtime::HostEvent> state_ = std::make_shared<runtime::HostEvent>();
  bool recorded_ = false;
};

}  // namespace

std::string pack_object(const ClangJit::Object& object) {
  runtime::PayloadWriter out;
  out.put_u32(static_cast<uint32_t>(object.exported.size()));
  for (const auto& name : object.exported) out.put_string(name);
  out.put_tail(object.code);
  return out.take();
}

std::optional<ClangJit::Object> unpack_object(std::string_view payload) {
  runtime::PayloadReader in(payload);
  ClangJit::Object object;
  uint32_t count = 0;
  if (!in.get_u32(&count)) return std::nullopt;
  for (uint32_t k = 0; k < count; ++k) {
    if (!in.get_string(&object.exported.emplace_back())) return std::nullopt;
  }
  object.code = std::string(in.tail());
  return object;
}

namespace {

// Everything the machine code depends on: simt, Clang and their arguments
// (the host CPU's features among them), the entry and the source.
std::string cache_key(const abi::GeneratedKernel& kernel, const JitOptions& options) {
  std::string args;
  for (const auto& arg : ClangJit::instance().cc1_args(options)) args += arg + " ";
  return runtime::cache_key("cpu",
                            {ClangJit::instance().version(), args, kernel.entry, kernel.source});
}

// Cache lines and vector loads like 64-byte alignment; NumPy aligns less.
constexpr size_t kAlignment = 64;

runtime::DeviceInfo cpu_info() {
  runtime::DeviceInfo info;
  info.id = "cpu";
  info.backend = runtime::BackendKind::Cpu;
  info.architecture = ClangJit::instance().host_cpu();
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  info.name = "CPU (" + info.architecture + ", " + std::to_string(threads) + " threads)";
  info.compute_units = static_cast<int>(threads);
  // The same limits as CUDA's, so a launch valid on one is valid on the other
  // (shared memory too: DeviceInfo's default, CUDA's 48 KiB per block).
  info.max_threads_per_block = 1024;
  info.max_block_dim = {1024, 1024, 64};
  info.max_grid_dim = {2147483647, 65535, 65535};
  return info;
}

}  // namespace

void CpuStream::wait_event(runtime::Event& event) {
  // The worker blocks until the event's current recording completes; one
  // recorded after this call is not waited for (CUDA's rule).
  auto* cpu_event = dynamic_cast<CpuEvent*>(&event);
  if (!cpu_event) throw std::invalid_argument("the event is not a CPU event");
  if (cpu_event->done()) return;
  queue_.push([state = cpu_event->state()] { state->wait(); });
}

CpuDevice::CpuDevice() : Device(cpu_info()) {
  default_stream_ = std::make_unique<CpuDefaultStream>(*this);
  install_fault_handlers();
}

CpuDevice::~CpuDevice() { release_pool(); }

void* CpuDevice::allocate(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p)
    throw runtime::OutOfMemory("out of memory on cpu: could not allocate " + std::to_string(bytes) +
                               " bytes");
  return p;
}

void CpuDevice::deallocate(void* pointer, size_t) noexcept { std::free(pointer); }

std::shared_ptr<runtime::Stream> CpuDevice::create_stream() {
  auto stream = std::make_shared<CpuStream>(callbacks_);
  std::lock_guard lock(streams_mutex_);
  std::erase_if(streams_, [](const auto& s) { return s.expired(); });
  streams_.push_back(stream);
  return stream;
}

std::shared_ptr<runtime::Event> CpuDevice::create_event() {
  return std::make_shared<CpuEvent>(*this);
}

void CpuDevice::drain_streams() {
  std::vector<std::shared_ptr<CpuStream>> live;
  {
    std::lock_guard lock(streams_mutex_);
    for (const auto& s : streams_)
      if (auto stream = s.lock()) live.push_back(std::move(stream));
  }
  for (const auto& stream : live) stream->synchronize();
}

void CpuDevice::synchronize() { drain_streams(); }

void CpuDevice::submit(runtime::Stream& stream, std::function<void()> task) {
  if (stream.is_default()) {
    drain_streams();
    task();
  } else {
    static_cast<CpuStream&>(stream).push(std::move(task));
  }
}

std::shared_ptr<runtime::HostAllocation> CpuDevice::allocate_host(size_t bytes,
                                                                  runtime::HostMemoryKind kind) {
  // Host memory is the CPU device's memory: every kind is ordinary memory,
  // which kernels use in place.
  void* p = allocate(std::max<size_t>(bytes, 1));
  void* device_pointer = kind == runtime::HostMemoryKind::Pinned ? nullptr : p;
  return runtime::HostAllocation::registered(std::make_shared<runtime::HostAllocation>(
      kind, p, device_pointer, bytes, [p] { std::free(p); }));
}

std::shared_ptr<runtime::HostAllocation> CpuDevice::register_host(void* host, size_t bytes,
                                                                  runtime::HostMemoryKind kind) {
  if (kind == runtime::HostMemoryKind::Managed)
    throw std::invalid_argument("existing memory cannot become managed memory");
  // Already the device's memory: registering only lets kernels take it in
  // place (mapped) and copies of it run queued (pinned).
  void* device_pointer = kind == runtime::HostMemoryKind::Pinned ? nullptr : host;
  return runtime::HostAllocation::registered(
      std::make_shared<runtime::HostAllocation>(kind, host, device_pointer, bytes, nullptr));
}

void CpuDevice::queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                                     runtime::Stream& stream, runtime::KeepAlive keep) {
  if (stream.is_default()) {
    submit(stream, [=] { std::memcpy(device_dst, host_src, bytes); });
    return;
  }
  if (!keep.host) {
    // Pageable memory: copied now when nothing is queued before the copy,
    // else read now into a staging copy (CUDA does the same), so the caller
    // may reuse it on return.
    if (stream.done()) {
      std::memcpy(device_dst, host_src, bytes);
      return;
    }
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(host_src),
        static_cast<const unsigned char*>(host_src) + bytes);
    submit(stream, [=, keep = std::move(keep)] { std::memcpy(device_dst, staged->data(), bytes); });
    return;
  }
  submit(stream, [=, keep = std::move(keep)] { std::memcpy(device_dst, host_src, bytes); });
}

void CpuDevice::queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                                   runtime::Stream& stream, runtime::KeepAlive keep) {
  bool pageable = !keep.host;
  submit(stream, [=, keep = std::move(keep)] { std::memcpy(host_dst, device_src, bytes); });
  // Pageable memory is written when the call returns.
  if (pageable) stream.synchronize();
}

void CpuDevice::queue_copy_on_device(void* dst, const void* src, size_t bytes,
                                     runtime::Stream& stream, runtime::KeepAlive keep) {
  submit(stream, [=, keep = std::move(keep)] { std::memmove(dst, src, bytes); });
}

void CpuDevice::fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) {
  drain_streams();
  auto* out = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < count; ++i) std::memcpy(out + i * pattern_bytes, pattern, pattern_bytes);
}

std::unique_ptr<runtime::CompiledKernel> CpuDevice::build(const abi::GeneratedKernel& kernel,
                                                          const runtime::CompileOptions& options) {
  JitOptions jit_options;
  jit_options.fastmath = options.fastmath;
  std::shared_ptr<JitModule> module;
  ClangJit& jit = ClangJit::instance();
  try {
    std::optional<ClangJit::Object> object;
    runtime::DiskCache::instance().load_or_build(
        "cpu", cache_key(kernel, jit_options),
        [&](std::string_view payload) {
          object = unpack_object(payload);
          return object.has_value();
        },
        [&]() -> std::optional<std::string> {
          return pack_object(jit.compile_object(kernel.source, kernel.entry, jit_options));
        });
    module = jit.load(*object, kernel.entry);
  } catch (const JitError& e) {
    throw runtime::BackendCompileError(std::string("the CPU backend's compiler rejected the "
                                                   "generated code:\n") +
                                       abi::shortened_compiler_log(e.what()));
  }
  auto entry = reinterpret_cast<KernelEntry>(module->symbol(kernel.entry));
  if (!entry) throw runtime::DeviceError("compiled kernel has no symbol " + kernel.entry);
  std::vector<size_t> param_bytes;
  for (const auto& param : kernel.params) param_bytes.push_back(param.bytes());
  // Errors name the Python function the entry symbol was made from.
  constexpr std::string_view kPrefix = "simt_kernel_";
  std::string name =
      kernel.entry.starts_with(kPrefix) ? kernel.entry.substr(kPrefix.size()) : kernel.entry;
  return std::make_unique<CpuKernel>(std::move(module), entry, std::move(name),
                                     std::move(param_bytes), kernel.requirements.x_spans,
                                     kernel.requirements.cpu_shared_bytes,
                                     kernel.requirements.serial_blocks);
}

namespace {

// The first fault of a launch's blocks; the others stop at their next block.
struct GridFault {
  std::atomic<bool> happened{false};
  std::mutex mutex;
  Fault fault;
  int64_t block[3] = {0, 0, 0};
  int64_t x_blocks = 1;  // the call that faulted ran this many blocks from `block` along x

  // "block (x, y, z)", or "one of blocks (x..x2, y, z)" for a call that ran several.
  std::string where() const {
    std::string x = std::to_string(block[0]);
    if (x_blocks > 1) x += ".." + std::to_string(block[0] + x_blocks - 1);
    return std::string(x_blocks > 1 ? "one of blocks (" : "block (") + x + ", " +
           std::to_string(block[1]) + ", " + std::to_string(block[2]) + ")";
  }
};

std::string hex(uintptr_t value) {
  char text[2 + 2 * sizeof value + 1];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// Runs `block(b)` for each of `blocks` blocks at once, each on a thread of
// its own (a grid barrier needs every block running). A thread that cannot
// start stops the barrier, so the ones started finish, and is a DeviceError.
template <typename Block>
void run_concurrently(int64_t blocks, const Block& block, GridBarrier& barrier) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(blocks));
  std::string failure;
  try {
    for (int64_t b = 0; b < blocks; ++b) threads.emplace_back([&block, b] { block(b); });
  } catch (const std::system_error& e) {
    barrier.stop();
    failure = e.what();
  }
  for (auto& thread : threads) thread.join();
  if (!failure.empty())
    throw runtime::DeviceError("a cooperative launch of " + std::to_string(blocks) +
                               " blocks could not start a thread for each: " + failure);
}

// Returns whether the launch was cancelled before it ended; throws
// DeviceError when a block faulted.
// `launched`: the cancellation epoch when the launch was queued. A Ctrl-C
// since then moved it on: the kernel's `while` loops end, and blocks not
// started are skipped (all of them, for a launch queued before the Ctrl-C).
// A cooperative launch (`cooperative`: the kernel syncs the grid) runs each
// block on a thread of its own, so all of them wait at the grid barrier
// together; a block that ends leaves the barrier, a fault stops it.
// `x_spans`: one call of the entry runs consecutive blocks along x, up to the end
// of the row of blocks or of the task's range. `static_shared`: the bytes of
// the kernel's static shared arrays (abi::Requirements::cpu_shared_bytes).
// `serial`: the blocks run in order on this thread (a race-checked kernel's
// recorder is not thread-safe, race_recorder.h).
bool run_grid(KernelEntry entry, const std::string& name, const runtime::LaunchDims& dims,
              void* const* args, int64_t launched, bool cooperative, bool x_spans,
              int64_t static_shared, bool serial) {
  const std::atomic<int64_t>& epoch = runtime::cancel_epoch();
  auto cancelled = [&] { return epoch.load(std::memory_order_relaxed) != launched; };
  const int64_t gx = dims.grid[0], gy = dims.grid[1];
  const int64_t blocks = gx * gy * dims.grid[2];
  GridFault faulted;
  GridBarrier barrier(blocks, launched);
  auto run_blocks = [&](int64_t begin, int64_t end) {
    BlockContext ctx;
    for (int d = 0; d < 3; ++d) {
      ctx.grid_dim[d] = dims.grid[d];
      ctx.block_dim[d] = dims.block[d];
    }
    // This thread's guarded shared memory (shared_arena.h). The dynamic
    // bytes are zeroed once: blocks of one task run one after another and
    // share them, as they did a buffer. The static arrays start zeroed in
    // every block, so a kernel never reads indeterminate bytes.
    const BlockShared shared = shared_arena(static_shared, dims.shared_bytes);
    if (!shared.dynamic_shared) {
      std::lock_guard lock(faulted.mutex);
      if (!faulted.happened.exchange(true)) {
        faulted.fault.signal = 0;
        std::snprintf(faulted.fault.reason, sizeof faulted.fault.reason,
                      "no memory for its %lld bytes of shared memory",
                      static_cast<long long>(static_shared + dims.shared_bytes));
        faulted.block[0] = begin % gx;
        faulted.block[1] = (begin / gx) % gy;
        faulted.block[2] = begin / (gx * gy);
      }
      return;
    }
    std::memset(shared.dynamic_shared, 0, dims.shared_bytes);
    ctx.dynamic_shared = shared.dynamic_shared;
    ctx.static_shared = shared.static_shared;
    ctx.cancel_epoch = launched;
    ctx.fibers = fiber_api();
    ctx.grid_sync = cooperative ? &GridBarrier::sync : nullptr;
    ctx.grid = cooperative ? &barrier : nullptr;
    for (int64_t b = begin; b < end && !cancelled(); b += ctx.x_blocks) {
      if (faulted.happened.load(std::memory_order_relaxed)) return;
      ctx.block_idx[0] = b % gx;
      ctx.block_idx[1] = (b / gx) % gy;
      ctx.block_idx[2] = b / (gx * gy);
      ctx.x_blocks = x_spans ? std::min(end - b, gx - ctx.block_idx[0]) : 1;
      if (static_shared) std::memset(shared.static_shared, 0, static_cast<size_t>(static_shared));
      Fault fault;
      if (run_block_guarded(entry, &ctx, args, &fault)) continue;
      if (cooperative) barrier.stop();
      std::lock_guard lock(faulted.mutex);
      if (!faulted.happened.exchange(true)) {
        faulted.fault = fault;
        for (int d = 0; d < 3; ++d) faulted.block[d] = ctx.block_idx[d];
        faulted.x_blocks = ctx.x_blocks;
      }
      return;
    }
  };
  // A single block gains nothing from the pool and would pay its wake-up.
  if (cooperative && blocks > 1) {
    run_concurrently(
        blocks,
        [&](int64_t b) {
          run_blocks(b, b + 1);
          barrier.leave();
        },
        barrier);
  } else if (blocks == 1 || serial) {
    run_blocks(0, blocks);
  } else {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, blocks),
        [&](const tbb::blocked_range<int64_t>& r) { run_blocks(r.begin(), r.end()); });
  }
  if (faulted.happened) {
    const Fault& f = faulted.fault;
    if (f.overrun)
      throw runtime::DeviceError("kernel '" + name + "' on cpu stopped in " + faulted.where() +
                                 ": " + f.reason +
                                 "; what the launch wrote is unspecified. Launch with "
                                 "boundscheck=True (or SIMT_BOUNDSCHECK=1) to find the line");
    if (f.signal == 0)
      throw runtime::DeviceError("kernel '" + name + "' on cpu could not run " + faulted.where() +
                                 ": " + f.reason);
    throw runtime::DeviceError(
        "kernel '" + name + "' on cpu touched memory it may not (" +
        (f.signal == SIGBUS ? std::string("SIGBUS") : std::string("SIGSEGV")) + " at address " +
        hex(f.address) + ") in " + faulted.where() +
        "; the launch stopped there, and what it wrote is unspecified. An index past an "
        "array's end does this: launch with boundscheck=True (or SIMT_BOUNDSCHECK=1) to find it");
  }
  return cancelled();
}

}  // namespace

int64_t CpuDevice::max_cooperative_blocks(const runtime::CompiledKernel& kernel,
                                          int64_t threads_per_block, size_t dynamic_shared_bytes) {
  (void)kernel;
  (void)threads_per_block;
  (void)dynamic_shared_bytes;
  return kMaxCooperativeBlocks;
}

void CpuDevice::queue_launch(const runtime::CompiledKernel& compiled,
                             const runtime::LaunchDims& dims, void* const* args,
                             runtime::Stream& stream, runtime::KeepAlive keep) {
  const auto& kernel = static_cast<const CpuKernel&>(compiled);
  const int64_t launched = runtime::cancel_epoch().load(std::memory_order_relaxed);
  if (stream.is_default()) {
    drain_streams();
    // The grid runs on this thread: a Ctrl-C reaches it only through the
    // cancellation epoch, and is raised here once the kernel stopped.
    if (run_grid(kernel.entry(), kernel.name(), dims, args, launched, kernel.cooperative,
                 kernel.x_spans(), kernel.static_shared_bytes(), kernel.serial_blocks()))
      runtime::check_interrupt();
    return;
  }
  // The arguments are read now: copied into storage the queued launch owns.
  const auto& sizes = kernel.param_bytes();
  std::vector<std::array<uint64_t, 2>> values(sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) std::memcpy(values[k].data(), args[k], sizes[k]);
  static_cast<CpuStream&>(stream).push(
      [module = kernel.module(), entry = kernel.entry(), name = kernel.name(), dims,
       values = std::move(values), keep = std::move(keep), launched,
       cooperative = kernel.cooperative, x_spans = kernel.x_spans(),
       static_shared = kernel.static_shared_bytes(), serial = kernel.serial_blocks()] {
        std::vector<void*> pointers(values.size());
        for (size_t k = 0; k < values.size(); ++k)
          pointers[k] = const_cast<uint64_t*>(values[k].data());
        run_grid(entry, name, dims, pointers.data(), launched, cooperative, x_spans, static_shared,
                 serial);
      });
}

}  // namespace simt::cpu
