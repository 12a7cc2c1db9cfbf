// The launch path: `kernel[grid, block](*args)`. A warm launch runs no
// Python code per argument: each argument is classified here (NumPy arrays
// and scalars through the buffer protocol, simt arrays directly), the
// classification is looked up in the kernel's table of specializations,
// and the values are packed in the order of the kernel's C parameters.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>

#include "abi/arg_type.h"
#include "python/arguments.h"
#include "python/bindings.h"
#include "python/checked_launch.h"
#include "python/classify.h"
#include "python/launcher_cache.h"
#include "python/race_launch.h"
#include "python/translate.h"
#include "runtime/graph.h"
#include "runtime/interrupt.h"

namespace simt::python {

namespace {

// Called with (function, argument types, globals, debug, boundscheck, link,
// max_registers) at every new specialization; the test suite uses it to
// compile each kernel for the other dialects too (NVRTC in CI, where no GPU
// runs the CUDA code).
// A raw reference, never released: a static nb::object would be released
// after the interpreter has finalized.
PyObject* g_compile_observer = nullptr;

// NumPy arrays given to a launch on a device the host cannot address are copied there
// before the launch and back after it, as Numba does: numpy.ndarray, and the Python
// side's stage(array, device, kernel name) -> device copy and copy_back(copy, array).
// NumPy records (numpy.void, `a[0]` of an array of records) go as the 0-d array viewing
// their bytes, so the kernel's writes reach the record's array, as in Numba.
// Raw references, never released (see g_compile_observer).
PyTypeObject* g_ndarray_type = nullptr;
PyTypeObject* g_void_type = nullptr;
PyObject* g_stage_host_array = nullptr;
PyObject* g_copy_back_host_array = nullptr;

// A staged argument: the caller's NumPy array and its device copy.
struct Staged {
  nb::object original;
  nb::object copy;
};

// `value` with each NumPy array in it (itself, or an item of its tuples, named tuples
// rebuilt as their class) replaced by a device copy, which `staged` lists; `value`
// itself where there is none.
nb::object staged_value(nb::handle value, const std::string& name,
                        const std::shared_ptr<runtime::Device>& device,
                        const std::string& kernel_name, std::vector<Staged>& staged) {
  if (PyTuple_Check(value.ptr())) {
    const Py_ssize_t n = PyTuple_GET_SIZE(value.ptr());
    const size_t before = staged.size();
    nb::list items;
    for (Py_ssize_t k = 0; k < n; ++k)
      items.append(staged_value(PyTuple_GET_ITEM(value.ptr(), k),
                                name + "[" + std::to_string(k) + "]", device, kernel_name, staged));
    if (staged.size() == before) return nb::borrow(value);
    nb::handle type = nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr())));
    if (PyTuple_CheckExact(value.ptr()) || !nb::hasattr(type, "_fields")) return nb::tuple(items);
    nb::object rebuilt = nb::steal(PyObject_CallObject(type.ptr(), nb::tuple(items).ptr()));
    if (!rebuilt) throw nb::python_error();
    return rebuilt;
  }
  nb::object original = nb::borrow(value);
  const bool record = g_void_type && PyObject_TypeCheck(original.ptr(), g_void_type);
  if (!record && !PyObject_TypeCheck(original.ptr(), g_ndarray_type)) return original;
  nb::object dtype = original.attr("dtype");
  if (is_record_dtype(dtype)) {
    // Arrays of records, and records (0-d): by reference, so staged at any ndim.
    try {
      numpy_record(dtype);
    } catch (const RecordError& e) {
      argument_error(name,
                     std::string("its record dtype cannot be passed to kernels: ") + e.what());
    }
    if (record) original = nb::steal(PyObject_CallOneArg(numpy_asarray(), original.ptr()));
    if (!original.is_valid()) throw nb::python_error();
  } else {
    // A 0-d array of numbers is a scalar argument: passed by value, nothing to stage.
    if (record || nb::cast<int>(original.attr("ndim")) == 0) return original;
    // Only numbers are staged: other dtypes (datetime, object) reach the classifier
    // as they are, which rejects them naming the argument.
    const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
    if (kind.size() != 1 || std::string_view("biufc").find(kind[0]) == std::string_view::npos)
      return original;
  }
  nb::object copy =
      nb::steal(PyObject_CallFunction(g_stage_host_array, "OOs", original.ptr(),
                                      nb::cast(PyDevice{device}).ptr(), kernel_name.c_str()));
  if (!copy) throw nb::python_error();
  staged.push_back({std::move(original), copy});
  return copy;
}

