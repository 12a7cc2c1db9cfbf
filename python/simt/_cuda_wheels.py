"""NVIDIA's CUDA wheels in this Python environment, for the CUDA backend's NVRTC search.

`pip install simt[cuda13]` installs nvidia-cuda-nvrtc (with -runtime and -cccl for the
headers raw kernels include); they unpack to site-packages/nvidia/cu13/{lib,include}, the
toolkit's layout (CUDA 12's wheels used nvidia/cuda_nvrtc/lib). The C++ side cannot see
sys.path, so before the first NVRTC load this module appends those lib directories to
$SIMT_NVRTC_SEARCH_DIRS, which the search tries after $CUDA_HOME and before
/usr/local/cuda (src/backends/cuda/nvrtc.h has the whole order)."""

import importlib.util
import os

SEARCH_DIRS_VARIABLE = "SIMT_NVRTC_SEARCH_DIRS"
# Newest first, as the C++ side orders the sonames.
_LIB_SUBDIRS = ("cu13/lib", "cu12/lib", "cuda_nvrtc/lib")


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
    found = []
    for root in nvidia_roots():
        for sub in _LIB_SUBDIRS:
            directory = os.path.join(root, sub)
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            if any(name.startswith("libnvrtc.so") for name in names) and directory not in found:
                found.append(directory)
    return found


def publish_search_dirs(environ=os.environ):
    """Appends nvrtc_dirs() to $SIMT_NVRTC_SEARCH_DIRS (a user's own entries stay first)."""
    current = [d for d in environ.get(SEARCH_DIRS_VARIABLE, "").split(":") if d]
    added = [d for d in nvrtc_dirs() if d not in current]
    if added:
        environ[SEARCH_DIRS_VARIABLE] = ":".join(current + added)
    return added
