#include "python/classify.h"

#include <optional>
#include <string_view>

#include "python/bindings.h"
#include "python/foreign_arrays.h"

namespace simt::python {

namespace {

using abi::Scalar;

// The buffer format of a record (structured) dtype: "T{...}" after any byte order.
bool is_record_format(const char* format) {
  if (format == nullptr) return false;
  while (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!')
    ++format;
  return format[0] == 'T' && format[1] == '{';
}

// An array of `dtype`, or of records when `record_key` holds their key bytes.
void append_array_leaf(Classification& s, void* data, int ndim, const int64_t* shape,
                       const int64_t* byte_strides, int64_t itemsize, Scalar dtype, bool readonly,
                       const std::string& name, std::string_view record_key = {}) {
  if (ndim == 0)
    argument_error(name, "0-dimensional arrays are not kernel arguments; pass a scalar");
  if (ndim > abi::kMaxDims)
    argument_error(name, "arrays of more than " + std::to_string(abi::kMaxDims) +
                             " dimensions are not kernel arguments");
  Leaf leaf;
  leaf.is_array = true;
  leaf.scalar = dtype;
  leaf.data = data;
  leaf.ndim = ndim;
  leaf.dims_at = s.dims.size();
  for (int k = 0; k < ndim; ++k) s.dims.push_back(shape[k]);
  for (int k = 0; k < ndim; ++k) {
    if (byte_strides[k] % itemsize != 0)
      argument_error(name, "strides that are not a multiple of the item size are not supported");
    s.dims.push_back(byte_strides[k] / itemsize);
  }
  const abi::Layout layout = layout_of(ndim, shape, byte_strides, itemsize);
  if (record_key.empty())
    abi::append_array_key(s.key, dtype, ndim, layout, readonly);
  else
    abi::append_record_array_key(s.key, record_key, ndim, layout, readonly);
  s.leaves.push_back(leaf);
}

// One record, by reference: its bytes' address (Numba passes records so; writes to its
// fields are the caller's).
void append_record_leaf(Classification& s, void* data, std::string_view record_key, bool readonly) {
  Leaf leaf;
  leaf.is_array = true;  // packed as an address (Param::Role::ArrayData), without extents
  leaf.data = data;
  leaf.dims_at = s.dims.size();
  abi::append_record_key(s.key, record_key, readonly);
  s.leaves.push_back(leaf);
}

// An array of records or one record (0-d) at `data`, keyed at the alignment its address
// allows.
void append_records(Classification& s, const RecordDtype& dtype, void* data, int ndim,
                    const int64_t* shape, const int64_t* byte_strides, bool readonly,
                    const std::string& name) {
  std::string scratch;
  std::string_view key = record_key_at(dtype, data, scratch);
  if (ndim == 0) {
    append_record_leaf(s, data, key, readonly);
    return;
  }
  append_array_leaf(s, data, ndim, shape, byte_strides, dtype.record->itemsize, Scalar::UInt8,
                    readonly, name, key);
}

void classify_array(const DeviceArray& a, const std::string& name, Classification& s,
                    const runtime::Device* device) {
  if (device && a.buffer->device().get() != device)
    argument_error(name, "the array is on " + a.buffer->device()->info().id +
                             " but the kernel runs on " + device->info().id +
                             "; copy it with simt.to_device(..., device=...)");
  if (a.record)
    append_records(s, *a.record, a.data(), static_cast<int>(a.shape.size()), a.shape.data(),
                   a.strides.data(), a.readonly, name);
  else
    append_array_leaf(s, a.data(), static_cast<int>(a.shape.size()), a.shape.data(),
                      a.strides.data(), a.itemsize(), a.dtype, a.readonly, name);
  s.holds.push_back(a.buffer);
  s.foreign |= a.buffer->foreign();
}

// A NumPy array of records, or a NumPy record (np.void, `a[0]` of such an array: a view
// of its bytes), found by its dtype; false for other objects. Records go as a 0-d array
// viewing the same bytes (np.asarray), which is writeable where the record's array is.
bool classify_numpy_records(const nb::handle& obj, const std::string& name, Classification& s,
                            const runtime::Device* device) {
  PyObject* dtype = PyObject_GetAttrString(obj.ptr(), "dtype");
  if (dtype == nullptr) {
    PyErr_Clear();
    return false;
  }
  nb::object held = nb::steal(dtype);
  if (!is_record_dtype(held)) return false;
  RecordDtypePtr record;
  try {
    record = numpy_record(held);
  } catch (const RecordError& e) {
    argument_error(name, std::string("its record dtype cannot be passed to kernels: ") + e.what());
  }
  nb::object array = nb::steal(PyObject_CallOneArg(numpy_asarray(), obj.ptr()));
  if (!array.is_valid()) throw nb::python_error();
  Py_buffer view;
  // No format asked for: NumPy exports none for dtypes with fields out of order.
  if (PyObject_GetBuffer(array.ptr(), &view, PyBUF_STRIDES) != 0) {
    PyErr_Clear();
    argument_error(name, "its buffer cannot be read as a strided array");
  }
  s.buffers.push_back(view);
  if (device && !device->host_accessible())
    argument_error(name, std::string(view.ndim == 0 ? "a NumPy record" : "a NumPy array") +
                             " cannot be used on " + device->info().id +
                             "; copy it with simt.to_device(...)");
  s.host_arrays = true;
  static_assert(sizeof(Py_ssize_t) == sizeof(int64_t));
  append_records(s, *record, view.buf, view.ndim, reinterpret_cast<const int64_t*>(view.shape),
                 reinterpret_cast<const int64_t*>(view.strides), view.readonly != 0, name);
  return true;
}

// A named tuple's field names (collections.namedtuple, typing.NamedTuple: a tuple
// subclass whose class has `_fields`, one identifier per item); empty for other tuples.
std::vector<std::string> named_tuple_fields(PyObject* o, Py_ssize_t n) {
  std::vector<std::string> fields;
  if (Py_TYPE(o) == &PyTuple_Type) return fields;
  PyObject* names = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)), "_fields");
  if (names == nullptr) {
    PyErr_Clear();
    return fields;
  }
  if (PyTuple_Check(names) && PyTuple_GET_SIZE(names) == n) {
    for (Py_ssize_t k = 0; k < n; ++k) {
      PyObject* field = PyTuple_GET_ITEM(names, k);
      Py_ssize_t size = 0;
      const char* text = PyUnicode_Check(field) ? PyUnicode_AsUTF8AndSize(field, &size) : nullptr;
      if (text == nullptr || size == 0 || static_cast<size_t>(size) > abi::kMaxFieldName ||
          PyUnicode_IsIdentifier(field) != 1) {
        PyErr_Clear();
        fields.clear();
        break;
      }
      fields.emplace_back(text, static_cast<size_t>(size));
    }
  }
  Py_DECREF(names);
  return fields;
}

