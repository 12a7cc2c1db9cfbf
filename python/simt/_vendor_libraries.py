"""The vendor libraries of cuda devices, as the core answers for every namespace that uses
one: cuBLAS for matmul (_array_api/_cublas.py), cuFFT for simt.fft (fft/_cufft.py),
cuSOLVER for simt.linalg's decompositions (linalg/_cusolver.py). Whether a library may
be used on a device (`usable`) and its handles per thread (`thread_handle`) live here;
each namespace keeps its own glue beside it.

All are loaded with dlopen by the C++ core (src/backends/cuda/libs/: cublas.h, cufft.h,
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
is not thread-safe); cuFFT plans in a bounded cache shared by all threads (fft/_cufft.py: a
plan runs one execution at a time, src/backends/cuda/libs/cufft.h). All hold their device's
primary context and are destroyed with it current: a thread's handles when the thread ends,
the rest when the interpreter clears their modules, before the process exits.
"""

import functools
import os
import threading

from . import _core
from ._device import builds_cuda

__all__ = ["SWITCHES", "enabled", "status", "usable", "unusable", "thread_handle"]

SWITCHES = {"cublas": "SIMT_CUBLAS", "cufft": "SIMT_CUFFT", "cusolver": "SIMT_CUSOLVER"}

_STATUS = {"cublas": "cublas_status", "cufft": "cufft_status", "cusolver": "cusolver_status"}


def enabled(library):
    """Whether `library` ('cublas', 'cufft' or 'cusolver') may be used: not switched off
    with SIMT_CUBLAS=0 / SIMT_CUFFT=0 / SIMT_CUSOLVER=0."""
    return os.environ.get(SWITCHES[library], "1").strip() != "0"


@functools.lru_cache(maxsize=None)
def status(library):
    """{available, reason | version, path} of `library` ('cublas', 'cufft' or 'cusolver'):
    loaded once per process (no GPU needed)."""
    return dict(getattr(_core, _STATUS[library])())


def usable(library, device):
    """Whether work on `device` goes to `library`: a cuda device, the library not switched
    off, and found."""
    return builds_cuda(device) and enabled(library) and status(library)["available"]


_local = threading.local()


def thread_handle(library, make, device):
    """This thread's handle of `library` on `device` (`make(device)` creates it on first
    use): the libraries' handles are not thread-safe."""
    handles = _local.__dict__.setdefault(library, {})
    handle = handles.get(device.id)
    if handle is None:
        handle = handles[device.id] = make(device)
    return handle


def unusable(library):
    """Why `library` cannot be used on cuda devices (a phrase), or None when it can."""
    if not enabled(library):
        return f"is switched off ({SWITCHES[library]}=0)"
    found = status(library)
    if not found["available"]:
        return f"was not found ({found['reason'].splitlines()[0]})"
    return None