// The arguments with each NumPy array replaced by a device copy (`staged` says which),
// or `args` itself when there is none or the device reads host memory.
nb::tuple staged_arguments(const nb::args& args, const std::shared_ptr<runtime::Device>& device,
                           const std::string& kernel_name, const std::vector<std::string>& names,
                           std::vector<Staged>& staged) {
  if (device->host_accessible() || !g_ndarray_type) return args;
  // The common launch (device arrays and numbers) pays one type test per argument.
  bool maybe = false;
  for (size_t k = 0; k < args.size() && !maybe; ++k) {
    PyObject* a = args[k].ptr();
    maybe = PyTuple_Check(a) || PyObject_TypeCheck(a, g_ndarray_type) ||
            (g_void_type && PyObject_TypeCheck(a, g_void_type));
  }
  if (!maybe) return args;
  nb::list items;
  for (size_t k = 0; k < args.size(); ++k)
    items.append(staged_value(args[k], names[k], device, kernel_name, staged));
  if (staged.empty()) return args;
  return nb::tuple(items);
}

// Reused between launches so a warm launch allocates nothing.
struct Scratch : Classification {
  std::vector<std::array<uint64_t, 2>> values;
  std::vector<void*> pointers;
  const CheckRecord* checks = nullptr;  // a checked launch's record
  cpu::RaceRecorder* race = nullptr;    // a race-checked launch's recorder
  bool in_use = false;
};

thread_local Scratch t_scratch;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct Specialization {
  std::shared_ptr<runtime::Device> device;
  std::unique_ptr<runtime::CompiledKernel> kernel;
  std::vector<abi::Param> slots;
  // Built with checks (debug, boundscheck): what they check; the kernel then
  // takes a check record.
  bool checked = false;
  std::vector<abi::CheckSite> check_sites;
  // Built with racecheck: the kernel takes a race recorder, which names these.
  bool racechecked = false;
  std::vector<abi::RaceSite> race_sites;
  std::vector<bool> race_unwritten;
  std::vector<bool> race_own;
  int64_t static_shared_bytes = 0;  // its shared arrays'
  // What a constant index into the dynamic shared array needs of a launch.
  int64_t dynamic_shared_need = 0;
  std::optional<abi::PythonLine> dynamic_shared_use;
};

class Dispatcher {
 public:
  Dispatcher(nb::object function, nb::object resolve_globals, bool debug, bool fastmath,
             bool boundscheck, nb::list link, int max_registers, int racecheck)
      : function_object_(std::move(function)),
        function_(nb::cast<Function*>(function_object_)),
        resolve_globals_(std::move(resolve_globals)),
        param_names_(function_->param_names()),
        boundscheck_(boundscheck),
        racecheck_(static_cast<RaceMode>(racecheck)),
        max_registers_(max_registers),
        link_(std::move(link)),
        link_sources_(linked_sources(link_)) {
    options_.debug = debug;
    options_.fastmath = fastmath;
  }
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  runtime::LaunchDims configure(const nb::handle& config) const;
  // kernel[config]: the launcher for `config`, the one made before for the same
  // configuration if it is still kept. `self`: this dispatcher's Python object.
  nb::object launcher(nb::handle self, nb::handle config);
  // `stream`: null for the default stream of the current device.
  void launch(const runtime::LaunchDims& dims, const PyStream* stream, const nb::args& args);
  // Queues a packed launch of `spec` on `queue` (the GIL released).
  [[noreturn]] void refuse_numpy_argument() const;
  // Records the launch into the graph capturing its stream instead of queuing it.
  void record_launch(runtime::Graph& graph, const std::shared_ptr<Specialization>& spec,
                     const runtime::LaunchDims& dims, Scratch& s);
  static void enqueue(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s,
                      const std::shared_ptr<runtime::Device>& device, runtime::Stream& queue);
  // Compiles for these argument types now (explicit signatures), which become declared:
  // once close() ran, a launch of other types converts its arguments to the first declared
  // signature they convert to (abi::converts_to), or is a TypeError, as in Numba.
  void compile(const std::vector<std::string>& arg_types, const PyDevice& device);
  void close() { closed_ = true; }
  bool closed() const { return closed_; }
  // The specialization for these argument types on `device`, compiled now if
  // it is not yet.
  std::shared_ptr<Specialization> specialization(const std::vector<std::string>& arg_types,
                                                 const PyDevice& device);
  // The most blocks of `threads` threads a cooperative launch of the kernel
  // compiled for these argument types may have on `device` (compiling it first).
  int64_t max_cooperative_blocks(const std::vector<std::string>& arg_types, const PyDevice& device,
                                 int64_t threads, size_t shared_bytes);
  size_t specialization_count() const { return cache_.size(); }
  // The argument types of each signature compiled (on any device), in the
  // order first compiled: Numba's `k.signatures`.
  std::vector<std::vector<std::string>> signatures() const { return signatures_; }

  // The garbage collector's view: a kernel defined at module level is in the
  // globals its resolver reads, a cycle through this C++ object that
  // Python frees only if it can see the references (tp_traverse/tp_clear).
  int traverse(visitproc visit, void* arg) const {
    Py_VISIT(function_object_.ptr());
    Py_VISIT(resolve_globals_.ptr());
    return launchers_.traverse(visit, arg);
  }
  // Breaks the cycle; the dispatcher is unusable afterwards (it is being
  // collected).
  void clear_references() {
    function_ = nullptr;
    function_object_.reset();
    resolve_globals_.reset();
    launchers_.clear();
  }
  // Drops every specialization: the next launch (or compile) of each
  // signature resolves the globals again and compiles anew.
  void clear();

