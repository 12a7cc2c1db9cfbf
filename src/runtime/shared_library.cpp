#include "runtime/shared_library.h"

#include <dlfcn.h>
#include <link.h>

#include <utility>

namespace simt::runtime {

namespace {

std::string take_dlerror(const char* fallback) {
  const char* text = dlerror();
  return text != nullptr ? std::string(text) : std::string(fallback);
}

// Reports where a soname such as "libnvrtc.so.13" was found, which is what a
// user needs to know when two toolkits are installed side by side.
std::string loaded_file_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

SharedLibrary::SharedLibrary(void* handle, std::string name, std::string path)
    : handle_(handle), name_(std::move(name)), path_(std::move(path)) {}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      name_(std::move(other.name_)),
      path_(std::move(other.path_)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
    path_ = std::move(other.path_);
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::optional<SharedLibrary> SharedLibrary::open(const std::string& name, std::string* why_not) {
  // RTLD_NOW: an unresolvable dependency must surface here, as a reason, rather
  // than as a crash at the first call. RTLD_LOCAL: vendor symbols must not
  // leak into the global namespace and collide with another copy of the same
  // library that the Python process may have loaded (e.g. through PyTorch).
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    if (why_not != nullptr) *why_not = take_dlerror("dlopen failed without a message");
    return std::nullopt;
  }
  std::string path = loaded_file_path(handle, name);
  return SharedLibrary(handle, name, std::move(path));
}

std::optional<SharedLibrary> SharedLibrary::open_first(const std::vector<std::string>& candidates,
                                                       std::string* why_not) {
  std::string reasons;
  for (const std::string& candidate : candidates) {
    std::string reason;
    if (auto library = open(candidate, &reason)) return library;
    reasons += "\n  " + candidate + ": " + reason;
  }
  if (why_not != nullptr) {
    *why_not = candidates.empty() ? std::string("no candidate library names were given")
                                  : "could not load any of:" + reasons;
  }
  return std::nullopt;
}

void* SharedLibrary::raw_symbol(const char* name) const {
  if (handle_ == nullptr) return nullptr;
  return dlsym(handle_, name);
}

void* SharedLibrary::require_raw_symbol(const char* name) const {
  if (handle_ == nullptr) {
    throw std::runtime_error(std::string("symbol '") + name + "' requested from a closed library");
  }
  dlerror();
  void* address = dlsym(handle_, name);
  if (address == nullptr) {
    std::string detail = take_dlerror("not exported");
    throw std::runtime_error(std::string("symbol '") + name + "' not found in " + path_ + " (" +
                             detail + ")");
  }
  return address;
}

}  // namespace simt::runtime
