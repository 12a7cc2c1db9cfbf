// The CUDA backend: the driver loader (cuda_driver.h), the device
// (cuda_device.h) and its discovery (registry.cpp).
//
// Without a GPU (CI, the development machine) the loader, discovery and the
// pure helpers are tested, and every test that needs a device skips. On a
// machine with an NVIDIA GPU the CudaDevice tests run: memory, copies, fills,
// a generated saxpy compiled by NVRTC and launched, and the error paths.
// The illegal-address test poisons its CUDA context for good, so it runs in a
// child process of its own (a gtest death test, re-executed) and is kept the
// last test of the file.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/nvrtc.h"
#include "backends/registry.h"
#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "compiler/pipeline.h"
#include "lang/parser.h"
#include "runtime/device.h"
#include "sema/infer.h"
#include "support/kernel_corpus.h"
#include "support/scoped_env.h"

namespace {

using simt::cuda::CompileTarget;
using simt::cuda::CudaDevice;
using simt::cuda::CudaKernel;
using simt::cuda::Driver;
using simt::runtime::BackendCompileError;
using simt::runtime::DeviceError;
using simt::runtime::OutOfMemory;

using simt::test_support::ScopedEnv;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const simt::backends::BackendStatus* cuda_status() {
  for (const auto& s : simt::backends::backend_status())
    if (s.name == "cuda") return &s;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Without a GPU
// ---------------------------------------------------------------------------

TEST(CudaDiscovery, ReportsStatusWithoutThrowing) {
  const simt::backends::BackendStatus* status = nullptr;
  ASSERT_NO_THROW(status = cuda_status());
  ASSERT_NE(status, nullptr) << "no 'cuda' entry in backend_status()";
  EXPECT_FALSE(status->detail.empty());
  std::printf("[ cuda     ] available=%d: %s\n", status->available ? 1 : 0, status->detail.c_str());

  std::string why;
  const Driver* driver = Driver::get(&why);
  if (driver == nullptr) {
    EXPECT_FALSE(status->available);
    EXPECT_TRUE(contains(status->detail, "CUDA driver unavailable")) << status->detail;
    EXPECT_TRUE(contains(status->detail, why)) << status->detail;
    EXPECT_EQ(simt::backends::find_device("cuda:0"), nullptr);
    EXPECT_EQ(simt::backends::find_device("cuda"), nullptr);
  } else {
    EXPECT_TRUE(
        contains(status->detail, "driver " + simt::cuda::driver_version_string(driver->version())))
        << status->detail;
  }
  if (status->available) {
    // GPUs come first, CUDA's in ordinal order.
    const auto& devices = simt::backends::devices();
    ASSERT_FALSE(devices.empty());
    EXPECT_EQ(devices.front()->info().id, "cuda:0");
    EXPECT_EQ(simt::backends::find_device("cuda"), devices.front());
  }
  for (const auto& device : simt::backends::devices()) {
    if (device->info().backend != simt::runtime::BackendKind::Cuda) continue;
    EXPECT_NE(dynamic_cast<CudaDevice*>(device.get()), nullptr);
  }
}

TEST(CudaDriver, MissingExplicitPathIsNamed) {
  const char* path = "/nonexistent/simt-test/libcuda.so.1";
  ScopedEnv env("SIMT_CUDA_DRIVER_PATH", path);
  std::string why;
  std::unique_ptr<Driver> driver;
  ASSERT_NO_THROW(driver = Driver::load(&why));
  EXPECT_EQ(driver, nullptr);
  EXPECT_TRUE(contains(why, std::string("SIMT_CUDA_DRIVER_PATH=") + path)) << why;
}

TEST(CudaDriver, NotALibraryIsUnavailable) {
  // A file that exists but is no shared object: dlopen's reason is passed on.
  const std::string path = SIMT_SOURCE_DIR "/tests/cpp/data/kernels/saxpy.py";
  ScopedEnv env("SIMT_CUDA_DRIVER_PATH", path.c_str());
  std::string why;
  EXPECT_EQ(Driver::load(&why), nullptr);
  EXPECT_TRUE(contains(why, path)) << why;
}

TEST(CudaDriver, ToolkitStubLibraryIsUnavailable) {
  // The toolkit's stubs/libcuda.so exports every function and answers
  // CUDA_ERROR_STUB_LIBRARY: loading must work, cuInit must be reported.
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  struct stat info {};
  if (stat(stub, &info) != 0) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  ScopedEnv env("SIMT_CUDA_DRIVER_PATH", stub);
  std::string why;
  EXPECT_EQ(Driver::load(&why), nullptr);
  EXPECT_TRUE(contains(why, "cuInit failed: CUDA_ERROR_STUB_LIBRARY")) << why;
  EXPECT_TRUE(contains(why, "stubs/libcuda.so")) << why;
}

TEST(CudaDriver, FormatsErrors) {
  using simt::cuda::format_driver_error;
  EXPECT_EQ(
      format_driver_error("cuMemAlloc", "cuda:1", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
      "cuMemAlloc failed on cuda:1: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(format_driver_error("cuInit", "", 100, "", ""),
            "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  EXPECT_EQ(format_driver_error("cuLaunchKernel", "cuda:0", 1, "CUDA_ERROR_INVALID_VALUE",
                                "invalid argument", " launching simt_kernel_saxpy"),
            "cuLaunchKernel failed on cuda:0: CUDA_ERROR_INVALID_VALUE (invalid argument) "
            "launching simt_kernel_saxpy");
  // Sticky errors say the context is gone.
  const std::string sticky =
      format_driver_error("cuCtxSynchronize", "cuda:0", 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
                          "an illegal memory access was encountered", " (after k)");
  EXPECT_EQ(sticky.rfind("cuCtxSynchronize failed on cuda:0: CUDA_ERROR_ILLEGAL_ADDRESS (an "
                         "illegal memory access was encountered) (after k); ",
                         0),
            0u)
      << sticky;
  EXPECT_TRUE(contains(sticky, "unusable")) << sticky;
  // Unknown codes still get a name.
  EXPECT_EQ(format_driver_error("cuX", "", 12345, "", ""),
            "cuX failed: CUDA_ERROR_12345 (unrecognized error code)");
}

TEST(CudaDriver, ErrorNamesAndVersions) {
  using simt::cuda::known_error_name;
  EXPECT_EQ(known_error_name(0), "CUDA_SUCCESS");
  EXPECT_EQ(known_error_name(34), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(known_error_name(700), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(known_error_name(701), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  EXPECT_TRUE(simt::cuda::is_sticky_error(700));
  EXPECT_TRUE(simt::cuda::is_sticky_error(719));
  EXPECT_FALSE(simt::cuda::is_sticky_error(1));
  EXPECT_FALSE(simt::cuda::is_sticky_error(2));
  EXPECT_EQ(simt::cuda::driver_version_string(13000), "13.0");
  EXPECT_EQ(simt::cuda::driver_version_string(12040), "12.4");
  EXPECT_EQ(simt::cuda::driver_version_string(11080), "11.8");
}

TEST(CudaDriver, GetIsStableAcrossThreads) {
  std::string why_main;
  const Driver* main_driver = Driver::get(&why_main);
  std::vector<const Driver*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] { seen[t] = Driver::get(nullptr); });
  for (auto& thread : threads) thread.join();
  for (const Driver* d : seen) EXPECT_EQ(d, main_driver);
}

TEST(CudaCompileTarget, ChoosesCubinOrPtx) {
  using simt::cuda::choose_compile_target;
  const std::vector<int> nvrtc13 = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
  CompileTarget t = choose_compile_target(90, nvrtc13);
  EXPECT_TRUE(t.error.empty());
  EXPECT_TRUE(t.cubin);
  EXPECT_EQ(t.arch, 90);
  // A device newer than NVRTC: PTX of the newest older architecture.
  t = choose_compile_target(130, nvrtc13);
  EXPECT_TRUE(t.error.empty());
  EXPECT_FALSE(t.cubin);
  EXPECT_EQ(t.arch, 121);
  t = choose_compile_target(88, nvrtc13);
  EXPECT_FALSE(t.cubin);
  EXPECT_EQ(t.arch, 87);
  // Unknown list: try the exact cubin.
  t = choose_compile_target(90, {});
  EXPECT_TRUE(t.cubin);
  EXPECT_EQ(t.arch, 90);
  // A device older than NVRTC supports.
  t = choose_compile_target(61, nvrtc13);
  EXPECT_FALSE(t.error.empty());
  EXPECT_TRUE(contains(t.error, "sm_61")) << t.error;
  EXPECT_TRUE(contains(t.error, "sm_75")) << t.error;

  EXPECT_EQ(simt::cuda::architecture_name(9, 0), "sm_90");
  EXPECT_EQ(simt::cuda::architecture_name(10, 0), "sm_100");
  EXPECT_EQ(simt::cuda::architecture_name(8, 6), "sm_86");
}

TEST(CudaCompileTarget, NvrtcOptions) {
  simt::runtime::CompileOptions plain;
  EXPECT_EQ(CudaDevice::nvrtc_options(plain), std::vector<std::string>{"--fmad=false"});
  simt::runtime::CompileOptions fast;
  fast.fastmath = true;
  EXPECT_EQ(CudaDevice::nvrtc_options(fast), std::vector<std::string>{"--use_fast_math"});
  simt::runtime::CompileOptions debug;
  debug.debug = true;
  EXPECT_EQ(CudaDevice::nvrtc_options(debug),
            (std::vector<std::string>{"--fmad=false", "-lineinfo"}));
}

// ---------------------------------------------------------------------------
// Generated and hand-written kernels (NVRTC alone compiles them; a device runs
// them further down)
// ---------------------------------------------------------------------------

// One corpus kernel emitted in the CUDA dialect; the parse tree and source it
// points into live as long as the emitted kernel is needed (emission copies).
simt::abi::GeneratedKernel emit_corpus_cuda(const std::string& name, size_t signature) {
  for (const auto& k : simt::testing::load_corpus(SIMT_SOURCE_DIR "/tests/cpp/data/kernels")) {
    if (k.name != name) continue;
    simt::lang::SourceText source(k.text, k.path, 1);
    auto parsed = simt::lang::parse_function(source);
    return simt::compiler::generate(parsed, source, k.signatures.at(signature),
                                    simt::testing::corpus_globals(), simt::abi::Language::Cuda);
  }
  throw std::runtime_error("no corpus kernel " + name);
}

constexpr const char* kNullWrite = R"(extern "C" __global__ void simt_test_null_write(int* p) {
  *(volatile int*)(p + threadIdx.x) = 42;
}
)";

constexpr const char* kFillIndex = R"(extern "C" __global__ void simt_test_fill_index(
    unsigned int* out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned int)i * 3u + 1u;
}
)";

