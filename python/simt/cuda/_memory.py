"""numba.cuda's memory functions for `simt.cuda`: to_device, device_array, pinned and
mapped host arrays, and the device array's Numba methods, on simt's arrays and devices.

Numba passes `stream=0` for the default stream; simt's functions take 0 as well. Every
array is made on the current device (`cuda.select_device`, `simt.use_device`), which is
the CPU or an OpenCL device on machines without CUDA.
"""

import numpy as np

import contextlib

from .. import _array, _interop, _stream
from .._array_api import _creation
from .._array import Array
from .._device import get_device


def _order_checked(strides, order, where):
    if strides is not None:
        raise ValueError(f"{where}: strides= is not taken (simt arrays are made dense); use "
                         f"order='C' or 'F'")
    if order not in ("C", "F"):
        raise ValueError(f"{where}: order must be 'C' or 'F', not {order!r}")
    return order


def to_device(obj, stream=0, copy=True, to=None):
    """A device copy of a NumPy array (or anything with the buffer protocol), on the
    current device; with `to=`, copies into that device array instead; with
    ``copy=False``, a device array of its shape, dtype and order, the data not copied
    (Numba's)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if not copy:
        # Numba's copy=False: the device array is made, the data not copied into it.
        return device_array_like(np.asarray(obj), stream=stream)
    return _array.to_device(obj, stream=stream)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialized array on the current device."""
    order = _order_checked(strides, order, "cuda.device_array")
    return _array.empty(shape, dtype, order=order)


def device_array_like(ary, stream=0):
    """An uninitialized device array of ary's shape, dtype and order."""
    return _array.empty(ary.shape, ary.dtype, order=_like_order(ary))


def _like_order(ary):
    """The order of a *_like array: NumPy's order 'K', as simt.empty_like keeps it."""
    return _creation.like_order(ary) if hasattr(ary, "strides") else "C"


def _host(make, shape, dtype, order):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if order == "F":
        return make(shape[::-1], dtype).T
    return make(shape, dtype)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory (fast, asynchronous copies)."""
    order = _order_checked(strides, order, "cuda.pinned_array")
    return _host(_stream.pinned_empty, shape, dtype, order)


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, order=_like_order(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A NumPy array in host memory the device reads and writes directly (kernels take it
    as it is)."""
    order = _order_checked(strides, order, "cuda.mapped_array")
    return _host(_stream.mapped_empty, shape, dtype, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, order=_like_order(ary))


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """An array in managed (unified) memory, usable from the host and the device."""
    order = _order_checked(strides, order, "cuda.managed_array")
    return _host(_stream.managed_empty, shape, dtype, order)


def is_cuda_array(obj):
    """Whether obj exports __cuda_array_interface__ (a CUDA device array of any library)."""
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    """A simt array viewing obj's device memory (no copy), from its
    __cuda_array_interface__."""
    if not is_cuda_array(obj):
        raise TypeError(f"cuda.as_cuda_array: {type(obj).__name__} has no "
                        f"__cuda_array_interface__")
    return _interop.asarray(obj)


class _Interface:
    """An owner of a bare __cuda_array_interface__ dictionary."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A simt array viewing the memory a __cuda_array_interface__ dictionary describes."""
    return _interop.asarray(_Interface(dict(desc), owner))


# The device array's Numba methods that simt.Array does not have under these names.

def _copy_to_device(self, ary, stream=0):
    """Copies a host array (or another device array of this shape) into this array."""
    if isinstance(ary, Array):
        self[...] = ary
        return
    self.set(np.ascontiguousarray(ary), stream=stream)


def _split(self, section, stream=0):
    """Views of consecutive `section`-element pieces of a 1-D array (the last may be
    shorter)."""
    if self.ndim != 1:
        raise ValueError(f"split: only 1-D arrays are split, not shape {self.shape}")
    return [self[start:start + section] for start in range(0, self.size, section)]


METHODS = {
    "copy_to_device": _copy_to_device,
    "split": _split,
    "is_c_contiguous": lambda self: self.flags.c_contiguous,
    "is_f_contiguous": lambda self: self.flags.f_contiguous,
    "alloc_size": property(lambda self: self.nbytes,
                           doc="The bytes the array's elements take (Numba's alloc_size)."),
    "getitem": lambda self, item, stream=0: self[item],
    "setitem": lambda self, key, value, stream=0: self.__setitem__(key, value),
}
for _name, _method in METHODS.items():
    setattr(Array, _name, _method)


# --- pinned, mapped ---------------------------------------------------------------------

def _host_arrays(arylist, where):
    for ary in arylist:
        if not isinstance(ary, np.ndarray):
            raise TypeError(f"{where}: host (NumPy) arrays, not {type(ary).__name__}")


@contextlib.contextmanager
def pinned(*arylist):
    """Numba's `with cuda.pinned(a, b):` page-locks existing host arrays for the block:
    copies between them and device arrays on a stream are then asynchronous (on CUDA;
    the CPU device queues them; OpenCL copies wait in any case). When the block ends,
    simt waits for the device's queued work and unlocks the memory."""
    _host_arrays(arylist, "cuda.pinned")
    with _stream.registered_host(arylist, "pinned"):
        yield


@contextlib.contextmanager
def mapped(*arylist, stream=0, portable=False, wc=False):
    """Numba's `with cuda.mapped(a) as d_a:` maps existing host arrays into the device's
    address space for the block and gives device arrays over the same memory (zero
    copy: kernels read and write the host arrays). CUDA and the CPU device map C- or
    F-contiguous writeable arrays; elsewhere (OpenCL, other layouts, read-only arrays) the device arrays are copies,
    copied back into the host arrays when the block ends."""
    _host_arrays(arylist, "cuda.mapped")
    device = get_device(stream.device if hasattr(stream, "device") else None)
    if device.backend != "opencl" and all(
            a.flags.writeable and (a.flags.c_contiguous or a.flags.f_contiguous)
            for a in arylist):
        with _stream.registered_host(arylist, "mapped", device) as memories:
            views = [_stream.mapped_view(a, m, device) for a, m in zip(arylist, memories)]
            yield views[0] if len(views) == 1 else views
        return
    copies = [_array.to_device(ary, device) for ary in arylist]
    try:
        yield copies[0] if len(copies) == 1 else copies
    finally:
        for ary, copy in zip(arylist, copies):
            if ary.flags.writeable:
                ary[...] = copy.get(stream=stream or None)
