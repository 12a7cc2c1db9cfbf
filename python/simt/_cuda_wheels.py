"""NVIDIA's CUDA wheels in this Python environment, for the CUDA backend's library search
(NVRTC, and cuBLAS, cuFFT and cuSOLVER where installed).

`pip install simt[cuda13]` installs nvidia-cuda-nvrtc (with -runtime and -cccl for the
headers raw kernels include); `simt[cuda13-libs]` adds nvidia-cublas, nvidia-cufft and
nvidia-cusolver. CUDA 13's wheels unpack to site-packages/nvidia/cu13/{lib,include}, the
toolkit's layout (CUDA 12's used nvidia/cuda_nvrtc/lib, nvidia/cublas/lib,
nvidia/cufft/lib, nvidia/cusolver/lib). The C++ side cannot see sys.path, so before the
first load this module appends those lib directories to $SIMT_NVRTC_SEARCH_DIRS (named
before the other libraries came), which the search tries after $CUDA_HOME and before
/usr/local/cuda (src/backends/cuda/cuda_library_search.h)."""

import importlib.util
import os

SEARCH_DIRS_VARIABLE = "SIMT_NVRTC_SEARCH_DIRS"
# Newest first, as the C++ side orders the sonames.
_LIB_SUBDIRS = ("cu13/lib", "cu12/lib", "cuda_nvrtc/lib", "cublas/lib", "cufft/lib",
                "cusolver/lib")
# The libraries the C++ side looks for there.
_LIBRARY_PREFIXES = ("libnvrtc.so", "libcublas.so", "libcufft.so", "libcusolver.so")


def nvidia_roots():
    """The nvidia/ namespace package's folders (one per site-packages that has one)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.submodule_search_locations is None:
        return []
    return [str(p) for p in spec.submodule_search_locations]


def nvrtc_dirs():
    """Lib directories of installed NVIDIA wheels that hold a libnvrtc.so*, in search order."""
    return _dirs_holding(("libnvrtc.so",))


def library_dirs():
    """Lib directories of installed NVIDIA wheels that hold NVRTC, cuBLAS, cuFFT or
    cuSOLVER."""
    return _dirs_holding(_LIBRARY_PREFIXES)


def _dirs_holding(prefixes):
    found = []
    for root in nvidia_roots():
        for sub in _LIB_SUBDIRS:
            directory = os.path.join(root, sub)
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            if any(name.startswith(prefixes) for name in names) and directory not in found:
                found.append(directory)
    return found


def publish_search_dirs(environ=os.environ):
    """Appends library_dirs() to $SIMT_NVRTC_SEARCH_DIRS (a user's own entries stay first)."""
    current = [d for d in environ.get(SEARCH_DIRS_VARIABLE, "").split(":") if d]
    added = [d for d in library_dirs() if d not in current]
    if added:
        environ[SEARCH_DIRS_VARIABLE] = ":".join(current + added)
    return added
