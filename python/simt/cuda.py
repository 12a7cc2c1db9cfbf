"""numba.cuda's names, so that Numba programs run on every simt device by changing
`from numba import cuda` to `from simt import cuda`: the device API (``cuda.grid(1)``,
``cuda.threadIdx.x``, ``cuda.shared.array``, ``cuda.atomic.add``, ...), ``cuda.jit``,
memory (``to_device``, ``device_array``, pinned and mapped arrays), devices, streams and
events. docs/porting.md lists what differs from Numba."""

import sys

from ._device_api import (  # noqa: F401
    brev, cbrt, cg, clz, ffs, fma, fp16, popc, selp,
    lanemask_lt, match_all_sync, match_any_sync, syncwarp,
    activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, const, blockIdx, block_dim,
    block_idx, grid, grid_dim, gridDim, gridsize, laneid, local, shared, shfl_down_sync,
    shfl_sync, shfl_up_sync, shfl_xor_sync, syncthreads, syncthreads_and, syncthreads_count,
    syncthreads_or, thread_idx, threadIdx, threadfence, threadfence_block, threadfence_system,
    warpsize)
from ._numba_devices import (  # noqa: F401
    Device, close, current_context, default_stream, defer_cleanup, detect, event,
    event_elapsed_time, get_current_device, gpus, is_available, legacy_default_stream,
    list_devices, per_thread_default_stream, select_device, stream, synchronize)
from ._numba_compile import compile_ptx, compile_ptx_for_current_device  # noqa: F401
from ._numba_foreign import CUSource, declare_device  # noqa: F401
from ._numba_guvectorize import guvectorize  # noqa: F401
from ._numba_host import (  # noqa: F401
    carray, farray, kernels_module as kernels, mapped, np_module as _np, pinned,
    transpose_module as _transpose_module)
from ._numba_jit import jit  # noqa: F401
from ._numba_memory import (  # noqa: F401
    as_cuda_array, device_array, device_array_like, from_cuda_array_interface, is_cuda_array,
    managed_array, mapped_array, mapped_array_like, pinned_array, pinned_array_like,
    to_device)
from ._numba_reduce import Reduce, reduce  # noqa: F401
from ._numba_vectorize import vectorize  # noqa: F401
from . import _numba_random as random  # noqa: F401
from ._numba_libdevice import libdevice  # noqa: F401
from ._numba_types import SCALARS as _SCALARS, types, void  # noqa: F401

# `from simt.cuda.random import xoroshiro128p_uniform_float32`, as Numba's programs write it.
sys.modules[__name__ + ".random"] = random
# `from simt.cuda.fp16 import hadd`, `from simt.cuda.libdevice import sinf`.
sys.modules[__name__ + ".fp16"] = fp16
sys.modules[__name__ + ".libdevice"] = libdevice
# `from simt.cuda.np import numpy_support`, `from simt.cuda.kernels.transpose import transpose`.
sys.modules[__name__ + ".np"] = _np
sys.modules[__name__ + ".np.numpy_support"] = _np.numpy_support
sys.modules[__name__ + ".kernels"] = kernels
sys.modules[__name__ + ".kernels.transpose"] = _transpose_module

# Numba's type objects: float32, int32[:], void(float32[:], int32), f4, i8, ... (not
# `bool`, which `from simt.cuda import *` would shadow; Numba's name is `boolean`).
globals().update({name: t for name, t in _SCALARS.items() if name != "bool"})


def __getattr__(name):
    # `cuda.np.numpy_support`, without `np` among the names `from simt.cuda import *`
    # gives (it would shadow NumPy's `np`).
    if name == "np":
        return _np
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