 private:
  // The specialization of `key` (a device, then the arguments' ArgType bytes) for
  // `device`: compiled for those types, or, once closed, the declared signature's.
  std::shared_ptr<Specialization> specialize(const std::string& key,
                                             const std::shared_ptr<runtime::Device>& device);
  // Compiles the specialization of `key` for `device`.
  std::shared_ptr<Specialization> build(const std::string& key,
                                        const std::shared_ptr<runtime::Device>& device);
  std::string no_matching_definition(const std::vector<abi::ArgType>& given) const;
  void pack(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s);

  nb::object function_object_;
  Function* function_;
  nb::object resolve_globals_;
  std::vector<std::string> param_names_;
  runtime::CompileOptions options_;
  bool boundscheck_ = false;
  RaceMode racecheck_ = RaceMode::Off;
  int max_registers_ = 0;  // 0: the compiler's choice (codegen::EmitOptions)
  nb::list link_;          // cuda.jit(link=[...]) as Python gave it (for the compile observer)
  std::vector<sema::LinkedSource> link_sources_;
  // Shared: a launch holds the one it queues, with the GIL released.
  std::unordered_map<std::string, std::shared_ptr<Specialization>, StringHash, std::equal_to<>>
      cache_;
  // Specializations clear() dropped: a launch on another thread may be
  // queueing one, and its device may not have run what was queued. The next
  // clear() frees those no launch holds, after their devices synchronized,
  // so they are kept for one generation, not for the dispatcher's life.
  std::vector<std::shared_ptr<Specialization>> retired_;
  std::vector<std::vector<std::string>> signatures_;
  // The explicit signatures (compile()), in the order given; closed_: the only ones.
  std::vector<std::vector<abi::ArgType>> declared_;
  bool closed_ = false;
  // Counts clear()s: a specialization whose globals were resolved before one
  // serves the launch that compiled it but is not kept.
  uint64_t generation_ = 0;
  // The specialization the last launch looked up, and its key: a launch with the
  // same kinds of arguments (the common loop) compares the key, without hashing it.
  std::string last_key_;
  std::shared_ptr<Specialization> last_spec_;
  LauncherCache launchers_;
};

// The number of elements of an array leaf.
int64_t element_count(const Scratch& s, const Leaf& leaf) {
  int64_t count = 1;
  for (int d = 0; d < leaf.ndim; ++d) count *= s.dims[leaf.dims_at + static_cast<size_t>(d)];
  return count;
}

// One value per C parameter, read from the classified leaf its record names.
void Dispatcher::pack(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s) {
  using Role = abi::Param::Role;
  const size_t n = spec.slots.size();
  s.values.resize(n);
  s.pointers.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const abi::Param& param = spec.slots[k];
    void* value = s.values[k].data();
    s.pointers[k] = value;
    if (param.role == Role::SharedBytes) {
      const auto bytes = static_cast<int64_t>(dims.shared_bytes);
      std::memcpy(value, &bytes, 8);
      continue;
    }
    if (param.role == Role::GridBarrier) {
      // The device launching a cooperative kernel provides its barrier's
      // state (CudaDevice::queue_launch); nothing of the launch's own.
      std::memset(value, 0, sizeof(void*));
      continue;
    }
    if (param.role == Role::RaceRecorder) {
      if (!s.race) throw std::logic_error("a race-checked kernel launched without its recorder");
      void* recorder = s.race;
      std::memcpy(value, &recorder, sizeof(void*));
      continue;
    }
    if (param.role == Role::CheckRecord) {
      if (!s.checks) throw std::logic_error("a checked kernel launched without its record");
      void* record = s.checks->address();
      std::memcpy(value, &record, sizeof(void*));
      continue;
    }
    const Leaf& leaf = s.leaves[static_cast<size_t>(param.leaf)];
    switch (param.role) {
      case Role::Scalar:
        store_scalar(leaf, param.scalar, value);
        break;
      case Role::ArrayData: {
        void* data = leaf.data;
        // An array without elements has none a failed check could use instead.
        if (s.checks && element_count(s, leaf) == 0) data = s.checks->scratch();
        std::memcpy(value, &data, sizeof(void*));
        break;
      }
      case Role::ArrayShape:
        std::memcpy(value, &s.dims[leaf.dims_at + param.dim], 8);
        break;
      case Role::ArrayStride:
        std::memcpy(value, &s.dims[leaf.dims_at + leaf.ndim + param.dim], 8);
        break;
      case Role::SharedBytes:
      case Role::CheckRecord:
      case Role::GridBarrier:
      case Role::RaceRecorder:
        break;
    }
  }
}

