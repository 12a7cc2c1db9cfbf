"""simt: parallel kernels written in Python for CUDA GPUs, OpenCL devices and the CPU.

Write a kernel as a Python function with ``@simt.kernel``; simt's C++
compiler turns it into CUDA C++, OpenCL C or C++ for the CPU. NumPy's dtypes
name the scalar types (``simt.float32`` is ``numpy.float32``).
"""

import atexit
import importlib as _importlib
import sys as _sys

from numpy import (  # noqa: F401  (the scalar types kernels name)
    bool, bool_, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64)

from . import _cuda_wheels, _opencl_wheels

_cuda_wheels.publish_search_dirs()  # before the CUDA backend's first NVRTC search
_opencl_wheels.publish_drivers()  # before the OpenCL backend first opens its libraries

from ._core import version as _core_version  # noqa: E402
from ._device_api import (  # noqa: F401  (the device API; simt.cuda adds Numba's host API)
    activemask, all_sync, any_sync, eq_sync, atomic, ballot_sync, blockDim, cg, const, blockIdx,
    block_dim, block_idx, grid, grid_dim, gridDim, gridsize, laneid, local, shared,
    shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, syncthreads, syncthreads_and,
    syncthreads_count, syncthreads_or, thread_idx, threadIdx, threadfence, threadfence_block,
    threadfence_system, warpsize, lanemask_lt, match_all_sync, match_any_sync, syncwarp)
from ._array import (  # noqa: F401
    Array, empty, empty_like, full, to_device, zeros, zeros_like)
from ._interop import asarray, from_dlpack  # noqa: F401
from . import _pickling  # noqa: F401  (simt arrays pickle: through host memory)
from ._device import (  # noqa: F401
    Device, clear_cache, current_device, devices, free_cached_memory, get_device, memory_stats,
    use_device)
from ._kernel import Func, Kernel, func, kernel  # noqa: F401
from ._graph import Graph, graph  # noqa: F401
from ._foreign import CUSource, declare_device  # noqa: F401
from ._stream import (  # noqa: F401
    Event, Stream, default_stream, managed_empty, mapped_empty, pinned_empty)
from ._raw_kernels import RawKernel, RawModule  # noqa: F401
from ._snippet_kernels import ElementwiseKernel, ReductionKernel  # noqa: F401
from ._types import typeof  # noqa: F401
from ._array_api._namespace import *  # noqa: F401,F403  (the array namespace)
from ._array_api._namespace import __array_api_version__  # noqa: F401
from .errors import (  # noqa: F401
    BackendCompileError, CompileError, DeviceError, OutOfMemoryError, PerformanceWarning,
    RaceError, RaceWarning, TypingError)

__version__ = "0.1.0"

ndarray = Array  # CuPy's and NumPy's name for the array type (isinstance(x, simt.ndarray))

# Submodules imported on first use, so that `import simt` stays cheap: simt.cuda (Numba's
# host API: jit, vectorize, memory, devices) is most of the package's own import time;
# simt.random, simt.fft, simt.linalg, simt.testing, simt.dask and simt.mpi are needed by
# few programs.
_LAZY_SUBMODULES = frozenset({"cuda", "random", "fft", "linalg", "dask", "mpi", "testing"})


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'simt' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES)


# Queued device work finishes before the interpreter tears modules (and the
# kernels they hold) down: a driver still compiling or running a kernel when
# its program is released can crash the process.
atexit.register(_core.finish_queued_work)

# Dask finds simt's chunks in tables of its own (simt.dask): filled here where Dask came
# first, as in every dask.distributed worker, which imports simt only to run a task;
# else `import simt.dask` fills them. Not imported otherwise: Dask is slow to import.
if "dask" in _sys.modules:
    try:
        _importlib.import_module(f"{__name__}.dask")
    except (ImportError, AttributeError) as _error:  # a Dask too old for simt.dask
        import warnings as _warnings

        _warnings.warn(f"simt arrays are not registered with Dask: {_error}", RuntimeWarning,
                       stacklevel=2)