simt::abi::GeneratedKernel hand_written(const char* source, const char* entry) {
  simt::abi::GeneratedKernel k;
  k.source = source;
  k.entry = entry;
  return k;
}

TEST(CudaKernels, SourcesCompileWithNvrtc) {
  std::string why;
  const simt::cuda::Nvrtc* nvrtc = simt::cuda::Nvrtc::get(&why);
  if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC unavailable: " << why;
  const auto options = CudaDevice::nvrtc_options({});
  for (const auto& kernel : {emit_corpus_cuda("saxpy", 0), emit_corpus_cuda("saxpy", 1),
                             hand_written(kNullWrite, "simt_test_null_write"),
                             hand_written(kFillIndex, "simt_test_fill_index")}) {
    auto result = nvrtc->compile(kernel.source, kernel.entry + ".cu", 9, 0, options, true);
    EXPECT_TRUE(result.ok) << kernel.entry << ":\n" << result.log << "\n" << kernel.source;
    EXPECT_FALSE(result.cubin.empty()) << kernel.entry;
  }
  // The saxpy kernel is what the device test packs arguments for.
  auto saxpy = emit_corpus_cuda("saxpy", 0);
  ASSERT_EQ(saxpy.params.size(), 10u);
  EXPECT_EQ(saxpy.params[0].role, simt::abi::Param::Role::Scalar);
  EXPECT_EQ(saxpy.params[1].role, simt::abi::Param::Role::ArrayData);
  EXPECT_EQ(saxpy.params[2].role, simt::abi::Param::Role::ArrayShape);
  EXPECT_EQ(saxpy.params[3].role, simt::abi::Param::Role::ArrayStride);
}

