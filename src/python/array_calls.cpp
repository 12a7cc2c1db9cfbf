// The warm calls of the array library's element-wise functions (simt.add, x + y, ...),
// answered in one call into C++: the arguments' layouts looked up, the result allocated
// and wrapped as a simt.Array, and the kernel launched. The first call of a layout goes
// through the Python layers (dtype resolution, planning, the kernel's compile), which
// then keep the plan here; a repeated call skips them (issue 38: a 16-element x + y cost
// 13-19 us in those layers, NumPy's about 1 us).
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/arguments.h"
#include "python/bindings.h"
#include "python/classify.h"
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
    run(launch, converters, result, args);
    return result.release().ptr();
  }

  // The call written into `out`, an operand of it the caller found reusable (a
  // temporary, reusable_temporary), or None where no plan is kept for the layout or the
  // plan's result is not laid out as `out` (another dtype: 2*i / 3 is float64).
  nb::object call_into(nb::handle out, const nb::args& args) {
    thread_local std::string key;
    if (!layout_key(args.ptr(), key)) return nb::none();
    auto found = plans_.find(key);
    if (found == plans_.end()) return nb::none();
    nb::object keep;
    const DeviceArray* target = simt_array(out.ptr(), &keep);
    const Plan& kept = found->second;
    if (target == nullptr || target->dtype != kept.dtype || target->shape != kept.shape ||
        target->strides != kept.strides || target->buffer->device() != kept.device)
      return nb::none();
    nb::object launch = kept.launch;
    std::vector<nb::object> converters = kept.converters;
    nb::object result = nb::borrow(out);
    run(launch, converters, result, args.ptr());
    return result;
  }

  size_t size() const { return plans_.size(); }
  void clear() { plans_.clear(); }

 private:
  // launch(out, *args), each scalar argument converted by its converter.
  static void run(const nb::object& launch, const std::vector<nb::object>& converters,
                  const nb::object& out, PyObject* args) {
    const Py_ssize_t count = PyTuple_GET_SIZE(args);
    nb::object launch_args = nb::steal(PyTuple_New(count + 1));
    if (!launch_args) throw nb::python_error();
    PyTuple_SET_ITEM(launch_args.ptr(), 0, out.inc_ref().ptr());
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
  }

  std::unordered_map<std::string, Plan> plans_;
};

// The warm reductions of one signature (operation, axis, keepdims, dtype) of the array
// library, kept per layout of the reduced array: the result (and a segmented reduction's
// partial results) allocated, each launch given its views of them and of x, in one call
// (x.sum() of 16 elements cost about 20 us in the Python layers, issue 38).
struct ReductionStep {
  nb::object launch;
  std::vector<int64_t> out_shape, out_strides;  // its view of what it writes
  std::vector<int64_t> in_shape, in_strides;    // its view of what it reads
  nb::tuple arguments;                          // the launch's trailing arguments
};

struct ReductionPlan {
  std::shared_ptr<runtime::Device> device;
  sema::Scalar dtype = sema::Scalar::Float64;
  std::vector<int64_t> shape, strides;
  size_t bytes = 0;
  std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> final_view;
  size_t partial_bytes = 0;  // 0: no partial results
  std::vector<ReductionStep> steps;
};

// A C-ordered array's strides and byte count.
std::pair<std::vector<int64_t>, size_t> c_layout(const std::vector<int64_t>& shape,
                                                 int64_t itemsize) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t stride = itemsize, count = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = stride;
    stride *= std::max<int64_t>(shape[k], 1);
    count *= shape[k];
  }
  return {strides, static_cast<size_t>(count * itemsize)};
}

nb::object array_view(const DeviceArray& base, const std::vector<int64_t>& shape,
                      const std::vector<int64_t>& strides) {
  DeviceArray view = base;
  view.shape = shape;
  view.strides = strides;
  return wrap_simt_array(nb::cast(std::move(view)));
}

class ReductionCalls {
 public:
  static constexpr size_t kMaxPlans = 1024;

  // Keeps the plan of reductions of arrays laid out as x: a result of `dtype` and `shape`
  // (viewed as `final_shape` when given), `partial` bytes of partial results (0: none),
  // and the steps (launch, out shape, out strides, in shape, in strides, arguments).
  void keep(nb::handle x, const std::string& dtype, const std::vector<int64_t>& shape,
            std::optional<std::vector<int64_t>> final_shape, size_t partial,
            const std::vector<nb::tuple>& steps) {
    if (plans_.size() >= kMaxPlans) return;
    std::string key;
    nb::tuple args = nb::make_tuple(x);
    if (!layout_key(args.ptr(), key) || key[0] != 'A') return;
    sema::Type type = type_from_text(dtype);
    if (!type.is_scalar()) throw nb::value_error(("not a scalar dtype: " + dtype).c_str());
    nb::object keep_alive;
    ReductionPlan plan;
    plan.device = simt_array(x.ptr(), &keep_alive)->buffer->device();
    plan.dtype = type.scalar;
    plan.shape = shape;
    const int64_t itemsize = sema::bit_width(type.scalar) / 8;
    std::tie(plan.strides, plan.bytes) = c_layout(shape, itemsize);
    if (final_shape) plan.final_view.emplace(*final_shape, c_layout(*final_shape, itemsize).first);
    plan.partial_bytes = partial;
    for (const nb::tuple& step : steps) {
      if (step.size() != 6) throw std::invalid_argument("a reduction step has six items");
      plan.steps.push_back({nb::borrow(step[0]), nb::cast<std::vector<int64_t>>(step[1]),
                            nb::cast<std::vector<int64_t>>(step[2]),
                            nb::cast<std::vector<int64_t>>(step[3]),
                            nb::cast<std::vector<int64_t>>(step[4]), nb::cast<nb::tuple>(step[5])});
    }
    if (plan.steps.empty()) return;
    plans_.insert_or_assign(std::move(key), std::move(plan));
  }

