// The warm calls of the array library's element-wise functions (simt.add, x + y, ...),
// answered in one call into C++: the arguments' layouts looked up, the result allocated
// and wrapped as a simt.Array, and the kernel launched. The first call of a layout goes
// through the Python layers (dtype resolution, planning, the kernel's compile), which
// then keep the plan here; a repeated call skips them (issue 38: a 16-element x + y cost
// 13-19 us in those layers, NumPy's about 1 us).
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/arguments.h"
#include "python/bindings.h"
#include "python/translate.h"
#include "runtime/device.h"
#include "sema/types.h"

namespace simt::python {

namespace {

// What decides a call's plan, as bytes: per argument, a simt array's dtype, shape,
// strides and device, or a Python scalar's type. False for any other argument (a NumPy
// scalar, a traced value, a record array): the Python layers take that call.
bool layout_key(PyObject* args, std::string& key) {
  key.clear();
  const Py_ssize_t count = PyTuple_GET_SIZE(args);
  for (Py_ssize_t k = 0; k < count; ++k) {
    PyObject* value = PyTuple_GET_ITEM(args, k);
    nb::object keep;
    if (const DeviceArray* array = simt_array(value, &keep)) {
      if (array->record) return false;
      const auto ndim = static_cast<int64_t>(array->shape.size());
      const runtime::Device* device = array->buffer->device().get();
      key.push_back('A');
      key.push_back(static_cast<char>(array->dtype));
      key.append(reinterpret_cast<const char*>(&ndim), sizeof ndim);
      key.append(reinterpret_cast<const char*>(array->shape.data()), ndim * sizeof(int64_t));
      key.append(reinterpret_cast<const char*>(array->strides.data()), ndim * sizeof(int64_t));
      key.append(reinterpret_cast<const char*>(&device), sizeof device);
    } else if (PyBool_Check(value)) {  // before int: bool is an int
      key.push_back('b');
    } else if (PyLong_CheckExact(value)) {
      key.push_back('i');
    } else if (PyFloat_CheckExact(value)) {
      key.push_back('f');
    } else if (PyComplex_CheckExact(value)) {
      key.push_back('c');
    } else {
      return false;
    }
  }
  return true;
}

// One kept plan: a one-dimensional, contiguous call whose kernel takes the result and the
// arguments as they are (scalars converted to the loop's dtype first).
struct Plan {
  nb::object launch;  // the configured launch, kernel[grid, block]
  sema::Scalar dtype = sema::Scalar::Float64;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  size_t bytes = 0;
  std::shared_ptr<runtime::Device> device;
  // Per argument: None for an array, else the NumPy scalar type a Python number becomes
  // (np.float32(2.0), as the Python path converts it).
  std::vector<nb::object> converters;
};

class ElementwiseCalls {
 public:
  // How many layouts one function keeps (as the Python path's table did): a program
  // that calls it with ever new shapes does not grow it without bound.
  static constexpr size_t kMaxPlans = 1024;

  // Keeps the plan of calls laid out as `args`.
  void keep(const nb::tuple& args, nb::object launch, const std::string& dtype,
            const std::vector<int64_t>& shape, const PyDevice& device,
            const std::vector<nb::object>& converters) {
    if (plans_.size() >= kMaxPlans) return;
    std::string key;
    if (!layout_key(args.ptr(), key)) return;
    if (converters.size() != args.size())
      throw std::invalid_argument("a converter (or None) per argument");
    sema::Type type = type_from_text(dtype);
    if (!type.is_scalar()) throw nb::value_error(("not a scalar dtype: " + dtype).c_str());
    Plan plan;
    plan.launch = std::move(launch);
    plan.dtype = type.scalar;
    plan.shape = shape;
    plan.strides.assign(shape.size(), 0);
    int64_t stride = sema::bit_width(type.scalar) / 8;
    for (size_t k = shape.size(); k-- > 0;) {
      plan.strides[k] = stride;
      stride *= std::max<int64_t>(shape[k], 1);
    }
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    plan.bytes = static_cast<size_t>(count) * static_cast<size_t>(sema::bit_width(type.scalar) / 8);
    plan.device = device.device;
    plan.converters = converters;
    plans_.insert_or_assign(std::move(key), std::move(plan));
  }

