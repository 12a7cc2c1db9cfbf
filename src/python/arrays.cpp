// Bindings of devices and device memory: simt.devices(), simt.Array's storage.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "backends/opencl/gpu_probe.h"
#include "backends/registry.h"
#include "python/bindings.h"
#include "runtime/disk_cache.h"
#include "runtime/graph.h"
#include "runtime/interrupt.h"

namespace simt::python {

namespace {

thread_local std::shared_ptr<runtime::Device> t_current_device;

PyDevice wrap(std::shared_ptr<runtime::Device> d) { return PyDevice{std::move(d)}; }

std::string available_ids() {
  std::string ids;
  for (const auto& d : backends::devices()) ids += (ids.empty() ? "" : ", ") + d->info().id;
  return ids.empty() ? "none" : ids;
}

PyDevice get_device(const std::string& id) {
  auto d = backends::find_device(id);
  if (!d)
    throw nb::value_error(("no device '" + id + "'; available: " + available_ids() +
                           " (python -m simt info says why others are missing)")
                              .c_str());
  return wrap(d);
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) throw nb::value_error("negative dimensions are not allowed");
    if (s != 0 && n > INT64_MAX / s) throw nb::value_error("array is too big");
    n *= s;
  }
  return n;
}

// Where the host reads the array's first element, or null where it cannot:
// CPU memory; mapped or managed host memory (its Buffer knows the host's
// address, which on OpenCL differs from the device's); memory another library
// allocated that simt's registry knows as mapped or managed at one address
// for both (CUDA's unified addressing).
void* host_address(const DeviceArray& a) {
  const runtime::Buffer& buffer = *a.buffer;
  if (buffer.device()->host_accessible()) return a.data();
  if (buffer.host()) return static_cast<char*>(buffer.host()) + a.offset;
  auto found = runtime::HostAllocation::find(buffer.data(), buffer.bytes());
  if (found && found->kind() != runtime::HostMemoryKind::Pinned &&
      found->device_pointer() == found->host())
    return a.data();
  return nullptr;
}

DeviceArray empty(const std::vector<int64_t>& shape, const std::string& dtype,
                  const PyDevice& device, const std::string& order) {
  if (order != "C" && order != "F") throw nb::value_error("order must be 'C' or 'F'");
  if (shape.size() > 32) throw nb::value_error("arrays have at most 32 dimensions");
  DeviceArray a;
  if (dtype.starts_with("record")) {
    a.record = record_from_text(dtype);
  } else {
    sema::Type t = type_from_text(dtype);
    if (!t.is_scalar()) throw nb::value_error(("not a scalar dtype: " + dtype).c_str());
    a.dtype = t.scalar;
  }
  a.shape = shape;
  int64_t count = element_count(shape);
  const char* too_big =
      "array is too big: its size times its item size is more bytes than memory can address";
  if (count > INT64_MAX / a.itemsize()) throw nb::value_error(too_big);
  a.strides.assign(shape.size(), 0);
  int64_t stride = a.itemsize();
  for (size_t n = 0; n < shape.size(); ++n) {
    const size_t k = order == "C" ? shape.size() - 1 - n : n;
    a.strides[k] = stride;
    // With an extent of 0 elsewhere the strides can pass the byte count.
    if (n + 1 < shape.size() &&
        __builtin_mul_overflow(stride, std::max<int64_t>(shape[k], 1), &stride))
      throw nb::value_error(too_big);
  }
  size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(a.itemsize());
  nb::gil_scoped_release release;
  a.buffer = std::make_shared<runtime::Buffer>(device.device, bytes);
  return a;
}

DeviceArray view(const DeviceArray& base, int64_t offset, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& strides) {
  if (shape.size() != strides.size()) throw nb::value_error("shape and strides differ in length");
  DeviceArray v = base;
  v.offset = offset;
  v.shape = shape;
  v.strides = strides;
  return v;
}

