#include "backends/opencl/gpu_probe.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace simt::opencl {

namespace {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in{std::string(text)};
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The libraries the .icd files of a vendors folder (or one .icd file) name, as
// the ICD loaders (ocl-icd and Khronos') read them: one library per file.
void add_registrations(const std::filesystem::path& place, std::vector<std::string>& libraries) {
  std::error_code error;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(place, error)) {
    for (const auto& entry : std::filesystem::directory_iterator(place, error))
      if (entry.path().extension() == ".icd") files.push_back(entry.path());
  } else if (std::filesystem::exists(place, error)) {
    files.push_back(place);
  }
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string library;
    if (std::getline(in, library)) libraries.push_back(library);
    // An unreadable registration is someone's driver: counted as possibly a GPU's.
    else
      libraries.push_back(file.string());
  }
}

// PoCL's devices are its drivers' ($POCL_DEVICES, "pthread cuda"); unset, a
// distribution's or pip's PoCL has the CPU driver only. A PoCL built with its
// CUDA driver sits on a host where CUDA comes first anyway.
bool pocl_cpu_only() {
  const std::string devices = env("POCL_DEVICES");
  for (const std::string& driver : split(devices, ' '))
    if (driver != "cpu" && driver != "cpu-minimal" && driver != "pthread" && driver != "basic" &&
        driver != "tbb")
      return false;
  return true;
}

bool is_pocl(std::string_view library) {
  const auto slash = library.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? library : library.substr(slash + 1);
  return name.find("pocl") != std::string_view::npos;
}

}  // namespace

bool may_have_gpu() {
  std::vector<std::string> libraries;
  if (const std::string chosen = env("SIMT_OPENCL_LIBRARY"); !chosen.empty()) {
    // Only that library is opened; a loader among the registrations below.
    if (is_pocl(chosen))
      libraries.push_back(chosen);
    else if (chosen.find("OpenCL") == std::string::npos)
      return true;  // some driver
  }
  if (libraries.empty()) {
    for (const std::string& driver : split(env("SIMT_OPENCL_DRIVERS"), ':'))
      libraries.push_back(driver);
    // The loaders' own variables, then their default folder.
    for (const std::string& library : split(env("OCL_ICD_FILENAMES"), ':'))
      libraries.push_back(library);
    std::string vendors = env("OCL_ICD_VENDORS");
    if (vendors.empty()) vendors = env("OPENCL_VENDOR_PATH");
    add_registrations(vendors.empty() ? "/etc/OpenCL/vendors" : vendors, libraries);
  }
  for (const std::string& library : libraries)
    if (!is_pocl(library) || !pocl_cpu_only()) return true;
  return false;
}

}  // namespace simt::opencl
