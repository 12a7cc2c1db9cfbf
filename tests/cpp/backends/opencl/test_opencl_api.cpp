// OpenCL loader, device enumeration and program builds. Runs against whatever
// ICD is installed (PoCL's CPU device in CI); skips when there is none.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/opencl/opencl_api.h"
#include "support/scoped_env.h"

namespace {

namespace cl = simt::opencl;

using simt::test_support::ScopedEnv;

#define REQUIRE_OPENCL_DEVICES(var)                                   \
  std::string opencl_reason;                                          \
  std::vector<cl::DeviceInfo> var = cl::list_devices(&opencl_reason); \
  if (var.empty()) GTEST_SKIP() << "no OpenCL device: " << opencl_reason

constexpr const char* kValidKernel = R"(
__kernel void scale(__global float* x, float factor, int n) {
  int i = get_global_id(0);
  if (i < n) x[i] *= factor;
}
)";

constexpr const char* kInvalidKernel = R"(
__kernel void broken(__global float* x) {
  x[get_global_id(0)] = not_declared_anywhere;
}
)";

TEST(OpenCLApi, ErrorNames) {
  EXPECT_STREQ(cl::error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_STREQ(cl::error_name(cl::CL_SUCCESS), "CL_SUCCESS");
  EXPECT_STREQ(cl::error_name(-5), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(cl::error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_STREQ(cl::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_STREQ(cl::error_name(-9999), "CL_UNKNOWN_ERROR");
}

TEST(OpenCLApi, ErrorMessageNamesCallAndCode) {
  cl::OpenCLError error("clBuildProgram", cl::CL_BUILD_PROGRAM_FAILURE);
  EXPECT_EQ(error.code(), -11);
  EXPECT_STREQ(error.what(), "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)");
  EXPECT_THROW(cl::check(cl::CL_INVALID_VALUE, "clGetDeviceInfo"), cl::OpenCLError);
  EXPECT_NO_THROW(cl::check(cl::CL_SUCCESS, "clGetDeviceInfo"));
}

TEST(OpenCLApi, MissingExplicitLibraryIsReported) {
  ScopedEnv env("SIMT_OPENCL_LIBRARY", "/nonexistent/simt-test/libOpenCL.so.1");
  std::string why_not;
  EXPECT_EQ(cl::OpenCLApi::load(&why_not), nullptr);
  EXPECT_NE(why_not.find("/nonexistent/simt-test/libOpenCL.so.1"), std::string::npos) << why_not;
}

TEST(OpenCLApi, LibraryWithoutTheFunctionsIsReported) {
  // libm loads fine but exports no OpenCL: the reason names the first missing
  // function instead of crashing later.
  ScopedEnv env("SIMT_OPENCL_LIBRARY", "libm.so.6");
  std::string why_not;
  EXPECT_EQ(cl::OpenCLApi::load(&why_not), nullptr);
  EXPECT_NE(why_not.find("clGetPlatformIDs"), std::string::npos) << why_not;
}

// A driver opened without the ICD loader: the path PoCL from pip takes on a machine with
// no OpenCL package. Debian's PoCL stands in for it (the same kind of ICD library).
constexpr const char* kSystemPocl = "/usr/lib/x86_64-linux-gnu/libpocl.so.2";

TEST(OpenCLApi, OpensADriverWithoutTheLoaderAndBuildsWithIt) {
  std::string why_not;
  std::unique_ptr<cl::OpenCLApi> api = cl::OpenCLApi::load_driver(kSystemPocl, &why_not);
  if (api == nullptr && why_not.find("cannot be opened") != std::string::npos) {
    GTEST_SKIP() << "no " << kSystemPocl << " (apt install libpocl2): " << why_not;
  }
  ASSERT_NE(api, nullptr) << why_not;
  EXPECT_EQ(api->kind(), cl::OpenCLApi::Kind::driver);
  // The same file, by whichever name the dynamic loader first mapped it (the ICD loader
  // may have opened it earlier in this process).
  EXPECT_TRUE(std::filesystem::equivalent(api->library_path(), kSystemPocl)) << api->library_path();

  cl::cl_uint count = 0;
  ASSERT_EQ(api->clGetPlatformIDs(0, nullptr, &count), cl::CL_SUCCESS);
  ASSERT_GE(count, 1u);
  cl::cl_platform_id platform = nullptr;
  ASSERT_EQ(api->clGetPlatformIDs(1, &platform, nullptr), cl::CL_SUCCESS);
  cl::cl_device_id device = nullptr;
  ASSERT_EQ(api->clGetDeviceIDs(platform, cl::CL_DEVICE_TYPE_ALL, 1, &device, nullptr),
            cl::CL_SUCCESS);
  cl::Context context = cl::create_context(*api, platform, device);
  cl::Program program;
  cl::BuildResult built = cl::build_program(context, device, kValidKernel, "", &program);
  ASSERT_TRUE(built.ok) << built.log;
  EXPECT_EQ(cl::program_kernel_names(program), std::vector<std::string>{"scale"});
}

TEST(OpenCLApi, ExplicitLibraryMayBeADriver) {
  std::string why_not;
  {
    ScopedEnv env("SIMT_OPENCL_LIBRARY", kSystemPocl);
    std::unique_ptr<cl::OpenCLApi> api = cl::OpenCLApi::load(&why_not);
    if (api == nullptr && why_not.find("not found") != std::string::npos) {
      GTEST_SKIP() << "no " << kSystemPocl;
    }
    ASSERT_NE(api, nullptr) << why_not;
    EXPECT_EQ(api->kind(), cl::OpenCLApi::Kind::driver);
  }
}

TEST(OpenCLApi, ALibraryThatIsNoDriverIsReported) {
  std::string why_not;
  EXPECT_EQ(cl::OpenCLApi::load_driver("libm.so.6", &why_not), nullptr);
  EXPECT_NE(why_not.find("is no usable OpenCL driver"), std::string::npos) << why_not;
  EXPECT_NE(why_not.find("clGetExtensionFunctionAddress"), std::string::npos) << why_not;
  EXPECT_EQ(cl::OpenCLApi::load_driver("/nonexistent/simt-test/libpocl.so", &why_not), nullptr);
  EXPECT_NE(why_not.find("cannot be opened"), std::string::npos) << why_not;
}

TEST(OpenCLApi, ListedDevicesNameTheirLibrary) {
  REQUIRE_OPENCL_DEVICES(devices);
  const cl::OpenCLApi::Libraries& libraries = cl::OpenCLApi::libraries();
  for (const cl::DeviceInfo& device : devices) {
    ASSERT_NE(device.api, nullptr);
    EXPECT_NE(std::find(libraries.apis.begin(), libraries.apis.end(), device.api),
              libraries.apis.end());
  }
}

TEST(OpenCLApi, ListsDevicesWithSaneProperties) {
  REQUIRE_OPENCL_DEVICES(devices);
  for (const cl::DeviceInfo& device : devices) {
    SCOPED_TRACE(device.platform_name + " / " + device.name);
    EXPECT_NE(device.device, nullptr);
    EXPECT_NE(device.platform, nullptr);
    EXPECT_FALSE(device.name.empty());
    EXPECT_EQ(device.version.rfind("OpenCL ", 0), 0u) << device.version;
    EXPECT_EQ(device.opencl_c_version.rfind("OpenCL C ", 0), 0u) << device.opencl_c_version;
    EXPECT_GT(device.compute_units, 0u);
    EXPECT_GT(device.global_mem_size, 0u);
    EXPECT_GT(device.max_work_group_size, 0u);
    EXPECT_GE(device.max_work_item_sizes.size(), 3u);
    EXPECT_EQ(device.fp16, device.has_extension("cl_khr_fp16"));
    EXPECT_EQ(device.int64_atomics, device.has_extension("cl_khr_int64_base_atomics"));
    if (device.has_extension("cl_khr_fp64")) {
      EXPECT_TRUE(device.fp64);
    }
  }
}

TEST(OpenCLApi, HasExtensionMatchesWholeWords) {
  cl::DeviceInfo device;
  device.extensions = "cl_khr_fp64 cl_khr_int64_base_atomics_ext  cl_intel_subgroups ";
  EXPECT_TRUE(device.has_extension("cl_khr_fp64"));
  EXPECT_TRUE(device.has_extension("cl_intel_subgroups"));
  EXPECT_FALSE(device.has_extension("cl_khr_int64_base_atomics"));
  EXPECT_FALSE(device.has_extension("cl_khr"));
  EXPECT_FALSE(device.has_extension(""));
}

TEST(OpenCLApi, BuildsValidKernel) {
  REQUIRE_OPENCL_DEVICES(devices);
  for (const cl::DeviceInfo& device : devices) {
    SCOPED_TRACE(device.name);
    cl::BuildResult result = cl::build_program(device, kValidKernel, "-cl-std=CL1.2");
    EXPECT_TRUE(result.ok) << result.log;
  }
}

TEST(OpenCLApi, InvalidKernelGivesLogNotException) {
  REQUIRE_OPENCL_DEVICES(devices);
  cl::BuildResult result = cl::build_program(devices.front(), kInvalidKernel, "");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("not_declared_anywhere"), std::string::npos) << result.log;
}

TEST(OpenCLApi, InvalidOptionsGiveAFailedBuild) {
  REQUIRE_OPENCL_DEVICES(devices);
  cl::BuildResult result = cl::build_program(devices.front(), kValidKernel, "-simt-not-an-option");
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.log.empty());
}

// The handles and entry points the OpenCL backend will use, end to end:
// write, launch, read back.
TEST(OpenCLApi, RunsAKernelThroughTheRaiiWrappers) {
  REQUIRE_OPENCL_DEVICES(devices);
  const cl::DeviceInfo& device = devices.front();
  const cl::OpenCLApi& api = *device.api;

  cl::Context context = cl::create_context(api, device.platform, device.device);
  cl::Program program;
  cl::BuildResult built = cl::build_program(context, device.device, kValidKernel, "", &program);
  ASSERT_TRUE(built.ok) << built.log;
  ASSERT_TRUE(program);

  cl::cl_int status = cl::CL_SUCCESS;
  cl::CommandQueue queue(&api, api.clCreateCommandQueue(context.get(), device.device, 0, &status));
  cl::check(status, "clCreateCommandQueue");
  cl::Kernel kernel(&api, api.clCreateKernel(program.get(), "scale", &status));
  cl::check(status, "clCreateKernel");

  std::vector<float> values = {1, 2, 3, 4, 5, 6, 7};
  const std::size_t bytes = values.size() * sizeof(float);
  cl::MemObject buffer(
      &api, api.clCreateBuffer(context.get(), cl::CL_MEM_READ_WRITE, bytes, nullptr, &status));
  cl::check(status, "clCreateBuffer");
  cl::check(api.clEnqueueWriteBuffer(queue.get(), buffer.get(), cl::CL_TRUE, 0, bytes,
                                     values.data(), 0, nullptr, nullptr),
            "clEnqueueWriteBuffer");

  cl::cl_mem buffer_handle = buffer.get();
  float factor = 3.0f;
  int count = static_cast<int>(values.size());
  cl::check(api.clSetKernelArg(kernel.get(), 0, sizeof(buffer_handle), &buffer_handle),
            "clSetKernelArg");
  cl::check(api.clSetKernelArg(kernel.get(), 1, sizeof(factor), &factor), "clSetKernelArg");
  cl::check(api.clSetKernelArg(kernel.get(), 2, sizeof(count), &count), "clSetKernelArg");

  const std::size_t global_size = 8;  // one more than the data: the kernel's bound check
  cl::cl_event raw_event = nullptr;
  cl::check(api.clEnqueueNDRangeKernel(queue.get(), kernel.get(), 1, nullptr, &global_size, nullptr,
                                       0, nullptr, &raw_event),
            "clEnqueueNDRangeKernel");
  cl::Event event(&api, raw_event);
  cl::check(api.clWaitForEvents(1, &raw_event), "clWaitForEvents");

  std::vector<float> result(values.size());
  cl::check(api.clEnqueueReadBuffer(queue.get(), buffer.get(), cl::CL_TRUE, 0, bytes, result.data(),
                                    0, nullptr, nullptr),
            "clEnqueueReadBuffer");
  cl::check(api.clFinish(queue.get()), "clFinish");
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_FLOAT_EQ(result[i], 3.0f * values[i]);

  // Move-only ownership: the moved-from wrapper must not release.
  cl::Kernel moved = std::move(kernel);
  EXPECT_FALSE(kernel);  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(moved);
}

TEST(OpenCLApi, BadKernelNameRaisesNamedError) {
  REQUIRE_OPENCL_DEVICES(devices);
  const cl::DeviceInfo& device = devices.front();
  const cl::OpenCLApi& api = *device.api;
  cl::Context context = cl::create_context(api, device.platform, device.device);
  cl::Program program;
  ASSERT_TRUE(cl::build_program(context, device.device, kValidKernel, "", &program).ok);
  cl::cl_int status = cl::CL_SUCCESS;
  cl::Kernel kernel(&api, api.clCreateKernel(program.get(), "no_such_kernel", &status));
  try {
    cl::check(status, "clCreateKernel");
    FAIL() << "expected CL_INVALID_KERNEL_NAME";
  } catch (const cl::OpenCLError& error) {
    EXPECT_EQ(error.code(), cl::CL_INVALID_KERNEL_NAME);
    EXPECT_NE(std::string(error.what()).find("CL_INVALID_KERNEL_NAME"), std::string::npos);
  }
}

}  // namespace
