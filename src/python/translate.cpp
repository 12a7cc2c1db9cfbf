#include "python/translate.h"

#include <utility>

namespace simt::python {
namespace nb = nanobind;

namespace {

// The exception raise_translated hands to `_reraise`: one per thread, as each thread
// raises its own.
thread_local std::exception_ptr t_pending;
// `_core._reraise`: a nanobind function whose body rethrows t_pending, so nanobind
// translates it on the way out.
PyObject* g_reraise = nullptr;

}  // namespace

PyObject* raise_translated(std::exception_ptr error) noexcept {
  if (g_reraise == nullptr) {
    PyErr_SetString(PyExc_SystemError, "simt: _core._reraise is not registered");
    return nullptr;
  }
  t_pending = std::move(error);
  PyObject* result = PyObject_CallNoArgs(g_reraise);
  t_pending = nullptr;
  if (result != nullptr) {  // cannot happen: _reraise always raises
    Py_DECREF(result);
    PyErr_SetString(PyExc_SystemError, "simt: an exception was lost");
  }
  return nullptr;
}

void bind_translate(nb::module_& m) {
  m.def("_reraise", [] {
    std::exception_ptr error = std::exchange(t_pending, nullptr);
    if (!error) throw std::logic_error("_reraise called with no exception pending");
    std::rethrow_exception(error);
  });
  g_reraise = m.attr("_reraise").ptr();
  Py_INCREF(g_reraise);
}

}  // namespace simt::python
