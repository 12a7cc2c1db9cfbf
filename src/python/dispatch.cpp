// The launch path: `kernel[grid, block](*args)`. A warm launch runs no
// Python code per argument: each argument is classified here (NumPy arrays
// and scalars through the buffer protocol, simt arrays directly), the
// classification is looked up in the kernel's table of specializations,
// and the values are packed in the order of the kernel's C parameters.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>

#include "codegen/emitter.h"
#include "python/arguments.h"
#include "python/bindings.h"

namespace simt::python {

namespace {

using sema::Scalar;

// Called with (function, argument types, globals) at every new
// specialization; the test suite uses it to compile each kernel for the
// other dialects too (NVRTC in CI, where no GPU runs the CUDA code).
// A raw reference, never released: a static nb::object would be released
// after the interpreter has finalized.
PyObject* g_compile_observer = nullptr;

// One scalar or array argument (tuples are flattened into their items).
struct Leaf : ScalarArg {
  bool is_array = false;
  void* data = nullptr;  // arrays
  int ndim = 0;
  size_t dims_at = 0;  // shape then strides (in elements) in Scratch::dims
};

// Reused between launches so a warm launch allocates nothing.
struct Scratch {
  std::string key;
  std::vector<Leaf> leaves;
  std::vector<int64_t> dims;
  std::vector<Py_buffer> buffers;
  std::vector<std::array<uint64_t, 2>> values;
  std::vector<void*> pointers;
  // The buffers of the simt arrays passed, which a launch queued on a CPU
  // stream keeps until it ran; and whether NumPy arrays were passed (the
  // launch then waits, since their memory is not simt's to keep).
  std::vector<std::shared_ptr<const void>> holds;
  bool foreign = false;  // some of them are foreign memory (DLPack, mapped, managed)
  bool host_arrays = false;
  bool in_use = false;

  void clear() {
    key.clear();
    leaves.clear();
    dims.clear();
    holds.clear();
    foreign = false;
    host_arrays = false;
  }
  void release_buffers() {
    for (auto& b : buffers) PyBuffer_Release(&b);
    buffers.clear();
  }
};

thread_local Scratch t_scratch;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct Specialization {
  std::shared_ptr<runtime::Device> device;
  std::unique_ptr<runtime::CompiledKernel> kernel;
  std::vector<codegen::ParamSlot> slots;
};

// The bytes a specialization key holds for one argument: the same for a
// launch's classification and for an explicit signature.
void append_array_key(std::string& key, Scalar dtype, int ndim, sema::Layout layout,
                      bool readonly) {
  key += 'A';
  key += static_cast<char>(dtype);
  key += static_cast<char>(ndim);
  key += static_cast<char>(static_cast<int>(layout) + (readonly ? 8 : 0));
}

// Specializations are per device: the key starts with the device's address
// (devices live as long as the process).
void append_device_key(std::string& key, const runtime::Device& device) {
  const runtime::Device* address = &device;
  key.append(reinterpret_cast<const char*>(&address), sizeof address);
}

void append_scalar_key(std::string& key, Scalar scalar) {
  key += 'S';
  key += static_cast<char>(scalar);
}

// C, F or any order, as NumPy's flags decide (extents of 1 take any stride).
sema::Layout layout_of(int ndim, const int64_t* shape, const int64_t* strides, int64_t itemsize) {
  for (int64_t k = 0; k < ndim; ++k)
    if (shape[k] == 0) return sema::Layout::C;
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
  return c ? sema::Layout::C : f ? sema::Layout::F : sema::Layout::Any;
}

class Dispatcher {
 public:
  Dispatcher(nb::object function, nb::object resolve_globals, bool debug, bool fastmath)
      : function_object_(std::move(function)),
        function_(nb::cast<Function*>(function_object_)),
        resolve_globals_(std::move(resolve_globals)),
        param_names_(function_->param_names()) {
    options_.debug = debug;
    options_.fastmath = fastmath;
  }
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  runtime::LaunchDims configure(const nb::handle& config) const;
  // `stream`: null for the default stream of the current device.
  void launch(const runtime::LaunchDims& dims, const PyStream* stream, const nb::args& args);
  // Compiles for these argument types now (explicit signatures).
  void compile(const std::vector<std::string>& arg_types, const PyDevice& device);
  size_t specialization_count() const { return cache_.size(); }

 private:
  void classify(const nb::handle& obj, const std::string& name, Scratch& s,
                const runtime::Device& device, std::vector<sema::Type>* types);
  void classify_cuda_array(const nb::handle& obj, const std::string& name, Scratch& s,
                           const runtime::Device& device, std::vector<sema::Type>* types);
  void classify_array(const DeviceArray& a, const std::string& name, Scratch& s,
                      const runtime::Device& device, std::vector<sema::Type>* types);
  void append_array_leaf(Scratch& s, void* data, int ndim, const int64_t* shape,
                         const int64_t* byte_strides, int64_t itemsize, Scalar dtype, bool readonly,
                         const std::string& name, std::vector<sema::Type>* types);
  Specialization& specialize(const std::vector<sema::Type>& types,
                             const std::shared_ptr<runtime::Device>& device,
                             const std::string& key);
  void pack(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s);

