// Raw kernels: CUDA C++ or OpenCL C source from the user, compiled by the
// device's own compiler (runtime::Device::compile_raw) and launched with the
// syntax of Python kernels. Arguments are checked against the parameters the
// driver reports, so a wrong one is a TypeError rather than corrupted memory.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>
#include <deque>
#include <tuple>

#include "python/arguments.h"
#include "python/bindings.h"
#include "python/foreign_arrays.h"
#include "runtime/graph.h"
#include "runtime/raw_program_cache.h"

namespace simt::python {

namespace {

// A Python number or a NumPy scalar: a value a recorded launch copies.
bool is_plain_number(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o)) return true;
  static PyObject* const generic =  // held for good: no destructor after finalization
      nanobind::object(nanobind::module_::import_("numpy").attr("generic")).release().ptr();
  return PyObject_IsInstance(o, generic) == 1;
}

}  // namespace

namespace {

runtime::RawProgramCache& program_cache() {
  // Leaked: programs hold driver objects that must not be released after
  // the drivers' own teardown at exit. 32 recent programs: a loop that makes
  // the same few kernels again finds them, at a few MB at most.
  static auto* cache = new runtime::RawProgramCache(32);
  return *cache;
}

std::optional<runtime::BackendKind> backend_from_name(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  if (*name == "cuda" || *name == "nvrtc") return runtime::BackendKind::Cuda;
  if (*name == "opencl") return runtime::BackendKind::OpenCL;
  throw nb::value_error(("backend must be 'cuda' (or CuPy's 'nvrtc') or 'opencl', not '" + *name +
                         "'; the source language follows the device: CUDA C++ on cuda:N, "
                         "OpenCL C on opencl:N")
                            .c_str());
}

class RawKernel {
 public:
  // `opencl`: CUDA C++ `source` spelled as OpenCL C (python/simt/_cuda_to_opencl.py),
  // the kernel's name and the build options there, for OpenCL devices; absent where
  // the source is not CUDA C++ or names its backend.
  RawKernel(std::string source, std::string name, std::vector<std::string> options,
            std::vector<std::string> name_expressions, std::optional<PyDevice> device,
            std::optional<std::string> backend,
            std::optional<std::tuple<std::string, std::string, std::vector<std::string>>> opencl)
      : name_(std::move(name)),
        device_(device ? device->device : nullptr),
        backend_(backend_from_name(backend)) {
    if (opencl) {
      opencl_source_.source = std::move(std::get<0>(*opencl));
      opencl_name_ = std::move(std::get<1>(*opencl));
      opencl_source_.options = std::move(std::get<2>(*opencl));
    }
    source_.source = std::move(source);
    source_.options = std::move(options);
    source_.name_expressions = std::move(name_expressions);
  }

  const std::string& name() const { return name_; }

  // Compiles (or finds) the program for `device` and looks the kernel up.
  const runtime::RawFunction& function_for(const std::shared_ptr<runtime::Device>& device) {
    for (const auto& [on, function] : functions_)
      if (on == device.get()) return function;
    // The CPU device compiles CUDA C++ (backends/cpu/cuda_on_cpu.h).
    const runtime::BackendKind language = device->info().backend == runtime::BackendKind::Cpu
                                              ? runtime::BackendKind::Cuda
                                              : device->info().backend;
    if (backend_ && *backend_ != language)
      throw nb::value_error(("raw kernel '" + name_ + "' is " + runtime::backend_name(*backend_) +
                             " source, but it launches on " + device->info().id + " (" +
                             runtime::backend_name(device->info().backend) +
                             "); choose a device with device=... or simt.use_device(...)")
                                .c_str());
    const bool translated = language == runtime::BackendKind::OpenCL && opencl_name_.has_value();
    const runtime::RawSource& source = translated ? opencl_source_ : source_;
    std::shared_ptr<runtime::RawProgram> program =
        program_cache().get(device->info().id, source, [&] {
          nb::gil_scoped_release release;
          return device->compile_raw(source);
        });
    functions_.emplace_back(device.get(), program->function(translated ? *opencl_name_ : name_));
    return functions_.back().second;
  }

