// The OpenCL device (opencl_device.h): its private address space over
// cl_mem buffers, copies and fills, generated kernels built and launched on
// views (buffer + offset), and its compile errors (missing float64, build
// logs pointing at Python lines). Runs on the first OpenCL device (PoCL's
// CPU device in CI); skips without one.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/opencl/opencl_device.h"
#include "codegen/emitter.h"
#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/infer.h"
#include "support/kernel_corpus.h"

namespace {

namespace cl = simt::opencl;
using simt::runtime::BackendCompileError;
using simt::runtime::DeviceError;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The first OpenCL device, opened once for the whole file (PoCL's context
// creation costs tens of milliseconds).
std::shared_ptr<cl::OpenCLDevice> first_device(std::string* why) {
  static std::string reason;
  static std::shared_ptr<cl::OpenCLDevice> device = [] {
    std::vector<cl::DeviceInfo> found = cl::list_devices(&reason);
    if (found.empty()) return std::shared_ptr<cl::OpenCLDevice>();
    return std::make_shared<cl::OpenCLDevice>(*found.front().api, found.front(), 0);
  }();
  *why = reason;
  return device;
}

#define REQUIRE_DEVICE(var)                \
  std::string opencl_reason;               \
  auto var = first_device(&opencl_reason); \
  if (!var) GTEST_SKIP() << "no OpenCL device: " << opencl_reason

// A Python kernel compiled for `types` in the OpenCL dialect. The source
// text is copied into the emitted code, so nothing here must outlive it.
simt::abi::GeneratedKernel emit_opencl(const std::string& python,
                                       const std::vector<std::string>& types) {
  simt::lang::SourceText source(python, "/somewhere/k.py", 1);
  auto parsed = simt::lang::parse_function(source);
  std::vector<simt::sema::Type> arg_types;
  for (const auto& t : types) arg_types.push_back(*simt::sema::parse_type(t));
  return simt::compiler::generate(parsed, source, arg_types, simt::testing::corpus_globals(),
                                  simt::abi::Language::OpenCL);
}

constexpr const char* kScale = R"(def scale(x, out, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * a + 1
)";

// Owns device memory for one test.
struct DeviceMemory {
  simt::runtime::Device& device;
  size_t bytes;
  void* pointer = device.allocate(bytes);
  ~DeviceMemory() { device.deallocate(pointer, bytes); }
  char* at(size_t offset) const { return static_cast<char*>(pointer) + offset; }
};

TEST(OpenCLDevice, DescribesItselfAsARuntimeDevice) {
  REQUIRE_DEVICE(device);
  const auto& info = device->info();
  EXPECT_EQ(info.id, "opencl:0");
  EXPECT_EQ(info.backend, simt::runtime::BackendKind::OpenCL);
  EXPECT_EQ(info.name, device->opencl_info().name);
  EXPECT_GT(info.total_memory, 0u);
  EXPECT_GE(info.max_threads_per_block, 1);
  EXPECT_EQ(info.gpu, device->opencl_info().type == cl::DeviceType::gpu);
  EXPECT_FALSE(device->host_accessible());
  EXPECT_EQ(device->language(), simt::abi::Language::OpenCL);
}

TEST(OpenCLDevice, AddressesNameBuffersAndOffsets) {
  REQUIRE_DEVICE(device);
  DeviceMemory a{*device, 100}, b{*device, 0}, c{*device, 4096};
  EXPECT_NE(a.pointer, nullptr);
  EXPECT_NE(a.pointer, b.pointer);  // a zero-byte allocation is distinct too
  EXPECT_NE(b.pointer, c.pointer);
  auto [buffer, offset] = device->resolve(a.at(40), 60);
  EXPECT_NE(buffer, nullptr);
  EXPECT_EQ(offset, 40u);
  EXPECT_EQ(device->resolve(a.at(100), 0).second, 100u);  // one past the end
  EXPECT_NE(device->resolve(a.pointer, 1).first, device->resolve(c.pointer, 1).first);
  EXPECT_THROW(device->resolve(a.at(40), 61), DeviceError);  // runs past the end
  int host = 0;
  try {
    device->resolve(&host, 4);
    FAIL() << "a host address resolved";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "is not memory of opencl:0")) << e.what();
  }
}

