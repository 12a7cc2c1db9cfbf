"""Numba's numba.cuda.kernels.transpose: b = a.T through shared-memory tiles."""

import math

import numpy as np

from ... import _array, _device_api as cuda
from ..._kernel import Kernel

__all__ = ["transpose"]


_transposes = {}


def _transpose_kernel(dtype, tile):
    key = (dtype, tile)
    if key not in _transposes:
        def transpose_tiles(a, b):
            t = cuda.shared.array(shape=(tile, tile + 1), dtype=dtype)
            tx = cuda.threadIdx.x
            ty = cuda.threadIdx.y
            bx = cuda.blockIdx.x * tile
            by = cuda.blockIdx.y * tile
            x = by + tx
            y = bx + ty
            if x < b.shape[0] and y < b.shape[1]:
                t[ty, tx] = a[y, x]
            cuda.syncthreads()
            y = by + ty
            x = bx + tx
            if y < b.shape[0] and x < b.shape[1]:
                b[y, x] = t[tx, ty]

        _transposes[key] = Kernel(transpose_tiles)
    return _transposes[key]


def transpose(a, b=None, stream=0):
    """b = a.T for a 2-D device array (or NumPy array, copied to the current device),
    through shared-memory tiles, as Numba's numba.cuda.kernels.transpose; `b` (a device
    array of shape a.shape[::-1]) is allocated when not given. Returns b."""
    if not isinstance(a, _array.Array):
        a = _array.to_device(np.asarray(a))
    if a.ndim != 2:
        raise ValueError(f"transpose: a 2-D array is transposed, not shape {a.shape}")
    if b is None:
        b = _array.empty((a.shape[1], a.shape[0]), a.dtype, a.device)
    elif tuple(b.shape) != (a.shape[1], a.shape[0]) or b.dtype != a.dtype:
        raise ValueError(f"transpose: b must be {a.dtype} of shape {(a.shape[1], a.shape[0])}, "
                         f"not {b.dtype} of shape {tuple(b.shape)}")
    device = a.device
    # OpenCL drivers may allow a kernel fewer threads than the device's maximum
    # (CL_KERNEL_WORK_GROUP_SIZE: NVIDIA's refused 32x32 float64 tiles), so 16x16 there.
    tpb = {"cpu": 64, "cuda": min(device.max_threads_per_block, 1024)}.get(device.backend, 256)
    tile = int(2 ** (int(math.log2(tpb)) // 2))
    blocks = (-(-b.shape[1] // tile), -(-b.shape[0] // tile))
    # A record dtype is its own type (its scalar type, np.record, names no layout).
    kernel = _transpose_kernel(a.dtype if a.dtype.names else a.dtype.type, tile)
    kernel[blocks, (tile, tile), stream](a, b)
    return b


class _CallableModule(type(math)):
    """This module, callable as its function too (`cuda.kernels.transpose(a)`), as
    simt.cuda has always allowed beside Numba's `from ... import transpose`."""

    def __call__(self, a, b=None, stream=0):
        return transpose(a, b, stream)


__import__("sys").modules[__name__].__class__ = _CallableModule
