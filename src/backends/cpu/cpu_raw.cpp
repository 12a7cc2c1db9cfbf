// Raw programs on the CPU device: CUDA C++ compiled as C++ (cuda_on_cpu.h),
// each kernel launched through its block entry as generated kernels are.
#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "abi/compiler_log.h"
#include "backends/cpu/clang_jit.h"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/cuda_on_cpu.h"
#include "runtime/disk_cache.h"

namespace simt::cpu {

namespace {

using DescribeParams = int (*)(CudaParamDesc* out, int capacity);

runtime::RawParam raw_param(const CudaParamDesc& d) {
  runtime::RawParam p;
  p.bytes = static_cast<size_t>(d.bytes);
  if (d.kind == 1) {
    p.kind = runtime::RawParam::Kind::GlobalPointer;
    p.type_name = "pointer";
    return p;
  }
  p.kind = runtime::RawParam::Kind::Value;
  p.type_name = d.type_name ? d.type_name : "";
  if (d.scalar >= 0 && d.scalar < abi::kScalarCount) p.scalar = static_cast<abi::Scalar>(d.scalar);
  // Values wider than a launch argument's storage cannot be passed.
  if (p.bytes > 16 || p.type_name.empty()) {
    if (p.type_name.empty()) p.type_name = std::to_string(d.bytes) + "-byte struct";
    if (p.bytes > 16) p.bytes = 0;
  }
  return p;
}

// One compiled unit: its module and the kernels it has entries for.
struct Unit {
  std::shared_ptr<JitModule> module;
  std::vector<std::string> kernels;
};

class CpuRawProgram : public runtime::RawProgram {
 public:
  explicit CpuRawProgram(runtime::RawSource source)
      : source_(std::move(source)), discovered_(cuda_kernel_names(source_.source)) {}

  runtime::RawFunction function(const std::string& name) override {
    std::lock_guard lock(mutex_);
    const bool expression =
        std::find(source_.name_expressions.begin(), source_.name_expressions.end(), name) !=
        source_.name_expressions.end();
    if (!expression && !cuda_source_names(source_.source, name)) {
      std::string held;
      for (const auto& k : discovered_) held += (held.empty() ? "" : ", ") + k;
      throw std::invalid_argument("no kernel '" + name + "' in the program (it holds: " +
                                  (held.empty() ? std::string("none") : held) + ")");
    }
    for (const Unit& unit : units_) {
      for (size_t k = 0; k < unit.kernels.size(); ++k)
        if (unit.kernels[k] == name) return make(unit, k);
    }
    // Every kernel found and every name expression in one unit, with the one asked
    // for (a kernel whose name a macro makes, say) added.
    std::vector<std::string> kernels = discovered_;
    for (const auto& e : source_.name_expressions)
      if (std::find(kernels.begin(), kernels.end(), e) == kernels.end()) kernels.push_back(e);
    if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) kernels.push_back(name);
    const Unit& unit = build(kernels, name);
    for (size_t k = 0; k < unit.kernels.size(); ++k)
      if (unit.kernels[k] == name) return make(unit, k);
    throw std::logic_error("simt: the cpu unit lost kernel " + name);
  }

 private:
  const Unit& build(const std::vector<std::string>& kernels, const std::string& name) {
    CudaOnCpuUnit unit = cuda_on_cpu_unit(source_, kernels, name);
    JitOptions options;
    options.fastmath = unit.fastmath;
    options.emulated_tls = true;
    options.nvrtc_lenient = true;
    options.include_dirs = unit.include_dirs;
    ClangJit& jit = ClangJit::instance();
    std::shared_ptr<JitModule> module;
    try {
      std::optional<ClangJit::Object> object;
      auto compile = [&] { return jit.compile_object(unit.text, name, options); };
      if (unit.include_dirs.empty()) {
        // Headers (-I) are outside any key: those programs are never kept on disk.
        std::string args;
        for (const auto& a : jit.cc1_args(options)) args += a + " ";
        runtime::DiskCache::instance().load_or_build(
            "cpu", runtime::cache_key("cpu-raw", {jit.version(), args, unit.text}),
            [&](std::string_view payload) {
              object = unpack_object(payload);
              return object.has_value();
            },
            [&]() -> std::optional<std::string> { return pack_object(compile()); });
      } else {
        object = compile();
      }
      module = jit.load(*object, name);
    } catch (const JitError& e) {
      throw runtime::BackendCompileError("raw kernel '" + name +
                                         "': the cpu device's compiler (Clang, CUDA C++ as C++) "
                                         "rejected the program:\n" +
                                         abi::shortened_compiler_log(e.what()));
    }
    units_.push_back(Unit{std::move(module), std::move(unit.kernels)});
    return units_.back();
  }

  runtime::RawFunction make(const Unit& unit, size_t k) {
    const std::string index = std::to_string(k);
    auto entry =
        reinterpret_cast<abi::CpuKernelEntry>(unit.module->symbol("simt_raw_entry_" + index));
    auto describe =
        reinterpret_cast<DescribeParams>(unit.module->symbol("simt_raw_params_" + index));
    if (!entry || !describe)
      throw runtime::DeviceError("the cpu raw program has no entry for " + unit.kernels[k]);
    std::vector<CudaParamDesc> descs(1);
    const int count = describe(descs.data(), 0);
    descs.resize(static_cast<size_t>(count) + 1);
    describe(descs.data(), count + 1);
    runtime::RawFunction function;
    function.entry = unit.kernels[k];
    function.params_known = true;
    std::vector<size_t> bytes;
    for (int p = 0; p < count; ++p) {
      function.params.push_back(raw_param(descs[static_cast<size_t>(p)]));
      bytes.push_back(
          std::min<size_t>(static_cast<size_t>(descs[static_cast<size_t>(p)].bytes), 16));
    }
    function.kernel = std::make_shared<CpuKernel>(unit.module, entry, unit.kernels[k],
                                                  std::move(bytes), false, 0, false);
    return function;
  }

  runtime::RawSource source_;
  std::vector<std::string> discovered_;
  std::mutex mutex_;
  std::deque<Unit> units_;
};

}  // namespace

std::shared_ptr<runtime::RawProgram> CpuDevice::compile_raw(const runtime::RawSource& source) {
  return std::make_shared<CpuRawProgram>(source);
}

}  // namespace simt::cpu
