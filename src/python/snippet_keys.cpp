// The warm-call key of ElementwiseKernel and ReductionKernel calls
// (python/simt/_snippet_kernels.py): what decides a call's launch, read in one
// pass over the arguments. A call whose key was seen reuses that call's
// launch with this call's arrays and scalars (CuPy's warm call); in Python
// the key cost ~0.3 µs an array, about a tenth of a GPU launch.
#include <Python.h>
#include <nanobind/nanobind.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "python/arguments.h"
#include "python/bindings.h"
#include "python/foreign_arrays.h"

namespace simt::python {

namespace {

template <class T>
void append(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

PyTypeObject* numpy_generic() {
  static PyTypeObject* type = [] {
    nb::object generic = nb::module_::import_("numpy").attr("generic");
    return reinterpret_cast<PyTypeObject*>(generic.release().ptr());
  }();
  return type;
}

// Each simt array's dtype, layout, offset and device; each CuPy array's and
// PyTorch tensor's (read through their attributes: the warm call launches with
// the object itself, as kernels take them) dtype, layout and CUDA ordinal
// (simt's cuda:N is the driver's device N); each Python int's range
// (a placeholder bound from an int past int64 takes uint64); the type of
// each other scalar (float, bool, complex, NumPy scalars). None for a call
// with anything else: it takes the full path.
nb::object call_key(const nb::tuple& args, int64_t block_size) {
  std::string key;
  append(key, block_size);
  int ordinal = 0;
  for (nb::handle arg : args) {
    PyObject* o = arg.ptr();
    nb::object keep;
    if (const DeviceArray* a = simt_array(o, &keep)) {
      key += 'A';
      append(key, a->dtype);
      append(key, a->record.get());
      append(key, static_cast<uint8_t>(a->shape.size()));
      for (int64_t extent : a->shape) append(key, extent);
      for (int64_t stride : a->strides) append(key, stride);
      append(key, a->offset);
      append(key, a->buffer->device().get());
    } else if (ForeignArray f; read_known_producer(o, f, ordinal)) {
      // A pointer off its type's alignment: the first call's import says so.
      if (f.ndim > abi::kMaxDims || reinterpret_cast<uintptr_t>(f.data) % f.itemsize() != 0)
        return nb::none();
      key += 'F';
      append(key, f.scalar);
      append(key, static_cast<uint8_t>(f.ndim));
      for (int k = 0; k < std::min(f.ndim, abi::kMaxDims); ++k) {
        append(key, f.shape[static_cast<size_t>(k)]);
        append(key, f.byte_strides[static_cast<size_t>(k)]);
      }
      append(key, ordinal);
    } else if (PyLong_CheckExact(o)) {
      int overflow = 0;
      PyLong_AsLongLongAndOverflow(o, &overflow);
      key += overflow == 0 ? 'i' : 'I';
    } else if (PyFloat_CheckExact(o) || PyBool_Check(o) || PyComplex_CheckExact(o) ||
               PyObject_TypeCheck(o, numpy_generic())) {
      key += 'T';
      append(key, Py_TYPE(o));
    } else {
      return nb::none();
    }
  }
  return nb::steal(PyBytes_FromStringAndSize(key.data(), static_cast<Py_ssize_t>(key.size())));
}

}  // namespace

void bind_snippet_keys(nb::module_& m) {
  m.def("snippet_call_key", &call_key, nb::arg("args"), nb::arg("block_size"),
        "The warm-call key of a snippet kernel's call (bytes), or None where a call's "
        "arguments are not all simt arrays and scalars.");
}

}  // namespace simt::python