// ---------------------------------------------------------------------------
// On a GPU
// ---------------------------------------------------------------------------

std::shared_ptr<CudaDevice> cuda_device() {
  return std::dynamic_pointer_cast<CudaDevice>(simt::backends::find_device("cuda:0"));
}

#define REQUIRE_CUDA_DEVICE(var)                                                   \
  std::shared_ptr<CudaDevice> var = cuda_device();                                 \
  if (!var) {                                                                      \
    const auto* status = cuda_status();                                            \
    GTEST_SKIP() << "no CUDA device: " << (status ? status->detail : "no status"); \
  }

// Device memory freed at scope exit.
struct DeviceMemory {
  std::shared_ptr<CudaDevice> device;
  void* pointer;
  size_t bytes;
  DeviceMemory(std::shared_ptr<CudaDevice> d, size_t n)
      : device(std::move(d)), pointer(device->allocate(n)), bytes(n) {}
  ~DeviceMemory() { device->deallocate(pointer, bytes); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(pointer);
  }
};

TEST(CudaDevice, Info) {
  REQUIRE_CUDA_DEVICE(device);
  const auto& info = device->info();
  std::printf("[ cuda     ] %s: %s, %s, %llu MiB, %d SMs, driver %s\n", info.id.c_str(),
              info.name.c_str(), info.architecture.c_str(),
              static_cast<unsigned long long>(info.total_memory >> 20), info.compute_units,
              simt::cuda::driver_version_string(device->driver().version()).c_str());
  EXPECT_EQ(info.id, "cuda:0");
  EXPECT_EQ(info.index, 0);
  EXPECT_EQ(info.backend, simt::runtime::BackendKind::Cuda);
  EXPECT_FALSE(info.name.empty());
  auto [major, minor] = device->compute_capability();
  EXPECT_GE(major, 3);
  EXPECT_EQ(info.architecture, simt::cuda::architecture_name(major, minor));
  EXPECT_GT(info.total_memory, 0u);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_EQ(info.max_threads_per_block, 1024);
  EXPECT_EQ(info.max_block_dim[0], 1024);
  EXPECT_EQ(info.max_block_dim[2], 64);
  EXPECT_EQ(info.max_grid_dim[0], 2147483647);
  EXPECT_EQ(info.max_grid_dim[1], 65535);
  EXPECT_EQ(device->language(), simt::abi::Language::Cuda);
  EXPECT_FALSE(device->host_accessible());
}