  // The result of the call, or None where no plan is kept for its layout.
  PyObject* call(PyObject* args) {
    thread_local std::string key;
    if (!layout_key(args, key)) Py_RETURN_NONE;
    auto found = plans_.find(key);
    if (found == plans_.end()) Py_RETURN_NONE;
    // A copy of what the launch needs: the launch may run Python (a Ctrl-C handler, a
    // garbage collection) that changes the table.
    const Plan& kept = found->second;
    nb::object launch = kept.launch;
    std::vector<nb::object> converters = kept.converters;
    DeviceArray out;
    out.dtype = kept.dtype;
    out.shape = kept.shape;
    out.strides = kept.strides;
    {
      // As simt.empty: the allocation may wait on a driver.
      std::shared_ptr<runtime::Device> device = kept.device;
      const size_t bytes = kept.bytes;
      nb::gil_scoped_release release;
      out.buffer = std::make_shared<runtime::Buffer>(std::move(device), bytes);
    }
    nb::object result = wrap_simt_array(nb::cast(std::move(out)));
    const Py_ssize_t count = PyTuple_GET_SIZE(args);
    nb::object launch_args = nb::steal(PyTuple_New(count + 1));
    if (!launch_args) throw nb::python_error();
    PyTuple_SET_ITEM(launch_args.ptr(), 0, result.inc_ref().ptr());
    for (Py_ssize_t k = 0; k < count; ++k) {
      PyObject* value = PyTuple_GET_ITEM(args, k);
      PyObject* item;
      if (converters[k].is_none()) {
        item = Py_NewRef(value);
      } else {
        item = PyObject_CallOneArg(converters[k].ptr(), value);
        if (item == nullptr) throw nb::python_error();
      }
      PyTuple_SET_ITEM(launch_args.ptr(), k + 1, item);
    }
    nb::object done = nb::steal(PyObject_Call(launch.ptr(), launch_args.ptr(), nullptr));
    if (!done) throw nb::python_error();
    return result.release().ptr();
  }

  size_t size() const { return plans_.size(); }
  void clear() { plans_.clear(); }

 private:
  std::unordered_map<std::string, Plan> plans_;
};

// calls(*args): the type's own call slot, as a kernel launch's (dispatch.cpp): no method
// lookup or overload dispatch on the warm path.
PyObject* calls_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "element-wise calls take their arguments by position");
    return nullptr;
  }
  try {
    if (!nb::inst_ready(self)) throw std::logic_error("an ElementwiseCalls not made by simt");
    return nb::inst_ptr<ElementwiseCalls>(self)->call(args);
  } catch (...) {
    return raise_translated(std::current_exception());
  }
}

PyType_Slot calls_slots[] = {{Py_tp_call, reinterpret_cast<void*>(calls_call)}, {0, nullptr}};

}  // namespace

void bind_array_calls(nb::module_& m) {
  nb::class_<ElementwiseCalls>(m, "ElementwiseCalls", nb::type_slots(calls_slots))
      .def(nb::init<>())
      .def("keep", &ElementwiseCalls::keep, nb::arg("args"), nb::arg("launch"), nb::arg("dtype"),
           nb::arg("shape"), nb::arg("device"), nb::arg("converters"),
           "Keeps the plan of calls whose arguments are laid out as `args`: the result of "
           "`dtype` and `shape` on `device`, computed by `launch(out, *args)` with each scalar "
           "argument converted by its converter (None for arrays).")
      .def("__len__", &ElementwiseCalls::size)
      .def("clear", &ElementwiseCalls::clear);
}

}  // namespace simt::python