  nb::object function_object_;
  Function* function_;
  nb::object resolve_globals_;
  std::vector<std::string> param_names_;
  runtime::CompileOptions options_;
  std::unordered_map<std::string, std::unique_ptr<Specialization>, StringHash, std::equal_to<>>
      cache_;
};

void Dispatcher::append_array_leaf(Scratch& s, void* data, int ndim, const int64_t* shape,
                                   const int64_t* byte_strides, int64_t itemsize, Scalar dtype,
                                   bool readonly, const std::string& name,
                                   std::vector<sema::Type>* types) {
  if (ndim == 0)
    argument_error(name, "0-dimensional arrays are not kernel arguments; pass a scalar");
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
  sema::Layout layout = layout_of(ndim, shape, byte_strides, itemsize);
  append_array_key(s.key, dtype, ndim, layout, readonly);
  s.leaves.push_back(leaf);
  if (types) {
    sema::Type t = sema::Type::array(dtype, ndim, layout);
    t.readonly = readonly;
    types->push_back(t);
  }
}

void Dispatcher::classify_array(const DeviceArray& a, const std::string& name, Scratch& s,
                                const runtime::Device& device, std::vector<sema::Type>* types) {
  if (a.buffer->device().get() != &device)
    argument_error(name, "the array is on " + a.buffer->device()->info().id +
                             " but the kernel runs on " + device.info().id +
                             "; copy it with simt.to_device(..., device=...)");
  append_array_leaf(s, a.data(), static_cast<int>(a.shape.size()), a.shape.data(), a.strides.data(),
                    a.itemsize(), a.dtype, a.readonly, name, types);
  s.holds.push_back(a.buffer);
  s.foreign |= a.buffer->foreign();
}

// A typestr of the array interfaces ("<f4", "|b1") as a scalar type.
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

void Dispatcher::classify_cuda_array(const nb::handle& obj, const std::string& name, Scratch& s,
                                     const runtime::Device& device,
                                     std::vector<sema::Type>* types) {
  nb::dict cai = nb::cast<nb::dict>(obj.attr("__cuda_array_interface__"));
  std::string typestr = nb::cast<std::string>(cai["typestr"]);
  auto scalar = scalar_from_typestr(typestr);
  if (!scalar)
    argument_error(name, "unsupported __cuda_array_interface__ typestr '" + typestr + "'");
  nb::tuple shape_tuple = nb::cast<nb::tuple>(cai["shape"]);
  nb::tuple data = nb::cast<nb::tuple>(cai["data"]);
  auto pointer = reinterpret_cast<void*>(nb::cast<uintptr_t>(data[0]));
  bool readonly = nb::cast<bool>(data[1]);
  size_t ndim = shape_tuple.size();
  if (ndim == 0) argument_error(name, "0-dimensional GPU arrays are not kernel arguments");
  int64_t itemsize = sema::bit_width(*scalar) / 8;
  std::vector<int64_t> shape(ndim), strides(ndim);
  for (size_t k = 0; k < ndim; ++k) shape[k] = nb::cast<int64_t>(shape_tuple[k]);
  nb::object given = cai.contains("strides") ? nb::object(cai["strides"]) : nb::none();
  if (given.is_none()) {
    int64_t stride = itemsize;
    for (size_t k = ndim; k-- > 0;) {
      strides[k] = stride;
      stride *= shape[k];
    }
  } else {
    nb::tuple st = nb::cast<nb::tuple>(given);
    for (size_t k = 0; k < ndim; ++k) strides[k] = nb::cast<int64_t>(st[k]);
  }
  (void)device;  // the pointer's device is the producer's: launching elsewhere is its error
  append_array_leaf(s, pointer, static_cast<int>(ndim), shape.data(), strides.data(), itemsize,
                    *scalar, readonly, name, types);
}

void Dispatcher::classify(const nb::handle& obj, const std::string& name, Scratch& s,
                          const runtime::Device& device, std::vector<sema::Type>* types) {
  PyObject* o = obj.ptr();
  nb::object keep;
  if (const DeviceArray* array = simt_array(o, &keep)) {
    classify_array(*array, name, s, device, types);
    return;
  }
  Leaf leaf;
  if (read_python_number(o, name, &leaf)) {
    // a bool, int, float or complex
  } else if (PyTuple_Check(o)) {
    s.key += '(';
    std::vector<sema::Type> items;
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    for (Py_ssize_t k = 0; k < n; ++k)
      classify(PyTuple_GET_ITEM(o, k), name + "[" + std::to_string(k) + "]", s, device,
               types ? &items : nullptr);
    s.key += ')';
    if (types) types->push_back(sema::Type::tuple(std::move(items)));
    return;
  } else if (!device.host_accessible() && PyObject_HasAttrString(o, "__cuda_array_interface__")) {
    // CuPy, PyTorch and Numba arrays on the GPU: used in place, no copy.
    classify_cuda_array(obj, name, s, device, types);
    return;
  } else if (PyObject_CheckBuffer(o)) {
    // NumPy arrays and NumPy scalars.
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      argument_error(name, "its buffer cannot be read as a strided array");
    }
    s.buffers.push_back(view);
    auto scalar = scalar_from_format(view.format, view.itemsize);
    if (!scalar)
      argument_error(name, std::string("unsupported element format '") +
                               (view.format ? view.format : "?") + "'");
    if (view.ndim == 0) {
      static_cast<ScalarArg&>(leaf) = read_buffer_scalar(view, *scalar);
    } else {
      if (!device.host_accessible())
        argument_error(name, "a NumPy array cannot be used on " + device.info().id +
                                 "; copy it with simt.to_device(...)");
      static_assert(sizeof(Py_ssize_t) == sizeof(int64_t));
      s.host_arrays = true;
      append_array_leaf(s, view.buf, view.ndim, reinterpret_cast<const int64_t*>(view.shape),
                        reinterpret_cast<const int64_t*>(view.strides), view.itemsize, *scalar,
                        view.readonly != 0, name, types);
      return;
    }
  } else {
    argument_error(name, std::string("simt kernels do not accept ") + Py_TYPE(o)->tp_name +
                             " values (arrays, numbers and tuples of them are accepted)");
  }
  append_scalar_key(s.key, leaf.scalar);
  s.leaves.push_back(leaf);
  if (types) types->push_back(sema::Type::scalar_of(leaf.scalar));
}

void Dispatcher::pack(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s) {
  size_t n = spec.slots.size();
  s.values.resize(n);
  s.pointers.resize(n);
  size_t slot = 0;
  for (const Leaf& leaf : s.leaves) {
    if (leaf.is_array) {
      std::memcpy(s.values[slot].data(), &leaf.data, sizeof(void*));
      ++slot;
      for (int k = 0; k < 2 * leaf.ndim; ++k, ++slot)
        std::memcpy(s.values[slot].data(), &s.dims[leaf.dims_at + k], 8);
    } else {
      store_scalar(leaf, spec.slots[slot].scalar, s.values[slot].data());
      ++slot;
    }
  }
  // Slots after the arguments' (a kernel using dynamic shared memory).
  for (; slot < n; ++slot) {
    int64_t bytes = static_cast<int64_t>(dims.shared_bytes);
    std::memcpy(s.values[slot].data(), &bytes, 8);
  }
  for (size_t k = 0; k < n; ++k) s.pointers[k] = s.values[k].data();
}

Specialization& Dispatcher::specialize(const std::vector<sema::Type>& types,
                                       const std::shared_ptr<runtime::Device>& device,
                                       const std::string& key) {
  nb::dict globals = nb::cast<nb::dict>(resolve_globals_());
  if (g_compile_observer) {
    nb::list type_names;
    for (const auto& t : types) type_names.append(t.str());
    nb::handle observer(g_compile_observer);
    observer(function_object_, type_names, globals);
  }
  GlobalsReader reader;
  sema::TypedFunction typed = function_->infer(types, reader.read(globals));
  codegen::EmitOptions emit_options;
  emit_options.debug = options_.debug;
  codegen::EmittedKernel emitted =
      codegen::emit_kernel(typed, codegen::dialect(device->dialect()), emit_options);
  auto spec = std::make_unique<Specialization>();
  spec->device = device;
  spec->slots = emitted.params;
  {
    nb::gil_scoped_release release;
    spec->kernel = device->compile(emitted, options_);
  }
  // Another thread may have compiled the same signature meanwhile: keep one.
  auto [it, inserted] = cache_.try_emplace(key, std::move(spec));
  return *it->second;
}

void Dispatcher::launch(const runtime::LaunchDims& dims, const PyStream* stream,
                        const nb::args& args) {
  if (args.size() != param_names_.size())
    throw nb::type_error((function_->name() + "() takes " + std::to_string(param_names_.size()) +
                          " arguments but " + std::to_string(args.size()) + " were given")
                             .c_str());
  // A launch on a stream runs on the stream's device.
  std::shared_ptr<runtime::Device> device = stream ? stream->device : current_device();
  runtime::validate_launch(device->info(), dims);
  // A launch from inside a launch (a callback resolving globals) gets its own scratch.
  Scratch local;
  Scratch& s = t_scratch.in_use ? local : t_scratch;
  s.in_use = true;
  struct Release {
    Scratch& s;
    ~Release() {
      s.release_buffers();
      s.in_use = false;
    }
  } release{s};
  s.clear();
  append_device_key(s.key, *device);
  for (size_t k = 0; k < args.size(); ++k) classify(args[k], param_names_[k], s, *device, nullptr);
  auto found = cache_.find(std::string_view(s.key));
  Specialization* spec;
  if (found != cache_.end()) {
    spec = found->second.get();
  } else {
    std::vector<sema::Type> types;
    std::string key = s.key;
    s.clear();
    s.release_buffers();
    s.key = key;
    for (size_t k = 0; k < args.size(); ++k) classify(args[k], param_names_[k], s, *device, &types);
    spec = &specialize(types, device, key);
  }
  pack(*spec, dims, s);
  nb::gil_scoped_release unlocked;
  runtime::Stream& queue = stream ? *stream->stream : device->default_stream();
  // A launch queued on a stream holds its arrays' buffers until it ran where
  // dropping them early could hand their memory to other work: on the CPU
  // (whose queued launches run later than a GPU driver would see them), and
  // foreign memory, whose owner reuses it as it likes. Pool blocks on a GPU
  // are reused in stream order (docs/architecture.md, "Device memory").
  const bool queued = !queue.is_default();
  const bool queued_on_cpu = queued && device->host_accessible();
  runtime::KeepAlive keep;
  if (queued_on_cpu || (queued && s.foreign)) keep.buffers = std::move(s.holds);
  device->queue_launch(*spec->kernel, dims, s.pointers.data(), queue, std::move(keep));
  if (queued_on_cpu && s.host_arrays) queue.synchronize();
}

void Dispatcher::compile(const std::vector<std::string>& arg_types, const PyDevice& device) {
  std::vector<sema::Type> types;
  for (const auto& t : arg_types) types.push_back(type_from_text(t));
  if (types.size() != param_names_.size())
    throw nb::type_error((function_->name() + "() takes " + std::to_string(param_names_.size()) +
                          " arguments but the signature has " + std::to_string(types.size()))
                             .c_str());
  // The key a launch with these argument types builds.
  std::string key;
  append_device_key(key, *device.device);
  std::function<void(const sema::Type&)> add = [&](const sema::Type& t) {
    if (t.is_tuple()) {
      key += '(';
      for (const auto& item : t.items) add(item);
      key += ')';
    } else if (t.is_array()) {
      append_array_key(key, t.scalar, t.ndim, t.layout, t.readonly);
    } else {
      append_scalar_key(key, t.scalar);
    }
  };
  for (const auto& t : types) add(t);
  if (!cache_.count(key)) specialize(types, device.device, key);
}

runtime::LaunchDims Dispatcher::configure(const nb::handle& config) const {
  return parse_launch_config(config, function_->name());
}

struct ConfiguredLaunch {
  nb::object dispatcher;  // keeps the kernel alive
  runtime::LaunchDims dims;
  std::optional<PyStream> stream;
};

}  // namespace

