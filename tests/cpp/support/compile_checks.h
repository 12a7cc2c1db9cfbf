// Compiling generated code with the real compilers, for tests: NVRTC for
// CUDA (sm_90), the first OpenCL device (PoCL in CI) for OpenCL C, and the
// system C++ compiler (syntax and types only) for the C++ dialect. Each
// check says whether it ran at all (a missing compiler skips, not fails).
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cuda/nvrtc.h"
#include "backends/opencl/opencl_api.h"

namespace simt::testing {

struct CompileCheck {
  bool ran = false;  // false: the compiler is unavailable; `log` says why
  bool ok = false;
  std::string log;
};

// A fresh directory under the system's temporary directory, removed at exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "simt-codegen-XXXXXX").string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// NVRTC, to a cubin for sm_90.
inline CompileCheck check_cuda(const std::string& source, const std::string& name) {
  CompileCheck c;
  const cuda::Nvrtc* nvrtc = cuda::Nvrtc::get(&c.log);
  if (nvrtc == nullptr) {
    c.log = "NVRTC unavailable: " + c.log;
    return c;
  }
  c.ran = true;
  cuda::CompileResult r = nvrtc->compile(source, name + ".cu", 9, 0, {}, /*want_cubin=*/true);
  c.ok = r.ok && !r.cubin.empty();
  c.log = r.log;
  return c;
}

inline const std::vector<opencl::DeviceInfo>& opencl_devices(std::string* why_not) {
  static std::string reason;
  static const std::vector<opencl::DeviceInfo> devices = opencl::list_devices(&reason);
  *why_not = reason;
  return devices;
}

// The first OpenCL device; skipped when it lacks fp64 and the code needs it.
inline CompileCheck check_opencl(const std::string& source, bool needs_fp64) {
  CompileCheck c;
  std::string why_not;
  const auto& devices = opencl_devices(&why_not);
  if (devices.empty()) {
    c.log = "no OpenCL device: " + why_not;
    return c;
  }
  const opencl::DeviceInfo& device = devices.front();
  if (needs_fp64 && !device.fp64) {
    c.log = device.name + " has no fp64";
    return c;
  }
  c.ran = true;
  opencl::BuildResult r = opencl::build_program(device, source, "");
  c.ok = r.ok;
  c.log = "on " + device.name + "\n" + r.log;
  return c;
}

// The system C++ compiler, -std=c++20 -fsyntax-only (nothing links).
inline CompileCheck check_cpp(const std::string& source, const std::string& name) {
  CompileCheck c;
  static const bool have_cxx = std::system("c++ --version >/dev/null 2>&1") == 0;
  if (!have_cxx) {
    c.log = "no system C++ compiler (c++)";
    return c;
  }
  TempDir dir;
  if (dir.path().empty()) {
    c.ran = true;
    c.log = "mkdtemp failed";
    return c;
  }
  c.ran = true;
  std::filesystem::path file = dir.path() / (name + ".cpp");
  std::filesystem::path log = dir.path() / "log.txt";
  {
    std::ofstream out(file, std::ios::binary);
    out << source;
  }
  std::string cmd =
      "c++ -std=c++20 -fsyntax-only -x c++ '" + file.string() + "' >'" + log.string() + "' 2>&1";
  c.ok = std::system(cmd.c_str()) == 0;
  c.log = read_text_file(log);
  return c;
}

}  // namespace simt::testing