  std::shared_ptr<runtime::Device> device() const { return device_ ? device_ : current_device(); }

  void launch(const runtime::LaunchDims& dims, const PyStream* stream, const nb::args& args);

  nb::list param_info(const PyDevice& device) {
    const runtime::RawFunction& function = function_for(device.device);
    nb::list out;
    if (!function.params_known) return out;
    for (const runtime::RawParam& p : function.params)
      out.append(nb::make_tuple(p.bytes, p.type_name));
    return out;
  }

 private:
  // One argument as the C parameter's value.
  // `producer_pending`: set when a foreign array's writes are pending on a
  // stream the launch does not wait for (its interface, or its library's
  // current stream, says so).
  runtime::RawArgument read(const nb::handle& arg, size_t index, const runtime::Device& device,
                            std::array<uint64_t, 2>* value, bool& producer_pending) const;
  // A Python int or float for a parameter of another width of its kind (`unsigned
  // int N` given `N**2`, as CuPy's documentation passes it) is converted to the
  // parameter's type, as NumPy converts its weak scalars; an int out of the type's
  // range is an OverflowError. False when `arg` is no such number.
  bool as_parameter_type(const nb::handle& arg, const runtime::RawParam& param, size_t index,
                         std::array<uint64_t, 2>* value) const;
  [[noreturn]] void fail(size_t index, const std::string& message) const {
    throw nb::type_error(
        ("raw kernel '" + name_ + "', argument " + std::to_string(index) + ": " + message).c_str());
  }

  std::string name_;
  runtime::RawSource source_;
  runtime::RawSource opencl_source_;
  std::optional<std::string> opencl_name_;
  std::shared_ptr<runtime::Device> device_;  // null: the current device
  std::optional<runtime::BackendKind> backend_;
  // A deque: a launch keeps using its entry (with the GIL released) while
  // another thread may add one for another device.
  std::deque<std::pair<const runtime::Device*, runtime::RawFunction>> functions_;
};

runtime::RawArgument RawKernel::read(const nb::handle& arg, size_t index,
                                     const runtime::Device& device, std::array<uint64_t, 2>* value,
                                     bool& producer_pending) const {
  PyObject* o = arg.ptr();
  runtime::RawArgument out;
  nb::object keep;
  if (const DeviceArray* array = simt_array(o, &keep)) {
    if (array->buffer->device().get() != &device)
      fail(index, "the array is on " + array->buffer->device()->info().id +
                      " but the kernel runs on " + device.info().id +
                      "; copy it with simt.to_device(..., device=...)");
    out.pointer = true;
    void* data = array->data();
    std::memcpy(value->data(), &data, sizeof data);
    return out;
  }
  ScalarArg scalar;
  if (read_python_number(o, "#" + std::to_string(index), &scalar)) {
    out.scalar = scalar.scalar;
    store_scalar(scalar, scalar.scalar, value->data());
    return out;
  }
  ForeignArray foreign;
  if (device.info().backend == runtime::BackendKind::Cuda &&
      read_foreign_array(o, "#" + std::to_string(index), foreign)) {
    // CuPy, PyTorch and Numba arrays on the GPU: their data pointer.
    producer_pending |= foreign.pending_stream != 0;
    out.pointer = true;
    std::memcpy(value->data(), &foreign.data, sizeof foreign.data);
    return out;
  }
  if (PyObject_CheckBuffer(o)) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      fail(index, "its buffer cannot be read");
    }
    struct Release {
      Py_buffer* view;
      ~Release() { PyBuffer_Release(view); }
    } release{&view};
    if (view.ndim != 0)
      fail(index, "a NumPy array is host memory, which " + device.info().id +
                      " cannot read; copy it with simt.to_device(...)");
    auto type = scalar_from_format(view.format, view.itemsize);
    if (!type)
      fail(index,
           std::string("unsupported element format '") + (view.format ? view.format : "?") + "'");
    scalar = read_buffer_scalar(view, *type);
    out.scalar = *type;
    store_scalar(scalar, *type, value->data());
    return out;
  }
  fail(index, std::string("raw kernels take simt arrays and numbers, not ") + Py_TYPE(o)->tp_name);
}