TEST(OpenCLDevice, CopiesRoundTripThroughViews) {
  REQUIRE_DEVICE(device);
  std::vector<uint8_t> data(1000);
  std::iota(data.begin(), data.end(), uint8_t{7});
  DeviceMemory memory{*device, data.size()};
  device->copy_from_host(memory.pointer, data.data(), data.size());
  std::vector<uint8_t> back(300);
  device->copy_to_host(back.data(), memory.at(123), back.size());
  EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin() + 123));

  // memmove semantics inside one buffer, in both directions.
  device->copy_on_device(memory.at(10), memory.at(0), 500);
  std::vector<uint8_t> expected = data;
  std::memmove(expected.data() + 10, expected.data(), 500);
  device->copy_on_device(memory.at(600), memory.at(650), 300);
  std::memmove(expected.data() + 600, expected.data() + 650, 300);
  std::vector<uint8_t> all(data.size());
  device->copy_to_host(all.data(), memory.pointer, all.size());
  EXPECT_EQ(all, expected);

  // Between buffers.
  DeviceMemory other{*device, 64};
  device->copy_on_device(other.pointer, memory.at(900), 64);
  std::vector<uint8_t> tail(64);
  device->copy_to_host(tail.data(), other.pointer, 64);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), expected.begin() + 900));
}

TEST(OpenCLDevice, MappedMemoryIsSharedWithTheHostOrRefusedClearly) {
  REQUIRE_DEVICE(device);
  using simt::runtime::HostMemoryKind;
  if (!device->opencl_info().svm_fine_grain_buffer) {
    try {
      device->allocate_host(64, HostMemoryKind::Mapped);
      FAIL() << "mapped memory without fine-grained SVM";
    } catch (const std::invalid_argument& error) {
      EXPECT_TRUE(contains(error.what(), "CL_DEVICE_SVM_FINE_GRAIN_BUFFER")) << error.what();
    }
    return;
  }
  for (HostMemoryKind kind : {HostMemoryKind::Mapped, HostMemoryKind::Managed}) {
    auto shared = device->allocate_host(256, kind);
    ASSERT_NE(shared->host(), nullptr);
    ASSERT_NE(shared->device_pointer(), shared->host());  // an address of the buffer space
    auto* bytes = static_cast<uint8_t*>(shared->host());
    std::iota(bytes, bytes + 256, uint8_t{1});
    // The device reads what the host wrote, through the buffer, at an offset...
    auto* at = static_cast<uint8_t*>(shared->device_pointer());
    std::vector<uint8_t> back(100);
    device->copy_to_host(back.data(), at + 50, back.size());
    EXPECT_TRUE(std::equal(back.begin(), back.end(), bytes + 50));
    // ... and the host sees what the device wrote.
    const uint8_t pattern = 0xab;
    device->fill_bytes(at + 10, &pattern, 1, 20);
    device->synchronize();
    EXPECT_EQ(bytes[9], 10);
    EXPECT_EQ(bytes[10], 0xab);
    EXPECT_EQ(bytes[29], 0xab);
    EXPECT_EQ(bytes[30], 31);
  }
}

TEST(OpenCLDevice, FillsAnyPatternAtAnyOffset) {
  REQUIRE_DEVICE(device);
  DeviceMemory memory{*device, 4000};
  std::vector<uint8_t> expected(4000, 0);
  device->fill_bytes(memory.pointer, "\0", 1, 4000);
  auto fill = [&](size_t offset, const std::vector<uint8_t>& pattern, size_t count) {
    device->fill_bytes(memory.at(offset), pattern.data(), pattern.size(), count);
    for (size_t k = 0; k < count; ++k)
      std::memcpy(expected.data() + offset + k * pattern.size(), pattern.data(), pattern.size());
  };
  fill(0, {1, 2, 3, 4}, 10);  // clEnqueueFillBuffer
  fill(41, {9, 8}, 7);        // offset not a multiple of the pattern: by copies
  fill(100, {5, 6, 7}, 300);  // 3 bytes: not a size OpenCL fills
  fill(1500, std::vector<uint8_t>(16, 0xAB), 20);
  std::vector<uint8_t> all(4000);
  device->copy_to_host(all.data(), memory.pointer, all.size());
  EXPECT_EQ(all, expected);
}

TEST(OpenCLDevice, LaunchesGeneratedKernelsOnViews) {
  REQUIRE_DEVICE(device);
  auto emitted = emit_opencl(kScale, {"float32[:]", "float32[:]", "float32"});
  auto kernel = device->compile(emitted, {});

  const int64_t n = 1000, skip = 37;  // views start 37 and 3 elements into their buffers
  std::mt19937 gen(1234);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> x(n + skip);
  for (float& v : x) v = dist(gen);
  DeviceMemory xs{*device, x.size() * 4}, out{*device, (n + 3) * 4};
  device->copy_from_host(xs.pointer, x.data(), x.size() * 4);
  device->fill_bytes(out.pointer, "\xff\xff\xff\xff", 4, n + 3);

  void* x_data = xs.at(skip * 4);
  void* out_data = out.at(3 * 4);
  int64_t shape = n, stride = 1;
  float a = 2.5f;
  void* args[] = {&x_data, &shape, &stride, &out_data, &shape, &stride, &a};
  simt::runtime::LaunchDims dims;
  dims.block = {64, 1, 1};
  dims.grid = {(n + 63) / 64, 1, 1};
  device->launch(*kernel, dims, args);
  device->synchronize();

  std::vector<float> result(n + 3);
  device->copy_to_host(result.data(), out.pointer, result.size() * 4);
  uint32_t poison = 0;
  std::memcpy(&poison, &result[0], 4);
  EXPECT_EQ(poison, 0xffffffffu);  // before the view: untouched
  for (int64_t i = 0; i < n; ++i) {
    float expected = x[skip + i] * a + 1.0f;  // no contraction into an FMA
    ASSERT_EQ(result[3 + i], expected) << "at " << i;
  }
}

