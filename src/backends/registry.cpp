#include "backends/registry.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/nvrtc.h"
#include "backends/opencl/gpu_probe.h"
#include "backends/opencl/opencl_api.h"
#include "backends/opencl/opencl_device.h"
#ifdef SIMT_HAVE_CPU_BACKEND
#include "backends/cpu/clang_jit.h"
#include "backends/cpu/cpu_device.h"
#endif

namespace simt::backends {

namespace {

struct Registry {
  std::vector<std::shared_ptr<runtime::Device>> devices;
  std::vector<BackendStatus> status;
};

// CUDA: every device the driver reports, as cuda:0..N-1. The backend is
// available when the driver initialises, at least one device opens and NVRTC
// (needed to compile anything) is found; otherwise no CUDA device is listed and
// the status says why, so that default_device() falls back cleanly.
void discover_cuda(Registry& r) {
  BackendStatus s{"cuda", false, ""};
  std::string why;
  const cuda::Driver* driver = cuda::Driver::get(&why);
  if (driver == nullptr) {
    s.detail = "CUDA driver unavailable: " + why;
    r.status.push_back(std::move(s));
    return;
  }
  s.detail = "driver " + cuda::driver_version_string(driver->version()) + " (" +
             driver->library_path() + ")";

  std::string nvrtc_why;
  const cuda::Nvrtc* nvrtc = cuda::Nvrtc::get(&nvrtc_why);
  if (nvrtc != nullptr) {
    auto [major, minor] = nvrtc->version();
    s.detail += ", NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " (" +
                nvrtc->library_path() + ")";
  } else {
    s.detail += "; NVRTC not found, so no kernel can be compiled: " + nvrtc_why;
  }

  int count = 0;
  cuda::CUresult status = driver->fn().cuDeviceGetCount(&count);
  if (status != cuda::CUDA_SUCCESS) {
    s.detail += "; " + driver->describe("cuDeviceGetCount", "", status);
    r.status.push_back(std::move(s));
    return;
  }
  if (count == 0) {
    s.detail += "; no CUDA device found";
    r.status.push_back(std::move(s));
    return;
  }

  std::vector<std::shared_ptr<runtime::Device>> found;
  std::string listed, failures;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    try {
      auto device = std::make_shared<cuda::CudaDevice>(*driver, ordinal);
      const runtime::DeviceInfo& info = device->info();
      listed += " [" + info.id + ": " + info.name + ", " + info.architecture + ", " +
                std::to_string(info.total_memory >> 20) + " MiB]";
      found.push_back(std::move(device));
    } catch (const std::exception& e) {
      failures += "; cuda:" + std::to_string(ordinal) + " unusable: " + e.what();
    }
  }
  if (!found.empty()) s.detail += "; devices:" + listed;
  s.detail += failures;
  if (nvrtc != nullptr && !found.empty()) {
    s.available = true;
    for (auto& device : found) r.devices.push_back(std::move(device));
  }
  r.status.push_back(std::move(s));
}

// OpenCL: every device of every platform of the OpenCL libraries (the ICD loader's, then
// those of drivers opened directly, such as PoCL from pip), as opencl:0..N-1 in that order.
// A device whose context cannot be created is reported in the status and skipped.
void discover_opencl(Registry& r) {
  BackendStatus s{"opencl", false, ""};
  std::string why;
  std::vector<opencl::DeviceInfo> found = opencl::list_devices(&why);
  if (found.empty()) {
    s.detail = "no OpenCL device: " + why;
    r.status.push_back(std::move(s));
    return;
  }
  // The libraries the devices came through, each once, in order.
  std::vector<const opencl::OpenCLApi*> used;
  for (const opencl::DeviceInfo& cl_device : found) {
    if (std::find(used.begin(), used.end(), cl_device.api) == used.end()) {
      used.push_back(cl_device.api);
    }
  }
  for (const opencl::OpenCLApi* api : used) {
    if (!s.detail.empty()) s.detail += ", ";
    s.detail += api->library_path();
    if (api->kind() == opencl::OpenCLApi::Kind::driver)
      s.detail += " (a driver, opened without an ICD loader)";
  }
  s.detail += "; devices:";
  int index = 0;  // ids count usable devices only
  for (const opencl::DeviceInfo& cl_device : found) {
    try {
      auto device = std::make_shared<opencl::OpenCLDevice>(*cl_device.api, cl_device, index);
      s.detail +=
          " [" + device->info().id + ": " + cl_device.name + ", " + cl_device.version + ", " +
          opencl::device_type_name(cl_device.type) + (cl_device.fp64 ? ", fp64" : ", no fp64") +
          (cl_device.warp_subgroups_missing.empty() ? ", warps" : ", block-wide warps") + "]";
      // Never destroyed: OpenCL drivers may already be torn down when static
      // destructors run at exit, and releasing a queue then can crash.
      new std::shared_ptr<runtime::Device>(device);
      r.devices.push_back(std::move(device));
      s.available = true;
      ++index;
    } catch (const std::exception& e) {
      s.detail += " [" + cl_device.name + ": unusable: " + e.what() + "]";
    }
  }
  if (!why.empty()) s.detail += "; " + why;
  r.status.push_back(std::move(s));
}

// One backend's devices and status, found the first time anything asks for
// them: a program that uses one backend never pays another's start-up
// (OpenCL's platform discovery starts every installed driver: PoCL's takes
// ~85 ms, NVIDIA's ~190 ms with CUDA's).
struct Backend {
  std::vector<std::shared_ptr<runtime::Device>> devices;
  BackendStatus status;
};

template <void (*Discover)(Registry&)>
Backend discover_backend(const char* name) {
  Registry r;
  // Driver errors must not stop discovery of the other backends.
  try {
    Discover(r);
  } catch (const std::exception& e) {
    r.status.push_back({name, false, std::string(name) + " discovery failed: " + e.what()});
  }
  return Backend{std::move(r.devices), std::move(r.status.front())};
}

void discover_cpu(Registry& r) {
#ifdef SIMT_HAVE_CPU_BACKEND
  auto cpu = std::make_shared<cpu::CpuDevice>();
  r.status.push_back({"cpu", true, cpu->info().name + ", " + cpu::ClangJit::instance().version()});
  r.devices.push_back(std::move(cpu));
#else
  r.status.push_back(
      {"cpu", false,
       "this build of simt has no CPU backend: it was built without LLVM/Clang 19 and "
       "oneTBB (Debian/Ubuntu: apt install llvm-19-dev libclang-19-dev "
       "libclang-cpp19-dev libtbb-dev, then reinstall simt)"});
#endif
}

enum Which { kCuda, kOpenCL, kCpu, kBackends };

// Whether each backend was discovered (finish_queued_work must not start one at exit).
std::atomic<bool> g_discovered[kBackends];

const Backend& backend(Which which) {
  // Function-local statics: each discovered once, thread-safely, on first use.
  auto mark = [which](Backend b) {
    g_discovered[which] = true;
    return b;
  };
  switch (which) {
    case kCuda: {
      static const Backend b = mark(discover_backend<discover_cuda>("cuda"));
      return b;
    }
    case kOpenCL: {
      static const Backend b = mark(discover_backend<discover_opencl>("opencl"));
      return b;
    }
    default: {
      static const Backend b = mark(discover_backend<discover_cpu>("cpu"));
      return b;
    }
  }
}

// Every backend, in the order devices() lists them.
const Registry& registry() {
  static const Registry r = [] {
    Registry all;
    for (Which which : {kCuda, kOpenCL, kCpu}) {
      const Backend& b = backend(which);
      all.devices.insert(all.devices.end(), b.devices.begin(), b.devices.end());
      all.status.push_back(b.status);
    }
    return all;
  }();
  return r;
}

// The backend an id names ("cuda", "cuda:1", "opencl:0", "cpu"), if any.
std::optional<Which> backend_of(std::string_view id) {
  auto named = [&](std::string_view prefix) {
    return id == prefix ||
           (id.starts_with(prefix) && id.size() > prefix.size() && id[prefix.size()] == ':');
  };
  if (named("cuda")) return kCuda;
  if (named("opencl")) return kOpenCL;
  if (id == "cpu") return kCpu;
  return std::nullopt;
}

}  // namespace

const std::vector<std::shared_ptr<runtime::Device>>& devices() { return registry().devices; }
const std::vector<BackendStatus>& backend_status() { return registry().status; }

std::vector<std::shared_ptr<runtime::Device>> backend_devices(std::string_view name) {
  std::optional<Which> which = backend_of(name);
  if (!which || name.find(':') != std::string_view::npos) return {};
  return backend(*which).devices;
}

std::vector<std::string> started_backends() {
  std::vector<std::string> names;
  const char* const kNames[kBackends] = {"cuda", "opencl", "cpu"};
  for (Which which : {kCuda, kOpenCL, kCpu})
    if (g_discovered[which]) names.emplace_back(kNames[which]);
  return names;
}

void finish_queued_work() noexcept {
  for (Which which : {kCuda, kOpenCL, kCpu}) {
    if (!g_discovered[which]) continue;
    for (const auto& device : backend(which).devices) {
      try {
        device->synchronize();
      } catch (const std::exception&) {
        // A failed kernel is reported to whoever synchronizes; at exit, no one.
      }
    }
  }
}

std::shared_ptr<runtime::Device> find_device(std::string_view id) {
  std::string wanted(id);
  if (wanted == "cuda" || wanted == "opencl") wanted += ":0";
  // Only the backend the id names starts; an id naming none is looked up in
  // every backend (and found in none).
  std::optional<Which> which = backend_of(wanted);
  for (const auto& d : which ? backend(*which).devices : devices())
    if (d->info().id == wanted) return d;
  return nullptr;
}

std::shared_ptr<runtime::Device> default_device() {
  if (const char* env = std::getenv("SIMT_DEVICE"); env && *env) {
    auto d = find_device(env);
    if (!d)
      throw runtime::DeviceError(std::string("SIMT_DEVICE='") + env +
                                 "' names no available device");
    return d;
  }
  // A GPU first; else the native CPU backend, which runs kernels faster than
  // an OpenCL CPU driver; else whatever there is. Backends start in that
  // order and only as far as needed: a CUDA GPU is chosen without starting
  // OpenCL. Without one, OpenCL is asked for GPUs, unless no OpenCL driver
  // that could have one is installed (opencl::may_have_gpu).
  for (const auto& d : backend(kCuda).devices)
    if (d->info().gpu) return d;
  if (opencl::may_have_gpu())
    for (const auto& d : backend(kOpenCL).devices)
      if (d->info().gpu) return d;
  if (const auto& cpu = backend(kCpu).devices; !cpu.empty()) return cpu.front();
  if (devices().empty()) {
    std::string message = "no device is available; simt looked for:";
    for (const auto& b : backend_status())
      message += "\n  " + b.name + ": " + (b.detail.empty() ? "no devices" : b.detail);
    throw runtime::DeviceError(message +
                               "\n`python -m simt info` says the same and what to install");
  }
  for (const auto& d : devices())
    if (d->info().gpu) return d;
  return devices().front();
}

}  // namespace simt::backends
