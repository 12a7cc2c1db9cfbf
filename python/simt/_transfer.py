"""Copies between the memories of any two devices, for simt.to_device(a, device=...) and
a.to_device(device) of a simt array: each by the shortest path the two memories allow.

- The same device: one copy on the device.
- One side is host memory (the cpu device, or mapped and managed memory): one copy,
  straight between that memory and the other device.
- Two devices whose memory the host cannot address (two GPUs, a GPU and an OpenCL
  device): staged through page-locked host memory, two copies. CUDA peer-to-peer copies
  (cuMemcpyPeerAsync) would skip the host between two GPUs that allow it; they are left
  for a machine with several GPUs to test (docs/scale-out.md).

The source's queued work is waited for first (as .get() waits); the copy onto the
destination is queued on `stream` (the destination's), asynchronous where that copy is.
Works on the arrays' storage (_core.DeviceArray), below simt.Array.
"""

import numpy as np

from . import _core


def copy_contiguous(source, destination, stream=None):
    """destination[...] = source for two C-contiguous DeviceArrays of one size in bytes,
    on any two devices."""
    nbytes = _nbytes(source)
    if _nbytes(destination) != nbytes:
        raise ValueError(f"a copy of {nbytes} bytes into an array of {_nbytes(destination)}")
    if source.device == destination.device:
        destination.copy_from_device(source, stream)
    elif source.host_visible:
        source.device.synchronize()  # the host reads it next: queued writers first
        destination.copy_from_host(_host_bytes(source, nbytes), stream)
    elif destination.host_visible:
        destination.device.synchronize()  # nothing queued may still use the old contents
        source.copy_to_host(_host_bytes(destination, nbytes), None)
    else:
        staging = _core.allocate_host(source.device, nbytes, "pinned")
        host = np.asarray(staging)[:nbytes]
        source.copy_to_host(host, None)
        # A copy queued on a stream keeps simt's pinned memory alive until it has run.
        destination.copy_from_host(host, stream)


def _nbytes(impl):
    count = 1
    for extent in impl.shape:
        count *= extent
    return count * impl.itemsize


class _HostMemory:
    """The bytes of a host-visible DeviceArray as NumPy sees them (keeps the array)."""

    __slots__ = ("storage", "__array_interface__")

    def __init__(self, storage, nbytes):
        self.storage = storage
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (storage.host_ptr, False)}


def _host_bytes(storage, nbytes):
    return np.asarray(_HostMemory(storage, nbytes))