// A race-checked launch: whether the kernel must report every access after
// all: an array argument whose accesses it skips (one it never writes, or one
// whose elements are each a thread's own) shares bytes with another, or the
// launch is more than one row of threads high (simt.grid(1) then repeats).
bool arguments_share_memory(const Specialization& spec, const Scratch& s,
                            const runtime::LaunchDims& dims) {
  auto any = [](const std::vector<bool>& v) {
    return std::find(v.begin(), v.end(), true) != v.end();
  };
  if (!any(spec.race_unwritten) && !any(spec.race_own))
    return true;  // nothing is skipped: the answer changes nothing
  // simt.grid(1) is one thread's own only in a launch one row of threads high.
  if (any(spec.race_own) && dims.grid[1] * dims.grid[2] * dims.block[1] * dims.block[2] != 1)
    return true;
  std::vector<ArrayMemory> arrays;
  for (const abi::Param& param : spec.slots) {
    if (param.role != abi::Param::Role::ArrayData || param.leaf < 0) continue;
    const Leaf& leaf = s.leaves[static_cast<size_t>(param.leaf)];
    int64_t low = 0, high = 0;
    bool empty = false;
    for (int d = 0; d < leaf.ndim; ++d) {
      const int64_t n = s.dims[leaf.dims_at + static_cast<size_t>(d)];
      const int64_t stride = s.dims[leaf.dims_at + static_cast<size_t>(leaf.ndim + d)];
      if (n == 0) empty = true;
      // A broadcast axis (stride 0) gives many indices one element: nothing is skipped.
      if (n > 1 && stride == 0) return true;
      (stride < 0 ? low : high) += (n - 1) * stride;
    }
    if (empty) continue;
    const auto bytes = static_cast<int64_t>(std::max(abi::bit_width(param.scalar) / 8, 1));
    ArrayMemory m;
    m.begin = reinterpret_cast<uintptr_t>(leaf.data) + static_cast<uintptr_t>(low * bytes);
    m.end = reinterpret_cast<uintptr_t>(leaf.data) + static_cast<uintptr_t>((high + 1) * bytes);
    const auto argument = static_cast<size_t>(param.argument);
    auto at = [&](const std::vector<bool>& v) { return argument < v.size() && v[argument]; };
    m.unwritten =
        param.path.empty() && param.argument >= 0 && (at(spec.race_unwritten) || at(spec.race_own));
    arrays.push_back(m);
  }
  return unwritten_arrays_shared(arrays);
}

std::shared_ptr<Specialization> Dispatcher::specialize(
    const std::string& key, const std::shared_ptr<runtime::Device>& device) {
  if (!closed_) return build(key, device);
  auto given = abi::decode_arg_types(std::string_view(key).substr(kDeviceKeyBytes));
  if (!given) throw std::logic_error("a specialization key that does not decode");
  for (const std::vector<abi::ArgType>& declared : declared_) {
    if (declared.size() != given->size()) continue;
    bool converts = true;
    for (size_t k = 0; k < declared.size() && converts; ++k)
      converts = abi::converts_to((*given)[k], declared[k]);
    if (!converts) continue;
    std::string declared_key = key.substr(0, kDeviceKeyBytes);
    for (const abi::ArgType& type : declared) type.encode(declared_key);
    if (declared_key == key) return build(key, device);
    auto found = cache_.find(declared_key);
    std::shared_ptr<Specialization> spec =
        found != cache_.end() ? found->second : build(declared_key, device);
    // The given types launch the declared specialization from now on; packing converts
    // each scalar to its parameter's type.
    if (cache_.count(declared_key)) cache_.try_emplace(key, spec);
    return spec;
  }
  throw nb::type_error(no_matching_definition(*given).c_str());
}

std::string Dispatcher::no_matching_definition(const std::vector<abi::ArgType>& given) const {
  auto listed = [](const std::vector<abi::ArgType>& types) {
    std::string s = "(";
    for (size_t k = 0; k < types.size(); ++k) s += (k ? ", " : "") + types[k].str();
    return s + ")";
  };
  std::string declared;
  for (const auto& signature : declared_)
    declared += (declared.empty() ? "" : ", ") + listed(signature);
  return "No matching definition for argument types " + listed(given) + " of kernel '" +
         function_->name() + "': its explicit signatures " + declared +
         " are the only ones (as in Numba); an array must have the declared dtype and "
         "dimensions, a number the declared kind or a lower one. Declare this signature too, "
         "or make the kernel with closed=False to compile it at the launch";
}

