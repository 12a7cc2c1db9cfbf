// The device-neutral runtime interface every backend implements: memory,
// copies, compiling generated code and launching it.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "abi/kernel_abi.h"
#include "abi/scalar.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace simt::runtime {

// A driver or runtime failure: becomes simt.DeviceError in Python.
class GraphExec;
struct GraphCommand;
using GraphCommands = std::vector<GraphCommand>;

class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Allocation failure after the device gave back what it could: becomes
// simt.OutOfMemoryError (a MemoryError) in Python.
class OutOfMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// Code the backend's compiler rejected (a simt bug, or a raw kernel's error):
// carries the compiler's log.
class BackendCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class BackendKind { Cpu, Cuda, OpenCL };
const char* backend_name(BackendKind kind);

// Whether a device has a feature generated code may require
// (abi::Requirements), and when it lacks it, what the user can do instead.
struct Capability {
  bool present = true;
  std::string missing;  // why it is absent and what to use instead
};

struct DeviceInfo {
  std::string id;    // "cpu", "cuda:0", "opencl:1": what get_device() accepts
  std::string name;  // the hardware's own name
  BackendKind backend = BackendKind::Cpu;
  int index = 0;             // within its backend
  bool gpu = false;          // a GPU (default_device() prefers one)
  std::string architecture;  // "sm_90", "znver3": part of cache keys
  uint64_t total_memory = 0;
  int compute_units = 0;
  int max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block_dim{1024, 1024, 64};
  std::array<int64_t, 3> max_grid_dim{2147483647, 65535, 65535};
  // Blocks of one launch, all axes together (PoCL fails from 2**32 work-groups).
  int64_t max_blocks = std::numeric_limits<int64_t>::max();
  // Shared memory of one block, static and dynamic together.
  int64_t max_shared_bytes = 48 * 1024;
  Capability float64;
  Capability warps;
  // Warp operations that only some threads of the block reach (absent where
  // they run as block barriers: OpenCL devices without sub-groups).
  Capability divergent_warps;
  // A warp is 32 consecutive threads of one row of the block (the same y and z), not of
  // the block's linear order (OpenCL sub-groups): a warp kernel's block must then
  // be one row, or rows of whole warps (validate_warp_launch).
  bool warps_in_rows = false;
  Capability int64_atomics;
  // A grid-wide barrier (cooperative launches: every block resident at once).
  Capability grid_sync;
};

// A kernel whose code needs what the device lacks (abi::Requirements):
// becomes simt.TypingError at the Python statement (`where`) needing it.
class UnsupportedFeature : public std::runtime_error {
 public:
  UnsupportedFeature(std::string message, std::optional<abi::PythonLine> where, std::string entry)
      : std::runtime_error(std::move(message)), where(std::move(where)), entry(std::move(entry)) {}
  std::optional<abi::PythonLine> where;  // nullopt: no statement to point at
  std::string entry;                     // the kernel's symbol, where no statement is
};

// Throws UnsupportedFeature when `kernel` requires what `device` lacks.
void check_requirements(const abi::GeneratedKernel& kernel, const DeviceInfo& device);

struct CompileOptions {
  bool fastmath = false;
  bool debug = false;
};

// A kernel loaded on a device, ready to launch.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  // It syncs the grid (abi::Requirements::grid_sync): every block of a launch
  // must be resident at once, so a launch is checked against
  // Device::max_cooperative_blocks and runs as the backend's cooperative
  // launch. Set by Device::compile; the one thing launches read of it.
  bool cooperative = false;
  // It uses warp operations (abi::Requirements::warps): checked against
  // DeviceInfo::warps_in_rows at each launch.
  bool warps = false;
};

// A parameter of a raw (user-written) kernel as its compiler reports it;
// launches are checked against it so a wrong argument is an error, not
// corrupted memory.
struct RawParam {
  // Unknown: the driver says only the size (CUDA: a pointer and an int64
  // are both 8 bytes).
  enum class Kind { Unknown, Value, GlobalPointer, LocalPointer };
  Kind kind = Kind::Unknown;
  size_t bytes = 0;       // a value's size; 0 when the compiler cannot say
  std::string type_name;  // the source's spelling ("float*", "uint"), when known
  // A value's scalar type when the type name is one ("uint": uint32).
  std::optional<abi::Scalar> scalar;
};

