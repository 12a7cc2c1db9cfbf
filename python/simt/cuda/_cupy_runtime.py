"""CuPy's ``cupy.cuda`` classes beside Numba's functions in `simt.cuda`: Stream and Event
(with CuPy's current stream), MemoryPool and PinnedMemoryPool over simt's own pools, and
the allocator hooks CuPy programs call. Capitalized names are CuPy's, lowercase Numba's
(``cuda.stream()`` makes a stream; ``cuda.stream.Stream`` is CuPy's module path to the
class, which the function carries as an attribute).

The current stream: ``with stream:`` and ``stream.use()`` make `stream` current on its
device in this thread, as in CuPy. Kernel launches, array operations and the vendor
libraries' calls (cuBLAS, cuFFT, cuSOLVER) that name no stream go to it, and
``Event.record()`` records on it. Copies that name no stream (``a.get()``, ``a.set(x)``)
stay on the default stream, which waits for every other stream's earlier work (CUDA's
legacy default stream, on every simt device), so they see what the current stream wrote.
"""

import threading

import numpy as np

from .. import _array, _core, _device, _stream

__all__ = ["Stream", "ExternalStream", "Event", "get_current_stream", "get_elapsed_time",
           "MemoryPool", "PinnedMemoryPool", "MemoryPointer", "PinnedMemoryPointer",
           "set_allocator", "get_allocator", "set_pinned_memory_allocator",
           "alloc_pinned_memory", "alloc"]

# This thread's current streams, per device: they are kept alive here while the C++ side
# (streams.cpp) routes unnamed work to them by pointer.
_current = threading.local()


def _currents():
    table = getattr(_current, "streams", None)
    if table is None:
        table = _current.streams = {}
    return table


def _make_current(device, stream):
    """Makes `stream` (None: the default stream) current on `device`; returns the previous
    current stream (None for the default)."""
    table = _currents()
    previous = table.get(device)
    if stream is None or stream.is_default:
        table.pop(device, None)
        _core.set_current_stream(device, None)
    else:
        table[device] = stream
        _core.set_current_stream(device, stream)
    return previous


class _NullStream:
    """``Stream.null``: the default stream of the current device, looked up when read."""

    def __get__(self, instance, owner):
        return owner._wrap(_core.default_stream(_device.current_device()))


class Stream(_stream.Stream):
    """CuPy's Stream: a simt.Stream on the current device that is also a context manager
    (``with Stream():`` makes it current in the block) and ``use()``-able.

    ``null=True`` gives the default stream. ``non_blocking`` and ``ptds`` are accepted for
    CuPy's signature: simt's streams all order with the default stream as CUDA's legacy
    one does (non_blocking=True is refused: simt has no such streams).
    """

    __slots__ = ("_previous",)
    null = _NullStream()

    def __init__(self, null=False, non_blocking=False, ptds=False, *, device=None):
        if non_blocking:
            raise NotImplementedError("Stream(non_blocking=True): simt's streams all wait for "
                                      "the default stream and it for them (CUDA's legacy "
                                      "default stream)")
        if null or ptds:
            self._impl = _core.default_stream(_device.get_device(device))
            self._capture = None
        else:
            super().__init__(device)
        self._previous = []

    @classmethod
    def _wrap(cls, impl):
        stream = super()._wrap(impl)
        stream._previous = []
        return stream

    def use(self):
        """Makes the stream current on its device in this thread (until another is)."""
        _make_current(self.device, self)
        return self

    def __enter__(self):
        self._previous.append(_make_current(self.device, self))
        return self

    def __exit__(self, *exc):
        _make_current(self.device, self._previous.pop())
        return False

    @property
    def done(self):
        """True when all work queued on the stream is done (CuPy's property)."""
        return self.query()

    @property
    def ptr(self):
        """0 for the default stream; else an id of the stream (not a CUDA handle)."""
        return 0 if self.is_default else hash(self._impl)


def ExternalStream(ptr, device_id=-1):
    """CuPy's ExternalStream wraps a foreign CUDA stream handle: simt cannot enqueue on
    streams it did not make."""
    raise NotImplementedError("ExternalStream: simt launches only on its own streams; "
                              "synchronize the other library's stream and use a simt Stream")


def get_current_stream(device=None):
    """This thread's current stream of `device` (default: the current device): the last
    one made current by ``with`` or ``use()``, else the default stream."""
    device = _device.get_device(device)
    current = _currents().get(device)
    return current if current is not None else Stream._wrap(_core.default_stream(device))


class Event(_stream.Event):
    """CuPy's Event: ``record(stream=None)`` records on the current stream.

    ``block``, ``disable_timing`` and ``interprocess`` are CuPy's flags: every simt event
    can time and none is shared between processes (interprocess=True is refused)."""

    __slots__ = ()

    def __init__(self, block=False, disable_timing=False, interprocess=False, *, device=None):
        if interprocess:
            raise NotImplementedError("Event(interprocess=True): simt's events are not shared "
                                      "between processes")
        super().__init__(device)

    @property
    def done(self):
        """True when the recorded work is done (or the event was never recorded)."""
        return self.query()