std::shared_ptr<Specialization> Dispatcher::build(const std::string& key,
                                                  const std::shared_ptr<runtime::Device>& device) {
  auto arguments = abi::decode_arg_types(std::string_view(key).substr(kDeviceKeyBytes));
  if (!arguments) throw std::logic_error("a specialization key that does not decode");
  std::vector<sema::Type> types;
  for (const auto& a : *arguments) types.push_back(sema::type_of_argument(a));
  const uint64_t generation = generation_;
  nb::dict globals = nb::cast<nb::dict>(resolve_globals_());
  if (g_compile_observer) {
    nb::list type_names;
    for (const auto& a : *arguments) type_names.append(a.str());
    nb::handle observer(g_compile_observer);
    observer(function_object_, type_names, globals, options_.debug, boundscheck_, link_,
             max_registers_);
  }
  if (racecheck_ != RaceMode::Off && device->language() != abi::Language::Cpp)
    throw std::invalid_argument(
        "kernel '" + function_->name() +
        "' was made with racecheck=True, which checks on the "
        "cpu device only, not on " +
        device->info().id +
        ": launch it with arrays on simt.get_device('cpu') (or inside "
        "simt.use_device('cpu')), or make it without racecheck to run on this device");
  GlobalsReader reader;
  codegen::EmitOptions emit_options;
  emit_options.debug = options_.debug;
  emit_options.fastmath = options_.fastmath;
  // A race-checked kernel checks its indices too: a wild index would
  // otherwise write past its array, or report a race on another array.
  emit_options.boundscheck = boundscheck_ || racecheck_ != RaceMode::Off;
  emit_options.racecheck = racecheck_ != RaceMode::Off;
  emit_options.max_registers = max_registers_;
  emit_options.link = link_sources_;
  abi::GeneratedKernel emitted =
      function_->generate(types, reader.read(globals), device->language(), emit_options);
  auto spec = std::make_shared<Specialization>();
  spec->device = device;
  spec->slots = emitted.params;
  spec->check_sites = emitted.check_sites;
  spec->race_sites = emitted.race_sites;
  spec->race_unwritten = emitted.race_unwritten;
  spec->race_own = emitted.race_own;
  spec->static_shared_bytes = emitted.requirements.shared_bytes;
  spec->dynamic_shared_need = emitted.requirements.dynamic_shared_need;
  spec->dynamic_shared_use = emitted.requirements.dynamic_shared_use;
  for (const abi::Param& param : emitted.params) {
    spec->checked = spec->checked || param.role == abi::Param::Role::CheckRecord;
    spec->racechecked = spec->racechecked || param.role == abi::Param::Role::RaceRecorder;
  }
  {
    nb::gil_scoped_release release;
    spec->kernel = device->compile(emitted, options_);
  }
  if (generation != generation_) {
    // clear() ran while this compiled (or resolved): its globals may be stale.
    retired_.push_back(spec);
    return spec;
  }
  std::vector<std::string> names;
  for (const auto& a : *arguments) names.push_back(a.str());
  if (std::find(signatures_.begin(), signatures_.end(), names) == signatures_.end())
    signatures_.push_back(std::move(names));
  // Another thread may have compiled the same signature meanwhile: keep one.
  auto [it, inserted] = cache_.try_emplace(key, std::move(spec));
  return it->second;
}

void Dispatcher::clear() {
  last_spec_.reset();
  std::vector<std::shared_ptr<Specialization>> earlier;
  earlier.swap(retired_);
  for (auto& entry : cache_) retired_.push_back(std::move(entry.second));
  cache_.clear();
  ++generation_;
  // What an earlier clear() retired goes once no launch holds it and its
  // device has run what was queued. `earlier` is this call's own: other
  // threads may use the dispatcher while the GIL is released.
  for (auto& old : earlier) {
    if (old.use_count() > 1) {
      retired_.push_back(std::move(old));
      continue;
    }
    {
      nb::gil_scoped_release release;
      old->device->synchronize();
    }
    old.reset();
  }
}

