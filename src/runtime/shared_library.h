// Run-time loading of vendor libraries (NVRTC, the CUDA driver, OpenCL).
//
// simt never links a vendor SDK: a backend whose library is missing must be
// reported as unavailable with a reason, not fail at process start. Every
// vendor library is therefore opened here and its functions looked up by name.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace simt::runtime {

// Owns one dlopen handle; dlclose on destruction. Move-only so that a handle
// is closed exactly once.
class SharedLibrary {
 public:
  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // Opens `name` (a path, or a soname resolved by the dynamic loader). On
  // failure returns nullopt and, when why_not is given, stores dlerror()'s text.
  static std::optional<SharedLibrary> open(const std::string& name, std::string* why_not);

  // Tries each candidate in order and returns the first that loads. On failure
  // why_not lists every candidate with the loader's reason, one per line, so a
  // user can see which locations were searched.
  static std::optional<SharedLibrary> open_first(const std::vector<std::string>& candidates,
                                                 std::string* why_not);

  // The address of `name`, or nullptr when the library does not export it.
  void* raw_symbol(const char* name) const;

  // `F` is the function pointer type of the symbol; nullptr when absent, for
  // functions that only newer library versions export.
  template <class F>
  F symbol(const char* name) const {
    return reinterpret_cast<F>(raw_symbol(name));
  }

  // Like symbol(), for functions the caller cannot work without: throws
  // std::runtime_error naming the symbol and the library file.
  template <class F>
  F require(const char* name) const {
    return reinterpret_cast<F>(require_raw_symbol(name));
  }

  // The candidate string this library was opened with.
  const std::string& name() const { return name_; }
  // The file the loader actually mapped (resolves sonames to absolute paths);
  // equals name() when the loader cannot tell.
  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* handle, std::string name, std::string path);
  void* require_raw_symbol(const char* name) const;

  void* handle_ = nullptr;
  std::string name_;
  std::string path_;
};

// Library::load(&why_not)'s result (a std::unique_ptr<Library>), loaded on the
// first call and kept for the process: deliberately leaked, so nothing runs in
// a vendor library after its driver shuts down; the magic static makes the
// first load thread-safe and later calls lock-free. Null, with the reason in
// *why_not, when the load failed.
template <class Library>
const Library* load_once(std::string* why_not) {
  struct Loaded {
    const Library* library = nullptr;
    std::string reason;
  };
  static const Loaded loaded = [] {
    Loaded result;
    result.library = Library::load(&result.reason).release();
    return result;
  }();
  if (loaded.library == nullptr && why_not != nullptr) *why_not = loaded.reason;
  return loaded.library;
}

}  // namespace simt::runtime
