#include "python/foreign_arrays.h"

#include <nanobind/nanobind.h>

#include <cstdlib>
#include <unordered_map>

#include "python/arguments.h"

namespace simt::python {

namespace {

using abi::Scalar;

// Reading a fast path's attributes failed in a way the interface may explain
// better (or accept): the argument goes through __cuda_array_interface__.
struct Fallback {};

// An attribute name as an interned str, made once per name: the readers run on
// every launch, and PyObject_GetAttrString would make a str per call. `name`
// is a string literal (one entry per distinct address).
PyObject* interned(const char* name) {
  static std::unordered_map<const char*, PyObject*> names;
  auto found = names.find(name);
  if (found != names.end()) return found->second;
  PyObject* text = PyUnicode_InternFromString(name);
  if (text == nullptr) throw nb::python_error();
  return names.emplace(name, text).first->second;
}

nb::object attribute(PyObject* o, const char* name) {
  PyObject* value = PyObject_GetAttr(o, interned(name));
  if (value == nullptr) {
    PyErr_Clear();
    throw Fallback{};
  }
  return nb::steal(value);
}

nb::object call_method(PyObject* o, const char* name) {
  PyObject* value = PyObject_CallMethodNoArgs(o, interned(name));
  if (value == nullptr) {
    PyErr_Clear();
    throw Fallback{};
  }
  return nb::steal(value);
}

bool truth(const nb::object& value) {
  int t = PyObject_IsTrue(value.ptr());
  if (t < 0) {
    PyErr_Clear();
    throw Fallback{};
  }
  return t == 1;
}

uintptr_t pointer_of(const nb::object& value) {
  unsigned long long p = PyLong_AsUnsignedLongLong(value.ptr());
  if (p == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw Fallback{};
  }
  return static_cast<uintptr_t>(p);
}

// Reads a tuple of ints (a shape, strides) into `out`, each times `scale`;
// returns its length.
int read_extents(const nb::object& tuple, int64_t scale, std::array<int64_t, abi::kMaxDims>& out) {
  if (!PyTuple_Check(tuple.ptr())) throw Fallback{};
  Py_ssize_t n = PyTuple_GET_SIZE(tuple.ptr());
  for (Py_ssize_t k = 0; k < n && k < abi::kMaxDims; ++k) {
    long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple.ptr(), k));
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw Fallback{};
    }
    out[static_cast<size_t>(k)] = v * scale;
  }
  return static_cast<int>(n);
}

// Producers whose arrays say what the interface says through attributes
// that build no dict.
enum class Producer { Interface, CuPy, Torch };

// What the PyTorch reader compares against, taken from the torch module.
struct TorchNames {
  nb::object strided;  // torch.strided, the only layout with a data pointer and strides
  std::unordered_map<PyObject*, Scalar> dtypes;
};

TorchNames& torch_names() {
  static TorchNames* names = nullptr;
  if (names == nullptr) {
    names = new TorchNames;  // outlives the interpreter's module teardown on purpose
    nb::module_ torch = nb::module_::import_("torch");
    names->strided = torch.attr("strided");
    const std::pair<const char*, Scalar> table[] = {
        {"bool", Scalar::Bool},           {"int8", Scalar::Int8},
        {"int16", Scalar::Int16},         {"int32", Scalar::Int32},
        {"int64", Scalar::Int64},         {"uint8", Scalar::UInt8},
        {"uint16", Scalar::UInt16},       {"uint32", Scalar::UInt32},
        {"uint64", Scalar::UInt64},       {"float16", Scalar::Float16},
        {"float32", Scalar::Float32},     {"float64", Scalar::Float64},
        {"complex64", Scalar::Complex64}, {"complex128", Scalar::Complex128},
    };
    for (const auto& [name, scalar] : table) {
      // uint16..uint64 came in PyTorch 2.3; dtype objects live as long as torch.
      if (PyObject_HasAttrString(torch.ptr(), name))
        names->dtypes.emplace(torch.attr(name).ptr(), scalar);
    }
  }
  return *names;
}

