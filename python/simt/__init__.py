"""simt: parallel kernels written in Python for CUDA GPUs, OpenCL devices and the CPU.

Write a kernel as a Python function with ``@simt.kernel``; simt's C++
compiler turns it into CUDA C++, OpenCL C or C++ for the CPU. NumPy's dtypes
name the scalar types (``simt.float32`` is ``numpy.float32``).
"""

from numpy import (  # noqa: F401  (the scalar types kernels name)
    bool_, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64)

from . import cuda  # noqa: F401
from ._core import version as _core_version
from ._device_api import (  # noqa: F401
    blockDim, blockIdx, block_dim, block_idx, grid, grid_dim, gridDim, gridsize,
    threadIdx, thread_idx)
from ._array import (  # noqa: F401
    Array, empty, empty_like, full, to_device, zeros, zeros_like)
from ._device import Device, current_device, devices, get_device, use_device  # noqa: F401
from ._kernel import Func, Kernel, func, kernel  # noqa: F401
from ._types import typeof  # noqa: F401
from .errors import (  # noqa: F401
    BackendCompileError, CompileError, DeviceError, OutOfMemoryError, TypingError)

__version__ = "0.1.0"