void bind_dispatch(nb::module_& m) {
  nb::class_<Dispatcher>(m, "Dispatcher")
      .def(nb::init<nb::object, nb::object, bool, bool>(), nb::arg("function"),
           nb::arg("resolve_globals"), nb::arg("debug") = false, nb::arg("fastmath") = false)
      .def("configure",
           [](nb::handle self, const nb::handle& config) {
             Dispatcher& d = nb::cast<Dispatcher&>(self);
             runtime::LaunchDims dims = d.configure(config);
             return ConfiguredLaunch{nb::borrow(self), dims, launch_stream(config)};
           })
      .def("compile", &Dispatcher::compile, nb::arg("arg_types"), nb::arg("device"))
      .def_prop_ro("specialization_count", &Dispatcher::specialization_count);

  nb::class_<ConfiguredLaunch>(m, "ConfiguredLaunch")
      .def("__call__", [](ConfiguredLaunch& c, nb::args args) {
        nb::cast<Dispatcher&>(c.dispatcher).launch(c.dims, c.stream ? &*c.stream : nullptr, args);
      });

  m.def(
      "set_compile_observer",
      [](nb::object observer) {
        nb::object previous =
            g_compile_observer ? nb::steal(g_compile_observer) : nb::object(nb::none());
        g_compile_observer = observer.is_none() ? nullptr : observer.release().ptr();
        return previous;
      },
      nb::arg("observer").none(),
      "Calls observer(function, arg_types, globals) at each new specialization; returns the "
      "previous observer.");
  m.def("_register_array_type", [](nb::handle type) {
    if (!PyType_Check(type.ptr())) throw nb::type_error("expected a type");
    register_array_type(reinterpret_cast<PyTypeObject*>(type.ptr()));
  });
}

}  // namespace simt::python