// The class `module.name` when that module is imported, else null.
PyObject* imported_class(const char* module, const char* name) {
  PyObject* modules = PyImport_GetModuleDict();
  PyObject* m = PyDict_GetItemString(modules, module);  // borrowed
  if (m == nullptr) return nullptr;
  PyObject* c = PyObject_GetAttrString(m, name);
  if (c == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  Py_DECREF(c);  // the module holds it
  return PyType_Check(c) ? c : nullptr;
}

// Decided once per type (which is then held, so its address stays its own). An
// object of a CuPy or PyTorch class exists only once that library is imported.
Producer producer_of(PyTypeObject* type) {
  static std::unordered_map<PyTypeObject*, Producer> known;
  auto found = known.find(type);
  if (found != known.end()) return found->second;
  Producer p = Producer::Interface;
  PyObject* cupy = imported_class("cupy", "ndarray");
  PyObject* torch = imported_class("torch", "Tensor");
  if (cupy && PyType_IsSubtype(type, reinterpret_cast<PyTypeObject*>(cupy)))
    p = Producer::CuPy;
  else if (torch && PyType_IsSubtype(type, reinterpret_cast<PyTypeObject*>(torch)))
    p = Producer::Torch;
  Py_INCREF(type);
  known.emplace(type, p);
  return p;
}

// A NumPy dtype (CuPy's arrays carry NumPy's) as a scalar type, through its
// typestr, remembered per dtype object (NumPy's built-in ones are singletons).
Scalar numpy_dtype_scalar(PyObject* dtype) {
  static std::unordered_map<PyObject*, Scalar> known;
  auto found = known.find(dtype);
  if (found != known.end()) return found->second;
  nb::object str = attribute(dtype, "str");
  if (!PyUnicode_Check(str.ptr())) throw Fallback{};
  auto scalar = scalar_from_typestr(PyUnicode_AsUTF8(str.ptr()));
  if (!scalar) throw Fallback{};  // the interface's path names the typestr
  if (known.size() < 256) {
    Py_INCREF(dtype);
    known.emplace(dtype, *scalar);
  }
  return *scalar;
}

void read_cupy(PyObject* o, ForeignArray& out) {
  out.scalar = numpy_dtype_scalar(attribute(o, "dtype").ptr());
  // `data` is the memory pointer of the array's first element (views included).
  out.data = reinterpret_cast<void*>(pointer_of(attribute(attribute(o, "data").ptr(), "ptr")));
  out.ndim = read_extents(attribute(o, "shape"), 1, out.shape);
  if (read_extents(attribute(o, "strides"), 1, out.byte_strides) != out.ndim) throw Fallback{};
  out.readonly = false;  // CuPy has no read-only arrays
}

void read_torch(PyObject* o, const std::string& name, ForeignArray& out) {
  TorchNames& torch = torch_names();
  // CPU tensors, tensors that require grad and sparse ones: PyTorch's interface
  // refuses them with its own words.
  if (!truth(attribute(o, "is_cuda")) || truth(attribute(o, "requires_grad")) ||
      attribute(o, "layout").ptr() != torch.strided.ptr())
    throw Fallback{};
  auto dtype = torch.dtypes.find(attribute(o, "dtype").ptr());
  if (dtype == torch.dtypes.end()) throw Fallback{};
  // The lazy conjugate and negative bits: the memory holds the value before them.
  // Only complex tensors carry the conjugate bit; any may carry the negative
  // one (x.conj().imag is a real, negated view).
  const bool complex = dtype->second == Scalar::Complex64 || dtype->second == Scalar::Complex128;
  if ((complex && truth(call_method(o, "is_conj"))) || truth(call_method(o, "is_neg")))
    argument_error(name,
                   "the tensor is a lazily conjugated or negated view (PyTorch's conj/neg bit): "
                   "pass t.resolve_conj().resolve_neg()");
  out.scalar = dtype->second;
  out.data = reinterpret_cast<void*>(pointer_of(call_method(o, "data_ptr")));
  out.ndim = read_extents(attribute(o, "shape"), 1, out.shape);
  // PyTorch's strides count elements.
  if (read_extents(call_method(o, "stride"), out.itemsize(), out.byte_strides) != out.ndim)
    throw Fallback{};
  out.readonly = false;
}

// The interface's dict (version 1 to 3). Its pointer's device is the producer's.
void read_interface(PyObject* cai_object, const std::string& name, ForeignArray& out) {
  if (!PyDict_Check(cai_object)) argument_error(name, "its __cuda_array_interface__ is not a dict");
  nb::dict cai = nb::borrow<nb::dict>(cai_object);
  auto field = [&](const char* key) -> nb::object {
    if (!cai.contains(key))
      argument_error(name, std::string("its __cuda_array_interface__ has no '") + key + "'");
    return cai[key];
  };
  try {
    std::string typestr = nb::cast<std::string>(field("typestr"));
    auto scalar = scalar_from_typestr(typestr);
    if (!scalar)
      argument_error(name, "unsupported __cuda_array_interface__ typestr '" + typestr + "'");
    out.scalar = *scalar;
    if (cai.contains("mask") && !nb::object(cai["mask"]).is_none())
      argument_error(name,
                     "masked arrays (a __cuda_array_interface__ 'mask') are not "
                     "kernel arguments");
    nb::tuple data = nb::cast<nb::tuple>(field("data"));
    if (data.size() != 2)
      argument_error(name, "its __cuda_array_interface__ 'data' is not (pointer, read_only)");
    out.data = reinterpret_cast<void*>(nb::cast<uintptr_t>(data[0]));
    out.readonly = nb::cast<bool>(data[1]);
    nb::tuple shape = nb::cast<nb::tuple>(field("shape"));
    out.ndim = static_cast<int>(shape.size());
    for (int k = 0; k < out.ndim && k < abi::kMaxDims; ++k)
      out.shape[static_cast<size_t>(k)] = nb::cast<int64_t>(shape[k]);
    nb::object strides = cai.contains("strides") ? nb::object(cai["strides"]) : nb::none();
    if (strides.is_none()) {
      int64_t stride = out.itemsize();
      for (int k = std::min(out.ndim, abi::kMaxDims); k-- > 0;) {
        out.byte_strides[static_cast<size_t>(k)] = stride;
        stride *= out.shape[static_cast<size_t>(k)];
      }
    } else {
      nb::tuple given = nb::cast<nb::tuple>(strides);
      if (given.size() != shape.size())
        argument_error(name, "its __cuda_array_interface__ has " + std::to_string(given.size()) +
                                 " strides for " + std::to_string(shape.size()) + " dimensions");
      for (int k = 0; k < out.ndim && k < abi::kMaxDims; ++k)
        out.byte_strides[static_cast<size_t>(k)] = nb::cast<int64_t>(given[k]);
    }
  } catch (const nb::cast_error&) {
    argument_error(name, "its __cuda_array_interface__ is malformed (a field of the wrong type)");
  }
}

// The text of the Python exception being raised, which is cleared.
std::string take_error_text() {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  nb::object held_type = nb::steal(type), held_value = nb::steal(value),
             held_traceback = nb::steal(traceback);
  std::string text = type ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "error";
  if (value) {
    PyObject* str = PyObject_Str(value);
    if (str && PyUnicode_Check(str)) text += std::string(": ") + PyUnicode_AsUTF8(str);
    Py_XDECREF(str);
    PyErr_Clear();
  }
  return text;
}

}  // namespace

