"""CuPy's ``cupy.cuda.runtime`` basics over simt's devices, and Numba's ``get_version``.

Device numbers are those of ``simt.cuda.gpus``: the CUDA devices, or on a machine without
CUDA the one device simt runs on there. Versions are the CUDA toolkit's that simt compiles
with (its NVRTC's) as CUDA's integers (12040 for 12.4); 0 where there is none.
"""

from .. import _core, _device
from . import _devices
from .cudadrv.runtime import get_version  # noqa: F401  (Numba's)

is_hip = False

__all__ = ["getDeviceCount", "getDevice", "setDevice", "deviceSynchronize", "memGetInfo",
           "getDeviceProperties", "runtimeGetVersion", "driverGetVersion", "get_version",
           "is_hip"]


def getDeviceCount():
    return len(_devices.gpus)


def getDevice():
    return _devices.get_current_device().id


def setDevice(device):
    _devices.select_device(device)


def deviceSynchronize():
    _device.current_device().synchronize()


def memGetInfo():
    """(free, total) bytes of the current device."""
    return _devices.current_context().get_memory_info()


def getDeviceProperties(device):
    """The properties CuPy programs read most, under CUDA's field names."""
    found = _devices.gpus[device]
    d = found.simt_device
    major, minor = found.compute_capability
    return {"name": d.name.encode(), "totalGlobalMem": _devices.Context(d).get_memory_info()[1],
            "multiProcessorCount": d.compute_units, "major": major, "minor": minor,
            "maxThreadsPerBlock": d.max_threads_per_block,
            "maxThreadsDim": tuple(d.max_block_dim), "maxGridSize": tuple(d.max_grid_dim),
            "sharedMemPerBlock": d.max_shared_memory_per_block, "warpSize": 32}


def runtimeGetVersion():
    major, minor = get_version()
    return major * 1000 + minor * 10


def driverGetVersion():
    status = _core.nvrtc_status()
    return runtimeGetVersion() if status.get("available") else 0