// What a launch passes for one raw kernel parameter: an array's address, or
// a scalar of some type.
struct RawArgument {
  bool pointer = false;
  abi::Scalar scalar = abi::Scalar::Int64;
};

// Empty when `argument` fits `param`; else what the parameter expects and
// what was given ("a 4-byte value (float), not int64 (8 bytes)"), for the
// TypeError a launch raises instead of corrupting memory.
std::string raw_argument_mismatch(const RawParam& param, const RawArgument& argument);

// One kernel of a raw program, ready to launch through Device::launch, where
// args[k] points to the value of its k-th parameter (an array's address for
// a pointer).
struct RawFunction {
  std::shared_ptr<const CompiledKernel> kernel;
  std::string entry;  // the symbol (a template instance's lowered name)
  bool params_known = false;
  std::vector<RawParam> params;
};

// User-written source in the device's own language (CUDA C++ or OpenCL C).
struct RawSource {
  std::string source;
  std::vector<std::string> options;           // compiler options, as given
  std::vector<std::string> name_expressions;  // CUDA: template instances to lower
};

// A compiled raw program: its kernels are looked up by name.
class RawProgram {
 public:
  virtual ~RawProgram() = default;
  // `name` is a kernel's name or one of the source's name expressions;
  // throws std::invalid_argument naming what the program holds when absent.
  virtual RawFunction function(const std::string& name) = 0;
};

struct LaunchDims {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  size_t shared_bytes = 0;
};

// Host memory simt allocated for fast or shared access (simt.pinned_empty,
// simt.mapped_empty, simt.managed_empty). Registered while it lives, so a
// copy from a NumPy array viewing it can find it, keep it alive and run
// asynchronously.
enum class HostMemoryKind { Pinned, Mapped, Managed };
const char* host_memory_name(HostMemoryKind kind);

class HostAllocation {
 public:
  // `device_pointer`: the address kernels use (mapped and managed memory),
  // else null. `release` frees the memory.
  HostAllocation(HostMemoryKind kind, void* host, void* device_pointer, size_t bytes,
                 std::function<void()> release);
  ~HostAllocation();
  HostAllocation(const HostAllocation&) = delete;
  HostAllocation& operator=(const HostAllocation&) = delete;

  HostMemoryKind kind() const { return kind_; }
  void* host() const { return host_; }
  void* device_pointer() const { return device_pointer_; }
  size_t bytes() const { return bytes_; }

  // Enters a new allocation in the registry find() searches; returns it.
  static std::shared_ptr<HostAllocation> registered(std::shared_ptr<HostAllocation> allocation);
  // The live allocation holding [pointer, pointer + bytes), or null.
  static std::shared_ptr<HostAllocation> find(const void* pointer, size_t bytes);
  // Leaves the registry now (find() no longer returns it), while copies that
  // hold it may still run; the memory is released with the last reference.
  void withdraw();

 private:
  HostMemoryKind kind_;
  void* host_;
  void* device_pointer_;
  size_t bytes_;
  std::function<void()> release_;
};

// What a queued copy or launch keeps alive until it has run.
struct KeepAlive {
  // The owner of the host memory a copy reads or writes, when that memory is
  // simt's own (pinned): the copy may then run after the call returns. Null
  // for pageable memory, which a copy is done with when the call returns.
  std::shared_ptr<const void> host;
  // Device buffers the work uses (on CPU streams, and foreign memory, whose
  // owner could otherwise reuse it while the work is queued).
  std::vector<std::shared_ptr<const void>> buffers;
  bool empty() const { return !host && buffers.empty(); }
};

class Device {
 public:
  virtual ~Device() = default;
  const DeviceInfo& info() const { return info_; }
  // The source language of the code generated for it.
  virtual abi::Language language() const = 0;
  // Whether device memory is ordinary host memory (NumPy can view it).
  virtual bool host_accessible() const = 0;

  virtual void* allocate(size_t bytes) = 0;  // throws OutOfMemory
  virtual void deallocate(void* pointer, size_t bytes) noexcept = 0;

