"""The CUDA toolkit's libraries on cuda devices: cuBLAS for matmul, cuFFT for simt.fft,
cuSOLVER for simt.linalg's decompositions.

All are loaded with dlopen by the C++ core (src/backends/cuda/cublas.h, cufft.h,
cusolver.h) from where NVRTC is found: $CUDA_HOME, the environment's nvidia-* wheels
(_cuda_wheels.py), /usr/local/cuda, the loader's path; simt builds without them. When
cuBLAS or cuFFT is missing, or switched off, the operation runs simt's own generated
kernels instead, silently; simt has no kernels of its own for the decompositions, so
without cuSOLVER they raise NotImplementedError on cuda devices, saying why:

    SIMT_CUBLAS=0     matmul on cuda devices uses simt's tiled kernel
    SIMT_CUFFT=0      simt.fft on cuda devices uses simt's Stockham kernels
    SIMT_CUSOLVER=0   simt.linalg's decompositions on cuda devices raise NotImplementedError

(read at each call, so a benchmark or a test can compare the two in one process).

cuBLAS and cuSOLVER handles are kept per (device, thread), as the libraries ask (a handle
is not thread-safe); cuFFT plans in a bounded cache shared by all threads (a plan runs one
execution at a time, src/backends/cuda/cufft.h). All hold their device's primary context
and are destroyed with it current: a thread's handles when the thread ends, the rest when
the interpreter clears this module, before the process exits.
"""

import functools
import os
import threading
import warnings
from collections import OrderedDict

from . import _core
from .errors import DeviceError

__all__ = ["enabled", "status", "cublas_handle", "cufft_plan", "cusolver_handle",
           "cusolver_unusable"]

SWITCHES = {"cublas": "SIMT_CUBLAS", "cufft": "SIMT_CUFFT", "cusolver": "SIMT_CUSOLVER"}

_STATUS = {"cublas": "cublas_status", "cufft": "cufft_status", "cusolver": "cusolver_status"}

# Plans hold device memory (cuFFT's work area, up to a few times the data's size for
# large transforms): a few are kept, the least recently used dropped first.
_PLANS_KEPT = 16


def enabled(library):
    """Whether `library` ('cublas', 'cufft' or 'cusolver') may be used: not switched off
    with SIMT_CUBLAS=0 / SIMT_CUFFT=0 / SIMT_CUSOLVER=0."""
    return os.environ.get(SWITCHES[library], "1").strip() != "0"


@functools.lru_cache(maxsize=None)
def status(library):
    """{available, reason | version, path} of `library` ('cublas', 'cufft' or 'cusolver'):
    loaded once per process (no GPU needed)."""
    return dict(getattr(_core, _STATUS[library])())


def _usable(library, device):
    return device.backend == "cuda" and enabled(library) and status(library)["available"]


_local = threading.local()


def _thread_handle(library, make, device):
    handles = _local.__dict__.setdefault(library, {})
    handle = handles.get(device.id)
    if handle is None:
        handle = handles[device.id] = make(device)
    return handle


def cublas_handle(device):
    """This thread's cuBLAS handle on `device`, created on first use; None when matmul on
    `device` should use simt's kernels (not cuda, switched off, or no cuBLAS)."""
    if not _usable("cublas", device):
        return None
    if device.id in _cublas_failed:
        return None
    try:
        return _thread_handle("cublas", _core.CublasHandle, device)
    except DeviceError as error:
        # A library newer than the driver (cublasCreate's NOT_INITIALIZED), or no memory
        # for its workspace: matmul still works, on simt's kernel; said once.
        _cublas_failed[device.id] = str(error)
        warnings.warn(f"cuBLAS could not start on {device.id} ({error}); matmul there "
                      f"uses simt's own kernel", RuntimeWarning, stacklevel=4)
        return None


def cusolver_handle(device):
    """This thread's cuSOLVER handle on `device`, created on first use; None when
    `device` has none (not cuda, switched off, or no cuSOLVER: cusolver_unusable says
    why)."""
    if not _usable("cusolver", device):
        return None
    return _thread_handle("cusolver", _core.CusolverHandle, device)


def cusolver_unusable(device):
    """Why the cuda `device` has no cuSOLVER handle (a phrase), or None when it has."""
    if not enabled("cusolver"):
        return "is switched off (SIMT_CUSOLVER=0)"
    found = status("cusolver")
    if not found["available"]:
        return f"was not found ({found['reason'].splitlines()[0]})"
    return None


_cublas_failed = {}  # device id -> why cuBLAS could not start there


_plans = OrderedDict()
_plans_lock = threading.Lock()


def cufft_usable(device):
    """Whether simt.fft on `device` goes to cuFFT."""
    return _usable("cufft", device)


def cufft_plan(device, kind, n, batch):
    """A cuFFT plan of `kind` ('C2C', 'Z2Z', 'R2C', 'D2Z', 'C2R', 'Z2D') for `batch`
    C-contiguous transforms of sizes `n` on `device`, from the cache or made now."""
    key = (device.id, kind, tuple(n), batch)
    with _plans_lock:
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
            return plan
    plan = _core.CufftPlan(device, kind, list(n), batch)  # without the lock: may take ms
    with _plans_lock:
        _plans[key] = plan
        _plans.move_to_end(key)
        while len(_plans) > _PLANS_KEPT:
            _plans.popitem(last=False)
    return plan
