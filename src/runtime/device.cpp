#include "runtime/device.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace simt::runtime {

const char* backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::OpenCL:
      return "opencl";
  }
  return "?";
}

std::shared_ptr<RawProgram> Device::compile_raw(const RawSource&) {
  throw std::invalid_argument(
      "raw kernels need a CUDA or OpenCL device (their source is CUDA C++ "
      "or OpenCL C); " +
      info_.id + " is a " + backend_name(info_.backend) +
      " device: use simt.get_device('cuda') or 'opencl', or write the "
      "kernel in Python with @simt.kernel");
}

namespace {

std::string argument_text(const RawArgument& argument) {
  if (argument.pointer) return "an array";
  return std::string(abi::scalar_name(argument.scalar)) + " (" +
         std::to_string(abi::bit_width(argument.scalar) / 8) + " bytes)";
}

std::string param_text(const RawParam& param) {
  const std::string size = std::to_string(param.bytes);
  const bool vowel = size[0] == '8' || size == "11" || size == "18";
  std::string text = param.bytes ? (vowel ? "an " : "a ") + size + "-byte value" : "a value";
  if (!param.type_name.empty()) text += " (" + param.type_name + ")";
  return text;
}

// Integers of either sign pass for each other (np.int32 for a uint is
// common); floats, integers, bools and complex numbers do not.
int category(abi::Scalar s) {
  return abi::is_bool(s) ? 0 : abi::is_integer(s) ? 1 : abi::is_float(s) ? 2 : 3;
}

}  // namespace

std::string raw_argument_mismatch(const RawParam& param, const RawArgument& argument) {
  const size_t given =
      argument.pointer ? sizeof(void*) : static_cast<size_t>(abi::bit_width(argument.scalar) / 8);
  switch (param.kind) {
    case RawParam::Kind::GlobalPointer:
      if (argument.pointer) return {};
      return "an array (for the pointer " + param.type_name + "), not " + argument_text(argument);
    case RawParam::Kind::LocalPointer:
      return "nothing simt can pass: __local pointer parameters (" + param.type_name +
             ") are not supported; declare the __local array inside the kernel";
    case RawParam::Kind::Value:
      if (param.bytes == 0)
        return "a value of type " + param.type_name + ", which simt cannot pass (structs, images)";
      if (argument.pointer) return param_text(param) + ", not an array";
      if (given != param.bytes ||
          (param.scalar && category(*param.scalar) != category(argument.scalar))) {
        std::string hint =
            param.scalar ? std::string("; pass numpy.") + abi::scalar_name(*param.scalar) + "(...)"
                         : std::string();
        return param_text(param) + ", not " + argument_text(argument) + hint;
      }
      return {};
    case RawParam::Kind::Unknown:
      if (param.bytes == 0 || given == param.bytes) return {};
      return param_text(param) +
             (param.bytes == sizeof(void*) ? " (a pointer or 8-byte scalar)" : "") + ", not " +
             argument_text(argument) +
             "; pass a NumPy scalar of the parameter's type, e.g. numpy.int32(n) for an int";
  }
  return {};
}

const char* host_memory_name(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::Pinned:
      return "pinned";
    case HostMemoryKind::Mapped:
      return "mapped";
    case HostMemoryKind::Managed:
      return "managed";
  }
  return "?";
}

namespace {

// Live host allocations by start address. Entries are weak: the registry
// never keeps memory alive, and an allocation leaves it as it is destroyed.
struct HostRegistry {
  std::mutex mutex;
  std::map<uintptr_t, std::pair<size_t, std::weak_ptr<HostAllocation>>> live;
};

HostRegistry& host_registry() {
  static auto* registry = new HostRegistry;  // outlives allocations freed at exit
  return *registry;
}

}  // namespace

HostAllocation::HostAllocation(HostMemoryKind kind, void* host, void* device_pointer, size_t bytes,
                               std::function<void()> release)
    : kind_(kind),
      host_(host),
      device_pointer_(device_pointer),
      bytes_(bytes),
      release_(std::move(release)) {}

HostAllocation::~HostAllocation() {
  withdraw();
  if (release_) release_();
}

void HostAllocation::withdraw() {
  HostRegistry& registry = host_registry();
  std::lock_guard lock(registry.mutex);
  // The entry at this address may be a later registration of the same memory.
  auto it = registry.live.find(reinterpret_cast<uintptr_t>(host_));
  if (it == registry.live.end()) return;
  auto entry = it->second.second.lock();
  if (!entry || entry.get() == this) registry.live.erase(it);
}

std::shared_ptr<HostAllocation> HostAllocation::registered(std::shared_ptr<HostAllocation> a) {
  HostRegistry& registry = host_registry();
  std::lock_guard lock(registry.mutex);
  registry.live[reinterpret_cast<uintptr_t>(a->host_)] = {a->bytes_, a};
  return a;
}

