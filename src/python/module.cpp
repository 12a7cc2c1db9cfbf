// simt._core: the compiler and the runtime, for the simt package. Thin:
// conversions between Python values and the C++ API, nothing more.
#include <nanobind/stl/string.h>

#include "python/bindings.h"
#include "python/records.h"
#include "runtime/version.h"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "simt native core: the kernel compiler and runtime";
  // Kernels defined at module level legitimately live until the interpreter
  // exits; nanobind would report each of them as a leak.
  nb::set_leak_warnings(false);
  m.def("version", &simt::version, "The version of the simt native core.");
  simt::python::bind_translate(m);
  simt::python::bind_compiler(m);
  simt::python::bind_globals(m);
  simt::python::bind_arrays(m);
  simt::python::bind_dispatch(m);
  simt::python::bind_streams(m);
  simt::python::bind_graphs(m);
  simt::python::bind_interop(m);
  simt::python::bind_raw_kernels(m);
  simt::python::bind_interrupts(m);
  simt::python::bind_records(m);
  simt::python::bind_vendor_libraries(m);
  simt::python::bind_snippet_keys(m);
}