// base[key] for a key of ints, slices, None and Ellipsis (NumPy's basic indexing, what
// views are made of): the view, or None for any other key and for a key in error, which
// the Python indexing (simt._array_api._indexing) then takes, with its messages. A view
// was about 14 us of Python (issue 38).
nb::object basic_view(const DeviceArray& base, nb::handle key) {
  PyObject* single = key.ptr();
  PyObject* const* items = &single;
  Py_ssize_t count = 1;
  if (PyTuple_Check(key.ptr())) {
    items = &PyTuple_GET_ITEM(key.ptr(), 0);
    count = PyTuple_GET_SIZE(key.ptr());
  }
  const auto ndim = static_cast<Py_ssize_t>(base.shape.size());
  Py_ssize_t used = 0;
  bool ellipsis = false;
  for (Py_ssize_t k = 0; k < count; ++k) {
    PyObject* item = items[k];
    if (item == Py_Ellipsis) {
      if (ellipsis) return nb::none();
      ellipsis = true;
    } else if (PySlice_Check(item) || (PyLong_CheckExact(item))) {
      ++used;
    } else if (item != Py_None) {
      return nb::none();  // bools, arrays, sequences, NumPy scalars: the Python path
    }
  }
  if (used > ndim) return nb::none();
  DeviceArray view = base;
  view.shape.clear();
  view.strides.clear();
  Py_ssize_t dim = 0;
  auto keep_dims = [&](Py_ssize_t n) {
    for (; n > 0; --n, ++dim) {
      view.shape.push_back(base.shape[dim]);
      view.strides.push_back(base.strides[dim]);
    }
  };
  for (Py_ssize_t k = 0; k < count; ++k) {
    PyObject* item = items[k];
    if (item == Py_Ellipsis) {
      keep_dims(ndim - used);
    } else if (item == Py_None) {
      view.shape.push_back(1);
      view.strides.push_back(0);
    } else if (PySlice_Check(item)) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
        PyErr_Clear();
        return nb::none();
      }
      const Py_ssize_t n = PySlice_AdjustIndices(base.shape[dim], &start, &stop, step);
      if (n > 0) view.offset += start * base.strides[dim];
      view.shape.push_back(n);
      view.strides.push_back(base.strides[dim] * step);
      ++dim;
    } else {
      const int64_t extent = base.shape[dim];
      int overflow = 0;
      long long i = PyLong_AsLongLongAndOverflow(item, &overflow);
      if (overflow != 0 || i < -extent || i >= extent) return nb::none();
      if (i < 0) i += extent;
      view.offset += i * base.strides[dim];
      ++dim;
    }
  }
  keep_dims(ndim - dim);
  return nb::cast(std::move(view));
}

struct HostBuffer {
  Py_buffer view{};
  bool held = false;
  ~HostBuffer() {
    if (held) PyBuffer_Release(&view);
  }
};

void acquire(HostBuffer& b, const nb::handle& obj, bool writable) {
  int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj.ptr(), &b.view, flags) != 0) throw nb::python_error();
  b.held = true;
}

// What a copy queued on `queue` keeps alive: simt's own host memory
// (pinned), which makes the copy asynchronous (on the default stream, and
// for other host memory, copies are done with the host memory on return);
// and the device arrays where dropping them early could hand their memory
// to other work (CPU streams run copies later; foreign memory's owner
// reuses it as it likes).
runtime::KeepAlive copy_keep_alive(const runtime::Stream& queue, const void* host, size_t bytes,
                                   std::initializer_list<const DeviceArray*> arrays) {
  runtime::KeepAlive keep;
  if (queue.is_default()) return keep;
  if (host) keep.host = runtime::HostAllocation::find(host, bytes);
  for (const DeviceArray* a : arrays) {
    if (keep.host || a->buffer->device()->host_accessible() || a->buffer->foreign())
      keep.buffers.push_back(a->buffer);
  }
  return keep;
}

void copy_from_host(DeviceArray& a, const nb::handle& source, const nb::handle& stream) {
  HostBuffer b;
  acquire(b, source, false);
  size_t bytes = contiguous_bytes(a);
  if (static_cast<size_t>(b.view.len) != bytes)
    throw nb::value_error(("copy of " + std::to_string(b.view.len) + " bytes into an array of " +
                           std::to_string(bytes) + " bytes")
                              .c_str());
  runtime::Device& device = *a.buffer->device();
  runtime::Stream& queue = stream_argument(stream, device, "copy to the device");
  refuse_while_capturing(queue, "a copy from host memory (NumPy)",
                         "copy it to the device before the capture (simt.to_device) and use "
                         "that array inside it");
  runtime::KeepAlive keep = copy_keep_alive(queue, b.view.buf, bytes, {&a});
  nb::gil_scoped_release release;
  device.queue_copy_from_host(a.data(), b.view.buf, bytes, queue, std::move(keep));
}

// A copy to host memory without an owner (pageable: a NumPy array) is done
// with that memory on return, so its wait must not be interrupted: what it
// waits for first (the kernels queued before it) is waited for here, where
// Ctrl-C may stop the wait, and the copy itself is then short.
void wait_before_copy_to_host(runtime::Device& device, runtime::Stream& queue) {
  runtime::InterruptibleScope interruptible;
  if (queue.is_default())
    device.synchronize();  // legacy order: the default stream waits for the others
  else
    queue.synchronize();
}