TEST(CudaDevice, AllocateCopyRoundTrip) {
  REQUIRE_CUDA_DEVICE(device);
  const size_t n = 1 << 20;
  std::vector<uint32_t> host(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<uint32_t>(i * 2654435761u);
  DeviceMemory a(device, n * 4), b(device, n * 4);
  EXPECT_NE(a.pointer, nullptr);
  EXPECT_NE(a.pointer, b.pointer);
  device->copy_from_host(a.pointer, host.data(), n * 4);
  device->copy_on_device(b.pointer, a.pointer, n * 4);
  device->copy_to_host(back.data(), b.pointer, n * 4);
  EXPECT_EQ(back, host);

  // Sub-ranges and zero-byte copies.
  std::vector<uint32_t> part(100, 0);
  device->copy_to_host(part.data(), b.as<uint32_t>() + 1000, 100 * 4);
  for (size_t i = 0; i < 100; ++i) ASSERT_EQ(part[i], host[1000 + i]);
  device->copy_to_host(part.data(), b.pointer, 0);
  device->copy_from_host(b.pointer, part.data(), 0);

  // Overlapping device copies behave like memmove, both directions.
  std::vector<uint32_t> expected = host;
  std::memmove(expected.data() + 10, expected.data(), 1000 * 4);
  device->copy_on_device(a.as<uint32_t>() + 10, a.pointer, 1000 * 4);
  std::memmove(expected.data() + 5000, expected.data() + 5007, 3000 * 4);
  device->copy_on_device(a.as<uint32_t>() + 5000, a.as<uint32_t>() + 5007, 3000 * 4);
  device->copy_to_host(back.data(), a.pointer, n * 4);
  EXPECT_EQ(back, expected);

  // Zero bytes still give a distinct valid pointer.
  DeviceMemory empty(device, 0);
  EXPECT_NE(empty.pointer, nullptr);
  device->synchronize();
}

TEST(CudaDevice, UsableFromOtherThreads) {
  REQUIRE_CUDA_DEVICE(device);
  // A fresh thread has no current context: every operation must set it.
  std::vector<std::string> errors(3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      try {
        std::vector<int> host(4096, t + 1), back(4096, 0);
        void* p = device->allocate(host.size() * sizeof(int));
        device->copy_from_host(p, host.data(), host.size() * sizeof(int));
        device->copy_to_host(back.data(), p, host.size() * sizeof(int));
        device->synchronize();
        device->deallocate(p, host.size() * sizeof(int));
        if (back != host) errors[t] = "wrong data";
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

TEST(CudaDevice, FillBytes) {
  REQUIRE_CUDA_DEVICE(device);
  // Equal bytes: cuMemsetD8.
  {
    const size_t n = 100003;
    DeviceMemory m(device, n);
    const unsigned char byte = 0xAB;
    device->fill_bytes(m.pointer, &byte, 1, n);
    std::vector<unsigned char> back(n, 0);
    device->copy_to_host(back.data(), m.pointer, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 0xAB) << i;
    const uint32_t zero = 0;
    device->fill_bytes(m.pointer, &zero, 4, n / 4);
    device->copy_to_host(back.data(), m.pointer, n);
    for (size_t i = 0; i < n / 4 * 4; ++i) ASSERT_EQ(back[i], 0) << i;
    for (size_t i = n / 4 * 4; i < n; ++i) ASSERT_EQ(back[i], 0xAB) << i;  // untouched tail
  }
  // A float pattern, fewer items than one staging chunk.
  {
    const size_t n = 1000;
    DeviceMemory m(device, n * 4);
    const float value = 1.5f;
    device->fill_bytes(m.pointer, &value, 4, n);
    std::vector<float> back(n, 0.0f);
    device->copy_to_host(back.data(), m.pointer, n * 4);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 1.5f) << i;
  }
  // An odd-sized pattern over several chunks: the doubling copies must keep
  // the period, and stop exactly at the end.
  {
    const unsigned char pattern[3] = {1, 2, 3};
    const size_t count = (size_t{5} << 20) / 3 + 7;
    DeviceMemory m(device, count * 3 + 16);
    const unsigned char guard = 0xEE;
    device->fill_bytes(m.pointer, &guard, 1, count * 3 + 16);
    device->fill_bytes(m.pointer, pattern, 3, count);
    std::vector<unsigned char> back(count * 3 + 16, 0);
    device->copy_to_host(back.data(), m.pointer, back.size());
    for (size_t i = 0; i < count * 3; ++i) ASSERT_EQ(back[i], pattern[i % 3]) << i;
    for (size_t i = count * 3; i < back.size(); ++i) ASSERT_EQ(back[i], 0xEE) << i;
  }
  // A 16-byte complex128-like pattern.
  {
    const double pattern[2] = {-2.25, 7.0};
    const size_t count = 70001;
    DeviceMemory m(device, count * 16);
    device->fill_bytes(m.pointer, pattern, 16, count);
    std::vector<double> back(count * 2, 0.0);
    device->copy_to_host(back.data(), m.pointer, count * 16);
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(back[2 * i], -2.25) << i;
      ASSERT_EQ(back[2 * i + 1], 7.0) << i;
    }
  }
}

// Packs one pointer per simt::abi::Param: arrays as (data, shape..., strides...) of
// the given 1-D device arrays, scalars from `scalars` in argument order.
struct PackedArgs {
  std::vector<std::unique_ptr<unsigned char[]>> storage;
  std::vector<void*> pointers;
  template <class T>
  void add(const T& value) {
    auto bytes = std::make_unique<unsigned char[]>(sizeof(T));
    std::memcpy(bytes.get(), &value, sizeof(T));
    pointers.push_back(bytes.get());
    storage.push_back(std::move(bytes));
  }
};

struct Array1D {
  void* data;
  int64_t shape;
  int64_t stride;  // in elements
};

PackedArgs pack_saxpy(const simt::abi::GeneratedKernel& kernel, const void* scalar,
                      size_t scalar_bytes, const std::vector<Array1D>& arrays) {
  PackedArgs args;
  for (const auto& slot : kernel.params) {
    using Kind = simt::abi::Param::Role;
    switch (slot.role) {
      case Kind::Scalar: {
        auto bytes = std::make_unique<unsigned char[]>(scalar_bytes);
        std::memcpy(bytes.get(), scalar, scalar_bytes);
        args.pointers.push_back(bytes.get());
        args.storage.push_back(std::move(bytes));
        break;
      }
      case Kind::ArrayData:
        // A CUdeviceptr is what the kernel's pointer parameter receives.
        args.add(static_cast<simt::cuda::CUdeviceptr>(
            reinterpret_cast<uintptr_t>(arrays.at(slot.argument - 1).data)));
        break;
      case Kind::ArrayShape:
        args.add(arrays.at(slot.argument - 1).shape);
        break;
      case Kind::ArrayStride:
        args.add(arrays.at(slot.argument - 1).stride);
        break;
      case Kind::SharedBytes:
        args.add(int64_t{0});
        break;
      case Kind::CheckRecord:
        throw std::logic_error("saxpy is built without checks");
      case Kind::GridBarrier:
        throw std::logic_error("saxpy does not sync the grid");
      case Kind::RaceRecorder:
        throw std::logic_error("saxpy is built without racecheck");
    }
  }
  return args;
}

TEST(CudaDevice, CompilesAndLaunchesGeneratedSaxpy) {
  REQUIRE_CUDA_DEVICE(device);
  {
    // float32, contiguous: signature 0.
    const auto emitted = emit_corpus_cuda("saxpy", 0);
    auto compiled = device->compile(emitted, {});
    const auto& kernel = dynamic_cast<const CudaKernel&>(*compiled);
    std::printf("[ cuda     ] saxpy compiled for %s\n", kernel.target().c_str());
    EXPECT_EQ(kernel.entry(), emitted.entry);

    const int64_t n = 100000;  // not a multiple of the block: the bounds check matters
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = 0.25f * static_cast<float>(i) - 3.0f;
      y[i] = 1.0f / static_cast<float>(i + 1);
    }
    DeviceMemory dx(device, n * 4), dy(device, n * 4), dout(device, n * 4);
    device->copy_from_host(dx.pointer, x.data(), n * 4);
    device->copy_from_host(dy.pointer, y.data(), n * 4);
    device->copy_from_host(dout.pointer, out.data(), n * 4);
    const float a = 1.7f;
    auto args = pack_saxpy(emitted, &a, sizeof a,
                           {{dx.pointer, n, 1}, {dy.pointer, n, 1}, {dout.pointer, n, 1}});
    ASSERT_EQ(args.pointers.size(), emitted.params.size());
    simt::runtime::LaunchDims dims;
    dims.block = {128, 1, 1};
    dims.grid = {(n + 127) / 128, 1, 1};
    device->launch(*compiled, dims, args.pointers.data());
    device->synchronize();
    device->copy_to_host(out.data(), dout.pointer, n * 4);
    for (int64_t i = 0; i < n; ++i) {
      volatile float product = a * x[i];  // two roundings: compiled without FMA contraction
      const float expected = product + y[i];
      ASSERT_EQ(out[i], expected) << "i = " << i;
    }
  }
  {
    // float64 with strided views: signature 1, every other element.
    const auto emitted = emit_corpus_cuda("saxpy", 1);
    auto compiled = device->compile(emitted, {});
    const int64_t n = 5001;
    std::vector<double> x(2 * n), y(2 * n), out(2 * n, -1.0);
    for (int64_t i = 0; i < 2 * n; ++i) {
      x[i] = 0.5 * static_cast<double>(i);
      y[i] = static_cast<double>(i % 7);
    }
    DeviceMemory dx(device, 2 * n * 8), dy(device, 2 * n * 8), dout(device, 2 * n * 8);
    device->copy_from_host(dx.pointer, x.data(), 2 * n * 8);
    device->copy_from_host(dy.pointer, y.data(), 2 * n * 8);
    device->copy_from_host(dout.pointer, out.data(), 2 * n * 8);
    const double a = -3.0;
    auto args = pack_saxpy(emitted, &a, sizeof a,
                           {{dx.pointer, n, 2}, {dy.pointer, n, 2}, {dout.pointer, n, 2}});
    simt::runtime::LaunchDims dims;
    dims.block = {256, 1, 1};
    dims.grid = {(n + 255) / 256, 1, 1};
    device->launch(*compiled, dims, args.pointers.data());
    device->synchronize();
    device->copy_to_host(out.data(), dout.pointer, 2 * n * 8);
    for (int64_t i = 0; i < 2 * n; ++i) {
      if (i % 2 == 0) {
        ASSERT_EQ(out[i], a * x[i] + y[i]) << i;
      } else {
        ASSERT_EQ(out[i], -1.0) << i;  // between the strided elements: untouched
      }
    }
  }
}

TEST(CudaDevice, LaunchesHandWrittenKernelFromAnotherThread) {
  REQUIRE_CUDA_DEVICE(device);
  auto compiled = device->compile(hand_written(kFillIndex, "simt_test_fill_index"), {});
  const long long n = 3000;
  DeviceMemory out(device, n * 4);
  std::string error;
  std::thread worker([&] {
    try {
      simt::cuda::CUdeviceptr p = reinterpret_cast<uintptr_t>(out.pointer);
      void* args[] = {&p, const_cast<long long*>(&n)};
      simt::runtime::LaunchDims dims;
      dims.block = {64, 1, 1};
      dims.grid = {(n + 63) / 64, 1, 1};
      device->launch(*compiled, dims, args);
      device->synchronize();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  worker.join();
  ASSERT_EQ(error, "");
  std::vector<uint32_t> back(n);
  device->copy_to_host(back.data(), out.pointer, n * 4);
  for (long long i = 0; i < n; ++i) ASSERT_EQ(back[i], static_cast<uint32_t>(i) * 3u + 1u) << i;
  compiled.reset();  // unloads the module
  device->synchronize();
}

TEST(CudaDevice, PtxForTheDriverToCompile) {
  // The path taken when the device is newer than NVRTC: compute_XY PTX, which
  // the driver compiles when loading the module.
  REQUIRE_CUDA_DEVICE(device);
  auto [major, minor] = device->compute_capability();
  CompileTarget ptx_target;
  ptx_target.arch = major * 10 + minor;
  ptx_target.cubin = false;
  auto compiled =
      device->compile_for(hand_written(kFillIndex, "simt_test_fill_index"), {}, ptx_target);
  EXPECT_EQ(compiled->target(), "compute_" + std::to_string(major * 10 + minor));
  EXPECT_NE(compiled->ptx().find(".entry simt_test_fill_index"), std::string::npos);
  const long long n = 1000;
  DeviceMemory out(device, n * 4);
  simt::cuda::CUdeviceptr p = reinterpret_cast<uintptr_t>(out.pointer);
  long long count = n;
  void* args[] = {&p, &count};
  simt::runtime::LaunchDims dims;
  dims.block = {128, 1, 1};
  dims.grid = {(n + 127) / 128, 1, 1};
  device->launch(*compiled, dims, args);
  device->synchronize();
  std::vector<uint32_t> back(n);
  device->copy_to_host(back.data(), out.pointer, n * 4);
  for (long long i = 0; i < n; ++i) ASSERT_EQ(back[i], static_cast<uint32_t>(i) * 3u + 1u) << i;

  // How long launch() takes to enqueue a small kernel (information only).
  constexpr int kLaunches = 500;  // below the launch queue's depth
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i) device->launch(*compiled, dims, args);
  const auto enqueued = std::chrono::steady_clock::now();
  device->synchronize();
  const double us = std::chrono::duration<double, std::micro>(enqueued - start).count() / kLaunches;
  // The same launches straight through the driver, for comparison.
  const auto& fn = device->driver().fn();
  const auto raw_start = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i)
    fn.cuLaunchKernel(compiled->function(), static_cast<unsigned>(dims.grid[0]), 1, 1,
                      static_cast<unsigned>(dims.block[0]), 1, 1, 0, nullptr, args, nullptr);
  const auto raw_enqueued = std::chrono::steady_clock::now();
  device->synchronize();
  const double raw_us =
      std::chrono::duration<double, std::micro>(raw_enqueued - raw_start).count() / kLaunches;
  std::printf(
      "[ cuda     ] launch(): %.2f us per launch to enqueue, raw cuLaunchKernel %.2f us "
      "(%d launches each)\n",
      us, raw_us, kLaunches);
}

TEST(CudaDevice, CompileErrorCarriesNvrtcLog) {
  REQUIRE_CUDA_DEVICE(device);
  auto bad = hand_written("extern \"C\" __global__ void simt_test_bad(int* p) {\n  *p = q;\n}\n",
                          "simt_test_bad");
  try {
    device->compile(bad, {});
    FAIL() << "expected BackendCompileError";
  } catch (const BackendCompileError& e) {
    const std::string what = e.what();
    std::printf("[ cuda     ] %s\n", what.c_str());
    EXPECT_TRUE(contains(what, "simt_test_bad")) << what;
    EXPECT_TRUE(contains(what, "identifier \"q\" is undefined")) << what;
  }
}

TEST(CudaDevice, MissingEntryIsNamed) {
  REQUIRE_CUDA_DEVICE(device);
  auto k = hand_written(kFillIndex, "simt_test_not_there");
  try {
    device->compile(k, {});
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    std::printf("[ cuda     ] %s\n", what.c_str());
    EXPECT_TRUE(contains(what, "cuModuleGetFunction failed on cuda:0: CUDA_ERROR_NOT_FOUND"))
        << what;
    EXPECT_TRUE(contains(what, "simt_test_not_there")) << what;
  }
}

TEST(CudaDevice, LaunchErrorNamesKernel) {
  REQUIRE_CUDA_DEVICE(device);
  auto compiled = device->compile(hand_written(kFillIndex, "simt_test_fill_index"), {});
  simt::cuda::CUdeviceptr p = 0;
  long long n = 0;
  void* args[] = {&p, &n};
  simt::runtime::LaunchDims dims;
  dims.block = {2048, 1, 1};  // past the device's limit: the driver refuses the launch
  try {
    device->launch(*compiled, dims, args);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    std::printf("[ cuda     ] %s\n", what.c_str());
    EXPECT_TRUE(contains(what, "cuLaunchKernel failed on cuda:0: CUDA_ERROR_INVALID_VALUE ("))
        << what;
    EXPECT_TRUE(contains(what, "simt_test_fill_index")) << what;
    EXPECT_TRUE(contains(what, "block (2048, 1, 1)")) << what;
  }
  // Not sticky: the device still works.
  dims.block = {1, 1, 1};
  EXPECT_NO_THROW(device->launch(*compiled, dims, args));
  EXPECT_NO_THROW(device->synchronize());
}

TEST(CudaDevice, HugeAllocationThrowsOutOfMemory) {
  REQUIRE_CUDA_DEVICE(device);
  const size_t huge = size_t{1} << 50;  // 1 PiB
  try {
    void* p = device->allocate(huge);
    device->deallocate(p, huge);
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const OutOfMemory& e) {
    const std::string what = e.what();
    std::printf("[ cuda     ] %s\n", what.c_str());
    EXPECT_TRUE(contains(what, "out of memory on cuda:0")) << what;
    EXPECT_TRUE(contains(what, std::to_string(huge))) << what;
    EXPECT_TRUE(contains(what, "CUDA_ERROR_OUT_OF_MEMORY")) << what;
  }
  // The device is still usable.
  DeviceMemory small(device, 1024);
  device->synchronize();
}

// Keep last: the fault poisons the context of the process that runs it. It
// runs in a re-executed child process (death test, "threadsafe" style), so
// this process's context stays good; being last is a second safeguard.
[[noreturn]] void run_null_write_and_exit() {
  auto device = cuda_device();
  if (!device) {
    std::fprintf(stderr, "no CUDA device in the child\n");
    std::_Exit(2);
  }
  try {
    auto compiled = device->compile(hand_written(kNullWrite, "simt_test_null_write"), {});
    simt::cuda::CUdeviceptr null_pointer = 0;
    void* args[] = {&null_pointer};
    simt::runtime::LaunchDims dims;
    dims.block = {32, 1, 1};
    device->launch(*compiled, dims, args);
    device->synchronize();
    std::fprintf(stderr, "synchronize did not throw\n");
    std::_Exit(3);
  } catch (const DeviceError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::printf("[ cuda     ] in the child: %s\n", e.what());
    std::fflush(stderr);
    std::fflush(stdout);
    // _Exit: no destructors touching the dead context.
    std::_Exit(0);
  }
}

TEST(CudaDeviceDeathTest, IllegalAddressIsReportedBySynchronize) {
  REQUIRE_CUDA_DEVICE(device);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_null_write_and_exit(), ::testing::ExitedWithCode(0),
              "cuCtxSynchronize failed on cuda:0: CUDA_ERROR_ILLEGAL_ADDRESS \\(.*\\) \\(the most "
              "recent kernel launched on cuda:0 was simt_test_null_write\\)");
  // This process's device is unaffected.
  EXPECT_NO_THROW(device->synchronize());
}

}  // namespace
