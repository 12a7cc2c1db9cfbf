// Raw kernels' device-neutral pieces: checking an argument against a
// parameter the driver reported, the cache's key and payload helpers, and
// NVRTC's name expressions (no GPU needed).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/nvrtc.h"
#include "runtime/device.h"
#include "runtime/disk_cache.h"

namespace {

using simt::abi::Scalar;
using simt::runtime::raw_argument_mismatch;
using simt::runtime::RawArgument;
using simt::runtime::RawParam;

RawParam value(size_t bytes, std::string type, std::optional<Scalar> scalar) {
  RawParam p;
  p.kind = RawParam::Kind::Value;
  p.bytes = bytes;
  p.type_name = std::move(type);
  p.scalar = scalar;
  return p;
}

RawArgument scalar(Scalar s) { return RawArgument{false, s}; }
const RawArgument kArray{true, Scalar::Int64};

TEST(RawArguments, OpenCLValuesMatchSizeAndKind) {
  RawParam f = value(4, "float", Scalar::Float32);
  EXPECT_EQ(raw_argument_mismatch(f, scalar(Scalar::Float32)), "");
  EXPECT_EQ(raw_argument_mismatch(f, scalar(Scalar::Float64)),
            "a 4-byte value (float), not float64 (8 bytes); pass numpy.float32(...)");
  EXPECT_EQ(raw_argument_mismatch(f, scalar(Scalar::Int32)),
            "a 4-byte value (float), not int32 (4 bytes); pass numpy.float32(...)");
  EXPECT_EQ(raw_argument_mismatch(f, kArray), "a 4-byte value (float), not an array");
  // Integers of either sign pass for each other.
  EXPECT_EQ(raw_argument_mismatch(value(4, "uint", Scalar::UInt32), scalar(Scalar::Int32)), "");
  // A vector type: its size only.
  EXPECT_EQ(raw_argument_mismatch(value(8, "float2", std::nullopt), scalar(Scalar::Complex64)), "");
  EXPECT_NE(raw_argument_mismatch(value(0, "struct pair", std::nullopt), scalar(Scalar::Int64))
                .find("which simt cannot pass"),
            std::string::npos);
}

TEST(RawArguments, PointersTakeArraysOnly) {
  RawParam p;
  p.kind = RawParam::Kind::GlobalPointer;
  p.bytes = 8;
  p.type_name = "float*";
  EXPECT_EQ(raw_argument_mismatch(p, kArray), "");
  EXPECT_EQ(raw_argument_mismatch(p, scalar(Scalar::Int64)),
            "an array (for the pointer float*), not int64 (8 bytes)");
  p.kind = RawParam::Kind::LocalPointer;
  EXPECT_NE(raw_argument_mismatch(p, kArray).find("__local pointer parameters"), std::string::npos);
}

TEST(RawArguments, CudaParametersAreCheckedBySize) {
  RawParam p;  // Kind::Unknown: what cuFuncGetParamInfo says
  p.bytes = 4;
  EXPECT_EQ(raw_argument_mismatch(p, scalar(Scalar::Int32)), "");
  EXPECT_EQ(raw_argument_mismatch(p, scalar(Scalar::Float32)), "");
  EXPECT_NE(raw_argument_mismatch(p, kArray).find("a 4-byte value, not an array"),
            std::string::npos);
  EXPECT_NE(raw_argument_mismatch(p, scalar(Scalar::Int64)).find("numpy.int32(n)"),
            std::string::npos);
  p.bytes = 8;
  EXPECT_EQ(raw_argument_mismatch(p, kArray), "");
  EXPECT_EQ(raw_argument_mismatch(p, scalar(Scalar::Float32))
                .rfind("an 8-byte value (a pointer or 8-byte scalar), not float32 (4 bytes)", 0),
            0u);
  p.bytes = 16;
  EXPECT_EQ(raw_argument_mismatch(p, scalar(Scalar::Complex128)), "");
}

TEST(CacheKey, PartsAreLengthPrefixedSoNoTwoListsCollide) {
  using simt::runtime::cache_key;
  EXPECT_NE(cache_key("cuda", {"a\n1:b", ""}), cache_key("cuda", {"a", "b"}));
  EXPECT_NE(cache_key("cuda", {"ab", "c"}), cache_key("cuda", {"a", "bc"}));
  EXPECT_NE(cache_key("cuda", {"x"}), cache_key("opencl", {"x"}));
  EXPECT_EQ(cache_key("cuda", {"x", "y"}), cache_key("cuda", {"x", "y"}));
}

TEST(Payload, RoundTripsAndRejectsTruncation) {
  simt::runtime::PayloadWriter out;
  out.put_u32(2);
  out.put_string("first");
  out.put_string(std::string("with\0nul", 8));
  out.put_tail("IMAGE");
  const std::string payload = out.take();

  simt::runtime::PayloadReader in(payload);
  uint32_t count = 0;
  std::string a, b;
  ASSERT_TRUE(in.get_u32(&count));
  ASSERT_TRUE(in.get_string(&a));
  ASSERT_TRUE(in.get_string(&b));
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(a, "first");
  EXPECT_EQ(b, std::string("with\0nul", 8));
  EXPECT_EQ(in.tail(), "IMAGE");

  for (size_t cut = 0; cut < 13; ++cut) {
    simt::runtime::PayloadReader short_in(std::string_view(payload).substr(0, cut));
    uint32_t n = 0;
    std::string s;
    EXPECT_FALSE(short_in.get_u32(&n) && short_in.get_string(&s)) << cut;
  }
}

TEST(NvrtcNameExpressions, TemplateInstancesAreLowered) {
  std::string why;
  const simt::cuda::Nvrtc* nvrtc = simt::cuda::Nvrtc::get(&why);
  if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC unavailable: " << why;
  const char* source = R"(
template <typename T, int N> __global__ void scale(T* x) { x[threadIdx.x] *= T(N); }
)";
  auto result =
      nvrtc->compile(source, "t.cu", 9, 0, {}, true, {"scale<float, 3>", "scale<double, 2>"});
  ASSERT_TRUE(result.ok) << result.log;
  ASSERT_EQ(result.lowered_names.size(), 2u);
  EXPECT_NE(result.lowered_names[0], result.lowered_names[1]);
  EXPECT_EQ(result.lowered_names[0].rfind("_Z", 0), 0u) << result.lowered_names[0];