TEST(OpenCLDevice, RejectsBlocksLargerThanTheKernelAllows) {
  REQUIRE_DEVICE(device);
  auto kernel = device->compile(emit_opencl(kScale, {"float32[:]", "float32[:]", "float32"}), {});
  const auto& limit = static_cast<const cl::OpenCLKernel&>(*kernel).max_work_group_size();
  DeviceMemory memory{*device, 16};
  void* data = memory.pointer;
  int64_t shape = 4, stride = 1;
  float a = 1;
  void* args[] = {&data, &shape, &stride, &data, &shape, &stride, &a};
  simt::runtime::LaunchDims dims;
  dims.block = {static_cast<int64_t>(limit) + 1, 1, 1};
  try {
    device->launch(*kernel, dims, args);
    FAIL() << "launched a block of " << limit + 1;
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "more than this kernel can run")) << e.what();
  }
}

TEST(OpenCLDevice, Float64OnADeviceWithoutItIsUnsupportedAtTheLine) {
  REQUIRE_DEVICE(device);
  cl::DeviceInfo no_fp64 = device->opencl_info();
  no_fp64.fp64 = false;
  cl::OpenCLDevice limited(*no_fp64.api, no_fp64, 7);

  constexpr const char* kUsesDouble = R"(def k(x, out):
    i = cuda.grid(1)
    y = x[i] * 2
    out[i] = y + 0.5
)";
  // float32 throughout: builds.
  EXPECT_NO_THROW(limited.compile(emit_opencl(kUsesDouble, {"float32[:]", "float32[:]"}), {}));
  try {
    limited.compile(emit_opencl(kUsesDouble, {"float64[:]", "float64[:]"}), {});
    FAIL() << "float64 compiled on a device without fp64";
  } catch (const simt::runtime::UnsupportedFeature& e) {
    ASSERT_TRUE(e.where.has_value());
    EXPECT_EQ(e.where->file, "/somewhere/k.py");
    EXPECT_EQ(e.where->line, 3);  // the first statement computing in double
    EXPECT_EQ(e.where->text, "    y = x[i] * 2");
    const std::string message = e.what();
    EXPECT_TRUE(contains(message, "float64")) << message;
    EXPECT_TRUE(contains(message, "opencl:7")) << message;
    EXPECT_TRUE(contains(message, "cl_khr_fp64")) << message;
  }
}

TEST(OpenCLDevice, BuildLogsPointAtPythonLines) {
  REQUIRE_DEVICE(device);
  simt::abi::GeneratedKernel broken;
  broken.entry = "simt_kernel_broken";
  broken.source = R"(__kernel void simt_kernel_broken(__global float* out) {
  // k.py:12: out[0] = undefined_name
  out[0] = undefined_name;
}
)";
  try {
    device->compile(broken, {});
    FAIL() << "the broken kernel built";
  } catch (const BackendCompileError& e) {
    EXPECT_TRUE(contains(e.what(), "rejected the OpenCL C code of simt_kernel_broken")) << e.what();
    EXPECT_TRUE(contains(e.what(), "undefined_name")) << e.what();
    EXPECT_TRUE(contains(e.what(), "(generated from k.py:12: out[0] = undefined_name)"))
        << e.what();
  }
}

TEST(OpenCLDevice, BuildOptionsFollowCompileOptions) {
  REQUIRE_DEVICE(device);
  // Without sub-groups, every build also sizes the warp operations' __local slots:
  // the largest work-group in whole warps.
  const auto& info = device->opencl_info();
  const std::string warps =
      info.warp_subgroups_missing.empty()
          ? ""
          : "-D SIMT_WARP_SCRATCH=" + std::to_string((info.max_work_group_size + 31) / 32 * 32);
  auto with_warps = [&](const std::string& rounding) {
    return warps.empty() || rounding.empty() ? warps + rounding : warps + " " + rounding;
  };
  simt::runtime::CompileOptions fast;
  fast.fastmath = true;
  EXPECT_EQ(device->build_options(fast), with_warps("-cl-fast-relaxed-math"));
  const std::string exact = device->build_options({});
  EXPECT_EQ(exact, with_warps(info.fp32_correctly_rounded_divide_sqrt
                                  ? "-cl-fp32-correctly-rounded-divide-sqrt"
                                  : ""));
}

}  // namespace
