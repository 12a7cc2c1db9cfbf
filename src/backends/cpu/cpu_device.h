// The CPU device: generated C++ compiled in-process by the embedded Clang,
// blocks run in parallel on oneTBB's thread pool, the threads of a block as
// loops inside the generated code.
#pragma once

#include <memory>

#include "runtime/device.h"

namespace simt::cpu {

class CpuDevice : public runtime::Device {
 public:
  CpuDevice();

  codegen::DialectId dialect() const override { return codegen::DialectId::Cpp; }
  bool host_accessible() const override { return true; }

  void* allocate(size_t bytes) override;
  void deallocate(void* pointer, size_t bytes) noexcept override;
  void copy_from_host(void* device_dst, const void* host_src, size_t bytes) override;
  void copy_to_host(void* host_dst, const void* device_src, size_t bytes) override;
  void copy_on_device(void* dst, const void* src, size_t bytes) override;
  void fill_bytes(void* dst, const void* pattern, size_t pattern_bytes, size_t count) override;

  std::unique_ptr<runtime::CompiledKernel> compile(const codegen::EmittedKernel& kernel,
                                                   const runtime::CompileOptions& options) override;
  void launch(const runtime::CompiledKernel& kernel, const runtime::LaunchDims& dims,
              void* const* args) override;
  void synchronize() override {}
};

}  // namespace simt::cpu
