#include "backends/cuda/libs/toolkit_library.h"

#include <sys/stat.h>

#include <cstdlib>

namespace simt::cuda {

namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::vector<std::string> split_colon_list(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) parts.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::vector<std::string> toolkit_library_directories() {
  std::vector<std::string> directories;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = env_or_empty(variable);
    if (!root.empty()) directories.push_back(root + "/lib64");
  }
  // The NVIDIA wheels of the Python environment before the machine's toolkit: they
  // were installed for this environment, the toolkit for all.
  for (std::string& directory : split_colon_list(env_or_empty("SIMT_NVRTC_SEARCH_DIRS"))) {
    directories.push_back(std::move(directory));
  }
  directories.push_back("/usr/local/cuda/lib64");
  return directories;
}

std::vector<std::string> toolkit_library_candidates(std::span<const char* const> sonames,
                                                    std::string* directories_without) {
  // Only files that exist become candidates, so a failure's reason lists real load
  // failures rather than a dozen "no such file" lines.
  std::vector<std::string> candidates;
  for (const std::string& directory : toolkit_library_directories()) {
    bool found_any = false;
    for (const char* soname : sonames) {
      std::string path = directory + "/" + soname;
      if (is_regular_file(path)) {
        candidates.push_back(path);
        found_any = true;
      }
    }
    if (!found_any && directories_without != nullptr) {
      *directories_without += (directories_without->empty() ? "" : ", ") + directory;
    }
  }
  for (const char* soname : sonames) candidates.emplace_back(soname);
  return candidates;
}

std::optional<runtime::SharedLibrary> open_toolkit_library(const ToolkitLibrary& library,
                                                           std::string* why_not) {
  std::string reason;
  std::string explicit_path = env_or_empty(library.path_variable);
  if (!explicit_path.empty()) {
    // Loaded even if stat() disagrees, so that dlopen's own message (missing file,
    // wrong ELF class, missing dependency) is shown.
    auto opened = runtime::SharedLibrary::open(explicit_path, &reason);
    if (!opened && why_not != nullptr) {
      *why_not = std::string(library.path_variable) + "=" + explicit_path +
                 " could not be loaded: " + reason;
    }
    return opened;
  }
  std::string directories_without;
  auto opened = runtime::SharedLibrary::open_first(
      toolkit_library_candidates(library.sonames, &directories_without), &reason);
  if (!opened && why_not != nullptr) {
    *why_not = std::string(library.display_name) + " not found (" + library.install_hint +
               ", or set " + library.path_variable + " or CUDA_HOME); " + reason;
    if (!directories_without.empty()) {
      std::string stem = library.sonames.front();
      stem = stem.substr(0, stem.find(".so") + 3);
      *why_not += "\n  no " + stem + "* in: " + directories_without;
    }
  }
  return opened;
}

}  // namespace simt::cuda