def get_elapsed_time(start_event, end_event):
    """Milliseconds between two recorded events (CuPy's function)."""
    return start_event.elapsed_time(end_event)


# --- memory pools ------------------------------------------------------------------------

class MemoryPointer:
    """Device memory from MemoryPool.malloc: `size` bytes on `device`, freed with the last
    reference. `ptr` is its address where the device has addresses (0 on OpenCL)."""

    __slots__ = ("_array", "size", "device")

    def __init__(self, array):
        self._array, self.size, self.device = array, array.nbytes, array.device

    @property
    def ptr(self):
        return self._array.__array_interface__["data"][0] if self.device.host_accessible else \
            (self._array.__cuda_array_interface__["data"][0]
             if self.device.backend == "cuda" else 0)

    @property
    def mem(self):
        return self


class MemoryPool:
    """CuPy's MemoryPool as a view of simt's own pool of the current device: every simt
    array comes from that pool, so there is one pool per device, whichever MemoryPool
    object reads it. ``malloc(n)`` takes `n` bytes from it."""

    def __init__(self, allocator=None):
        if allocator is not None:
            raise NotImplementedError("MemoryPool(allocator): simt's pool takes memory from "
                                      "the device itself")

    def malloc(self, size):
        """`size` bytes of device memory from the pool (a MemoryPointer)."""
        return MemoryPointer(_array.empty(int(size), np.uint8))

    def used_bytes(self, device=None):
        """Bytes of live allocations on the device."""
        return _device.memory_stats(device)["in_use"]

    def total_bytes(self, device=None):
        """Bytes the pool holds on the device: in use and cached for reuse."""
        return _device.memory_stats(device)["held"]

    def free_bytes(self, device=None):
        """Bytes the pool holds that no allocation uses."""
        stats = _device.memory_stats(device)
        return stats["held"] - stats["in_use"]

    def free_all_blocks(self, stream=None):
        """Gives the device back the memory the pool holds and no array uses."""
        device = stream.device if stream is not None else None
        _device.free_cached_memory(device)

    def n_free_blocks(self):
        """How many device allocations the pool holds (``segments``)."""
        return _device.memory_stats()["segments"]

    def get_limit(self):
        return 0  # no limit: the pool grows until the device is full, then frees its cache


class PinnedMemoryPointer(np.ndarray):
    """Page-locked host memory (from PinnedMemoryPool.malloc or alloc_pinned_memory):
    `size` bytes at `ptr`, a buffer numpy.frombuffer reads (a byte array of that memory,
    so that it has the buffer protocol on every Python)."""

    def __new__(cls, size):
        return _stream.pinned_empty(int(size), np.uint8).view(cls)

    @property
    def ptr(self):
        return self.ctypes.data


class PinnedMemoryPool:
    """CuPy's PinnedMemoryPool: page-locked host buffers (simt.pinned_empty's memory,
    which the device's host-memory cache reuses)."""

    def malloc(self, size):
        return PinnedMemoryPointer(size)

    def n_free_blocks(self):
        return 0


def _pool_allocator(allocator, pool_type, where):
    """`allocator` checked to be None or a `pool_type` object's malloc: simt's memory comes
    from its own pools, which those objects view."""
    if allocator is not None and not isinstance(getattr(allocator, "__self__", None), pool_type):
        raise NotImplementedError(f"{where}: simt takes a {pool_type.__name__}'s malloc or "
                                  f"None, not other allocators (its memory comes from its "
                                  f"own pools)")
    return allocator


_pinned_allocator = None


def set_pinned_memory_allocator(allocator=None):
    """Where alloc_pinned_memory takes memory: a PinnedMemoryPool's malloc, or None for
    simt's page-locked memory directly (the same memory either way)."""
    global _pinned_allocator
    _pinned_allocator = _pool_allocator(allocator, PinnedMemoryPool,
                                        "set_pinned_memory_allocator")


def alloc_pinned_memory(size):
    """`size` bytes of page-locked host memory (a buffer numpy.frombuffer reads)."""
    return (_pinned_allocator or PinnedMemoryPointer)(size)


_allocator = None


def set_allocator(allocator=None):
    """CuPy's hook for the device allocator: a MemoryPool's malloc (simt's pool: the same
    memory every array comes from) or None. Other allocators are refused: simt's arrays
    always come from its own pool."""
    global _allocator
    _allocator = _pool_allocator(allocator, MemoryPool, "set_allocator")


def get_allocator():
    return _allocator or MemoryPool().malloc


def alloc(size):
    """`size` bytes of device memory from the current allocator (a MemoryPointer)."""
    return get_allocator()(size)