void Dispatcher::launch(const runtime::LaunchDims& dims, const PyStream* stream,
                        const nb::args& args) {
  if (!function_) throw std::logic_error("the kernel was garbage collected");
  if (args.size() != param_names_.size())
    throw nb::type_error((function_->name() + "() takes " + std::to_string(param_names_.size()) +
                          " arguments but " + std::to_string(args.size()) + " were given")
                             .c_str());
  // A launch on a stream runs on the stream's device; else on the device of
  // its first simt array, else on the current device (the device rule:
  // arrays made on another device need no use_device).
  // By reference where a stream or an argument holds it: the launch then counts no
  // references to it.
  const std::shared_ptr<runtime::Device>* found_device = stream ? &stream->device : nullptr;
  nb::object device_array;  // the storage whose buffer holds `found_device`
  for (size_t k = 0; !found_device && k < args.size(); ++k)
    if (const DeviceArray* array = simt_array(args[k].ptr(), &device_array))
      found_device = &array->buffer->device();
  std::shared_ptr<runtime::Device> current;
  if (!found_device) {
    current = current_device();
    found_device = &current;
  }
  const std::shared_ptr<runtime::Device>& device = *found_device;
  runtime::validate_launch(device->info(), dims);
  runtime::Stream& queue = stream ? *stream->stream : unnamed_stream(*device);
  std::vector<Staged> staged;
  if (g_ndarray_type && queue.capture()) {
    // Not staged through the device (a copy in, a copy back) inside a capture.
    for (size_t k = 0; k < args.size(); ++k)
      if (PyObject_TypeCheck(args[k].ptr(), g_ndarray_type)) refuse_numpy_argument();
  }
  const nb::tuple values = staged_arguments(args, device, function_->name(), param_names_, staged);
  // A launch from inside a launch (a callback resolving globals) gets its own scratch.
  std::optional<Scratch> local;
  Scratch& mine = t_scratch;
  Scratch& s = mine.in_use ? local.emplace() : mine;
  s.in_use = true;
  struct Release {
    Scratch& s;
    ~Release() {
      s.release_buffers();
      // The thread's scratch outlives the launch: holding the arrays' buffers
      // there would keep their memory until the thread's next launch, and a
      // thread that exits while the interpreter finalizes (a Dask worker's)
      // would drop foreign memory in its TLS destructors, where taking the
      // GIL ends the thread inside a noexcept destructor (std::terminate).
      s.holds.clear();
      s.checks = nullptr;
      s.race = nullptr;
      s.in_use = false;
    }
  } release{s};
  s.clear();
  append_device_key(s.key, *device);
  for (size_t k = 0; k < values.size(); ++k)
    classify_argument(values[k], param_names_[k], s, device.get());
  std::shared_ptr<Specialization> spec;
  if (last_spec_ && s.key == last_key_) {
    spec = last_spec_;
  } else if (auto found = cache_.find(std::string_view(s.key)); found != cache_.end()) {
    spec = found->second;
    last_key_ = s.key;
    last_spec_ = spec;
  } else {
    spec = specialize(s.key, device);
    // A Ctrl-C while it compiled (the GIL released) is raised now: a CPU
    // kernel launched after it would not see it (runtime/interrupt.h).
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
  runtime::validate_shared_memory(device->info(), spec->static_shared_bytes, dims.shared_bytes);
  if (spec->dynamic_shared_need > static_cast<int64_t>(dims.shared_bytes)) {
    const abi::PythonLine& at = *spec->dynamic_shared_use;
    const std::string text =
        at.text.substr(std::min(at.text.find_first_not_of(" \t"), at.text.size()));
    throw std::invalid_argument(
        "kernel '" + function_->name() + "' indexes its dynamic shared array at " + at.file + ":" +
        std::to_string(at.line) + " (" + text + "), which needs " +
        std::to_string(spec->dynamic_shared_need) +
        " bytes of dynamic shared memory; the launch gives " + std::to_string(dims.shared_bytes) +
        " (the 4th launch item: k[grid, block, stream, nbytes])");
  }
  runtime::validate_warp_launch(device->info(), *spec->kernel, dims);
  runtime::validate_cooperative_launch(*device, *spec->kernel, dims);
  if (runtime::Graph* graph = queue.capture()) {
    record_launch(*graph, spec, dims, s);
    return;
  }
  std::optional<CheckRecord> checks;
  if (spec->checked) {
    checks.emplace(device, queue);
    s.checks = &*checks;
  }
  std::unique_ptr<cpu::RaceRecorder> race;
  if (spec->racechecked) race = make_race_recorder(dims);
  s.race = race.get();
  pack(*spec, dims, s);
  if (race) race->report_all_reads(arguments_share_memory(*spec, s, dims));
  std::array<int64_t, abi::check_record::kWords> record{};
  {
    nb::gil_scoped_release unlocked;
    if (checks) {
      // No dynamic shared memory has no byte a failed check could use.
      runtime::LaunchDims checked_dims = dims;
      for (const abi::Param& param : spec->slots)
        if (param.role == abi::Param::Role::SharedBytes)
          checked_dims.shared_bytes = std::max<size_t>(dims.shared_bytes, 32);
      enqueue(*spec, checked_dims, s, device, queue);
      runtime::InterruptibleScope interruptible;
      record = checks->read(queue);
    } else {
      enqueue(*spec, dims, s, device, queue);
    }
    if (race) {
      // The recorder is read once the launch ran (a queued one too).
      try {
        runtime::InterruptibleScope interruptible;
        queue.synchronize();
      } catch (...) {
        // Interrupted: the cancelled launch writes to the recorder until its block
        // ends, so the recorder outlives it (the wait is short once cancelled).
        try {
          queue.synchronize();
        } catch (...) {
        }
        throw;
      }
    }
    if (!staged.empty()) {
      // Interrupted, the NumPy arguments are not copied back.
      runtime::InterruptibleScope interruptible;
      queue.synchronize();
    }
  }
  for (const Staged& st : staged) {
    nb::object done = nb::steal(
        PyObject_CallFunction(g_copy_back_host_array, "OO", st.copy.ptr(), st.original.ptr()));
    if (!done) throw nb::python_error();
  }
  if (checks) raise_check_failure(record, spec->check_sites, function_->name());
  if (race) report_races(*race, spec->race_sites, function_->name(), racecheck_);
}

void Dispatcher::refuse_numpy_argument() const {
  throw runtime::GraphError("kernel '" + function_->name() +
                            "' takes a NumPy array, host memory a graph cannot hold: pass a "
                            "simt array (simt.asarray(x)) to launches inside simt.graph()");
}

void Dispatcher::record_launch(runtime::Graph& graph, const std::shared_ptr<Specialization>& spec,
                               const runtime::LaunchDims& dims, Scratch& s) {
  const std::string& name = function_->name();
  if (spec->checked)
    throw runtime::GraphError("kernel '" + name +
                              "' is built with checks (debug or boundscheck), which read their "
                              "record back after every launch: it cannot be captured into a graph");
  if (spec->racechecked)
    throw runtime::GraphError("kernel '" + name +
                              "' is built with racecheck, whose recorder is read after every "
                              "launch: it cannot be captured into a graph");
  if (s.host_arrays) refuse_numpy_argument();
  if (s.unheld_arrays || s.producer_pending)
    throw runtime::GraphError("kernel '" + name +
                              "' takes another library's array, which a graph cannot hold: "
                              "wrap it with simt.asarray(x) before the capture");
  pack(*spec, dims, s);
  // The graph holds the arrays' buffers, and the specialization its kernel.
  runtime::KeepAlive keep;
  keep.buffers = std::move(s.holds);
  graph.record_launch(std::shared_ptr<const runtime::CompiledKernel>(spec, spec->kernel.get()),
                      name, dims, s.pointers.data(), s.pointers.size(), std::move(keep));
}

void Dispatcher::enqueue(const Specialization& spec, const runtime::LaunchDims& dims, Scratch& s,
                         const std::shared_ptr<runtime::Device>& device, runtime::Stream& queue) {
  // A launch queued on a stream holds its arrays' buffers until it ran where
  // dropping them early could hand their memory to other work: on the CPU
  // (whose queued launches run later than a GPU driver would see them), and
  // foreign memory, whose owner reuses it as it likes. Pool blocks on a GPU
  // are reused in stream order (docs/architecture.md, "Device memory").
  const bool queued = !queue.is_default();
  const bool queued_on_cpu = queued && device->host_accessible();
  runtime::KeepAlive keep;
  if (queued_on_cpu || (queued && s.foreign)) keep.buffers = std::move(s.holds);
  {
    // A CPU launch on the default stream runs here, first waiting for the
    // other streams: both may be stopped by Ctrl-C.
    runtime::InterruptibleScope interruptible;
    if (s.producer_pending) device->synchronize();
    device->queue_launch(*spec.kernel, dims, s.pointers.data(), queue, std::move(keep));
  }
  // Not interruptible: the kernel reads and writes host memory the caller
  // may free once the call returns.
  if (queued_on_cpu && s.host_arrays) queue.synchronize();
}

std::shared_ptr<Specialization> Dispatcher::specialization(
    const std::vector<std::string>& arg_types, const PyDevice& device) {
  if (!function_) throw std::logic_error("the kernel was garbage collected");
  if (arg_types.size() != param_names_.size())
    throw nb::type_error((function_->name() + "() takes " + std::to_string(param_names_.size()) +
                          " arguments but the signature has " + std::to_string(arg_types.size()))
                             .c_str());
  // The key a launch with these argument types builds.
  std::string key;
  append_device_key(key, *device.device);
  for (const auto& text : arg_types) argument_type_from_text(text).encode(key);
  auto found = cache_.find(key);
  return found != cache_.end() ? found->second : specialize(key, device.device);
}

void Dispatcher::compile(const std::vector<std::string>& arg_types, const PyDevice& device) {
  std::vector<abi::ArgType> declared;
  for (const auto& text : arg_types) declared.push_back(argument_type_from_text(text));
  if (std::find(declared_.begin(), declared_.end(), declared) == declared_.end())
    declared_.push_back(std::move(declared));
  specialization(arg_types, device);
}

int64_t Dispatcher::max_cooperative_blocks(const std::vector<std::string>& arg_types,
                                           const PyDevice& device, int64_t threads,
                                           size_t shared_bytes) {
  std::shared_ptr<Specialization> spec = specialization(arg_types, device);
  return device.device->max_cooperative_blocks(*spec->kernel, threads, shared_bytes);
}

runtime::LaunchDims Dispatcher::configure(const nb::handle& config) const {
  if (!function_) throw std::logic_error("the kernel was garbage collected");
  return parse_launch_config(config, function_->name());
}

struct ConfiguredLaunch {
  nb::object dispatcher;  // keeps the kernel alive
  runtime::LaunchDims dims;
  std::optional<PyStream> stream;
};

nb::object Dispatcher::launcher(nb::handle self, nb::handle config) {
  if (nb::object kept = launchers_.find(config); kept.is_valid()) return kept;
  runtime::LaunchDims dims = configure(config);
  nb::object made = nb::cast(ConfiguredLaunch{nb::borrow(self), dims, launch_stream(config)});
  launchers_.keep(config, made);
  return made;
}

// Garbage-collector support (Dispatcher::traverse): a heap type visits its
// type too.
int dispatcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<Dispatcher>(self)->traverse(visit, arg);
}

