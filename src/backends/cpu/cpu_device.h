// The CPU device: generated C++ compiled in-process by the embedded Clang,
// blocks run in parallel on oneTBB's thread pool, the threads of a block as
// loops inside the generated code.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/device.h"

namespace simt::cpu {

class CpuStream;

// Streams: each stream the user creates is a WorkQueue (its own worker
// thread runs the stream's work in order; a kernel's blocks still spread
// over oneTBB's pool). The default stream runs work inline in the calling
// thread, after the work already queued on the other streams (legacy
// semantics; nothing to wait for when no other stream exists).
class CpuDevice : public runtime::Device {
 public:
  CpuDevice();
  ~CpuDevice() override;

  abi::Language language() const override { return abi::Language::Cpp; }
  bool host_accessible() const override { return true; }

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
  void queue_launch(const runtime::CompiledKernel& kernel, const runtime::LaunchDims& dims,
                    void* const* args, runtime::Stream& stream, runtime::KeepAlive keep) override;
  void synchronize() override;
  // CUDA C++ (cuda_on_cpu.h): the language CuPy's kernels are written in.
  std::shared_ptr<runtime::RawProgram> compile_raw(const runtime::RawSource& source) override;
  // Each block of a cooperative launch is a thread of its own: a fixed
  // number of blocks (grid_barrier.h), whatever their size.
  int64_t max_cooperative_blocks(const runtime::CompiledKernel& kernel, int64_t threads_per_block,
                                 size_t dynamic_shared_bytes) override;

  runtime::Stream& default_stream() override { return *default_stream_; }
  std::shared_ptr<runtime::Stream> create_stream() override;
  std::shared_ptr<runtime::Event> create_event() override;
  std::shared_ptr<runtime::HostAllocation> allocate_host(size_t bytes,
                                                         runtime::HostMemoryKind kind) override;
  std::shared_ptr<runtime::HostAllocation> register_host(void* host, size_t bytes,
                                                         runtime::HostMemoryKind kind) override;

  // Runs `task` in order on `stream`: inline on the default stream (after
  // the other streams' queued work), else on the stream's worker.
  void submit(runtime::Stream& stream, std::function<void()> task);
  // Waits for the work queued on every stream the user created.
  void drain_streams();

 private:
  std::unique_ptr<runtime::Stream> default_stream_;
  // Runs the callbacks of the device's streams, in the order they came due.
  std::shared_ptr<runtime::WorkQueue> callbacks_ = std::make_shared<runtime::WorkQueue>();
  std::mutex streams_mutex_;
  std::vector<std::weak_ptr<CpuStream>> streams_;
};

}  // namespace simt::cpu
