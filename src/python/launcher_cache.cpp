#include "python/launcher_cache.h"

namespace simt::python {

namespace {

// An exact Python int, or an exact tuple of them: values whose equality is the same
// launch extent (a subclass of int or tuple could compare equal yet parse otherwise).
bool plain_extent(PyObject* item) {
  if (PyLong_CheckExact(item)) return true;
  if (!PyTuple_CheckExact(item)) return false;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(item); ++k)
    if (!PyLong_CheckExact(PyTuple_GET_ITEM(item, k))) return false;
  return true;
}

bool same_extent(PyObject* a, PyObject* b) {
  if (a == b) return true;
  if (!plain_extent(a) || !plain_extent(b)) return false;
  const int equal = PyObject_RichCompareBool(a, b, Py_EQ);
  if (equal < 0) PyErr_Clear();
  return equal == 1;
}

// Two subscripts that configure the same launch (see LauncherCache::find).
bool same_config(PyObject* a, PyObject* b) {
  if (a == b) return true;
  const Py_ssize_t n = PyTuple_GET_SIZE(a);
  if (n != PyTuple_GET_SIZE(b)) return false;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x = PyTuple_GET_ITEM(a, k);
    PyObject* y = PyTuple_GET_ITEM(b, k);
    // The stream: what a stream object resolves to is its own, so the same object.
    if (k == 2 ? x != y : !same_extent(x, y)) return false;
  }
  return true;
}

}  // namespace

nb::object LauncherCache::find(nb::handle config) const {
  if (!PyTuple_CheckExact(config.ptr())) return {};
  for (const Entry& entry : entries_)
    if (entry.config.is_valid() && same_config(entry.config.ptr(), config.ptr()))
      return entry.launcher;
  return {};
}

void LauncherCache::keep(nb::handle config, nb::object launcher) {
  if (!PyTuple_CheckExact(config.ptr())) return;
  entries_[next_] = Entry{nb::borrow(config), std::move(launcher)};
  next_ = (next_ + 1) % kEntries;
}

int LauncherCache::traverse(visitproc visit, void* arg) const {
  for (const Entry& entry : entries_) {
    Py_VISIT(entry.config.ptr());
    Py_VISIT(entry.launcher.ptr());
  }
  return 0;
}

void LauncherCache::clear() {
  // Moved out first: freeing a launcher may run Python code that reaches this cache.
  std::array<Entry, kEntries> dropped = std::move(entries_);
  entries_ = {};
  next_ = 0;
}

}  // namespace simt::python
