"""numba.cuda's names, so that Numba programs run on every simt device by changing
`from numba import cuda` to `from simt import cuda`: the device API (``cuda.grid(1)``,
``cuda.threadIdx.x``, ``cuda.shared.array``, ``cuda.atomic.add``, ...), ``cuda.jit``,
memory (``to_device``, ``device_array``, pinned and mapped arrays), devices, streams and
events. docs/porting.md lists what differs from Numba."""

import importlib as _importlib

from .._device_api import (  # noqa: F401
    brev, cbrt, cg, clz, ffs, fma, popc, selp,
    lanemask_lt, match_all_sync, match_any_sync, syncwarp, eq_sync,
    activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, const, blockIdx, block_dim,
    block_idx, grid, grid_dim, gridDim, gridsize, laneid, local, shared, shfl_down_sync,
    shfl_sync, shfl_up_sync, shfl_xor_sync, syncthreads, syncthreads_and, syncthreads_count,
    syncthreads_or, thread_idx, threadIdx, threadfence, threadfence_block, threadfence_system,
    warpsize)
from .._foreign import CUSource, declare_device  # noqa: F401
from ._devices import (  # noqa: F401
    Device, close, current_context, default_stream, defer_cleanup, detect, event,
    event_elapsed_time, get_current_device, gpus, is_available, legacy_default_stream,
    list_devices, per_thread_default_stream, select_device, stream, synchronize)
from ._cupy_runtime import (  # noqa: F401  (CuPy's cupy.cuda names)
    Event, ExternalStream, MemoryPointer, MemoryPool, PinnedMemoryPointer, PinnedMemoryPool,
    Stream, alloc, alloc_pinned_memory, get_allocator, get_current_stream, get_elapsed_time,
    set_allocator, set_pinned_memory_allocator)
from .._graph import Graph  # noqa: F401  (CuPy's cupy.cuda.Graph: Stream.end_capture's result)
from ._jit import jit  # noqa: F401
from ._memory import (  # noqa: F401
    as_cuda_array, device_array, device_array_like, from_cuda_array_interface, is_cuda_array,
    managed_array, mapped, mapped_array, mapped_array_like, pinned, pinned_array,
    pinned_array_like, to_device)
from ._vectorizers import guvectorize, vectorize  # noqa: F401
from . import fp16, libdevice, random, runtime, types, typing  # noqa: F401
# Numba's extension API, whose modules extension code imports by Numba's dotted names.
from . import cgutils, cudaimpl, extending, models  # noqa: F401
from .compiler import compile_ptx, compile_ptx_for_current_device  # noqa: F401
from .kernels.reduction import Reduce, reduce  # noqa: F401
from .np.numpy_support import carray, farray  # noqa: F401
from .types import SCALARS as _SCALARS, void  # noqa: F401

# CuPy's module path cupy.cuda.stream.Stream: Numba's cuda.stream() function carries
# the names of CuPy's stream module.
for _name in ("Stream", "Event", "ExternalStream", "get_current_stream", "get_elapsed_time"):
    setattr(stream, _name, globals()[_name])

# Numba's type objects: float32, int32[:], void(float32[:], int32), f4, i8, ... (not
# `bool`, which `from simt.cuda import *` would shadow; Numba's name is `boolean`).
globals().update({name: t for name, t in _SCALARS.items() if name != "bool"})

# What `from simt.cuda import *` gives: the public names above, as before simt.cuda was a
# package, not the submodules that only a package has (`np` would shadow NumPy's).
__all__ = sorted(name for name in globals()
                 if not name.startswith("_")
                 and name not in ("np", "compiler", "typing", "runtime", "cgutils", "cudaimpl",
                                  "extending", "models"))

# Imported on first use (`cuda.cudadrv.driver`, and `cuda.devicearray` as Numba's
# numba.cuda names it): few programs need them.
_LAZY_SUBMODULES = {"cudadrv": "cudadrv", "devicearray": "cudadrv.devicearray"}


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{_LAZY_SUBMODULES[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
