"""simt arrays as the chunks of Dask arrays.

Importing this module registers simt.Array with Dask (``import simt`` does it by itself
when Dask was imported first, as in every dask.distributed worker; else
``import simt.dask``):

- the chunk type (``dask.array.register_chunk_type``): element-wise operations between a
  Dask array and a simt array give Dask arrays;
- the functions Dask looks up by chunk type (concatenate, take, tensordot, the element
  counts of mean/var/std, empty): computed by simt on the chunks' device;
- an array backend named "simt": ``dask.config.set({"array.backend": "simt"})`` makes
  ``da.ones``, ``da.zeros``, ``da.empty``, ``da.full`` and ``da.arange`` build simt chunks
  on the current device, and ``x.to_backend("simt")`` / ``x.to_backend("numpy")`` move
  a Dask array's chunks between NumPy and simt;
- for dask.distributed, when it is imported (``register_serializers`` otherwise): CUDA
  chunks serialized by their ``__cuda_array_interface__``, so transports that carry device
  memory (UCX) move them between workers without a trip through host memory. Every other
  simt chunk is pickled (through host memory, back onto the same kind of device).

A Dask array of simt chunks computes to a simt array (``x.compute()``);
``x.map_blocks(lambda b: b.get())`` makes its chunks NumPy arrays.
"""

import sys

import dask
import dask.array as da
import numpy as np
from dask.array import backends as _dask_backends
from dask.array import dispatch as _dispatch

from ._array import Array
from ._device import current_device
from ._array_api import _namespace as xp

__all__ = ["register_serializers"]


# --- the functions Dask looks up by the type of a chunk ---------------------------------------

def _take(x, indices, axis=0):
    # Dask hands host indices (a NumPy array): they go to the chunk's device.
    return xp.take(x, xp.asarray(indices, device=x.device), axis=axis)


def _counts_shape(shape, axis, keepdims):
    axes = range(len(shape)) if axis is None else (
        [axis] if not isinstance(axis, (tuple, list)) else axis)
    axes = {a % len(shape) for a in axes} if shape else set()
    count = 1
    for a in axes:
        count *= shape[a]
    kept = tuple(1 if k in axes else n for k, n in enumerate(shape))
    return count, kept if keepdims else tuple(n for k, n in enumerate(shape) if k not in axes)


def _numel(x, axis=None, keepdims=False, dtype=np.float64, **_):
    """How many elements a reduction over `axis` of chunk `x` sees (mean's divisor), as
    an array on the chunk's device (a NumPy scalar for a reduction to one number)."""
    count, shape = _counts_shape(x.shape, axis, keepdims)
    if not shape and not keepdims:
        return np.dtype(dtype).type(count)
    return xp.full(shape, count, dtype=dtype, device=x.device)


def _nannumel(x, axis=None, keepdims=False, dtype=np.float64, **_):
    """How many of those elements are not NaN (nanmean's divisor)."""
    return xp.sum(~xp.isnan(x), axis=axis, keepdims=keepdims, dtype=dtype)


def _empty(shape, dtype=None, **_):
    return xp.empty(shape, dtype=dtype)


def _to_numpy(data, **_):
    return data.get()


def _register_lookups():
    da.register_chunk_type(Array)
    _dispatch.concatenate_lookup.register(Array, xp.concatenate)
    _dispatch.take_lookup.register(Array, _take)
    _dispatch.tensordot_lookup.register(Array, xp.tensordot)
    _dispatch.numel_lookup.register(Array, _numel)
    _dispatch.nannumel_lookup.register(Array, _nannumel)
    _dispatch.empty_lookup.register(Array, _empty)
    _dispatch.to_numpy_dispatch.register(Array, _to_numpy)


# --- the "simt" array backend -----------------------------------------------------------------

def _with_simt_meta(function_name, /, *args, meta=None, **kwargs):
    # Dask's own creation function, with a simt chunk as the type to build (positional
    # only: Dask passes its own `name=`).
    meta = xp.empty((0,)) if meta is None else meta
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, function_name)(*args, meta=meta, **kwargs)


def _to_simt(data, **kwargs):
    return xp.asarray(data, **kwargs)


class SimtBackendEntrypoint(_dask_backends.ArrayBackendEntrypoint):
    """Dask's array backend "simt": creation functions that build simt chunks on the
    current device."""

    @classmethod
    def to_backend_dispatch(cls):
        return _to_simt

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, Array):
            return data
        return data.map_blocks(_to_simt, **kwargs)

    @property
    def RandomState(self):
        raise NotImplementedError("the simt array backend has no random generator for Dask "
                                  "yet: make chunks with map_blocks")

    @property
    def default_bit_generator(self):
        raise NotImplementedError("the simt array backend has no bit generator for Dask yet")

    @staticmethod
    def ones(*args, **kwargs):
        return _with_simt_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args, **kwargs):
        return _with_simt_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args, **kwargs):
        return _with_simt_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args, **kwargs):
        return _with_simt_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        # NumPy's values (Dask's chunks of a sequence have its own start per chunk), each
        # chunk then copied to the device: where `like` is, else the current device now
        # (the chunks are made later, by other threads).
        with dask.config.set({"array.backend": "numpy"}):
            x = da.arange(*args, **kwargs)
        device = like.device if isinstance(like, Array) else current_device()
        return x.map_blocks(_to_simt, device=device, meta=xp.empty((0,), x.dtype, device))


# --- dask.distributed: CUDA chunks by their device memory -------------------------------------

class _CudaMemory:
    """CUDA memory under a __cuda_array_interface__ of simt's making (keeps its owner)."""

    def __init__(self, owner, pointer, shape, typestr, stream):
        self.owner = owner
        self.__cuda_array_interface__ = {"version": 3, "shape": tuple(shape),
                                         "typestr": typestr, "strides": None,
                                         "data": (pointer, False), "stream": stream}


def _cuda_serialize(x):
    if x.device.backend != "cuda":
        # distributed then tries its next serializer family (pickle).
        raise NotImplementedError(f"a simt array on {x.device.id} is not CUDA memory")
    contiguous = xp.ascontiguousarray(x)
    interface = contiguous.__cuda_array_interface__
    # One frame: the chunk's bytes, as a 1-D uint8 array sharing its memory.
    frame = xp.asarray(_CudaMemory(contiguous, interface["data"][0], (x.nbytes,), "|u1",
                                   interface["stream"]))
    return {"shape": list(x.shape), "typestr": x.dtype.str}, [frame]


def _cuda_deserialize(header, frames):
    frame, = frames
    interface = frame.__cuda_array_interface__
    return xp.asarray(_CudaMemory(frame, interface["data"][0], header["shape"],
                                  header["typestr"], interface.get("stream")))


def register_serializers():
    """Registers simt's serializers of CUDA chunks with dask.distributed (done on import of
    simt.dask when distributed was imported first)."""
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize

    cuda_serialize.register(Array)(_cuda_serialize)
    cuda_deserialize.register(Array)(_cuda_deserialize)


_register_lookups()
_dask_backends.array_creation_dispatch.register_backend("simt", SimtBackendEntrypoint())
if "distributed.protocol" in sys.modules:
    register_serializers()