// CuPy, PyTorch and Numba arrays on the GPU, used in place (no copy); false for any
// other object. Its own function: the reader's extents are not built for the
// numbers and simt arrays every launch passes.
bool classify_foreign_array(PyObject* o, const std::string& name, Classification& s) {
  ForeignArray foreign;
  if (!read_foreign_array(o, name, foreign)) return false;
  s.producer_pending |= foreign.pending_stream != 0;
  s.unheld_arrays = true;
  append_array_leaf(s, foreign.data, foreign.ndim, foreign.shape.data(),
                    foreign.byte_strides.data(), foreign.itemsize(), foreign.scalar,
                    foreign.readonly, name);
  return true;
}

void classify_value(const nb::handle& obj, const std::string& name, Classification& s,
                    const runtime::Device* device, int depth) {
  PyObject* o = obj.ptr();
  nb::object keep;
  if (const DeviceArray* array = simt_array(o, &keep)) {
    classify_array(*array, name, s, device);
    return;
  }
  Leaf leaf;
  if (read_python_number(o, name, &leaf)) {
    // a bool, int, float or complex
  } else if (PyTuple_Check(o)) {
    if (depth >= abi::kMaxTupleDepth)
      argument_error(name, "tuples nested more than " + std::to_string(abi::kMaxTupleDepth) +
                               " levels deep are not kernel arguments");
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    const std::size_t leaves_before = s.leaves.size();
    const auto too_many = [&] {
      argument_error(name, "tuples of more than " + std::to_string(abi::kMaxTupleLeaves) +
                               " values are not kernel arguments; pass an array");
    };
    if (static_cast<std::size_t>(n) > abi::kMaxTupleLeaves) too_many();
    std::vector<std::string> fields = named_tuple_fields(o, n);
    s.key += fields.empty() ? abi::kTupleBegin : abi::kNamedTupleBegin;
    for (Py_ssize_t k = 0; k < n; ++k) {
      if (!fields.empty()) {
        s.key += static_cast<char>(fields[k].size());
        s.key += fields[k];
      }
      classify_value(PyTuple_GET_ITEM(o, k),
                     fields.empty() ? name + "[" + std::to_string(k) + "]" : name + "." + fields[k],
                     s, device, depth + 1);
    }
    s.key += abi::kTupleEnd;
    if (s.leaves.size() - leaves_before > abi::kMaxTupleLeaves) too_many();
    return;
  } else if ((!device || !device->host_accessible()) && classify_foreign_array(o, name, s)) {
    return;
  } else if (PyObject_CheckBuffer(o)) {
    // NumPy arrays and NumPy scalars.
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      // Records whose fields are out of order have no buffer format.
      if (classify_numpy_records(obj, name, s, device)) return;
      argument_error(name, "its buffer cannot be read as a strided array");
    }
    if (is_record_format(view.format)) {
      PyBuffer_Release(&view);
      if (classify_numpy_records(obj, name, s, device)) return;
      argument_error(name, "its record dtype cannot be read");
    }
    s.buffers.push_back(view);
    // NumPy's datetime64 and timedelta64 scalars export their bytes with
    // neither shape nor strides, whatever was asked for.
    if (view.ndim > 0 && (view.shape == nullptr || view.strides == nullptr))
      argument_error(name, std::string(Py_TYPE(o)->tp_name) +
                               " values are not kernel arguments (their buffer describes no "
                               "array; arrays, numbers and tuples of them are accepted)");
    auto scalar = scalar_from_format(view.format, view.itemsize);
    if (!scalar)
      argument_error(name, std::string("unsupported element format '") +
                               (view.format ? view.format : "?") + "'");
    if (view.ndim == 0) {
      static_cast<ScalarArg&>(leaf) = read_buffer_scalar(view, *scalar);
    } else {
      if (device && !device->host_accessible())
        argument_error(name, "a NumPy array cannot be used on " + device->info().id +
                                 "; copy it with simt.to_device(...)");
      static_assert(sizeof(Py_ssize_t) == sizeof(int64_t));
      s.host_arrays = true;
      append_array_leaf(s, view.buf, view.ndim, reinterpret_cast<const int64_t*>(view.shape),
                        reinterpret_cast<const int64_t*>(view.strides), view.itemsize, *scalar,
                        view.readonly != 0, name);
      return;
    }
  } else {
    argument_error(name, std::string("simt kernels do not accept ") + Py_TYPE(o)->tp_name +
                             " values (arrays, numbers and tuples of them are accepted)");
  }
  abi::append_scalar_key(s.key, leaf.scalar);
  s.leaves.push_back(leaf);
}

}  // namespace

