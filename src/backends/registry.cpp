#include "backends/registry.h"

#include <cstdlib>
#include <mutex>

#include "backends/cuda/nvrtc.h"
#include "backends/opencl/opencl_api.h"
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

// The GPU backends' launch paths arrive in later releases; until then their
// status says what was found, so `python -m simt info` shows what will work.
BackendStatus cuda_status() {
  BackendStatus s{"cuda", false, ""};
  std::string why;
  const cuda::Nvrtc* nvrtc = cuda::Nvrtc::get(&why);
  s.detail = "kernel launches on CUDA devices are not implemented in this version; NVRTC: ";
  if (nvrtc) {
    auto [major, minor] = nvrtc->version();
    s.detail += std::to_string(major) + "." + std::to_string(minor) + " (" +
                nvrtc->library_path() + "), used to check generated CUDA";
  } else {
    s.detail += "not found: " + why;
  }
  return s;
}

BackendStatus opencl_status() {
  BackendStatus s{"opencl", false, ""};
  std::string why;
  auto found = opencl::list_devices(&why);
  s.detail = "kernel launches on OpenCL devices are not implemented in this version; ";
  if (found.empty()) {
    s.detail += "no OpenCL device: " + why;
  } else {
    s.detail += "found:";
    for (const auto& d : found) s.detail += " [" + d.name + ", " + d.version + "]";
  }
  return s;
}

Registry discover() {
  Registry r;
  r.status.push_back(cuda_status());
  r.status.push_back(opencl_status());
#ifdef SIMT_HAVE_CPU_BACKEND
  try {
    auto cpu = std::make_shared<cpu::CpuDevice>();
    r.status.push_back({"cpu", true, cpu->info().name + ", " + cpu::ClangJit::instance().version()});
    r.devices.push_back(std::move(cpu));
  } catch (const std::exception& e) {
    r.status.push_back({"cpu", false, e.what()});
  }
#else
  r.status.push_back({"cpu", false, "this build of simt has no CPU backend (built without LLVM)"});
#endif
  return r;
}

const Registry& registry() {
  static const Registry r = discover();
  return r;
}

}  // namespace

const std::vector<std::shared_ptr<runtime::Device>>& devices() { return registry().devices; }
const std::vector<BackendStatus>& backend_status() { return registry().status; }

std::shared_ptr<runtime::Device> find_device(std::string_view id) {
  std::string wanted(id);
  if (wanted == "cuda" || wanted == "opencl") wanted += ":0";
  for (const auto& d : devices())
    if (d->info().id == wanted) return d;
  return nullptr;
}

std::shared_ptr<runtime::Device> default_device() {
  if (const char* env = std::getenv("SIMT_DEVICE"); env && *env) {
    auto d = find_device(env);
    if (!d) throw runtime::DeviceError(std::string("SIMT_DEVICE='") + env +
                                       "' names no available device");
    return d;
  }
  for (const auto& d : devices())
    if (d->info().backend != runtime::BackendKind::Cpu) return d;
  if (devices().empty()) throw runtime::DeviceError("no device is available");
  return devices().back();
}

}  // namespace simt::backends
