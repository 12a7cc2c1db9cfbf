// What the launch paths of Python kernels (dispatch.cpp) and raw kernels
// (raw_kernels.cpp) share: reading a launch configuration, reading scalar
// arguments, and storing a scalar as a C parameter.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/device.h"
#include "sema/types.h"

namespace simt::python {

namespace nb = nanobind;

// A scalar argument's type and value.
struct ScalarArg {
  sema::Scalar scalar = sema::Scalar::Int64;
  int64_t int_value = 0;  // bool and integer scalars (uint64 as its bits)
  double real = 0, imag = 0;
};

struct DeviceArray;

// Remembers simt.Array (the Python class), registered at import.
void register_array_type(PyTypeObject* type);
// The storage of a simt.Array, or nullptr for any other object; `keep`
// holds what the pointer lives in.
const DeviceArray* simt_array(PyObject* object, nb::object* keep);
// A new simt.Array whose `_impl` is `impl` (a DeviceArray object), as Array._wrap makes.
nb::object wrap_simt_array(nb::object impl);

// Raises TypeError("argument 'name': message").
[[noreturn]] void argument_error(const std::string& name, const std::string& message);

// A Python bool, int, float or complex (exact types: NumPy scalars are
// buffers) as int64/float64/complex128/bool, as NumPy and CuPy type them;
// false for anything else. An int beyond int64 is a TypeError naming `name`.
bool read_python_number(PyObject* object, const std::string& name, ScalarArg* out);

// The scalar type of a buffer's element format ("f", "<i8", "Zd"); nullopt
// for formats simt has no type for.
std::optional<sema::Scalar> scalar_from_format(const char* format, Py_ssize_t itemsize);

// The value of a 0-dimensional buffer (a NumPy scalar) of type `scalar`.
ScalarArg read_buffer_scalar(const Py_buffer& view, sema::Scalar scalar);

// Stores a scalar in the storage form of a C parameter of type `target`.
void store_scalar(const ScalarArg& value, sema::Scalar target, void* out);

// kernel[grid, block], [grid, block, stream], [grid, block, stream,
// shared_bytes]: `config` is the subscript's tuple. Errors name `kernel_name`
// and the item at fault.
runtime::LaunchDims parse_launch_config(const nb::handle& config, const std::string& kernel_name);

}  // namespace simt::python
