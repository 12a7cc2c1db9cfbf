// Bindings of streams, events and host memory (pinned, mapped, managed).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include "python/bindings.h"
#include "runtime/interrupt.h"

namespace simt::python {

namespace {

// A Python callable run from a worker thread: the GIL is taken to call it
// and to drop the reference, wherever the last copy of the task goes.
class PythonCallback {
 public:
  explicit PythonCallback(nb::object function) : function_(function.release().ptr()) {}
  ~PythonCallback() {
    PyObject* function = function_;
    release_with_gil([function] { Py_DECREF(function); });
  }
  PythonCallback(const PythonCallback&) = delete;
  PythonCallback& operator=(const PythonCallback&) = delete;

  void operator()() const {
    PyObject* function = function_;
    release_with_gil([function] {
      PyObject* result = PyObject_CallNoArgs(function);
      // No caller to raise into: reported as Python reports errors in
      // callbacks (sys.unraisablehook).
      if (!result) PyErr_WriteUnraisable(function);
      Py_XDECREF(result);
    });
  }

 private:
  PyObject* function_;
};

// A copy of the simt.Stream (or its _impl) `stream`, or nullopt. A copy:
// `_impl` may be a fresh object that lives no longer than this call.
std::optional<PyStream> as_stream(const nb::handle& stream) {
  nb::object impl = nb::borrow(stream);
  if (!nb::isinstance<PyStream>(impl) && nb::hasattr(stream, "_impl")) impl = stream.attr("_impl");
  PyStream* out = nullptr;
  if (!nb::try_cast<PyStream*>(impl, out) || !out) return std::nullopt;
  return *out;
}

PyEvent as_event(const nb::handle& event) {
  nb::object impl = nb::borrow(event);
  if (!nb::isinstance<PyEvent>(impl) && nb::hasattr(event, "_impl")) impl = event.attr("_impl");
  PyEvent* out = nullptr;
  if (!nb::try_cast<PyEvent*>(impl, out) || !out)
    throw nb::type_error(
        ("expected a simt.Event, not " + std::string(Py_TYPE(event.ptr())->tp_name)).c_str());
  return *out;
}

PyStream default_stream_of(const std::shared_ptr<runtime::Device>& device) {
  // Aliases the device: the default stream lives as long as it.
  return PyStream{device, std::shared_ptr<runtime::Stream>(device, &device->default_stream())};
}

// This thread's current stream per device, set by simt.cuda.Stream's `with`
// and use(). Not owning: the Python side keeps each current stream alive until
// it is replaced here (simt/cuda/_cupy_runtime.py): a pointer is never stale.
thread_local std::vector<std::pair<const runtime::Device*, runtime::Stream*>> t_current_streams;

}  // namespace

runtime::Stream& unnamed_stream(runtime::Device& device) {
  for (const auto& [owner, stream] : t_current_streams)
    if (owner == &device) return *stream;
  return device.default_stream();
}

bool is_default_stream_argument(const nb::handle& stream) {
  if (stream.is_none()) return true;
  if (PyLong_CheckExact(stream.ptr())) {
    int overflow = 0;
    return PyLong_AsLongLongAndOverflow(stream.ptr(), &overflow) == 0 && !overflow;
  }
  return false;
}

std::optional<PyStream> stream_object(const nb::handle& stream) {
  if (is_default_stream_argument(stream)) return std::nullopt;
  std::optional<PyStream> s = as_stream(stream);
  if (!s)
    throw nb::type_error(
        ("a stream is a simt.Stream, None or 0, not " + std::string(Py_TYPE(stream.ptr())->tp_name))
            .c_str());
  return s;
}

std::optional<PyStream> launch_stream(const nb::handle& config) {
  if (PyTuple_GET_SIZE(config.ptr()) < 3) return std::nullopt;
  return stream_object(PyTuple_GET_ITEM(config.ptr(), 2));
}

runtime::Stream& stream_argument(const nb::handle& stream, const runtime::Device& device,
                                 const char* what) {
  if (is_default_stream_argument(stream))
    return const_cast<runtime::Device&>(device).default_stream();
  std::optional<PyStream> owner = stream_object(stream);
  if (owner->device.get() != &device)
    throw nb::value_error((std::string(what) + ": the stream is on " + owner->device->info().id +
                           ", the work on " + device.info().id)
                              .c_str());
  return *owner->stream;
}

void bind_streams(nb::module_& m) {
  nb::class_<PyStream>(m, "Stream")
      .def_prop_ro("device", [](const PyStream& s) { return PyDevice{s.device}; })
      .def_prop_ro("is_default", [](const PyStream& s) { return s.stream->is_default(); })
      .def("synchronize",
           [](const PyStream& s) {
             refuse_while_capturing(*s.stream, "Stream.synchronize()",
                                    "nothing captured has run yet; synchronize after g.launch()");
             nb::gil_scoped_release release;
             runtime::InterruptibleScope interruptible;
             s.stream->synchronize();
           })
      .def("done",
           [](const PyStream& s) {
             nb::gil_scoped_release release;
             return s.stream->done();
           })
      .def("wait_event",
           [](const PyStream& s, const nb::handle& event) {
             PyEvent e = as_event(event);
             refuse_while_capturing(*s.stream, "a wait for an event",
                                    "order the work before the capture or after g.launch()");
             if (e.device != s.device)
               throw nb::value_error(("wait_event: the event is on " + e.device->info().id +
                                      ", the stream on " + s.device->info().id)
                                         .c_str());
             // The CPU's default stream waits here, for work that may need the GIL.
             nb::gil_scoped_release release;
             s.stream->wait_event(*e.event);
           })
      .def("add_callback",
           [](const PyStream& s, nb::object callback) {
             if (!PyCallable_Check(callback.ptr()))
               throw nb::type_error("add_callback takes a callable (called with no arguments)");
             refuse_while_capturing(*s.stream, "a host callback", "add it after g.launch()");
             auto call = std::make_shared<PythonCallback>(std::move(callback));
             nb::gil_scoped_release release;
             s.stream->add_callback([call] { (*call)(); });
           })
      .def(
          "__eq__",
          [](const PyStream& a, const PyStream& b) { return a.stream.get() == b.stream.get(); },
          nb::is_operator())
      .def("__hash__", [](const PyStream& s) { return std::hash<void*>()(s.stream.get()); });

  nb::class_<PyEvent>(m, "Event")
      .def_prop_ro("device", [](const PyEvent& e) { return PyDevice{e.device}; })
      .def_prop_ro("recorded", [](const PyEvent& e) { return e.event->recorded(); })
      .def(
          "record",
          [](const PyEvent& e, const nb::handle& stream) {
            runtime::Stream& s = is_default_stream_argument(stream)
                                     ? unnamed_stream(*e.device)
                                     : stream_argument(stream, *e.device, "Event.record");
            refuse_while_capturing(s, "an event record", "record it after g.launch()");
            e.event->record(s);
          },
          nb::arg("stream").none() = nb::none())
      .def("synchronize",
           [](const PyEvent& e) {
             nb::gil_scoped_release release;
             runtime::InterruptibleScope interruptible;
             e.event->synchronize();
           })
      .def("done",
           [](const PyEvent& e) {
             nb::gil_scoped_release release;
             return e.event->done();
           })
      .def("elapsed_ms_since", [](const PyEvent& end, const nb::handle& start) {
        PyEvent begin = as_event(start);
        if (begin.device != end.device)
          throw nb::value_error("elapsed_time: the events are on different devices");
        nb::gil_scoped_release release;
        runtime::InterruptibleScope interruptible;
        return end.event->elapsed_ms_since(*begin.event);
      });

  m.def("create_stream", [](const PyDevice& d) {
    nb::gil_scoped_release release;
    return PyStream{d.device, d.device->create_stream()};
  });
  m.def("default_stream", [](const PyDevice& d) { return default_stream_of(d.device); });
  // Sets this thread's current stream of the stream's device; None as the
  // stream (with its device given) restores the default stream.
  m.def(
      "set_current_stream",
      [](const PyDevice& d, const nb::handle& stream) {
        std::erase_if(t_current_streams,
                      [&](const auto& entry) { return entry.first == d.device.get(); });
        if (stream.is_none()) return;
        std::optional<PyStream> s = as_stream(stream);
        if (!s) throw nb::type_error("set_current_stream: expected a simt.Stream or None");
        if (s->device != d.device)
          throw nb::value_error(
              ("the stream is on " + s->device->info().id + ", not " + d.device->info().id)
                  .c_str());
        if (!s->stream->is_default())
          t_current_streams.emplace_back(d.device.get(), s->stream.get());
      },
      nb::arg("device"), nb::arg("stream").none());
  m.def("create_event", [](const PyDevice& d) {
    return PyEvent{d.device, d.device->create_event()};
  });

  struct PyHostMemory {
    std::shared_ptr<runtime::HostAllocation> allocation;
  };
  nb::class_<PyHostMemory>(m, "HostMemory")
      .def_prop_ro("kind",
                   [](const PyHostMemory& h) {
                     return std::string(runtime::host_memory_name(h.allocation->kind()));
                   })
      .def_prop_ro("nbytes", [](const PyHostMemory& h) { return h.allocation->bytes(); })
      .def("withdraw", [](const PyHostMemory& h) { h.allocation->withdraw(); })
      .def_prop_ro(
          "host_ptr",
          [](const PyHostMemory& h) { return reinterpret_cast<uintptr_t>(h.allocation->host()); })
      .def_prop_ro("device_ptr",
                   [](const PyHostMemory& h) {
                     return reinterpret_cast<uintptr_t>(h.allocation->device_pointer());
                   })
      .def_prop_ro("__array_interface__", [](const PyHostMemory& h) {
        nb::dict out;
        out["version"] = 3;
        out["shape"] = nb::make_tuple(h.allocation->bytes());
        out["typestr"] = "|u1";
        out["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(h.allocation->host()), false);
        return out;
      });
  // A simt.Array over mapped or managed memory: kernels use it in place,
  // and the memory goes when the last array (and NumPy view) does.
  m.def(
      "host_memory_array",
      [](const PyDevice& d, const PyHostMemory& memory, const std::vector<int64_t>& shape,
         const std::string& dtype) {
        const auto& allocation = memory.allocation;
        if (!allocation->device_pointer())
          throw nb::value_error("pinned memory is not device memory: copy it to the device");
        DeviceArray a;
        sema::Type t = type_from_text(dtype);
        if (!t.is_scalar()) throw nb::value_error(("not a scalar dtype: " + dtype).c_str());
        a.dtype = t.scalar;
        a.shape = shape;
        a.strides.assign(shape.size(), 0);
        int64_t stride = a.itemsize();
        for (size_t k = shape.size(); k-- > 0;) {
          a.strides[k] = stride;
          stride *= std::max<int64_t>(shape[k], 1);
        }
        if (static_cast<size_t>(stride) > std::max<size_t>(allocation->bytes(), a.itemsize()) &&
            allocation->bytes() != 0)
          throw nb::value_error("the shape needs more bytes than the host memory holds");
        a.buffer = std::make_shared<runtime::Buffer>(
            d.device, allocation->device_pointer(), allocation->bytes(), [allocation] {},
            allocation->host());
        return a;
      },
      nb::arg("device"), nb::arg("memory"), nb::arg("shape"), nb::arg("dtype"));
  auto host_memory_kind = [](const std::string& kind) {
    if (kind == "pinned") return runtime::HostMemoryKind::Pinned;
    if (kind == "mapped") return runtime::HostMemoryKind::Mapped;
    if (kind == "managed") return runtime::HostMemoryKind::Managed;
    throw nb::value_error("host memory kind must be 'pinned', 'mapped' or 'managed'");
  };
  m.def(
      "allocate_host",
      [host_memory_kind](const PyDevice& d, size_t bytes, const std::string& kind) {
        runtime::HostMemoryKind k = host_memory_kind(kind);
        nb::gil_scoped_release release;
        return PyHostMemory{d.device->allocate_host(bytes, k)};
      },
      nb::arg("device"), nb::arg("nbytes"), nb::arg("kind"));
  // Existing host memory (a NumPy array's bytes) page-locked or mapped for
  // the caller, who keeps the memory alive and calls withdraw() when done.
  // Memory registered already (by simt or an earlier call) is returned as it
  // is, with False: the caller must not withdraw what it did not register.
  m.def(
      "register_host",
      [host_memory_kind](const PyDevice& d, uintptr_t address, size_t bytes,
                         const std::string& kind) {
        runtime::HostMemoryKind k = host_memory_kind(kind);
        void* host = reinterpret_cast<void*>(address);
        if (auto existing = runtime::HostAllocation::find(host, bytes);
            existing && (existing->kind() == k || k == runtime::HostMemoryKind::Pinned))
          return nb::make_tuple(PyHostMemory{existing}, false);
        std::shared_ptr<runtime::HostAllocation> registered;
        {
          nb::gil_scoped_release release;
          registered = d.device->register_host(host, bytes, k);
        }
        return nb::make_tuple(PyHostMemory{registered}, true);
      },
      nb::arg("device"), nb::arg("address"), nb::arg("nbytes"), nb::arg("kind"));
}

}  // namespace simt::python