int dispatcher_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<Dispatcher>(self)->clear_references();
  return 0;
}

PyType_Slot dispatcher_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(dispatcher_traverse)},
                                  {Py_tp_clear, reinterpret_cast<void*>(dispatcher_clear)},
                                  {0, nullptr}};

// A configured launch, kept in its kernel's table of configurations, holds
// the dispatcher: part of the same cycle.
int launch_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<ConfiguredLaunch>(self)->dispatcher.ptr());
  return 0;
}

int launch_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<ConfiguredLaunch>(self)->dispatcher.reset();
  return 0;
}

// kernel[grid, block](*args): the type's own call slot. A `__call__` bound through
// nanobind would cost a lookup of the method, a tuple with self in front and
// nanobind's overload dispatch on every launch (about 0.15 us); errors still become
// the exceptions nanobind's translators make (python/translate.h).
PyObject* launch_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError,
                    "a kernel launch takes its arguments by position, not by keyword");
    return nullptr;
  }
  try {
    if (!nb::inst_ready(self)) throw std::logic_error("a ConfiguredLaunch not made by simt");
    ConfiguredLaunch& c = *nb::inst_ptr<ConfiguredLaunch>(self);
    if (!c.dispatcher) throw std::logic_error("the kernel was garbage collected");
    nb::inst_ptr<Dispatcher>(c.dispatcher)
        ->launch(c.dims, c.stream ? &*c.stream : nullptr, nb::borrow<nb::args>(args));
  } catch (...) {
    return raise_translated(std::current_exception());
  }
  Py_RETURN_NONE;
}