void copy_to_host(const DeviceArray& a, const nb::handle& destination, const nb::handle& stream) {
  HostBuffer b;
  acquire(b, destination, true);
  size_t bytes = contiguous_bytes(a);
  if (static_cast<size_t>(b.view.len) != bytes)
    throw nb::value_error(("copy of an array of " + std::to_string(bytes) + " bytes into " +
                           std::to_string(b.view.len) + " bytes")
                              .c_str());
  runtime::Device& device = *a.buffer->device();
  runtime::Stream& queue = stream_argument(stream, device, "copy to the host");
  refuse_while_capturing(queue, "a copy to host memory (.get(), NumPy or a Python number)",
                         "nothing captured has run yet; read results after g.launch()");
  runtime::KeepAlive keep = copy_keep_alive(queue, b.view.buf, bytes, {&a});
  nb::gil_scoped_release release;
  if (!keep.host) wait_before_copy_to_host(device, queue);
  device.queue_copy_to_host(b.view.buf, a.data(), bytes, queue, std::move(keep));
}

// dst[...] = src for two contiguous arrays of one size on one device.
void copy_on_device(DeviceArray& dst, const DeviceArray& src, const nb::handle& stream) {
  size_t bytes = contiguous_bytes(dst);
  if (contiguous_bytes(src) != bytes)
    throw nb::value_error("copy between arrays of different sizes");
  runtime::Device& device = *dst.buffer->device();
  if (src.buffer->device().get() != &device)
    throw nb::value_error(("copy from " + src.buffer->device()->info().id + " to " +
                           device.info().id + ": copy through the host (.get())")
                              .c_str());
  runtime::Stream& queue = stream_argument(stream, device, "copy on the device");
  if (runtime::Graph* graph = queue.capture()) {
    if (dst.buffer->foreign() || src.buffer->foreign())
      throw runtime::GraphError(
          "a copy of another library's memory cannot be captured into a graph: its owner may "
          "free it");
    graph->record_copy(dst.data(), src.data(), bytes, {nullptr, {dst.buffer, src.buffer}});
    return;
  }
  runtime::KeepAlive keep = copy_keep_alive(queue, nullptr, 0, {&dst, &src});
  nb::gil_scoped_release release;
  device.queue_copy_on_device(dst.data(), src.data(), bytes, queue, std::move(keep));
}

// Bytes [start, start + destination's length) of the array's buffer, for
// copying views that are not contiguous.
void copy_buffer_bytes_to_host(const DeviceArray& a, int64_t start, const nb::handle& destination) {
  HostBuffer b;
  acquire(b, destination, true);
  if (start < 0 || static_cast<size_t>(start + b.view.len) > a.buffer->bytes())
    throw nb::value_error("byte range outside the array's buffer");
  refuse_while_capturing(*a.buffer->device(),
                         "a copy to host memory (.get(), NumPy or a Python number)",
                         "nothing captured has run yet; read results after g.launch()");
  nb::gil_scoped_release release;
  wait_before_copy_to_host(*a.buffer->device(), a.buffer->device()->default_stream());
  a.buffer->device()->copy_to_host(b.view.buf, static_cast<char*>(a.buffer->data()) + start,
                                   static_cast<size_t>(b.view.len));
}

void fill(DeviceArray& a, const nb::bytes& pattern) {
  if (static_cast<int64_t>(pattern.size()) != a.itemsize())
    throw nb::value_error("fill pattern size differs from the item size");
  size_t count = static_cast<size_t>(element_count(a.shape));
  // Fills run on the default stream, outside any stream a capture could record.
  refuse_while_capturing(*a.buffer->device(), "filling memory (simt.zeros, simt.full, Array.fill)",
                         "make and fill the array before the capture");
  nb::gil_scoped_release release;
  a.buffer->device()->fill_bytes(a.data(), pattern.c_str(), pattern.size(), count);
}

// A feature the device lacks, as a TypingError at the Python statement
// needing it: the column where known, else the line from its first non-blank.
lang::Diagnostic unsupported_feature_diagnostic(const runtime::UnsupportedFeature& e) {
  lang::Diagnostic d;
  d.kind = lang::DiagnosticKind::Typing;
  d.message = e.what();
  d.filename = e.entry;
  if (const auto& where = e.where) {
    d.filename = where->file;
    d.span.line = static_cast<uint32_t>(where->line);
    size_t first = where->text.find_first_not_of(" \t");
    d.span.col = where->column > 0
                     ? static_cast<uint32_t>(where->column)
                     : static_cast<uint32_t>(first == std::string::npos ? 1 : first + 1);
    d.span.end_line = d.span.line;
    d.span.end_col = static_cast<uint32_t>(where->text.size() + 1);
    d.source_line = where->text;
  }
  return d;
}

