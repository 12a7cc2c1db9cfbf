#include "python/arguments.h"

#include <nanobind/stl/string.h>
#include <structmember.h>

#include <cctype>
#include <cmath>
#include <cstring>

#include "python/bindings.h"

namespace simt::python {

using sema::Scalar;

namespace {
PyTypeObject* g_array_type = nullptr;  // simt.Array
// Where simt.Array's `_impl` slot lies in its objects (`__slots__`): launches read it
// there, as its member descriptor would, without the attribute lookup (the exact type
// test in simt_array makes the offset valid).
Py_ssize_t g_impl_offset = 0;
}  // namespace

void register_array_type(PyTypeObject* type) {
  nb::object descriptor =
      nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "_impl"));
  if (!descriptor.is_valid()) throw nb::python_error();
  if (Py_TYPE(descriptor.ptr()) != &PyMemberDescr_Type)
    throw std::logic_error("simt.Array._impl is not a __slots__ member");
  const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(descriptor.ptr())->d_member;
  if (member->type != T_OBJECT_EX) throw std::logic_error("simt.Array._impl is no object slot");
  Py_INCREF(reinterpret_cast<PyObject*>(type));
  g_impl_offset = member->offset;
  g_array_type = type;
}

const DeviceArray* simt_array(PyObject* object, nb::object* keep) {
  if (g_array_type == nullptr || Py_TYPE(object) != g_array_type) return nullptr;
  PyObject* impl = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(object) + g_impl_offset);
  if (impl == nullptr)
    throw nb::attribute_error("a simt.Array without its _impl (not made by simt)");
  *keep = nb::borrow(impl);
  return nb::inst_ptr<DeviceArray>(*keep);
}

nb::object wrap_simt_array(nb::object impl) {
  if (g_array_type == nullptr) throw std::logic_error("simt.Array is not registered");
  // object.__new__(Array) and the slot's store, as Array._wrap does in Python.
  nb::object array = nb::steal(g_array_type->tp_alloc(g_array_type, 0));
  if (!array) throw nb::python_error();
  *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(array.ptr()) + g_impl_offset) =
      impl.release().ptr();
  return array;
}

[[noreturn]] void argument_error(const std::string& name, const std::string& message) {
  throw nb::type_error(("argument '" + name + "': " + message).c_str());
}

std::optional<Scalar> scalar_from_format(const char* format, Py_ssize_t itemsize) {
  std::string_view f(format ? format : "B");
  if (!f.empty() && (f[0] == '>' || f[0] == '!')) return std::nullopt;
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@')) f.remove_prefix(1);
  if (f == "?") return Scalar::Bool;
  if (f == "e") return Scalar::Float16;
  if (f == "f") return Scalar::Float32;
  if (f == "d") return Scalar::Float64;
  if (f == "Zf") return Scalar::Complex64;
  if (f == "Zd") return Scalar::Complex128;
  if (f.size() != 1) return std::nullopt;
  bool is_unsigned = std::isupper(static_cast<unsigned char>(f[0])) != 0;
  switch (std::tolower(static_cast<unsigned char>(f[0]))) {
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
      switch (itemsize) {
        case 1:
          return is_unsigned ? Scalar::UInt8 : Scalar::Int8;
        case 2:
          return is_unsigned ? Scalar::UInt16 : Scalar::Int16;
        case 4:
          return is_unsigned ? Scalar::UInt32 : Scalar::Int32;
        case 8:
          return is_unsigned ? Scalar::UInt64 : Scalar::Int64;
        default:
          return std::nullopt;
      }
    default:
      return std::nullopt;
  }
}

bool read_python_number(PyObject* o, const std::string& name, ScalarArg* out) {
  if (PyBool_Check(o)) {
    out->scalar = Scalar::Bool;
    out->int_value = o == Py_True;
  } else if (PyLong_CheckExact(o)) {
    int overflow = 0;
    out->int_value = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      argument_error(name,
                     "the int " + nb::cast<std::string>(nb::str(o)) + " does not fit in int64");
    out->scalar = Scalar::Int64;
  } else if (PyFloat_CheckExact(o)) {
    out->scalar = Scalar::Float64;
    out->real = PyFloat_AS_DOUBLE(o);
  } else if (PyComplex_CheckExact(o)) {
    out->scalar = Scalar::Complex128;
    out->real = PyComplex_RealAsDouble(o);
    out->imag = PyComplex_ImagAsDouble(o);
  } else {
    return false;
  }
  return true;
}

ScalarArg read_buffer_scalar(const Py_buffer& view, Scalar scalar) {
  ScalarArg leaf;
  leaf.scalar = scalar;
  if (sema::is_complex(scalar)) {
    if (scalar == Scalar::Complex64) {
      float parts[2];
      std::memcpy(parts, view.buf, sizeof parts);
      leaf.real = parts[0];
      leaf.imag = parts[1];
    } else {
      double parts[2];
      std::memcpy(parts, view.buf, sizeof parts);
      leaf.real = parts[0];
      leaf.imag = parts[1];
    }
  } else if (sema::is_float(scalar)) {
    if (scalar == Scalar::Float16) {
      _Float16 h;
      std::memcpy(&h, view.buf, 2);
      leaf.real = static_cast<double>(h);
    } else if (scalar == Scalar::Float32) {
      float f;
      std::memcpy(&f, view.buf, 4);
      leaf.real = f;
    } else {
      std::memcpy(&leaf.real, view.buf, 8);
    }
  } else {
    int64_t v = 0;
    std::memcpy(&v, view.buf, static_cast<size_t>(view.itemsize));
    int bits = static_cast<int>(view.itemsize) * 8;
    if (bits < 64 && sema::is_signed(scalar)) v = (v << (64 - bits)) >> (64 - bits);
    leaf.int_value = v;
  }
  return leaf;
}