  auto missing = nvrtc->compile(source, "t.cu", 9, 0, {}, true, {"nonexistent<int>"});
  EXPECT_FALSE(missing.ok);
}

// The CUDA backend's cubin cache, through the function CudaDevice uses
// (compiling needs NVRTC only): the second compile reads the entry, and a
// different source or option is another entry.
TEST(CudaCubinCache, SecondCompileReadsTheEntry) {
  std::string why;
  const simt::cuda::Nvrtc* nvrtc = simt::cuda::Nvrtc::get(&why);
  if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC unavailable: " << why;
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("simt-cubin-cache-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  simt::runtime::DiskCache cache(folder.string());
  const std::string source = R"(
template <typename T> __global__ void twice(T* x) { x[threadIdx.x] *= T(2); }
)";
  simt::cuda::CompileTarget target;
  target.arch = 90;
  auto compile = [&](const std::string& text, std::vector<std::string> options) {
    return simt::cuda::compile_cached(*nvrtc, cache, 13000, text, "t.cu", target, options,
                                      {"twice<float>"}, true, "test code");
  };
  auto entries = [&] {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(folder))
      n += e.path().extension() == ".bin";
    return n;
  };
  simt::cuda::CudaBinary first = compile(source, {});
  ASSERT_EQ(entries(), 1u);
  const auto stamp = fs::last_write_time(*fs::recursive_directory_iterator(folder / "cuda"));
  simt::cuda::CudaBinary second = compile(source, {});
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.lowered_names, first.lowered_names);
  EXPECT_EQ(second.target, "sm_90");
  EXPECT_EQ(fs::last_write_time(*fs::recursive_directory_iterator(folder / "cuda")), stamp);
  compile(source + "\n", {});
  compile(source, {"--fmad=false"});
  EXPECT_EQ(entries(), 3u);
  // A compile error is reported, and stores nothing.
  EXPECT_THROW(compile("__global__ void broken( {}", {}), simt::runtime::BackendCompileError);
  EXPECT_EQ(entries(), 3u);
  fs::remove_all(folder);
}

}  // namespace
