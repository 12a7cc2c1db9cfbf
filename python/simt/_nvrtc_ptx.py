"""PTX from generated CUDA C++, through NVRTC called with ctypes (for compile_ptx and
inspect_asm): simt's own NVRTC binding (_core.nvrtc_compile) returns cubins, not PTX.

The library is looked for where simt's C++ loader looks (src/backends/cuda/nvrtc.h):
$SIMT_NVRTC_PATH alone when set, else libnvrtc.so.13 / .12 / .so in $CUDA_HOME/lib64,
$CUDA_PATH/lib64, /usr/local/cuda/lib64 and $SIMT_NVRTC_SEARCH_DIRS, else through the
dynamic loader. The options are the CUDA backend's: -std=c++17, and --use_fast_math with
fastmath, else --fmad=false.
"""

import ctypes
import os

from . import _core
from .errors import BackendCompileError

_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")
_library = None


class NvrtcUnavailable(RuntimeError):
    """No NVRTC library to compile PTX with."""


def _candidates():
    explicit = os.environ.get("SIMT_NVRTC_PATH")
    if explicit:
        return [explicit]
    dirs = [os.path.join(os.environ[v], "lib64") for v in ("CUDA_HOME", "CUDA_PATH")
            if os.environ.get(v)]
    dirs.append("/usr/local/cuda/lib64")
    dirs += [d for d in os.environ.get("SIMT_NVRTC_SEARCH_DIRS", "").split(":") if d]
    return [os.path.join(d, n) for d in dirs for n in _SONAMES] + list(_SONAMES)


def _load():
    global _library
    if _library is not None:
        return _library
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            library = ctypes.CDLL(path)
            library.nvrtcGetPTX  # noqa: B018  (an NVRTC: it has the entry point)
        except (OSError, AttributeError):
            continue
        library.nvrtcGetErrorString.restype = ctypes.c_char_p
        _library = library
        return library
    reason = _core.nvrtc_compile("", 90).get("reason") or "libnvrtc was not found"
    raise NvrtcUnavailable(f"compiling PTX needs NVRTC, the CUDA run-time compiler: {reason} "
                           f"(install the CUDA toolkit or the nvidia-cuda-nvrtc wheel, or set "
                           f"SIMT_NVRTC_PATH)")


def available():
    try:
        _load()
        return True
    except NvrtcUnavailable:
        return False


def ptx(source, cc=(7, 5), fastmath=False, debug=False):
    """The PTX of CUDA C++ `source` for compute capability `cc`."""
    nvrtc = _load()
    program = ctypes.c_void_p()

    def check(status, what):
        if status:
            raise RuntimeError(f"NVRTC {what}: {nvrtc.nvrtcGetErrorString(status).decode()}")

    check(nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"simt_kernel.cu",
                                   0, None, None), "nvrtcCreateProgram")
    try:
        options = [f"--gpu-architecture=compute_{cc[0]}{cc[1]}", "-std=c++17",
                   "--use_fast_math" if fastmath else "--fmad=false"]
        if debug:
            options.append("-lineinfo")
        array = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        status = nvrtc.nvrtcCompileProgram(program, len(options), array)
        if status:
            size = ctypes.c_size_t()
            nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            nvrtc.nvrtcGetProgramLog(program, log)
            raise BackendCompileError(f"NVRTC rejected the generated CUDA C++ for "
                                      f"compute_{cc[0]}{cc[1]}:\n"
                                      f"{log.value.decode(errors='replace')}")
        size = ctypes.c_size_t()
        check(nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size)), "nvrtcGetPTXSize")
        text = ctypes.create_string_buffer(size.value)
        check(nvrtc.nvrtcGetPTX(program, text), "nvrtcGetPTX")
        return text.value.decode()
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
