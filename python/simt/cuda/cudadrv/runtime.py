"""Numba's numba.cuda.cudadrv.runtime: `get_version()`, the CUDA toolkit version
(major, minor) simt compiles with: its NVRTC's. (0, 0) where no NVRTC is found."""

from ... import _core

__all__ = ["get_version"]


def get_version():
    status = _core.nvrtc_status()
    if not status.get("available"):
        return (0, 0)
    major, _, minor = str(status["version"]).partition(".")
    return int(major), int(minor.split(".")[0] or 0)
