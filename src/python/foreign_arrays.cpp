#include "python/foreign_arrays.h"

#include <nanobind/nanobind.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "python/arguments.h"

namespace simt::python {

namespace {

using abi::Scalar;

// Reading a fast path's attributes failed in a way the interface may explain
// better (or accept): the argument goes through __cuda_array_interface__.
struct Fallback {};

// An attribute name as an interned str, made at its first use: the readers run
// on every launch, and PyObject_GetAttrString would make a str per call.
class Name {
 public:
  explicit constexpr Name(const char* text) : text_(text) {}
  PyObject* get() {
    if (object_ == nullptr) {
      object_ = PyUnicode_InternFromString(text_);
      if (object_ == nullptr) throw nb::python_error();
    }
    return object_;
  }

 private:
  const char* text_;
  PyObject* object_ = nullptr;  // held for the process's life
};

Name kData{"data"}, kDataPtr{"data_ptr"}, kDeviceId{"device_id"}, kDtype{"dtype"},
    kGetDevice{"get_device"}, kIsConj{"is_conj"}, kIsCuda{"is_cuda"}, kIsNeg{"is_neg"},
    kLayout{"layout"}, kPtr{"ptr"}, kRequiresGrad{"requires_grad"}, kShape{"shape"}, kStr{"str"},
    kStride{"stride"}, kStrides{"strides"}, kCudaArrayInterface{"__cuda_array_interface__"};

nb::object attribute(PyObject* o, Name& name) {
  PyObject* value = PyObject_GetAttr(o, name.get());
  if (value == nullptr) {
    PyErr_Clear();
    throw Fallback{};
  }
  return nb::steal(value);
}

nb::object call_method(PyObject* o, Name& name) {
  PyObject* value = PyObject_CallMethodNoArgs(o, name.get());
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

// An int-like value (anything with __index__) as a 64-bit integer; nullopt,
// with no Python error left set, for anything else or out of range.
template <class T, T (*convert)(PyObject*)>
std::optional<T> index_as(PyObject* value) {
  PyObject* index = PyNumber_Index(value);
  T n = index ? convert(index) : T(-1);
  Py_XDECREF(index);
  if (index == nullptr || (n == T(-1) && PyErr_Occurred())) {
    PyErr_Clear();
    return std::nullopt;
  }
  return n;
}
constexpr auto signed_index = index_as<long long, PyLong_AsLongLong>;
constexpr auto unsigned_index = index_as<unsigned long long, PyLong_AsUnsignedLongLong>;

// A fast path's address or device number; Fallback for anything else.
uintptr_t pointer_of(const nb::object& value) {
  auto p = unsigned_index(value.ptr());
  if (!p) throw Fallback{};
  return static_cast<uintptr_t>(*p);
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
// that build no dict; None: objects that cannot have the interface at all.
enum class Producer { Interface, CuPy, Torch, None };

// What the PyTorch reader compares against, taken from the torch module.
struct TorchNames {
  nb::object strided;  // torch.strided, the only layout with a data pointer and strides
  std::unordered_map<PyObject*, Scalar> dtypes;
  nb::object current_raw_stream;  // torch._C._cuda_getCurrentRawStream(device), or None
};

TorchNames& torch_names() {
  static TorchNames* names = nullptr;
  if (names == nullptr) {
    names = new TorchNames;  // outlives the interpreter's module teardown on purpose
    nb::module_ torch = nb::module_::import_("torch");
    names->strided = torch.attr("strided");
    nb::object c = torch.attr("_C");
    names->current_raw_stream = nb::hasattr(c, "_cuda_getCurrentRawStream")
                                    ? nb::object(c.attr("_cuda_getCurrentRawStream"))
                                    : nb::none();
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

// Whether no object of `type` can have __cuda_array_interface__: a static type
// (which nothing can add attributes to) without the attribute, whose objects have
// no __dict__ and no attribute hook of their own: NumPy's arrays and scalars, which
// kernels take on every launch, skip the interface's lookup.
bool never_has_interface(PyTypeObject* type) {
  if ((type->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0 || type->tp_dictoffset != 0 ||
      type->tp_getattro != PyObject_GenericGetAttr)
    return false;
  const int has = PyObject_HasAttr(reinterpret_cast<PyObject*>(type), kCudaArrayInterface.get());
  return has == 0;
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
  else if (never_has_interface(type))
    p = Producer::None;
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
  nb::object str = attribute(dtype, kStr);
  if (!PyUnicode_Check(str.ptr())) throw Fallback{};
  auto scalar = scalar_from_typestr(PyUnicode_AsUTF8(str.ptr()));
  if (!scalar) throw Fallback{};  // the interface's path names the typestr
  if (known.size() < 256) {
    Py_INCREF(dtype);
    known.emplace(dtype, *scalar);
  }
  return *scalar;
}

// A producer's current stream as the interface would name it: 0 for its legacy
// default stream (handle 0 or CU_STREAM_LEGACY, which simt's streams wait for),
// else the handle, whose pending writes a consumer waits for (what the
// interface's version-3 'stream' and DLPack's handshake ask).
uintptr_t pending_from(uintptr_t handle) { return handle == 1 ? 0 : handle; }

// CuPy's C function that answers its current stream on this thread (what
// cupy.cuda.get_current_stream().ptr says, without making the Stream object),
// from the C API its Cython module exports for other Cython modules: a capsule
// per function, named by the function's C signature. Null where the module or
// a capsule of the expected signature is missing (another CuPy).
using CurrentStreamFunction = intptr_t (*)();

CurrentStreamFunction look_up_cupy_current_stream() {
  nb::object module = nb::steal(PyImport_ImportModule("cupy_backends.cuda.stream"));
  nb::object capi =
      nb::steal(module ? PyObject_GetAttrString(module.ptr(), "__pyx_capi__") : nullptr);
  PyObject* capsule = capi && PyDict_Check(capi.ptr())
                          ? PyDict_GetItemString(capi.ptr(), "get_current_stream_ptr")
                          : nullptr;
  const char* signature = capsule ? PyCapsule_GetName(capsule) : nullptr;
  // The exception clause Cython appends changes nothing of the C call; an
  // error it reports is checked after each call.
  const std::string_view expected = "intptr_t (void)";
  void* pointer = signature && std::string_view(signature).substr(0, expected.size()) == expected
                      ? PyCapsule_GetPointer(capsule, signature)
                      : nullptr;
  PyErr_Clear();
  return reinterpret_cast<CurrentStreamFunction>(pointer);
}

CurrentStreamFunction cupy_current_stream_function() {
  // The GIL guards these, not a function-local static's lock: an import may
  // release the GIL, and another thread waiting on that lock would hold it.
  static bool looked_up = false;
  static CurrentStreamFunction function = nullptr;
  if (!looked_up) {
    function = look_up_cupy_current_stream();
    looked_up = true;
  }
  return function;
}

// CuPy's current stream on this thread.
uintptr_t cupy_current_stream() {
  if (CurrentStreamFunction current = cupy_current_stream_function()) {
    const intptr_t handle = current();
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw Fallback{};
    }
    return static_cast<uintptr_t>(handle);
  }
  static PyObject* get = nullptr;  // held for the process's life; the GIL guards it
  if (get == nullptr)
    get = nb::object(nb::module_::import_("cupy.cuda").attr("get_current_stream")).release().ptr();
  PyObject* stream = PyObject_CallNoArgs(get);
  if (stream == nullptr) {
    PyErr_Clear();
    throw Fallback{};
  }
  return pointer_of(attribute(nb::steal(stream).ptr(), kPtr));
}

// `ordinal`: the CUDA device of the memory, where the caller asks (a launch does not:
// the driver knows the pointer's device).
void read_cupy(PyObject* o, ForeignArray& out, int* ordinal) {
  out.scalar = numpy_dtype_scalar(attribute(o, kDtype).ptr());
  // `data` is the memory pointer of the array's first element (views included).
  nb::object data = attribute(o, kData);
  out.data = reinterpret_cast<void*>(pointer_of(attribute(data.ptr(), kPtr)));
  if (ordinal != nullptr) *ordinal = static_cast<int>(pointer_of(attribute(data.ptr(), kDeviceId)));
  out.ndim = read_extents(attribute(o, kShape), 1, out.shape);
  if (read_extents(attribute(o, kStrides), 1, out.byte_strides) != out.ndim) throw Fallback{};
  out.readonly = false;  // CuPy has no read-only arrays
  out.pending_stream = pending_from(cupy_current_stream());
}

void read_torch(PyObject* o, const std::string& name, ForeignArray& out, int* ordinal) {
  TorchNames& torch = torch_names();
  // CPU tensors, tensors that require grad and sparse ones: PyTorch's interface
  // refuses them with its own words.
  if (!truth(attribute(o, kIsCuda)) || truth(attribute(o, kRequiresGrad)) ||
      attribute(o, kLayout).ptr() != torch.strided.ptr())
    throw Fallback{};
  auto dtype = torch.dtypes.find(attribute(o, kDtype).ptr());
  if (dtype == torch.dtypes.end()) throw Fallback{};
  // The lazy conjugate and negative bits: the memory holds the value before them.
  // Only complex tensors carry the conjugate bit; any may carry the negative
  // one (x.conj().imag is a real, negated view).
  const bool complex = dtype->second == Scalar::Complex64 || dtype->second == Scalar::Complex128;
  if ((complex && truth(call_method(o, kIsConj))) || truth(call_method(o, kIsNeg)))
    argument_error(name,
                   "the tensor is a lazily conjugated or negated view (PyTorch's conj/neg bit): "
                   "pass t.resolve_conj().resolve_neg()");
  out.scalar = dtype->second;
  out.data = reinterpret_cast<void*>(pointer_of(call_method(o, kDataPtr)));
  out.ndim = read_extents(attribute(o, kShape), 1, out.shape);
  // PyTorch's strides count elements.
  if (read_extents(call_method(o, kStride), out.itemsize(), out.byte_strides) != out.ndim)
    throw Fallback{};
  out.readonly = false;
  nb::object device = call_method(o, kGetDevice);
  if (ordinal != nullptr) *ordinal = static_cast<int>(pointer_of(device));
  if (torch.current_raw_stream.is_none()) throw Fallback{};  // the interface says it
  PyObject* stream = PyObject_CallOneArg(torch.current_raw_stream.ptr(), device.ptr());
  if (stream == nullptr) {
    PyErr_Clear();
    throw Fallback{};
  }
  out.pending_stream = pending_from(pointer_of(nb::steal(stream)));
}

// A CuPy array or PyTorch tensor through its own attributes; Fallback where
// they do not say what the interface would.
void read_by_attributes(Producer producer, PyObject* o, const std::string& name, ForeignArray& out,
                        int* ordinal) {
  if (producer == Producer::CuPy)
    read_cupy(o, out, ordinal);
  else
    read_torch(o, name, out, ordinal);
}

}  // namespace

void read_cuda_array_interface(PyObject* cai_object, ForeignArray& out,
                               const InterfaceFault& fault) {
  auto fail = [&](FaultKind kind, const std::string& message) {
    fault(kind, message);
    throw std::logic_error("an InterfaceFault returned");  // it must throw
  };
  if (!PyDict_Check(cai_object))
    fail(FaultKind::Type, std::string("is a ") + Py_TYPE(cai_object)->tp_name + ", not a dict");
  nb::dict cai = nb::borrow<nb::dict>(cai_object);
  auto get = [&](const char* key) -> nb::object {
    PyObject* value = PyDict_GetItemString(cai.ptr(), key);  // borrowed
    return value ? nb::borrow(value) : nb::none();
  };
  auto malformed = [&](const std::string& what) {
    fail(FaultKind::Value, "is malformed: " + what +
                               "; it needs 'shape' (a tuple of ints), 'typestr' and 'data' "
                               "(pointer, read-only flag)");
  };
  auto integer = [&](PyObject* value, const char* what) -> long long {
    auto n = signed_index(value);
    if (!n) malformed(std::string(what) + " holds a non-integer");
    return *n;
  };
  // A tuple as the protocol has it, or any sequence a hand-made dict holds.
  auto sequence = [&](const nb::object& value, const char* what) -> nb::object {
    PyObject* items = PySequence_Fast(value.ptr(), what);
    if (items == nullptr) {
      PyErr_Clear();
      malformed(std::string(what) + " is not a tuple");
    }
    return nb::steal(items);
  };

  nb::object version = get("version");
  const long long v = version.is_none() ? -1 : signed_index(version.ptr()).value_or(-1);
  if (v < 0 || v > 3)
    fail(FaultKind::Value, "has version " + nb::cast<std::string>(nb::repr(version)) +
                               "; simt reads versions 0 to 3");
  if (!get("mask").is_none())
    fail(FaultKind::Unsupported,
         "has a mask. Masked arrays are not supported: simt arrays and kernel arguments have none");

  nb::object typestr = get("typestr");
  const char* utf8 = PyUnicode_Check(typestr.ptr()) ? PyUnicode_AsUTF8(typestr.ptr()) : nullptr;
  if (utf8 == nullptr) {
    PyErr_Clear();
    malformed("'typestr' is not a str");
  }
  std::string text = utf8;
  // One-byte types have no byte order, whatever the character says ('>u1' is '|u1').
  if (text.size() >= 3 && text[0] == '>' && text.substr(2) == "1") text[0] = '|';
  if (text.size() >= 2 && text[0] == '>')
    fail(FaultKind::Type, "has typestr '" + text +
                              "': its byte order is not this machine's, and simt kernels read "
                              "native byte order only");
  auto scalar = scalar_from_typestr(text);
  if (!scalar)
    fail(FaultKind::Type, "has typestr '" + text +
                              "', which is not a dtype simt supports (bool, int8-64, uint8-64, "
                              "float16-64, complex64/128)");
  out.scalar = *scalar;

  nb::object data = sequence(get("data"), "'data'");
  if (PySequence_Fast_GET_SIZE(data.ptr()) != 2) malformed("'data' is not (pointer, read_only)");
  auto address = unsigned_index(PySequence_Fast_GET_ITEM(data.ptr(), 0));
  if (!address) malformed("'data' does not start with a pointer (an int)");
  out.data = reinterpret_cast<void*>(static_cast<uintptr_t>(*address));
  int readonly = PyObject_IsTrue(PySequence_Fast_GET_ITEM(data.ptr(), 1));
  if (readonly < 0) {
    PyErr_Clear();
    malformed("'data' has no read-only flag");
  }
  out.readonly = readonly == 1;

  nb::object shape = sequence(get("shape"), "'shape'");
  Py_ssize_t ndim = PySequence_Fast_GET_SIZE(shape.ptr());
  out.ndim = static_cast<int>(ndim);
  for (Py_ssize_t k = 0; k < ndim; ++k) {
    long long n = integer(PySequence_Fast_GET_ITEM(shape.ptr(), k), "'shape'");
    if (n < 0) malformed("'shape' holds a negative extent");
    if (k < abi::kMaxDims) out.shape[static_cast<size_t>(k)] = n;
  }
  nb::object strides = get("strides");
  if (strides.is_none()) {
    int64_t stride = out.itemsize();
    for (int k = std::min(out.ndim, abi::kMaxDims); k-- > 0;) {
      out.byte_strides[static_cast<size_t>(k)] = stride;
      if (__builtin_mul_overflow(stride, std::max<int64_t>(out.shape[static_cast<size_t>(k)], 1),
                                 &stride))
        malformed("'shape' spans more bytes than an int64 counts");
    }
  } else {
    strides = sequence(strides, "'strides'");
    Py_ssize_t given = PySequence_Fast_GET_SIZE(strides.ptr());
    if (given != ndim)
      fail(FaultKind::Value,
           "has " + std::to_string(given) + " strides for " + std::to_string(ndim) + " dimensions");
    for (Py_ssize_t k = 0; k < given; ++k) {
      long long st = integer(PySequence_Fast_GET_ITEM(strides.ptr(), k), "'strides'");
      if (k < abi::kMaxDims) out.byte_strides[static_cast<size_t>(k)] = st;
    }
  }

  // Version 3's stream: the producer's writes are pending on it. None asks for
  // no ordering; 1, the legacy default stream, is one simt's own streams (all
  // blocking) wait for already.
  out.pending_stream = 0;
  nb::object stream = get("stream");
  if (v >= 3 && !stream.is_none()) {
    auto handle = unsigned_index(stream.ptr());
    if (!handle)
      fail(FaultKind::Type,
           "has stream " + nb::cast<std::string>(nb::repr(stream)) + ", not a stream handle");
    if (*handle == 0)
      fail(FaultKind::Value, "names stream 0, which the protocol disallows as ambiguous");
    out.pending_stream = pending_from(static_cast<uintptr_t>(*handle));
  }
}

namespace {

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

bool read_known_producer(PyObject* o, ForeignArray& out, int& cuda_ordinal) {
  Producer producer = producer_of(Py_TYPE(o));
  if (producer == Producer::Interface || producer == Producer::None) return false;
  try {
    read_by_attributes(producer, o, "", out, &cuda_ordinal);
  } catch (const Fallback&) {
    return false;
  } catch (const nb::builtin_exception&) {  // a tensor with its conjugate or negative bit
    return false;
  }
  // Writes pending on the producer's own stream: the caller's first-call path orders them.
  return cuda_ordinal >= 0 && out.pending_stream == 0;
}

bool read_foreign_array(PyObject* o, const std::string& name, ForeignArray& out) {
  Producer producer = producer_of(Py_TYPE(o));
  if (producer == Producer::None) return false;
  if (producer != Producer::Interface) {
    try {
      read_by_attributes(producer, o, name, out, nullptr);
      return true;
    } catch (const Fallback&) {
    }
  }
  // A missing attribute makes no AttributeError here (making one costs more than the
  // rest of a launch's reading of its arguments).
  PyObject* cai = nullptr;
#if PY_VERSION_HEX >= 0x030D0000
  const int found = PyObject_GetOptionalAttr(o, kCudaArrayInterface.get(), &cai);
#else
  const int found = _PyObject_LookupAttr(o, kCudaArrayInterface.get(), &cai);
#endif
  if (found == 0) return false;
  if (found < 0) argument_error(name, "its __cuda_array_interface__ failed: " + take_error_text());
  nb::object held = nb::steal(cai);
  read_cuda_array_interface(cai, out, [&](FaultKind, const std::string& message) {
    argument_error(name, "its __cuda_array_interface__ " + message);
  });
  return true;
}

}  // namespace simt::python
