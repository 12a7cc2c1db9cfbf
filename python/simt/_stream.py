"""Streams, events and host memory: ordering and overlapping work, as in CUDA."""

import contextlib
import operator

import numpy as np

from . import _core
from ._array import Array, _dtype_name
from ._device import get_device
from ._graph import Graph


class Stream:
    """An ordered queue of work (kernels, copies, events, callbacks) on one device.

    Launch on it with ``kernel[grid, block, stream](...)`` and pass it to copies
    (``simt.to_device(x, stream=s)``, ``a.get(stream=s)``). Work on different
    streams may overlap; the default stream (``simt.default_stream()``, or
    ``None``/``0`` wherever a stream is taken) waits for the device's other
    streams and they for it, as CUDA's legacy default stream does. On the CPU,
    each stream is a queue run by its own thread.
    """

    __slots__ = ("_impl", "_capture", "__weakref__")

    def __init__(self, device=None):
        self._impl = _core.create_stream(get_device(device))
        self._capture = None

    @classmethod
    def _wrap(cls, impl):
        stream = object.__new__(cls)
        stream._impl = impl
        stream._capture = None
        return stream

    def begin_capture(self):
        """Records the work queued on this stream from now on into a new graph instead of
        running it (CuPy's spelling of ``with simt.graph(stream=s)``); end_capture()
        returns the graph."""
        if self._capture is not None:
            raise RuntimeError("the stream is capturing already: call end_capture() first")
        graph = Graph(self.device, self)
        graph.begin_capture()
        self._capture = graph

    def end_capture(self):
        """Ends the capture begin_capture() started; returns the simt.Graph, whose
        ``launch()`` replays it."""
        graph, self._capture = self._capture, None
        if graph is None:
            raise RuntimeError("the stream is not capturing: call begin_capture() first")
        graph.end_capture()
        return graph

    def is_capturing(self):
        """Whether begin_capture() started a capture that has not ended (CuPy's name)."""
        return self._capture is not None

    device = property(lambda self: self._impl.device)
    is_default = property(lambda self: self._impl.is_default)

    def synchronize(self):
        """Waits until all work queued on the stream is done."""
        self._impl.synchronize()

    def query(self):
        """True when all work queued on the stream is done (never waits)."""
        return self._impl.done()

    def wait_event(self, event):
        """Makes work queued on this stream from now on wait for `event`.

        An event of another device is waited for here, on the host, before this returns:
        the backends have no common way for one device to wait on another's event (CUDA
        could across its own GPUs; docs/scale-out.md).
        """
        if isinstance(event, Event) and event.device != self.device:
            event.synchronize()
            return
        self._impl.wait_event(event)

    @contextlib.contextmanager
    def auto_synchronize(self):
        """Synchronizes the stream when the block ends (Numba's name)."""
        try:
            yield self
        finally:
            self.synchronize()

    def record(self, event=None):
        """Records `event` (a new one if None) on this stream and returns it."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def add_callback(self, callback):
        """Calls ``callback()`` on a host thread once the work queued before it is done.

        Callbacks run in order on a host thread of the device; later work on the
        stream does not wait for them, and they may launch, copy and synchronize.
        Exceptions they raise are reported through ``sys.unraisablehook``.
        """
        self._impl.add_callback(callback)

    def __await__(self):
        """``await stream``: resumes once the work queued so far is done."""
        import asyncio
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def done():
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(None))

        self.add_callback(done)
        return future.__await__()

    def __eq__(self, other):
        return isinstance(other, Stream) and self._impl == other._impl

    def __hash__(self):
        return hash(self._impl)

    def __repr__(self):
        kind = "default stream" if self.is_default else "stream"
        return f"<simt.Stream {kind} on {self.device.id}>"


def default_stream(device=None):
    """The default stream of `device` (default: the current device)."""
    return Stream._wrap(_core.default_stream(get_device(device)))


class Event:
    """A marker in a stream: wait for it, order other streams after it, time between two.

    ``start.record(s); ...; end.record(s); end.synchronize();
    simt.Event.elapsed_time(start, end)`` gives milliseconds.
    """

    __slots__ = ("_impl", "__weakref__")

    def __init__(self, device=None):
        self._impl = _core.create_event(get_device(device))

    device = property(lambda self: self._impl.device)

    def record(self, stream=None):
        """Captures the work queued on `stream` so far (default: the current stream, which
        is the default stream unless a simt.cuda.Stream was made current)."""
        self._impl.record(stream)
        return self

    def synchronize(self):
        """Waits until the work the event captured is done."""
        self._impl.synchronize()

    def wait(self, stream=None):
        """Makes work queued on `stream` (default: the default stream) from now on wait
        for this event (Numba's Event.wait)."""
        (default_stream(self.device) if stream in (None, 0) else stream).wait_event(self)

    def query(self):
        """True when the captured work is done (or the event was never recorded)."""
        return self._impl.done()

    def elapsed_time(self, end):
        """Milliseconds from this event to `end` (``Event.elapsed_time(start, end)``).

        Both must be recorded; waits for them to complete.
        """
        if not isinstance(end, Event):
            raise TypeError(f"elapsed_time takes a simt.Event, not {type(end).__name__}")
        return end._impl.elapsed_ms_since(self._impl)

    def __repr__(self):
        return f"<simt.Event on {self.device.id}>"


def _allocate(kind, shape, dtype, device):
    dtype = np.dtype(dtype)
    if isinstance(shape, (int, np.integer)):
        shape = (operator.index(shape),)
    shape = tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    device = get_device(device)
    return device, _core.allocate_host(device, nbytes, kind), shape, dtype


def _host_array(kind, shape, dtype, device):
    _, memory, shape, dtype = _allocate(kind, shape, dtype, device)
    # The array's base chain ends at `memory`, which frees it with the last view.
    return np.asarray(memory)[:memory.nbytes].view(dtype).reshape(shape)


def _device_array(kind, shape, dtype, device):
    device, memory, shape, dtype = _allocate(kind, shape, dtype, device)
    return Array._wrap(_core.host_memory_array(device, memory, list(shape), _dtype_name(dtype)))


def pinned_empty(shape, dtype=np.float64, device=None):
    """An uninitialized NumPy array in page-locked host memory.

    Copies between it and device arrays on a stream are asynchronous (they
    overlap kernels and the host); copies from pageable memory wait. On
    OpenCL devices it is ordinary host memory (copies there wait anyway).
    """
    return _host_array("pinned", shape, dtype, device)


def mapped_empty(shape, dtype=np.float64, device=None):
    """An uninitialized simt.Array in host memory that kernels use in place (zero copy).

    ``numpy.asarray(a)`` views the same memory on the host; kernels read and
    write it over the bus (CUDA's mapped memory; ordinary memory on the CPU;
    fine-grained shared virtual memory on OpenCL 2.0 devices that have it, others
    raise ValueError). Synchronize before reading on the host what a kernel wrote.
    """
    return _device_array("mapped", shape, dtype, device)


def managed_empty(shape, dtype=np.float64, device=None):
    """An uninitialized simt.Array in CUDA managed (unified) memory.

    The driver migrates pages between host and device on use;
    ``numpy.asarray(a)`` views it on the host (synchronize first). On the CPU it
    is ordinary memory; on OpenCL devices the fine-grained shared virtual memory of
    mapped_empty (ValueError where the device has none).
    """
    return _device_array("managed", shape, dtype, device)


def _byte_span(ary):
    """(first address, bytes) of the memory an ndarray's elements occupy."""
    low, high = np.lib.array_utils.byte_bounds(ary) if hasattr(np.lib, "array_utils") \
        else np.byte_bounds(ary)
    return low, high - low


@contextlib.contextmanager
def registered_host(arrays, kind, device=None):
    """Page-locks ("pinned") or maps ("mapped") the memory of existing NumPy arrays for
    the block; yields one HostMemory per array. Memory registered already (a
    pinned_empty array, an enclosing block) is used as it is and left registered. Work
    queued on the device is waited for before the registrations end: the arrays are the
    caller's alone again after the block."""
    device = get_device(device)
    memories, made = [], []
    try:
        for ary in arrays:
            address, nbytes = _byte_span(ary)
            memory, created = _core.register_host(device, address, nbytes, kind)
            memories.append(memory)
            if created:
                made.append(memory)
        yield memories
    finally:
        if made:
            device.synchronize()
            for memory in made:
                memory.withdraw()


def mapped_view(ary, memory, device=None):
    """A simt.Array over a mapped NumPy array's memory (C- or F-contiguous), or None
    where it cannot view it in place (other layouts)."""
    device = get_device(device)
    dtype = _dtype_name(ary.dtype)
    if ary.flags.c_contiguous:
        return Array._wrap(_core.host_memory_array(device, memory, list(ary.shape), dtype))
    if ary.flags.f_contiguous:
        flipped = _core.host_memory_array(device, memory, list(ary.shape[::-1]), dtype)
        return Array._wrap(flipped).T
    return None