PyType_Slot launch_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(launch_traverse)},
                              {Py_tp_clear, reinterpret_cast<void*>(launch_clear)},
                              {Py_tp_call, reinterpret_cast<void*>(launch_call)},
                              {0, nullptr}};

}  // namespace

void bind_dispatch(nb::module_& m) {
  nb::class_<Dispatcher>(m, "Dispatcher", nb::type_slots(dispatcher_slots))
      .def(nb::init<nb::object, nb::object, bool, bool, bool, nb::list, int, int>(),
           nb::arg("function"), nb::arg("resolve_globals"), nb::arg("debug") = false,
           nb::arg("fastmath") = false, nb::arg("boundscheck") = false,
           nb::arg("link") = nb::list(), nb::arg("max_registers") = 0, nb::arg("racecheck") = 0)
      .def("configure",
           [](nb::handle self, const nb::handle& config) {
             return nb::cast<Dispatcher&>(self).launcher(self, config);
           })
      .def("compile", &Dispatcher::compile, nb::arg("arg_types"), nb::arg("device"))
      .def("close", &Dispatcher::close,
           "From now on a launch's argument types convert to a signature compile() declared, "
           "or the launch is a TypeError: explicit signatures close the set, as Numba's do.")
      .def_prop_ro("closed", &Dispatcher::closed)
      .def("max_cooperative_blocks", &Dispatcher::max_cooperative_blocks, nb::arg("arg_types"),
           nb::arg("device"), nb::arg("threads"), nb::arg("shared_bytes") = 0)
      .def("clear", &Dispatcher::clear,
           "Drops every specialization: each signature's next launch resolves the globals "
           "again and compiles anew.")
      .def_prop_ro("specialization_count", &Dispatcher::specialization_count)
      .def_prop_ro("signatures", &Dispatcher::signatures);

  nb::class_<ConfiguredLaunch>(m, "ConfiguredLaunch", nb::type_slots(launch_slots));

  m.def(
      "set_compile_observer",
      [](nb::object observer) {
        nb::object previous =
            g_compile_observer ? nb::steal(g_compile_observer) : nb::object(nb::none());
        g_compile_observer = observer.is_none() ? nullptr : observer.release().ptr();
        return previous;
      },
      nb::arg("observer").none(),
      "Calls observer(function, arg_types, globals, debug, boundscheck, link, max_registers) "
      "at each new specialization; returns the previous observer.");
  m.def(
      "typeof",
      [](nb::handle value, const std::string& name) {
        Classification c;
        struct Release {
          Classification& c;
          ~Release() { c.release_buffers(); }
        } release{c};
        classify_argument(value, name, c, nullptr);
        size_t pos = 0;
        auto type = abi::ArgType::decode(c.key, pos);
        if (!type) throw std::logic_error("a classification that does not decode");
        return type->str();
      },
      nb::arg("value").none(), nb::arg("name") = "value",
      "The type a launch gives an argument value ('float32[::1]', '(int64, float64)'), as "
      "the launch path classifies it.");
  m.def("_register_host_staging",
        [](nb::handle ndarray, nb::handle void_type, nb::handle stage, nb::handle copy_back) {
          if (!PyType_Check(ndarray.ptr()) || !PyType_Check(void_type.ptr()))
            throw nb::type_error("expected a type");
          g_ndarray_type = reinterpret_cast<PyTypeObject*>(nb::borrow(ndarray).release().ptr());
          g_void_type = reinterpret_cast<PyTypeObject*>(nb::borrow(void_type).release().ptr());
          g_stage_host_array = nb::borrow(stage).release().ptr();
          g_copy_back_host_array = nb::borrow(copy_back).release().ptr();
        });
  m.def("_register_array_type", [](nb::handle type) {
    if (!PyType_Check(type.ptr())) throw nb::type_error("expected a type");
    register_array_type(reinterpret_cast<PyTypeObject*>(type.ptr()));
  });
}

}  // namespace simt::python