abi::Layout layout_of(int ndim, const int64_t* shape, const int64_t* strides, int64_t itemsize) {
  for (int64_t k = 0; k < ndim; ++k)
    if (shape[k] == 0) return abi::Layout::C;
  bool c = true, f = true;
  int64_t expected = itemsize;
  for (int k = ndim - 1; k >= 0; --k) {
    if (shape[k] != 1 && strides[k] != expected) c = false;
    expected *= shape[k];
  }
  expected = itemsize;
  for (int k = 0; k < ndim; ++k) {
    if (shape[k] != 1 && strides[k] != expected) f = false;
    expected *= shape[k];
  }
  return c ? abi::Layout::C : f ? abi::Layout::F : abi::Layout::Any;
}

void classify_argument(const nb::handle& obj, const std::string& name, Classification& s,
                       const runtime::Device* device) {
  classify_value(obj, name, s, device, 0);
}

void Classification::clear() {
  key.clear();
  leaves.clear();
  dims.clear();
  holds.clear();
  foreign = false;
  host_arrays = false;
  unheld_arrays = false;
  producer_pending = false;
}

void Classification::release_buffers() {
  for (auto& b : buffers) PyBuffer_Release(&b);
  buffers.clear();
}

// Specializations are per device: the key starts with the device's address
// (devices live as long as the process).
void append_device_key(std::string& key, const runtime::Device& device) {
  const runtime::Device* address = &device;
  key.append(reinterpret_cast<const char*>(&address), sizeof address);
}

}  // namespace simt::python
