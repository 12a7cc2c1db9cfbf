"""Numba's numba.cuda.cudadrv.devicearray: its device array is simt's (`DeviceNDArray` is
simt.Array, so `isinstance(x, DeviceNDArray)` holds for every simt array, on every device)."""

import numpy as np

from ... import _array
from ..._array import Array

__all__ = ["DeviceNDArray", "from_array_like", "auto_device", "is_cuda_ndarray"]

DeviceNDArray = Array


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialized device array of `ary`'s shape, dtype and order, on the current
    device (Numba's: the device array "like" a host array; nothing is copied)."""
    if gpu_data is not None:
        raise NotImplementedError("from_array_like(gpu_data=...): simt allocates the "
                                  "array's memory itself")
    host = np.asarray(ary)
    order = "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    return _array.empty(host.shape, host.dtype, order=order)


def is_cuda_ndarray(obj):
    """Whether `obj` is a device array (a simt array)."""
    return isinstance(obj, Array)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(device array, whether it was made here): `obj` itself when it is a device array,
    else a copy of it on the current device (uninitialized when copy=False)."""
    if isinstance(obj, Array):
        return obj, False
    host = np.asarray(obj)
    if not copy:
        return from_array_like(host, stream), True
    return _array.to_device(host, stream=stream or None), True
