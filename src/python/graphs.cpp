// Bindings of graphs (runtime/graph.h): simt.graph(), Stream.begin_capture(),
// and the refusals of what a capture cannot record.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>

#include "python/bindings.h"
#include "runtime/graph.h"
#include "runtime/interrupt.h"

namespace simt::python {

namespace {

// A graph as Python sees it, with the stream it captures (kept alive while the
// capture runs: the stream holds a pointer to the graph until then). Declared
// first, so destroyed last: a graph dropped while capturing ends the capture
// on a stream that still exists.
struct PyGraph {
  std::optional<PyStream> capturing;
  std::shared_ptr<runtime::Graph> graph;
};

void begin_capture(PyGraph& g, const nb::handle& stream) {
  runtime::Device& device = *g.graph->device();
  PyStream s = is_default_stream_argument(stream)
                   ? PyStream{g.graph->device(), std::shared_ptr<runtime::Stream>(
                                                     g.graph->device(), &unnamed_stream(device))}
                   : *stream_object(stream);
  if (s.device != g.graph->device())
    throw nb::value_error(
        ("a graph of " + device.info().id + " cannot capture a stream of " + s.device->info().id)
            .c_str());
  g.graph->begin_capture(*s.stream);
  g.capturing = std::move(s);
}

void end_capture(PyGraph& g, bool keep) {
  g.graph->end_capture(keep);
  g.capturing.reset();
}

void launch(const PyGraph& g, const nb::handle& stream) {
  runtime::Device& device = *g.graph->device();
  runtime::Stream& queue = is_default_stream_argument(stream)
                               ? unnamed_stream(device)
                               : stream_argument(stream, device, "graph launch");
  // The CPU's default stream runs the replay here: Ctrl-C may stop it.
  nb::gil_scoped_release release;
  runtime::InterruptibleScope interruptible;
  g.graph->launch(queue);
}

}  // namespace

void refuse_while_capturing(const runtime::Stream& stream, const std::string& what,
                            const std::string& instead) {
  if (stream.capture())
    throw runtime::GraphError(what + " cannot be captured into a graph: " + instead);
}

void refuse_while_capturing(const runtime::Device& device, const std::string& what,
                            const std::string& instead) {
  // Work queued outside every stream (fills, host reads of views) would run at
  // once whichever stream a capture records: any capture on the device refuses it.
  if (device.captures() > 0)
    throw runtime::GraphError(what + " cannot be captured into a graph: " + instead);
}

void refuse_while_device_captures(const runtime::Device& device, const std::string& what) {
  if (device.captures() > 0)
    throw runtime::GraphError(what + " while a graph captures work on " + device.info().id +
                              ": nothing captured has run yet (synchronize after g.launch())");
}

void bind_graphs(nb::module_& m) {
  nb::class_<PyGraph>(m, "Graph")
      .def("__init__",
           [](PyGraph* g, const PyDevice& device) {
             new (g) PyGraph{std::nullopt, std::make_shared<runtime::Graph>(device.device)};
           })
      .def_prop_ro("device", [](const PyGraph& g) { return PyDevice{g.graph->device()}; })
      .def_prop_ro("capturing", [](const PyGraph& g) { return g.graph->capturing(); })
      .def("begin_capture", &begin_capture, nb::arg("stream").none() = nb::none())
      .def("end_capture", &end_capture, nb::arg("keep") = true)
      .def("launch", &launch, nb::arg("stream").none() = nb::none())
      .def(
          "replace",
          [](PyGraph& g, size_t index, const PyGraph& source) {
            if (source.graph->device() != g.graph->device())
              throw nb::value_error("an update must be recorded on the graph's own device");
            g.graph->replace(index, *source.graph);
          },
          nb::arg("index"), nb::arg("source"))
      .def("commands", [](const PyGraph& g) { return g.graph->describe(); })
      .def("__len__", [](const PyGraph& g) { return g.graph->size(); });
}

}  // namespace simt::python