// Maps the runtime's C++ exceptions to simt's Python ones.
void translate_runtime_errors(const std::exception_ptr& p, void*) {
  nb::object errors = nb::module_::import_("simt.errors");
  try {
    std::rethrow_exception(p);
  } catch (const runtime::OutOfMemory& e) {
    PyErr_SetString(errors.attr("OutOfMemoryError").ptr(), e.what());
  } catch (const runtime::DeviceError& e) {
    PyErr_SetString(errors.attr("DeviceError").ptr(), e.what());
  } catch (const runtime::BackendCompileError& e) {
    PyErr_SetString(errors.attr("BackendCompileError").ptr(), e.what());
  } catch (const runtime::UnsupportedFeature& e) {
    set_diagnostic_error(lang::CompileError(unsupported_feature_diagnostic(e)));
  } catch (const lang::CompileError& e) {
    set_diagnostic_error(e);
  } catch (const runtime::Interrupted&) {
    raise_pending_interrupt();
  }
}

}  // namespace

size_t contiguous_bytes(const DeviceArray& a) {
  return static_cast<size_t>(element_count(a.shape) * a.itemsize());
}

std::shared_ptr<runtime::Device> current_device() {
  if (t_current_device) return t_current_device;
  return backends::default_device();
}

void bind_arrays(nb::module_& m) {
  nb::register_exception_translator(&translate_runtime_errors);

  nb::class_<PyDevice>(m, "Device")
      .def_prop_ro("id", [](const PyDevice& d) { return d.device->info().id; })
      .def_prop_ro("name", [](const PyDevice& d) { return d.device->info().name; })
      .def_prop_ro(
          "backend",
          [](const PyDevice& d) { return runtime::backend_name(d.device->info().backend); })
      .def_prop_ro("index", [](const PyDevice& d) { return d.device->info().index; })
      .def_prop_ro("architecture", [](const PyDevice& d) { return d.device->info().architecture; })
      .def_prop_ro("compute_units",
                   [](const PyDevice& d) { return d.device->info().compute_units; })
      .def_prop_ro("max_threads_per_block",
                   [](const PyDevice& d) { return d.device->info().max_threads_per_block; })
      .def_prop_ro("max_block_dim",
                   [](const PyDevice& d) {
                     const auto& m = d.device->info().max_block_dim;
                     return nb::make_tuple(m[0], m[1], m[2]);
                   })
      .def_prop_ro("max_grid_dim",
                   [](const PyDevice& d) {
                     const auto& m = d.device->info().max_grid_dim;
                     return nb::make_tuple(m[0], m[1], m[2]);
                   })
      .def_prop_ro("max_shared_memory_per_block",
                   [](const PyDevice& d) { return d.device->info().max_shared_bytes; })
      .def_prop_ro("max_blocks", [](const PyDevice& d) { return d.device->info().max_blocks; })
      .def_prop_ro("total_memory", [](const PyDevice& d) { return d.device->info().total_memory; })
      .def_prop_ro("is_gpu", [](const PyDevice& d) { return d.device->info().gpu; })
      .def_prop_ro("supports_float64",
                   [](const PyDevice& d) { return d.device->info().float64.present; })
      .def_prop_ro("host_accessible", [](const PyDevice& d) { return d.device->host_accessible(); })
      .def("synchronize",
           [](const PyDevice& d) {
             refuse_while_device_captures(
                 *d.device,
                 "a wait for the device (Device.synchronize(), or reading arrays on "
                 "the host: .get(), and NumPy computing on the cpu device's memory, as "
                 "its matmul, sort and fft do)");
             nb::gil_scoped_release release;
             runtime::InterruptibleScope interruptible;
             d.device->synchronize();
           })
      // An operator: comparing with another type gives NotImplemented (so False),
      // not a TypeError (`device == "cpu"`).
      .def(
          "__eq__", [](const PyDevice& a, const PyDevice& b) { return a.device == b.device; },
          nb::is_operator())
      .def("__hash__", [](const PyDevice& d) { return std::hash<void*>()(d.device.get()); })
      .def("__repr__", [](const PyDevice& d) {
        return "<simt.Device " + d.device->info().id + ": " + d.device->info().name + ">";
      });

  m.def("devices", [] {
    std::vector<PyDevice> out;
    for (const auto& d : backends::devices()) out.push_back(wrap(d));
    return out;
  });
  // Which backends started (each starts when first asked for), and whether
  // choosing the default device would start OpenCL: for tests and `simt info`.
  m.def("started_backends", &backends::started_backends);
  m.def(
      "backend_devices",
      [](const std::string& name) {
        std::vector<PyDevice> out;
        for (const auto& d : backends::backend_devices(name)) out.push_back(wrap(d));
        return out;
      },
      nb::arg("name"));
  m.def("opencl_may_have_gpu", &opencl::may_have_gpu);
  m.def("backend_status", [] {
    nb::list out;
    for (const auto& s : backends::backend_status())
      out.append(nb::make_tuple(s.name, s.available, s.detail));
    return out;
  });
  m.def("memory_stats", [](const PyDevice& d) {
    runtime::MemoryPool::Stats stats = d.device->pool().stats();
    nb::dict out;
    out["in_use"] = stats.in_use;
    out["held"] = stats.held;
    out["peak_in_use"] = stats.peak_in_use;
    out["segments"] = stats.segments;
    return out;
  });
  m.def("free_cached_memory", [](const PyDevice& d) {
    nb::gil_scoped_release release;
    return d.device->pool().release();
  });
  m.def("finish_queued_work", [] {
    nb::gil_scoped_release release;
    backends::finish_queued_work();
  });
  m.def("cache_folder", [] { return runtime::DiskCache::instance().folder(); });
  m.def("clear_cache", [] { return runtime::DiskCache::instance().clear(); });
  m.def("get_device", &get_device, nb::arg("id"));
  m.def("default_device", [] { return wrap(backends::default_device()); });
  m.def("current_device", [] { return wrap(current_device()); });
  m.def(
      "set_current_device",
      [](std::optional<PyDevice> device) {
        std::optional<PyDevice> previous;
        if (t_current_device) previous = wrap(t_current_device);
        t_current_device = device ? device->device : nullptr;
        return previous;
      },
      nb::arg("device").none(), "Sets this thread's device; returns the previous one or None.");

  nb::class_<DeviceArray>(m, "DeviceArray")
      .def_prop_ro("shape", [](const DeviceArray& a) { return a.shape; })
      .def_prop_ro("strides", [](const DeviceArray& a) { return a.strides; })
      .def_prop_ro("dtype",
                   [](const DeviceArray& a) {
                     return a.record ? a.record->record->str()
                                     : std::string(sema::scalar_name(a.dtype));
                   })
      .def_prop_ro("itemsize", &DeviceArray::itemsize)
      .def_prop_ro("offset", [](const DeviceArray& a) { return a.offset; })
      .def_prop_ro("readonly", [](const DeviceArray& a) { return a.readonly; })
      .def("readonly_view",
           [](const DeviceArray& a) {
             DeviceArray view = a;
             view.readonly = true;
             return view;
           })
      .def_prop_ro("device", [](const DeviceArray& a) { return wrap(a.buffer->device()); })
      .def_prop_ro("data_ptr",
                   [](const DeviceArray& a) { return reinterpret_cast<uintptr_t>(a.data()); })
      .def_prop_ro("buffer_bytes", [](const DeviceArray& a) { return a.buffer->bytes(); })
      .def_prop_ro("host_visible", [](const DeviceArray& a) { return host_address(a) != nullptr; })
      // Where the host reads the first element (what __array_interface__ gives
      // NumPy); 0 where the host cannot.
      .def_prop_ro(
          "host_ptr",
          [](const DeviceArray& a) { return reinterpret_cast<uintptr_t>(host_address(a)); })
      .def("view", &view, nb::arg("offset"), nb::arg("shape"), nb::arg("strides"))
      .def("basic_view", &basic_view, nb::arg("key").none())
      .def("copy_from_host", &copy_from_host, nb::arg("source"),
           nb::arg("stream").none() = nb::none())
      .def("copy_to_host", &copy_to_host, nb::arg("destination"),
           nb::arg("stream").none() = nb::none())
      .def("copy_from_device", &copy_on_device, nb::arg("source"),
           nb::arg("stream").none() = nb::none())
      .def("copy_buffer_bytes_to_host", &copy_buffer_bytes_to_host, nb::arg("start"),
           nb::arg("destination"))
      .def("fill", &fill, nb::arg("pattern"));

  m.def("empty", &empty, nb::arg("shape"), nb::arg("dtype"), nb::arg("device"),
        nb::arg("order") = "C");
}

}  // namespace simt::python
