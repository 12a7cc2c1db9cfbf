// A kernel loaded on the CPU device: the machine code of a JIT module and
// its block entry (abi/cpu_entry.h). Built from generated code
// (CpuDevice::build) and from CUDA C++ raw programs (cuda_on_cpu.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abi/cpu_entry.h"
#include "backends/cpu/clang_jit.h"
#include "runtime/device.h"

namespace simt::cpu {

class CpuKernel : public runtime::CompiledKernel {
 public:
  CpuKernel(std::shared_ptr<JitModule> module, abi::CpuKernelEntry entry, std::string name,
            std::vector<size_t> param_bytes, bool x_spans, int64_t static_shared_bytes,
            bool serial_blocks)
      : module_(std::move(module)),
        entry_(entry),
        name_(std::move(name)),
        param_bytes_(std::move(param_bytes)),
        x_spans_(x_spans),
        static_shared_bytes_(static_shared_bytes),
        serial_blocks_(serial_blocks) {}
  abi::CpuKernelEntry entry() const { return entry_; }
  // One call of the entry may run consecutive blocks along x (abi::Requirements::x_spans).
  bool x_spans() const { return x_spans_; }
  // The static shared arrays' bytes (abi::Requirements::cpu_shared_bytes).
  int64_t static_shared_bytes() const { return static_shared_bytes_; }
  // Its blocks run one after another on one thread (abi::Requirements::serial_blocks).
  bool serial_blocks() const { return serial_blocks_; }
  const std::string& name() const { return name_; }
  // Held by queued launches: the code stays loaded until they ran, even if
  // the kernel is dropped meanwhile.
  const std::shared_ptr<JitModule>& module() const { return module_; }
  // The size of each C parameter's value, to copy a queued launch's arguments.
  const std::vector<size_t>& param_bytes() const { return param_bytes_; }

 private:
  std::shared_ptr<JitModule> module_;
  abi::CpuKernelEntry entry_;
  std::string name_;  // for errors
  std::vector<size_t> param_bytes_;
  bool x_spans_;
  int64_t static_shared_bytes_;
  bool serial_blocks_;
};

// The disk cache's payload for a compiled object: the exported symbols'
// names, then the object code; nullopt for a payload that does not parse
// (the entry is then rebuilt).
std::string pack_object(const ClangJit::Object& object);
std::optional<ClangJit::Object> unpack_object(std::string_view payload);

}  // namespace simt::cpu
