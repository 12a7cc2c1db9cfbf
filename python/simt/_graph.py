"""Graphs: work captured once on a device and replayed as often as asked, on every backend.

``with simt.graph() as g:`` records the kernel launches, array operations and copies issued
on the current device's current stream inside the block; nothing runs while capturing (as
with CUDA's stream capture). ``g.launch()`` replays them on the same arrays. On CUDA the
recording becomes a CUDA graph (one ``cuGraphLaunch`` per replay); on OpenCL and the CPU
the runtime queues the recorded commands from C++, with no Python between kernels.

What a capture cannot record raises RuntimeError and names it: copies between device
and host memory (``.get()``, ``simt.to_device(numpy_array)``, printing, ``float(a)``),
synchronizations, events, callbacks, fills (``simt.zeros``/``simt.full``), kernels with
checks (``debug``/``boundscheck``), NumPy arrays or other libraries' arrays as
arguments. Arrays made inside the block (``a + b``, ``simt.empty``) are allocated once,
while capturing; the graph keeps every array it uses alive, and each replay writes the
same arrays. Scalars are recorded by value: ``g.update(i, lambda: k[grid, block](...))``
replaces the i-th command, or capture again (``with g:``) to change them all.
"""

from . import _core
from ._device import get_device

__all__ = ["Graph", "graph"]


class Graph:
    """Work recorded on one device (``simt.graph()``, ``Stream.begin_capture()``).

    As a context manager it captures the device's current stream (or `stream`) for the
    block, replacing what it held; ``launch()`` replays the last capture.
    """

    __slots__ = ("_impl", "_stream")

    def __init__(self, device=None, stream=None):
        if stream is not None and device is None:
            device = stream.device
        self._impl = _core.Graph(get_device(device))
        self._stream = stream

    device = property(lambda self: self._impl.device)

    @property
    def capturing(self):
        """Whether a capture into this graph is running."""
        return self._impl.capturing

    def begin_capture(self, stream=None):
        """Starts recording the work queued on `stream` (default: the graph's stream, else
        the device's current stream)."""
        self._impl.begin_capture(self._stream if stream is None else stream)

    def end_capture(self, keep=True):
        """Ends the capture; its recording becomes what launch() replays (with `keep`
        false it is dropped, and the graph keeps what it held before)."""
        self._impl.end_capture(keep)

    def __enter__(self):
        self.begin_capture()
        return self

    def __exit__(self, exc_type, exc, tb):
        # A block that raised records nothing: half a sequence is no graph.
        self.end_capture(keep=exc_type is None)
        return False

    def launch(self, stream=None):
        """Queues one replay on `stream` (default: the device's current stream). Inside
        another capture, the replay is recorded into that graph."""
        self._impl.launch(stream)

    replay = launch

    def update(self, index, launch):
        """Replaces recorded command `index` (its place in ``commands``) by the one that
        calling ``launch()`` records: new scalar values (or arrays, or grid) for one
        launch, without capturing the whole sequence again.

        ``g.update(3, lambda: axpy[grid, block](np.float32(0.25), x, y))``. The call runs
        nothing; it must issue exactly one launch or copy (RuntimeError otherwise). On
        CUDA the graph is instantiated again at its next launch."""
        one = Graph(self.device, self._stream)
        with one:
            launch()
        self._impl.replace(index, one._impl)

    @property
    def commands(self):
        """The recorded commands in order: each kernel's symbol, or "copy"."""
        return self._impl.commands()

    def __len__(self):
        return len(self._impl)

    def __repr__(self):
        state = "capturing" if self.capturing else f"{len(self)} commands"
        return f"<simt.Graph on {self.device.id}: {state}>"


def graph(device=None, stream=None):
    """A new graph of `device` (default: the current device): ``with simt.graph() as g:``
    captures the block, ``g.launch()`` replays it."""
    return Graph(device, stream)