  // Copies queued on a stream. Host memory with an owner (`keep.host`:
  // simt's pinned memory) may be read or written after the call returns, and
  // the owner is kept until then; host memory without one (pageable memory)
  // is done with when the call returns, as CUDA does it: a copy to the
  // device has read it, a copy to the host has written it.
  virtual void queue_copy_from_host(void* device_dst, const void* host_src, size_t bytes,
                                    Stream& stream, KeepAlive keep) = 0;
  virtual void queue_copy_to_host(void* host_dst, const void* device_src, size_t bytes,
                                  Stream& stream, KeepAlive keep) = 0;
  virtual void queue_copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream,
                                    KeepAlive keep) = 0;
  // Fills on the default stream.
  virtual void fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) = 0;

  // The same on the default stream; the host memory is done with on return.
  void copy_from_host(void* device_dst, const void* host_src, size_t bytes) {
    queue_copy_from_host(device_dst, host_src, bytes, default_stream(), {});
  }
  void copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
    queue_copy_to_host(host_dst, device_src, bytes, default_stream(), {});
  }
  void copy_on_device(void* dst, const void* src, size_t bytes) {
    queue_copy_on_device(dst, src, bytes, default_stream(), {});
  }

  // Checks the kernel's requirements against the device (UnsupportedFeature),
  // then has the backend build it.
  std::unique_ptr<CompiledKernel> compile(const abi::GeneratedKernel& kernel,
                                          const CompileOptions& options) {
    check_requirements(kernel, info_);
    std::unique_ptr<CompiledKernel> built = build(kernel, options);
    built->cooperative = kernel.requirements.grid_sync.has_value();
    built->warps = kernel.requirements.warps.has_value();
    return built;
  }
  // The most blocks of `threads_per_block` threads (with `dynamic_shared_bytes`
  // of dynamic shared memory each) a cooperative launch of `kernel` may have:
  // all of them resident at once. 0 where the device has no grid barrier.
  virtual int64_t max_cooperative_blocks(const CompiledKernel& kernel, int64_t threads_per_block,
                                         size_t dynamic_shared_bytes) {
    (void)kernel;
    (void)threads_per_block;
    (void)dynamic_shared_bytes;
    return 0;
  }
  // `args[k]` points to the value of the kernel's k-th C parameter (read
  // before the call returns); `keep` holds what the kernel uses until it ran.
  virtual void queue_launch(const CompiledKernel& kernel, const LaunchDims& dims, void* const* args,
                            Stream& stream, KeepAlive keep) = 0;
  void launch(const CompiledKernel& kernel, const LaunchDims& dims, void* const* args) {
    queue_launch(kernel, dims, args, default_stream(), {});
  }
  // Waits for all work queued on the device, on every stream.
  virtual void synchronize() = 0;

  // The stream of work that names none (legacy semantics: stream.h).
  virtual Stream& default_stream() = 0;
  virtual std::shared_ptr<Stream> create_stream() = 0;
  virtual std::shared_ptr<Event> create_event() = 0;
  // Throws std::invalid_argument where the backend lacks the kind.
  virtual std::shared_ptr<HostAllocation> allocate_host(size_t bytes, HostMemoryKind kind) = 0;
  // Page-locks (Pinned) or maps (Mapped) host memory simt did not allocate, for
  // Numba's `cuda.pinned(a)` / `cuda.mapped(a)`: registered as allocate_host's
  // memory is until withdraw() or the last reference; the memory stays the caller's.
  virtual std::shared_ptr<HostAllocation> register_host(void* host, size_t bytes,
                                                        HostMemoryKind kind) = 0;
  // Whether `pointer`, memory another library allocated (a
  // __cuda_array_interface__ pointer, which names no device), is this
  // device's memory. Backends that cannot tell answer false.
  virtual bool holds_pointer(const void* pointer) const {
    (void)pointer;
    return host_accessible();
  }
  // Compiles raw source (RawSource); throws BackendCompileError with the
  // compiler's log. Devices without a source language of their own (the CPU)
  // keep this default, which says so.
  virtual std::shared_ptr<RawProgram> compile_raw(const RawSource& source);

  // The device's form of a graph's recorded commands (runtime/graph.h). The
  // default queues each command from C++ (replay_commands); a backend with
  // graphs of its own (CUDA) overrides it.
  virtual std::unique_ptr<GraphExec> instantiate(std::shared_ptr<const GraphCommands> commands);
  // How many graphs are capturing one of its streams: a wait for the
  // device's work is then refused (the captured work has not run).
  int captures() const { return captures_.load(std::memory_order_acquire); }

  // The caching allocator arrays (Buffer) use; allocate()/deallocate() above
  // are the device's own, uncached.
  MemoryPool& pool() { return pool_; }

 protected:
  explicit Device(DeviceInfo info) : info_(std::move(info)) {}
  // Every backend's destructor calls this first, while deallocate() still
  // works (the pool, a member of this base, goes after the backend).
  void release_pool() noexcept { pool_.release_all(); }
  // The backend's compiler and loader, for code that fits the device.
  virtual std::unique_ptr<CompiledKernel> build(const abi::GeneratedKernel& kernel,
                                                const CompileOptions& options) = 0;
  DeviceInfo info_;

 private:
  friend class Graph;
  MemoryPool pool_{*this};
  std::atomic<int> captures_{0};
};