std::shared_ptr<HostAllocation> HostAllocation::find(const void* pointer, size_t bytes) {
  HostRegistry& registry = host_registry();
  std::lock_guard lock(registry.mutex);
  auto address = reinterpret_cast<uintptr_t>(pointer);
  auto it = registry.live.upper_bound(address);
  if (it == registry.live.begin()) return nullptr;
  --it;
  if (address + bytes > it->first + it->second.first) return nullptr;
  return it->second.second.lock();
}

Buffer::Buffer(std::shared_ptr<Device> device, size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
  // Zero-byte arrays still get a distinct, valid pointer.
  data_ = device_->pool().allocate(bytes);
}

Buffer::Buffer(std::shared_ptr<Device> device, void* data, size_t bytes, Release release)
    : device_(std::move(device)),
      data_(data),
      bytes_(bytes),
      foreign_(true),
      release_(std::move(release)) {}

Buffer::Buffer(std::shared_ptr<Device> device, void* data, size_t bytes, Release release,
               void* host)
    : Buffer(std::move(device), data, bytes, std::move(release)) {
  host_ = host;
}

Buffer::~Buffer() {
  if (!foreign_) {
    device_->pool().deallocate(data_);
    return;
  }
  // A destructor must not throw; the owner's release has nobody to report to.
  if (release_) try {
      release_();
    } catch (...) {
    }
}

