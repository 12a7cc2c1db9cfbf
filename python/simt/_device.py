"""Devices: which exist, which is current, and choosing one."""

from . import _core

Device = _core.Device


def devices():
    """Every available device: cuda:N, then opencl:N, then the CPU."""
    return _core.devices()


def backend_devices(backend):
    """The devices of one backend ("cuda", "opencl", "cpu"), starting only that backend:
    for code that asks about one backend (simt.cuda's gpus, __cuda_array_interface__
    pointers), which must not make a CUDA program pay OpenCL's start-up."""
    return _core.backend_devices(backend)


def get_device(device=None):
    """The device named by an id ("cpu", "cuda:0", "opencl:1"), or the current one for None."""
    if device is None:
        return _core.current_device()
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        return _core.get_device(device)
    raise TypeError(f"a device is a simt.Device or an id such as 'cpu', not {type(device).__name__}")


def compute_capability(device):
    """(major, minor) of a CUDA device's architecture; (0, 0) on others, which have none."""
    arch = device.architecture
    if device.backend == "cuda" and arch.startswith("sm_"):
        digits = arch[3:]
        return int(digits[:-1]), int(digits[-1])
    return (0, 0)


# The questions the array library and the facades ask of a device's backend, answered
# once here rather than by comparing `device.backend` where each is needed.

GPU_BLOCK = 256  # threads per block of one-dimensional work on GPUs


def runs_on_host(device):
    """Whether `device` is the CPU: its arrays are host memory, which NumPy may compute on
    in place (sorting, searching, LAPACK, pocketfft), and its blocks are tasks of a thread
    pool whose threads run as loops."""
    return device.backend == "cpu"


def block_size(device, preferred=GPU_BLOCK):
    """Threads per block of one-dimensional work of independent elements: one on the cpu
    device (a block's threads are a loop on one core; more blocks spread over the pool),
    else `preferred`, at most what the device allows."""
    return 1 if runs_on_host(device) else min(preferred, device.max_threads_per_block)


def builds_cuda(device):
    """Whether `device`'s kernels are CUDA C++ built by NVRTC for the driver API: CUB's
    headers, 64-bit warp shuffles and occupancy queries are there."""
    return device.backend == "cuda"


def builds_opencl(device):
    """Whether `device`'s kernels are OpenCL C (warps only as sub-groups, where the device
    has them; no CUB; float16 through the cl_khr_fp16 extension)."""
    return device.backend == "opencl"


def current_device():
    """The device kernels launch on in this thread: simt.use_device's, else the default
    ($SIMT_DEVICE, else the first GPU, else the CPU)."""
    return _core.current_device()


class use_device:
    """Makes `device` current in this thread: kernels launch on it and arrays are made on
    it. As a statement (``simt.use_device("cpu")``) it stays current, as CuPy's
    ``Device.use()``; in a ``with`` block the previous device is current again after it."""

    __slots__ = ("device", "_previous")

    def __init__(self, device):
        self.device = get_device(device)
        self._previous = _core.set_current_device(self.device)

    def __enter__(self):
        return self.device

    def __exit__(self, *exc):
        _core.set_current_device(self._previous)
        return False


def memory_stats(device=None):
    """The device's memory pool, in bytes: ``in_use`` (live arrays), ``held`` (taken from
    the device, in use or cached for reuse), ``peak_in_use``, and ``segments`` (device
    allocations held)."""
    return _core.memory_stats(get_device(device))


def free_cached_memory(device=None):
    """Gives the device back the memory its pool holds but no array uses; returns the
    bytes given back. (An allocation that fails does this by itself before it gives up.)"""
    return _core.free_cached_memory(get_device(device))


def clear_cache():
    """Removes every compiled kernel from the disk cache ($SIMT_CACHE_DIR, else the user's
    cache folder); returns how many entries went. Kernels compiled in this process stay."""
    return _core.clear_cache()