int64_t ForeignArray::itemsize() const { return abi::bit_width(scalar) / 8; }

std::optional<Scalar> scalar_from_typestr(const std::string& typestr) {
  if (typestr.size() < 3 || typestr[0] == '>') return std::nullopt;
  char kind = typestr[1];
  int bytes = std::atoi(typestr.c_str() + 2);
  switch (kind) {
    case 'b':
      return bytes == 1 ? std::optional(Scalar::Bool) : std::nullopt;
    case 'i':
      return bytes == 1   ? Scalar::Int8
             : bytes == 2 ? Scalar::Int16
             : bytes == 4 ? Scalar::Int32
             : bytes == 8 ? std::optional(Scalar::Int64)
                          : std::nullopt;
    case 'u':
      return bytes == 1   ? Scalar::UInt8
             : bytes == 2 ? Scalar::UInt16
             : bytes == 4 ? Scalar::UInt32
             : bytes == 8 ? std::optional(Scalar::UInt64)
                          : std::nullopt;
    case 'f':
      return bytes == 2   ? Scalar::Float16
             : bytes == 4 ? Scalar::Float32
             : bytes == 8 ? std::optional(Scalar::Float64)
                          : std::nullopt;
    case 'c':
      return bytes == 8    ? Scalar::Complex64
             : bytes == 16 ? std::optional(Scalar::Complex128)
                           : std::nullopt;
    default:
      return std::nullopt;
  }
}

bool read_foreign_array(PyObject* o, const std::string& name, ForeignArray& out) {
  Producer producer = producer_of(Py_TYPE(o));
  try {
    if (producer == Producer::CuPy) {
      read_cupy(o, out);
      return true;
    }
    if (producer == Producer::Torch) {
      read_torch(o, name, out);
      return true;
    }
  } catch (const Fallback&) {
  }
  PyObject* cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
  if (cai == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      return false;
    }
    argument_error(name, "its __cuda_array_interface__ failed: " + take_error_text());
  }
  nb::object held = nb::steal(cai);
  read_interface(cai, name, out);
  return true;
}

}  // namespace simt::python