// Device memory with an owner: from the device's pool and back to the pool
// when the last array viewing it goes, or foreign memory (another library's
// array seen through DLPack or __cuda_array_interface__) that simt never
// frees: its release callback tells the owner simt is done with it.
class Buffer {
 public:
  // Called once, when the buffer goes: on whichever thread drops the last
  // reference, with no lock held (it must take the GIL itself if it needs
  // it). It must not throw; an exception it throws is swallowed.
  using Release = std::function<void()>;

  Buffer(std::shared_ptr<Device> device, size_t bytes);
  // Foreign memory: `bytes` at `data` (null only when `bytes` is 0), not
  // from the pool and never given to it.
  Buffer(std::shared_ptr<Device> device, void* data, size_t bytes, Release release);
  // Foreign memory that the host also reads and writes, at `host` (mapped and
  // managed host memory: HostAllocation::host()). The host's address differs
  // from `data` where the device names memory otherwise (OpenCL's buffers).
  Buffer(std::shared_ptr<Device> device, void* data, size_t bytes, Release release, void* host);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  const std::shared_ptr<Device>& device() const { return device_; }
  bool foreign() const { return foreign_; }
  // Where the host reaches the buffer's first byte; null when it cannot
  // (device memory) or when no one said (then Device::host_accessible() tells).
  void* host() const { return host_; }

 private:
  std::shared_ptr<Device> device_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool foreign_ = false;
  void* host_ = nullptr;
  Release release_;
};

// "1.5 GiB", "512 bytes": sizes in error messages.
std::string human_bytes(size_t bytes);

// Copies between two ranges of one device that must not overlap.
using DisjointCopy = std::function<void(void* dst, const void* src, size_t bytes)>;

// memmove on a device whose copy engine requires disjoint ranges:
// overlapping ranges go through a temporary allocation on `device`.
void copy_overlapping(Device& device, void* dst, const void* src, size_t bytes,
                      const DisjointCopy& copy);

// Fills `count` repetitions of a `pattern_bytes`-byte pattern at `dst` for
// devices that cannot fill arbitrary patterns: writes up to 1 MiB of
// repeated pattern from the host, then doubles the filled prefix with device
// copies (each starts on a pattern boundary; none overlaps).
void fill_by_doubling(Device& device, void* dst, const void* pattern, size_t pattern_bytes,
                      size_t count, const DisjointCopy& copy);

// Checks a launch configuration against the device's limits; throws
// std::invalid_argument with a message naming the dimension at fault.
void validate_launch(const DeviceInfo& device, const LaunchDims& dims);
// Throws std::invalid_argument when a block's shared memory, the kernel's
// static arrays and the launch's dynamic bytes together, is more than
// `device` has.
void validate_shared_memory(const DeviceInfo& device, int64_t static_bytes, size_t dynamic_bytes);
// Throws std::invalid_argument, naming the limit, when `kernel` is
// cooperative and the launch has more blocks than can be resident at once.
// Throws std::invalid_argument when `kernel` uses warp operations and the block's
// shape splits a warp across rows where the device forms warps per row.
void validate_warp_launch(const DeviceInfo& device, const CompiledKernel& kernel,
                          const LaunchDims& dims);
void validate_cooperative_launch(Device& device, const CompiledKernel& kernel,
                                 const LaunchDims& dims);

}  // namespace simt::runtime