std::string human_bytes(size_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

void copy_overlapping(Device& device, void* dst, const void* src, size_t bytes,
                      const DisjointCopy& copy) {
  if (bytes == 0 || dst == src) return;
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  if (d + bytes <= s || s + bytes <= d) {
    copy(dst, src, bytes);
    return;
  }
  struct Temporary {
    Device& device;
    size_t bytes;
    void* pointer = device.allocate(bytes);
    ~Temporary() { device.deallocate(pointer, bytes); }
  } temporary{device, bytes};
  copy(temporary.pointer, src, bytes);
  copy(dst, temporary.pointer, bytes);
}

void fill_by_doubling(Device& device, void* dst, const void* pattern, size_t pattern_bytes,
                      size_t count, const DisjointCopy& copy) {
  constexpr size_t kChunkBytes = size_t{1} << 20;
  if (pattern_bytes == 0 || count == 0) return;
  if (count > SIZE_MAX / pattern_bytes)
    throw std::invalid_argument("fill: " + std::to_string(count) + " items of " +
                                std::to_string(pattern_bytes) + " bytes overflow size_t");
  const size_t total = pattern_bytes * count;
  const size_t chunk_items = std::clamp<size_t>(kChunkBytes / pattern_bytes, 1, count);
  const size_t chunk = chunk_items * pattern_bytes;
  std::vector<unsigned char> host(chunk);
  for (size_t i = 0; i < chunk_items; ++i)
    std::memcpy(host.data() + i * pattern_bytes, pattern, pattern_bytes);
  device.copy_from_host(dst, host.data(), chunk);
  auto* base = static_cast<char*>(dst);
  size_t filled = chunk;
  while (filled < total) {
    const size_t n = std::min(filled, total - filled);
    copy(base + filled, base, n);
    filled += n;
  }
}

namespace {

[[noreturn]] void unsupported(const abi::GeneratedKernel& kernel, const DeviceInfo& device,
                              const std::optional<abi::PythonLine>& where,
                              const std::string& feature, const Capability& capability) {
  throw UnsupportedFeature(feature + " " + device.id + " (" + device.name + ")" +
                               (capability.missing.empty() ? "" : ": " + capability.missing),
                           where, kernel.entry);
}

}  // namespace

void check_requirements(const abi::GeneratedKernel& kernel, const DeviceInfo& device) {
  const abi::Requirements& needs = kernel.requirements;
  // float64 parameters make the code use double even where no statement
  // computes in float64: the generated code itself says.
  if (!device.float64.present && abi::find_identifier(kernel.source, "double") != 0)
    unsupported(kernel, device, needs.float64,
                "this kernel computes in float64, which is not supported on", device.float64);
  if (!device.warps.present && needs.warps)
    unsupported(kernel, device, needs.warps,
                "warp operations (shuffles, votes, activemask) are not supported on", device.warps);
  if (!device.divergent_warps.present && needs.divergent_warps)
    unsupported(kernel, device, needs.divergent_warps,
                "a warp operation that only some threads of a block reach is not supported on",
                device.divergent_warps);
  if (!device.int64_atomics.present && needs.int64_atomics)
    unsupported(kernel, device, needs.int64_atomics,
                "64-bit atomics (on int64, uint64 or float64 arrays) are not supported on",
                device.int64_atomics);
  if (!device.grid_sync.present && needs.grid_sync)
    unsupported(kernel, device, needs.grid_sync,
                "a grid-wide barrier (cuda.cg.this_grid().sync()) is not supported on",
                device.grid_sync);
  if (needs.shared_bytes > device.max_shared_bytes)
    throw UnsupportedFeature("this kernel's shared arrays take " +
                                 std::to_string(needs.shared_bytes) + " bytes, more than " +
                                 device.id + " (" + device.name + ") has for a block (" +
                                 std::to_string(device.max_shared_bytes) + ")",
                             needs.shared, kernel.entry);
}

void validate_launch(const DeviceInfo& device, const LaunchDims& dims) {
  static constexpr const char* kAxis = "xyz";
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (dims.grid[d] < 1)
      throw std::invalid_argument(std::string("grid dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.grid[d]) + "; it must be at least 1");
    if (dims.block[d] < 1)
      throw std::invalid_argument(std::string("block dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.block[d]) + "; it must be at least 1");
    if (dims.grid[d] > device.max_grid_dim[d])
      throw std::invalid_argument(std::string("grid dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.grid[d]) + ", more than " + device.id +
                                  " allows (" + std::to_string(device.max_grid_dim[d]) + ")");
    if (dims.block[d] > device.max_block_dim[d])
      throw std::invalid_argument(std::string("block dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.block[d]) + ", more than " + device.id +
                                  " allows (" + std::to_string(device.max_block_dim[d]) + ")");
    threads *= dims.block[d];
  }
  if (threads > device.max_threads_per_block)
    throw std::invalid_argument("a block of " + std::to_string(threads) + " threads is more than " +
                                device.id + " allows (" +
                                std::to_string(device.max_threads_per_block) + ")");
  int64_t blocks = 0;
  const bool overflow = __builtin_mul_overflow(dims.grid[0], dims.grid[1], &blocks) ||
                        __builtin_mul_overflow(blocks, dims.grid[2], &blocks);
  if (overflow || blocks > device.max_blocks)
    throw std::invalid_argument(
        "a grid of " + std::to_string(dims.grid[0]) + " x " + std::to_string(dims.grid[1]) + " x " +
        std::to_string(dims.grid[2]) + " blocks is more than " + device.id +
        " runs in one launch (" + std::to_string(device.max_blocks) + " blocks)");
}

void validate_shared_memory(const DeviceInfo& device, int64_t static_bytes, size_t dynamic_bytes) {
  const auto limit = static_cast<uint64_t>(device.max_shared_bytes);
  const auto fixed = static_cast<uint64_t>(static_bytes);
  if (dynamic_bytes <= limit && fixed + dynamic_bytes <= limit) return;
  throw std::invalid_argument(
      std::to_string(dynamic_bytes) + " bytes of dynamic shared memory" +
      (static_bytes ? " and the kernel's " + std::to_string(static_bytes) + " static bytes" : "") +
      " are more than " + device.id + " has for a block (" + std::to_string(limit) + " bytes)");
}

void validate_warp_launch(const DeviceInfo& device, const CompiledKernel& kernel,
                          const LaunchDims& dims) {
  if (!kernel.warps || !device.warps_in_rows) return;
  if (dims.block[0] % 32 == 0 || (dims.block[1] == 1 && dims.block[2] == 1)) return;
  throw std::invalid_argument(
      "this kernel uses warp operations, and " + device.id +
      " forms its warps along each row of a block, so a block of " + std::to_string(dims.block[0]) +
      " x " + std::to_string(dims.block[1]) + " x " + std::to_string(dims.block[2]) +
      " threads would not have CUDA's warps (32 consecutive threads): make the block's x size "
      "a multiple of 32, or the block one row (y and z sizes 1)");
}

void validate_cooperative_launch(Device& device, const CompiledKernel& kernel,
                                 const LaunchDims& dims) {
  if (!kernel.cooperative) return;
  const int64_t blocks = dims.grid[0] * dims.grid[1] * dims.grid[2];
  const int64_t threads = dims.block[0] * dims.block[1] * dims.block[2];
  const int64_t limit = device.max_cooperative_blocks(kernel, threads, dims.shared_bytes);
  if (blocks <= limit) return;
  throw std::invalid_argument(
      "this kernel syncs the grid (cuda.cg.this_grid().sync()), so all of its blocks must run "
      "at once, but the launch has " +
      std::to_string(blocks) + " blocks and " + device.info().id + " can run at most " +
      std::to_string(limit) + " of " + std::to_string(threads) +
      " threads at once (max_cooperative_grid_blocks(" + std::to_string(threads) + "))");
}

}  // namespace simt::runtime
