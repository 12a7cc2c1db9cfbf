// The launchers `kernel[grid, block, ...]` made last, kept by the kernel, so that
// `k[1, 1](...)` written at each call reuses one: the configuration is then neither
// parsed again nor a new Python object made and freed on every launch.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <array>
#include <cstddef>

namespace simt::python {

namespace nb = nanobind;

class LauncherCache {
 public:
  // The launcher kept for `config` (the subscript's tuple), or an invalid object. A
  // configuration matches the same tuple object, or an equal one whose grid, block and
  // shared bytes are Python ints (or tuples of them) and whose stream is the same object.
  nb::object find(nb::handle config) const;
  // Keeps `launcher`, made for `config`, in place of the oldest one.
  void keep(nb::handle config, nb::object launcher);
  // The garbage collector's view: a launcher holds its kernel, which holds this cache.
  int traverse(visitproc visit, void* arg) const;
  void clear();

 private:
  struct Entry {
    nb::object config;
    nb::object launcher;
  };
  // A few: a kernel is launched with one or two configurations in a loop.
  static constexpr std::size_t kEntries = 4;
  std::array<Entry, kEntries> entries_;
  std::size_t next_ = 0;
};

}  // namespace simt::python