bool RawKernel::as_parameter_type(const nb::handle& arg, const runtime::RawParam& param,
                                  size_t index, std::array<uint64_t, 2>* value) const {
  // The parameter's type: reported (OpenCL, the cpu device), or on CUDA, whose driver
  // reports only sizes, an int of that size for an int and a float for a 4-byte float.
  std::optional<abi::Scalar> target = param.scalar;
  const bool sized_only = param.kind == runtime::RawParam::Kind::Unknown;
  if (sized_only && PyLong_CheckExact(arg.ptr())) {
    constexpr abi::Scalar kBySize[] = {abi::Scalar::Int8, abi::Scalar::Int16, abi::Scalar::Int32};
    if (param.bytes == 1 || param.bytes == 2 || param.bytes == 4)
      target = kBySize[param.bytes == 1 ? 0 : param.bytes == 2 ? 1 : 2];
  } else if (sized_only && PyFloat_CheckExact(arg.ptr()) && param.bytes == 4) {
    target = abi::Scalar::Float32;
  } else if (param.kind != runtime::RawParam::Kind::Value) {
    return false;
  }
  if (!target) return false;
  PyObject* o = arg.ptr();
  ScalarArg number;
  if (PyLong_CheckExact(o) && abi::is_integer(*target)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    const int bits = abi::bit_width(*target);
    // A size-only parameter may be signed or unsigned: either range fits.
    const bool signed_ok = abi::is_signed(*target) &&
                           (bits == 64 || (v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1))));
    const bool unsigned_ok =
        (!abi::is_signed(*target) || sized_only) && v >= 0 && (bits == 64 || v < (1LL << bits));
    if (overflow || !(signed_ok || unsigned_ok)) {
      const std::string type =
          param.type_name.empty() ? std::to_string(param.bytes) + "-byte" : param.type_name;
      const std::string message = "raw kernel '" + name_ + "', argument " + std::to_string(index) +
                                  ": the int " + nb::cast<std::string>(nb::str(arg)) +
                                  " does not fit the parameter's type (" + type + ")";
      PyErr_SetString(PyExc_OverflowError, message.c_str());
      throw nb::python_error();
    }
    number.scalar = abi::Scalar::Int64;
    number.int_value = v;
  } else if (PyFloat_CheckExact(o) && abi::is_float(*target)) {
    number.scalar = abi::Scalar::Float64;
    number.real = PyFloat_AS_DOUBLE(o);
  } else {
    return false;
  }
  *value = {};
  store_scalar(number, *target, value->data());
  return true;
}

