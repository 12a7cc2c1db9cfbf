"""Numba-CUDA's remaining host helpers for `simt.cuda`: `numba.cuda.np.numpy_support`
(from_dtype, as_dtype), carray/farray (NumPy views of host memory at a pointer),
`cuda.kernels.transpose`, and the `cuda.pinned(...)` / `cuda.mapped(...)` contexts.
"""

import contextlib
import ctypes
import math
import types as _pytypes

import numpy as np

from . import _array, _device_api as cuda, _stream
from ._device import get_device
from ._kernel import Kernel
from ._numba_types import SCALARS, Record, Scalar, _Type


# --- numpy_support ----------------------------------------------------------------------

def from_dtype(dtype):
    """The type object of a NumPy dtype (np.float32 -> float32; a record dtype -> its
    record type), as Numba's numpy_support.from_dtype."""
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        try:
            return Record(dtype)
        except TypeError as error:
            raise NotImplementedError(f"from_dtype: {dtype}: {error}") from None
    if dtype.kind not in "biufc" or not dtype.isnative:
        raise NotImplementedError(f"from_dtype: {dtype} is not a number type simt's kernels "
                                  f"take")
    return SCALARS[dtype.name]


def as_dtype(nbtype):
    """The NumPy dtype of a number or record type object (float32 -> dtype('float32'))."""
    if isinstance(nbtype, (Scalar, Record)):
        return nbtype.dtype
    if isinstance(nbtype, _Type):
        raise NotImplementedError(f"as_dtype: {nbtype} cannot be represented as a NumPy dtype")
    return np.dtype(nbtype)


numpy_support = _pytypes.ModuleType(
    "simt.cuda.np.numpy_support", "Numba's numpy_support: from_dtype, as_dtype.")
numpy_support.from_dtype, numpy_support.as_dtype = from_dtype, as_dtype
np_module = _pytypes.ModuleType("simt.cuda.np", "Numba's numba.cuda.np: numpy_support.")
np_module.numpy_support = numpy_support


# --- carray, farray ---------------------------------------------------------------------

def _from_pointer(ptr, shape, dtype, order, where):
    pointed = None
    if isinstance(ptr, ctypes._Pointer):
        pointed = np.dtype(ptr._type_)
    elif isinstance(ptr, ctypes.Array):
        pointed = np.dtype(ptr._type_)
        ptr = ctypes.cast(ptr, ctypes.c_void_p)
    if dtype is None:
        if pointed is None:
            raise TypeError(f"{where}: the dtype of a {type(ptr).__name__} pointer must be "
                            f"given")
        dtype = pointed
    dtype = np.dtype(dtype)
    if pointed is not None and pointed != dtype:
        raise TypeError(f"{where}: mismatching dtype {dtype} for a pointer to {pointed}")
    if isinstance(ptr, int):
        address = ptr
    elif isinstance(ptr, ctypes.c_void_p):
        address = ptr.value
    else:
        address = ctypes.cast(ptr, ctypes.c_void_p).value
    if not address:
        raise ValueError(f"{where}: a null pointer")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = math.prod(shape)
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype, count).reshape(shape, order=order)


def carray(ptr, shape, dtype=None):
    """A C-ordered NumPy array of `shape` over the host memory at `ptr` (a ctypes pointer
    or array, or an int address with `dtype`), no copy: Numba's carray on the host. Not
    available inside kernels (simt's kernel language has no pointers)."""
    return _from_pointer(ptr, shape, dtype, "C", "carray")


def farray(ptr, shape, dtype=None):
    """carray in Fortran order."""
    return _from_pointer(ptr, shape, dtype, "F", "farray")


# --- kernels.transpose ------------------------------------------------------------------

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
    _transpose_kernel(a.dtype.type, tile)[blocks, (tile, tile), stream](a, b)
    return b


class _TransposeModule(_pytypes.ModuleType):
    """numba.cuda.kernels.transpose: the module (`from ... import transpose`), callable as
    the function too (`cuda.kernels.transpose(a)`)."""

    def __call__(self, a, b=None, stream=0):
        return transpose(a, b, stream)


transpose_module = _TransposeModule("simt.cuda.kernels.transpose", transpose.__doc__)
transpose_module.transpose = transpose
kernels_module = _pytypes.ModuleType("simt.cuda.kernels", "Numba's numba.cuda.kernels.")
kernels_module.transpose = transpose_module


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
