"""DLPack's names for where memory is: below _array (whose __dlpack__ and
__dlpack_device__ export) and _interop (whose from_dlpack imports)."""

import enum


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (the ones simt meets)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLCUDAManaged = 13


def dlpack_device(device):
    """(DLDeviceType, index) of a simt device's memory."""
    if device.backend == "cuda":
        return (DLDeviceType.kDLCUDA, device.index)
    if device.backend == "opencl":
        return (DLDeviceType.kDLOpenCL, device.index)
    return (DLDeviceType.kDLCPU, 0)
