"""PTX from generated CUDA C++ (for compile_ptx and inspect_asm), through the NVRTC simt's
CUDA backend loads (_core.nvrtc_ptx: the same library search, $SIMT_NVRTC_PATH first).
The options are the CUDA backend's: --use_fast_math with fastmath, else --fmad=false."""

from . import _core
from .errors import BackendCompileError


class NvrtcUnavailable(RuntimeError):
    """No NVRTC library to compile PTX with."""


def available():
    return bool(_core.nvrtc_ptx('extern "C" __global__ void k() {}')["available"])


def ptx(source, cc=(7, 5), fastmath=False, debug=False):
    """The PTX of CUDA C++ `source` for compute capability `cc`."""
    options = ["--use_fast_math" if fastmath else "--fmad=false"]
    if debug:
        options.append("-lineinfo")
    result = _core.nvrtc_ptx(source, cc[0] * 10 + cc[1], options)
    if not result["available"]:
        raise NvrtcUnavailable(f"compiling PTX needs NVRTC, the CUDA run-time compiler: "
                               f"{result['reason']} (install the CUDA toolkit or the "
                               f"nvidia-cuda-nvrtc wheel, or set SIMT_NVRTC_PATH)")
    if not result["ok"]:
        raise BackendCompileError(f"NVRTC rejected the generated CUDA C++ for "
                                  f"compute_{cc[0]}{cc[1]}:\n{result['log']}")
    return result["ptx"]
