"""Numba's numba.cuda.cudadrv.driver: the documented functions of its driver layer, on
simt's arrays (every device, not only CUDA): `device_memset`, `device_memory_size`,
`host_to_device`, `device_to_host`, `device_to_device`, the `Stream` and `Device` classes,
the `driver` object and `CudaAPIError`."""

import numpy as np

from ..._array import Array
from ..._stream import Stream  # noqa: F401  (Numba's stream class is simt's)
from .._devices import Device, gpus, is_available  # noqa: F401
from .error import CudaAPIError, CudaDriverError  # noqa: F401

__all__ = ["Stream", "Device", "driver", "CudaAPIError", "CudaDriverError",
           "device_memset", "device_memory_size", "host_to_device", "device_to_host",
           "device_to_device"]


def _device_array(obj, where):
    if not isinstance(obj, Array):
        raise TypeError(f"{where}: a device array, not {type(obj).__name__}")
    return obj


def device_memory_size(devmem):
    """The bytes a device array spans (its extent in memory, strides included)."""
    array = _device_array(devmem, "device_memory_size")
    if array.size == 0:
        return 0
    last = sum((extent - 1) * abs(stride) for extent, stride in zip(array.shape, array.strides))
    return last + array.itemsize


def _bytes(array, size, where):
    if not array._contiguous():
        raise ValueError(f"{where}: a contiguous device array, not one of strides "
                         f"{array.strides}")
    if not 0 <= size <= array.nbytes:
        raise ValueError(f"{where}: size {size} for an array of {array.nbytes} bytes")
    return size


def _overwrite_bytes(array, size, values, stream):
    """Writes `values` (a byte, or `size` bytes) over the first `size` bytes of a
    contiguous device array, through a host copy of it."""
    host = array.get(stream=stream or None)
    host.reshape(-1, order="A").view(np.uint8)[:size] = values
    array.set(host, stream=stream or None)


def device_memset(dst, val, size, stream=0):
    """Sets the first `size` bytes of the device array `dst` to the byte `val`."""
    array = _device_array(dst, "device_memset")
    size = _bytes(array, size, "device_memset")
    if size == array.nbytes and size:
        array._impl.fill(bytes([val & 0xFF]) * array.itemsize)
        return
    _overwrite_bytes(array, size, val & 0xFF, stream)


def host_to_device(dst, src, size, stream=0):
    """Copies the first `size` bytes of the host buffer `src` into the device array `dst`."""
    array = _device_array(dst, "host_to_device")
    size = _bytes(array, size, "host_to_device")
    _overwrite_bytes(array, size, np.frombuffer(memoryview(src).cast("B"), np.uint8, size),
                     stream)


def device_to_host(dst, src, size, stream=0):
    """Copies the first `size` bytes of the device array `src` into the host buffer `dst`."""
    array = _device_array(src, "device_to_host")
    size = _bytes(array, size, "device_to_host")
    target = np.frombuffer(memoryview(dst).cast("B"), np.uint8, size)
    target[...] = array.get(stream=stream or None).reshape(-1, order="A").view(np.uint8)[:size]


def device_to_device(dst, src, size, stream=0):
    """Copies the first `size` bytes of the device array `src` into the device array `dst`."""
    source = _device_array(src, "device_to_device")
    host = np.empty(_bytes(source, size, "device_to_device"), np.uint8)
    device_to_host(host, source, size, stream)
    host_to_device(dst, host, size, stream)


class _Driver:
    """Numba's `driver` object: whether a device is there, and how many (those of
    `cuda.gpus`: the CUDA devices, else every device simt has)."""

    @property
    def is_available(self):
        return is_available()

    def get_device_count(self):
        return len(gpus)


driver = _Driver()
