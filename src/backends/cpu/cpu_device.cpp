#include "backends/cpu/cpu_device.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "backends/cpu/clang_jit.h"
#include "runtime/disk_cache.h"

namespace simt::cpu {

namespace {

// The generated code's view of a launch (the `simt_block_ctx` struct of the
// C++ dialect's prelude).
struct BlockContext {
  int64_t grid_dim[3];
  int64_t block_dim[3];
  int64_t block_idx[3];
  void* dynamic_shared;  // the launch's dynamic shared memory, one buffer per running block
};

using KernelEntry = void (*)(const BlockContext*, void* const*);

class CpuKernel : public runtime::CompiledKernel {
 public:
  CpuKernel(std::unique_ptr<JitModule> module, KernelEntry entry)
      : module_(std::move(module)), entry_(entry) {}
  KernelEntry entry() const { return entry_; }

 private:
  std::unique_ptr<JitModule> module_;
  KernelEntry entry_;
};

// The disk cache's payload for a compiled object: the exported symbols'
// names, then the object code.
std::string pack_object(const ClangJit::Object& object) {
  runtime::PayloadWriter out;
  out.put_u32(static_cast<uint32_t>(object.exported.size()));
  for (const auto& name : object.exported) out.put_string(name);
  out.put_tail(object.code);
  return out.take();
}

// nullopt for a payload that does not parse (the entry is then rebuilt).
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

// Everything the machine code depends on: simt, Clang and their arguments
// (the host CPU's features among them), the entry and the source.
std::string cache_key(const codegen::EmittedKernel& kernel, const JitOptions& options) {
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
  // The same limits as CUDA's, so a launch valid on one is valid on the other.
  info.max_threads_per_block = 1024;
  info.max_block_dim = {1024, 1024, 64};
  info.max_grid_dim = {2147483647, 65535, 65535};
  return info;
}

}  // namespace

CpuDevice::CpuDevice() : Device(cpu_info()) {}

void* CpuDevice::allocate(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p)
    throw runtime::OutOfMemory("out of memory on cpu: could not allocate " + std::to_string(bytes) +
                               " bytes");
  return p;
}

void CpuDevice::deallocate(void* pointer, size_t) noexcept { std::free(pointer); }

void CpuDevice::copy_from_host(void* device_dst, const void* host_src, size_t bytes) {
  std::memcpy(device_dst, host_src, bytes);
}

void CpuDevice::copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
  std::memcpy(host_dst, device_src, bytes);
}

void CpuDevice::copy_on_device(void* dst, const void* src, size_t bytes) {
  std::memmove(dst, src, bytes);
}

void CpuDevice::fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) {
  auto* out = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < count; ++i) std::memcpy(out + i * pattern_bytes, pattern, pattern_bytes);
}

std::unique_ptr<runtime::CompiledKernel> CpuDevice::compile(
    const codegen::EmittedKernel& kernel, const runtime::CompileOptions& options) {
  JitOptions jit_options;
  jit_options.fastmath = options.fastmath;
  std::unique_ptr<JitModule> module;
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
                                       e.what());
  }
  auto entry = reinterpret_cast<KernelEntry>(module->symbol(kernel.entry));
  if (!entry) throw runtime::DeviceError("compiled kernel has no symbol " + kernel.entry);
  return std::make_unique<CpuKernel>(std::move(module), entry);
}

void CpuDevice::launch(const runtime::CompiledKernel& compiled, const runtime::LaunchDims& dims,
                       void* const* args) {
  KernelEntry entry = static_cast<const CpuKernel&>(compiled).entry();
  const int64_t gx = dims.grid[0], gy = dims.grid[1];
  const int64_t blocks = gx * gy * dims.grid[2];
  auto run_blocks = [&](int64_t begin, int64_t end) {
    BlockContext ctx;
    for (int d = 0; d < 3; ++d) {
      ctx.grid_dim[d] = dims.grid[d];
      ctx.block_dim[d] = dims.block[d];
    }
    // Blocks of one task run one after another and may share it; zeroed,
    // so a kernel never reads indeterminate bytes.
    std::vector<std::max_align_t> shared((dims.shared_bytes + sizeof(std::max_align_t) - 1) /
                                         sizeof(std::max_align_t));
    ctx.dynamic_shared = shared.data();
    for (int64_t b = begin; b < end; ++b) {
      ctx.block_idx[0] = b % gx;
      ctx.block_idx[1] = (b / gx) % gy;
      ctx.block_idx[2] = b / (gx * gy);
      entry(&ctx, args);
    }
  };
  // A single block gains nothing from the pool and would pay its wake-up.
  if (blocks == 1) {
    run_blocks(0, 1);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, blocks),
                    [&](const tbb::blocked_range<int64_t>& r) { run_blocks(r.begin(), r.end()); });
}

}  // namespace simt::cpu