void RawKernel::launch(const runtime::LaunchDims& dims, const PyStream* stream,
                       const nb::args& args) {
  // A launch on a stream runs on the stream's device.
  std::shared_ptr<runtime::Device> on = stream ? stream->device : device();
  runtime::validate_launch(on->info(), dims);
  const runtime::RawFunction& function = function_for(on);
  if (function.params_known && args.size() != function.params.size())
    throw nb::type_error(("raw kernel '" + name_ + "' takes " +
                          std::to_string(function.params.size()) + " arguments but " +
                          std::to_string(args.size()) + " were given")
                             .c_str());
  std::vector<std::array<uint64_t, 2>> values(args.size());
  std::vector<void*> pointers(args.size());
  bool producer_pending = false;
  for (size_t k = 0; k < args.size(); ++k) {
    runtime::RawArgument given = read(args[k], k, *on, &values[k], producer_pending);
    if (function.params_known) {
      std::string mismatch = runtime::raw_argument_mismatch(function.params[k], given);
      if (!mismatch.empty() && as_parameter_type(args[k], function.params[k], k, &values[k]))
        mismatch.clear();
      if (!mismatch.empty()) fail(k, "expected " + mismatch);
    }
    pointers[k] = values[k].data();
  }
  runtime::Stream& queue = stream ? *stream->stream : unnamed_stream(*on);
  if (runtime::Graph* graph = queue.capture()) {
    // The graph holds the arrays' buffers and the kernel; arrays no Buffer
    // holds (another library's) it cannot.
    runtime::KeepAlive keep;
    for (size_t k = 0; k < args.size(); ++k) {
      nb::object owner;
      if (const DeviceArray* array = simt_array(args[k].ptr(), &owner)) {
        keep.buffers.push_back(array->buffer);
      } else if (!is_plain_number(args[k].ptr())) {
        // Another library's array (CuPy's and PyTorch's are numbers to Python too) or
        // host memory: the graph would keep a pointer to memory it does not hold.
        fail(k,
             "another library's array or host memory cannot be held by a graph: wrap it "
             "with simt.asarray(x) before the capture");
      }
    }
    graph->record_launch(function.kernel, name_, dims, pointers.data(), pointers.size(),
                         std::move(keep));
    return;
  }
  nb::gil_scoped_release release;
  if (producer_pending) on->synchronize();  // as the protocol allows
  on->queue_launch(*function.kernel, dims, pointers.data(), queue, {});
}

struct RawLaunch {
  nb::object kernel;  // keeps the kernel alive
  runtime::LaunchDims dims;
  std::optional<PyStream> stream;
};

}  // namespace

void bind_raw_kernels(nb::module_& m) {
  nb::class_<RawKernel>(m, "RawKernel")
      .def(
          nb::init<std::string, std::string, std::vector<std::string>, std::vector<std::string>,
                   std::optional<PyDevice>, std::optional<std::string>,
                   std::optional<std::tuple<std::string, std::string, std::vector<std::string>>>>(),
          nb::arg("source"), nb::arg("name"), nb::arg("options"), nb::arg("name_expressions"),
          nb::arg("device").none(), nb::arg("backend").none(),
          nb::arg("opencl").none() = nb::none())
      .def_prop_ro("name", &RawKernel::name)
      .def(
          "configure",
          [](nb::handle self, const nb::handle& config) {
            RawKernel& k = nb::cast<RawKernel&>(self);
            runtime::LaunchDims dims = parse_launch_config(config, k.name());
            return RawLaunch{nb::borrow(self), dims, launch_stream(config)};
          },
          nb::arg("config"))
      .def(
          "prepare",
          [](RawKernel& k, std::optional<PyDevice> device) {
            k.function_for(device ? device->device : k.device());
          },
          nb::arg("device").none(), "Compiles for the device now and looks the kernel up.")
      .def(
          "max_resident_blocks",
          [](RawKernel& k, const PyDevice& device, int64_t threads, size_t shared_bytes) {
            const runtime::RawFunction& function = k.function_for(device.device);
            return device.device->max_cooperative_blocks(*function.kernel, threads, shared_bytes);
          },
          nb::arg("device"), nb::arg("threads"), nb::arg("shared_bytes") = 0,
          "The most blocks of `threads` threads that are resident on the device at once (its "
          "occupancy: registers, shared memory); 0 where the device cannot say.")
      .def("param_info", &RawKernel::param_info, nb::arg("device"),
           "[(bytes, type name)] of each parameter, as the driver reports them ([] when it "
           "cannot).");

  nb::class_<RawLaunch>(m, "RawLaunch").def("__call__", [](RawLaunch& launch, nb::args args) {
    nb::cast<RawKernel&>(launch.kernel)
        .launch(launch.dims, launch.stream ? &*launch.stream : nullptr, args);
  });
}

}  // namespace simt::python
