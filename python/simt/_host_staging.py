"""NumPy arrays passed straight to a kernel on a device the host cannot address (a GPU,
an OpenCL device): copied there before the launch and back after it, as Numba does,
with a PerformanceWarning once per kernel. A NumPy record (np.void) comes as the 0-d
array viewing its bytes, so copying back reaches the array it is an element of. The launch path (C++) calls these two
functions only for such arguments; on the cpu device NumPy arrays are used in place."""

import warnings

import numpy as np

from . import _core
from ._array import Array, to_device
from .errors import PerformanceWarning

_warned = set()


def _stage(array, device, kernel_name):
    if kernel_name not in _warned:
        _warned.add(kernel_name)
        warnings.warn(f"{kernel_name}: a NumPy array argument is copied to {device.id} before "
                      f"the launch and back after it, every launch; copy it once with "
                      f"simt.to_device (cuda.to_device) to keep it there",
                      PerformanceWarning, stacklevel=2)
    copy = to_device(array, device=device)
    if not array.flags.writeable:  # a kernel writing it is a TypingError, as on the CPU
        copy = Array._wrap(copy._impl.readonly_view())
    return copy


def _copy_back(copy, original):
    if original.flags.writeable:
        original[...] = copy.get()


_core._register_host_staging(np.ndarray, np.void, _stage, _copy_back)