  // The reduction of x, or None where no plan is kept for its layout.
  nb::object call(nb::handle x) {
    thread_local std::string key;
    nb::tuple args = nb::make_tuple(x);
    if (!layout_key(args.ptr(), key)) return nb::none();
    auto found = plans_.find(key);
    if (found == plans_.end()) return nb::none();
    const ReductionPlan plan = found->second;  // a launch may run Python that edits the table
    DeviceArray out, partial;
    out.dtype = plan.dtype;
    out.shape = plan.shape;
    out.strides = plan.strides;
    {
      nb::gil_scoped_release release;  // as simt.empty: the allocation may wait on a driver
      out.buffer = std::make_shared<runtime::Buffer>(plan.device, plan.bytes);
      if (plan.partial_bytes)
        partial.buffer = std::make_shared<runtime::Buffer>(plan.device, plan.partial_bytes);
    }
    nb::object keep_alive;
    const DeviceArray* source = simt_array(x.ptr(), &keep_alive);
    DeviceArray input = *source;
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      const ReductionStep& step = plan.steps[k];
      const bool last = k + 1 == plan.steps.size();
      DeviceArray& target = last ? out : partial;
      if (!last) target.dtype = plan.dtype;  // partial results: the views set the rest
      nb::object launch_args = nb::steal(PyTuple_New(2 + PyTuple_GET_SIZE(step.arguments.ptr())));
      if (!launch_args) throw nb::python_error();
      PyTuple_SET_ITEM(launch_args.ptr(), 0,
                       array_view(target, step.out_shape, step.out_strides).release().ptr());
      PyTuple_SET_ITEM(launch_args.ptr(), 1,
                       array_view(input, step.in_shape, step.in_strides).release().ptr());
      for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(step.arguments.ptr()); ++j)
        PyTuple_SET_ITEM(launch_args.ptr(), 2 + j,
                         Py_NewRef(PyTuple_GET_ITEM(step.arguments.ptr(), j)));
      nb::object done = nb::steal(PyObject_Call(step.launch.ptr(), launch_args.ptr(), nullptr));
      if (!done) throw nb::python_error();
      input = target;
    }
    if (plan.final_view) return array_view(out, plan.final_view->first, plan.final_view->second);
    return wrap_simt_array(nb::cast(std::move(out)));
  }

  size_t size() const { return plans_.size(); }
  void clear() { plans_.clear(); }

 private:
  std::unordered_map<std::string, ReductionPlan> plans_;
};

// Whether `object` is a temporary an element-wise operator may write its result into, as
// NumPy elides its temporaries (`2*a + b` adds into `2*a`'s memory: a pass that reads
// and writes the same lines, where a new result's lines are read for ownership first).
// The caller (the operator, _methods.py) has checked that the interpreter's binary
// operation called it and knows how many references such a temporary has there
// (`references`, calibrated at import): nothing else may hold the Python object, its
// storage object or its memory (a view, a NumPy array on it, a DLPack export and a queued
// launch each hold one of them). The memory must be simt's own (not imported), writable,
// and all of it the array's, C-contiguous, at least `min_bytes` (smaller results gain
// nothing a pool allocation costs).
bool reusable_temporary(nb::handle object, Py_ssize_t references, size_t min_bytes) {
  if (Py_REFCNT(object.ptr()) != references) return false;
  nb::object keep;
  const DeviceArray* array = simt_array(object.ptr(), &keep);
  // The storage object: the Array's slot and `keep`.
  if (array == nullptr || Py_REFCNT(keep.ptr()) != 2) return false;
  if (array->record || array->readonly || array->offset != 0) return false;
  if (array->buffer.use_count() != 1 || array->buffer->foreign()) return false;
  const int ndim = static_cast<int>(array->shape.size());
  if (layout_of(ndim, array->shape.data(), array->strides.data(), array->itemsize()) !=
      abi::Layout::C)
    return false;
  const size_t bytes = contiguous_bytes(*array);
  return bytes == array->buffer->bytes() && bytes >= min_bytes;
}

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
      .def("into", &ElementwiseCalls::call_into, nb::arg("out"), nb::arg("args"),
           "The kept call of `args` written into `out` (a temporary operand of it), or None.")
      .def("__len__", &ElementwiseCalls::size)
      .def("clear", &ElementwiseCalls::clear);
  m.def("reusable_temporary", &reusable_temporary, nb::arg("array"), nb::arg("references"),
        nb::arg("min_bytes"),
        "Whether `array`, held by `references` references, is a temporary an element-wise "
        "operator may write its result into (nothing else holds it or its memory).");
  nb::class_<ReductionCalls>(m, "ReductionCalls")
      .def(nb::init<>())
      .def("keep", &ReductionCalls::keep, nb::arg("x"), nb::arg("dtype"), nb::arg("shape"),
           nb::arg("final_shape").none(), nb::arg("partial_bytes"), nb::arg("steps"))
      .def("__call__", &ReductionCalls::call, nb::arg("x"))
      .def("__len__", &ReductionCalls::size)
      .def("clear", &ReductionCalls::clear);
}

}  // namespace simt::python