// Stores a scalar argument in the C parameter's storage form.
void store_scalar(const ScalarArg& leaf, Scalar target, void* out) {
  bool from_float = sema::is_float(leaf.scalar) || sema::is_complex(leaf.scalar);
  double real = from_float ? leaf.real : static_cast<double>(leaf.int_value);
  if (leaf.scalar == Scalar::UInt64 && leaf.int_value < 0)
    real = static_cast<double>(static_cast<uint64_t>(leaf.int_value));
  auto as_int = [&]() -> int64_t {
    if (!from_float) return leaf.int_value;
    if (std::isnan(real)) return 0;
    if (real >= 9.2233720368547758e18) return INT64_MAX;
    if (real <= -9.2233720368547758e18) return INT64_MIN;
    return static_cast<int64_t>(real);
  };
  switch (target) {
    case Scalar::Bool: {
      uint8_t b = from_float ? (real != 0 || leaf.imag != 0) : leaf.int_value != 0;
      std::memcpy(out, &b, 1);
      return;
    }
    case Scalar::Float16: {
      _Float16 h = static_cast<_Float16>(real);
      std::memcpy(out, &h, 2);
      return;
    }
    case Scalar::Float32: {
      float f = static_cast<float>(real);
      std::memcpy(out, &f, 4);
      return;
    }
    case Scalar::Float64:
      std::memcpy(out, &real, 8);
      return;
    case Scalar::Complex64: {
      float parts[2] = {static_cast<float>(real), static_cast<float>(leaf.imag)};
      std::memcpy(out, parts, sizeof parts);
      return;
    }
    case Scalar::Complex128: {
      double parts[2] = {real, leaf.imag};
      std::memcpy(out, parts, sizeof parts);
      return;
    }
    default: {
      // Integers: the low bytes of the two's complement value (little-endian).
      int64_t v = as_int();
      std::memcpy(out, &v, static_cast<size_t>(sema::bit_width(target) / 8));
      return;
    }
  }
}

namespace {

// kernel[grid, block], kernel[grid, block, stream], kernel[grid, block, stream, shared_bytes]
int64_t positive_extent(const nb::handle& v, const char* what) {
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr()))
    throw nb::type_error((std::string(what) + " must be an int or a tuple of up to 3 ints, not " +
                          Py_TYPE(v.ptr())->tp_name)
                             .c_str());
  int overflow = 0;
  long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow || n < 1)
    throw nb::value_error(
        (std::string(what) + " must be positive, not " + nb::cast<std::string>(nb::str(v)))
            .c_str());
  return n;
}

std::array<int64_t, 3> extents(const nb::handle& v, const char* what) {
  std::array<int64_t, 3> out{1, 1, 1};
  if (PyTuple_Check(v.ptr())) {
    Py_ssize_t n = PyTuple_GET_SIZE(v.ptr());
    if (n < 1 || n > 3)
      throw nb::value_error(
          (std::string(what) + " must have 1 to 3 dimensions, not " + std::to_string(n)).c_str());
    for (Py_ssize_t k = 0; k < n; ++k) out[k] = positive_extent(PyTuple_GET_ITEM(v.ptr(), k), what);
    return out;
  }
  out[0] = positive_extent(v, what);
  return out;
}

}  // namespace

runtime::LaunchDims parse_launch_config(const nb::handle& config, const std::string& kernel_name) {
  if (!PyTuple_Check(config.ptr()) || PyTuple_GET_SIZE(config.ptr()) < 2 ||
      PyTuple_GET_SIZE(config.ptr()) > 4)
    throw nb::type_error(("launch configuration of " + kernel_name +
                          " must be [grid, block], [grid, block, stream] or "
                          "[grid, block, stream, shared_bytes]")
                             .c_str());
  runtime::LaunchDims dims;
  dims.grid = extents(PyTuple_GET_ITEM(config.ptr(), 0), "grid");
  dims.block = extents(PyTuple_GET_ITEM(config.ptr(), 1), "block");
  Py_ssize_t n = PyTuple_GET_SIZE(config.ptr());
  // The stream (item 3) is read by the caller (stream_object).
  if (n == 4) {
    nb::handle shared = PyTuple_GET_ITEM(config.ptr(), 3);
    long long bytes = PyLong_Check(shared.ptr()) ? PyLong_AsLongLong(shared.ptr()) : -1;
    if (bytes == -1 && PyErr_Occurred()) PyErr_Clear();
    // The CPU backend allocates it per block: a bound keeps a typo from
    // asking for terabytes.
    constexpr long long kMaxSharedBytes = 1ll << 30;
    if (bytes < 0 || bytes > kMaxSharedBytes)
      throw nb::value_error(
          "dynamic shared memory (the 4th launch item) must be an int number of bytes from 0 "
          "to 2**30");
    dims.shared_bytes = static_cast<size_t>(bytes);
  }
  return dims;
}

}  // namespace simt::python
