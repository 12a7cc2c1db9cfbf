"""Copies of a simt array to another device: simt.to_device(a, device=...) and
a.to_device(device) between any two devices, each by the shortest path the two memories
allow.

- The same device: one copy on the device.
- One side is host memory (the cpu device, or mapped and managed memory): one copy,
  straight between that memory and the other device.
- Two devices whose memory the host cannot address (two GPUs, a GPU and an OpenCL
  device): staged through page-locked host memory, two copies. CUDA peer-to-peer copies
  (cuMemcpyPeerAsync) would skip the host between two GPUs that allow it; they are left
  for a machine with several GPUs to test (docs/scale-out.md).

The source's queued work is waited for (as .get() waits); the copy onto the destination
is queued on `stream` (the destination's), asynchronous where that copy is.
"""

import numpy as np

from . import _array


def transfer(x, device, stream=None):
    """A new array on `device` with the contents of the simt array `x`."""
    if not x._contiguous():
        # A strided view: .get() gathers it (in its order) on the host first.
        return _array.to_device(x.get(), device=device, stream=stream)
    out = _array.empty(x.shape, x.dtype, device)
    if out.device == x.device:
        out._impl.copy_from_device(x._impl, stream)
    elif x._impl.host_visible:
        # np.asarray waits for the source's queued work and views its memory in place.
        out._impl.copy_from_host(np.asarray(x).reshape(-1), stream)
    elif out._impl.host_visible:
        x.get(out=np.asarray(out))
    else:
        _staged(x, out, stream)
    return out


def _staged(x, out, stream):
    from ._stream import pinned_empty  # _stream imports _array: imported when first needed

    staging = pinned_empty(x.shape, x.dtype, device=x.device)
    x.get(out=staging)
    # A copy queued on a stream keeps simt's pinned memory alive until it has run.
    out._impl.copy_from_host(staging.reshape(-1), stream)
