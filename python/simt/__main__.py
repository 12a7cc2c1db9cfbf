"""python -m simt info: versions, backends (what each found where, and for what is missing,
the Debian or pip package that provides it), devices."""

import glob
import os
import platform
import shutil
import sys

import numpy as np

from . import __version__, _core, _vendor_libraries, _cuda_wheels, _opencl_wheels

_INDENT = " " * 10

# What provides each missing piece, by backend.
_CUDA_DRIVER_HINT = ("the CUDA driver (libcuda.so.1) comes with NVIDIA's driver, not with pip: "
                     "Debian: apt install nvidia-driver (non-free); Ubuntu: ubuntu-drivers install")
# (Not Debian's nvidia-cuda-toolkit, CUDA 11.8 in Debian 12: simt looks for libnvrtc.so.13 and .12.)
_NVRTC_HINT = ("pip install 'simt[cuda13]' (nvidia-cuda-nvrtc, -runtime, -cccl), or NVIDIA's "
               "CUDA 13 toolkit (cuda-nvrtc-13-0 from NVIDIA's apt repository), or set "
               "SIMT_NVRTC_PATH")
_CUDA_HEADERS_HINT = ("raw kernels that include CUDA headers (cuda_fp16.h) need them next to "
                      "NVRTC: pip install 'simt[cuda13]', or the toolkit's cuda-cudart-dev-13-0")
_OPENCL_PIP_HINT = ("pip install 'simt[pocl]' (PoCL for CPUs, from the "
                    f"{_opencl_wheels.PIP_PACKAGE} wheel; needs no ICD loader, and links "
                    "kernels with the system's ld, libc.so and libgcc: apt install gcc libc6-dev)")
_POCL_LINKER_HINT = ("PoCL links kernels as a C compiler would, and this machine lacks {}: "
                     "apt install gcc libc6-dev")
_OPENCL_LOADER_HINT = (f"{_OPENCL_PIP_HINT}, or the system's ICD loader and a driver: apt install "
                       "ocl-icd-libopencl1 pocl-opencl-icd (CPUs)")
_OPENCL_DRIVER_HINT = (f"an OpenCL driver: {_OPENCL_PIP_HINT}, or apt install pocl-opencl-icd "
                       "(CPUs), mesa-opencl-icd (AMD), intel-opencl-icd (Intel GPUs) or "
                       "nvidia-opencl-icd")
_CPU_HINT = ("this simt was built without its CPU backend: pip install the simt wheel, or "
             "apt install llvm-19-dev libclang-19-dev libclang-cpp19-dev libtbb-dev and "
             "reinstall from source")


def _nvrtc_lines():
    """Where the CUDA backend's NVRTC comes from (or what provides it), GPU or not."""
    status = _core.nvrtc_status()
    if not status["available"]:
        return [f"NVRTC: {_nvrtc_missing(status['reason'])}", f"to get it: {_NVRTC_HINT}"]
    source = "pip wheel" if any(status["path"].startswith(d)
                                for d in _cuda_wheels.nvrtc_dirs()) else "system"
    lines = [f"NVRTC {status['version']}: {status['path']} ({source})"]
    if status["include_dir"]:
        lines.append(f"CUDA headers: {status['include_dir']}")
    else:
        lines.append(f"CUDA headers: none next to NVRTC; {_CUDA_HEADERS_HINT}")
    return lines


# The toolkit libraries cuda devices call when found (_vendor_libraries), what for, and what
# happens without them (or with their switch off).
_LIBRARIES = (("cuBLAS", "cublas", "matmul", "runs simt's kernels"),
              ("cuFFT", "cufft", "simt.fft", "runs simt's kernels"),
              ("cuSOLVER", "cusolver", "simt.linalg's decompositions",
               "raise NotImplementedError on cuda"))


def _library_lines():
    """Whether cuBLAS, cuFFT and cuSOLVER were found, where, and whether they are
    switched off."""
    lines = []
    for name, key, used_for, without in _LIBRARIES:
        status = _vendor_libraries.status(key)
        variable = _vendor_libraries.SWITCHES[key]
        if not status["available"]:
            first = status["reason"].splitlines()[0]
            lines.append(f"{name}: not found, {used_for} {without} ({first})")
            continue
        source = "pip wheel" if any(status["path"].startswith(d)
                                    for d in _cuda_wheels.library_dirs()) else "system"
        off = "" if _vendor_libraries.enabled(key) else f"; off ({variable}=0): {used_for} " \
            f"{without}"
        lines.append(f"{name} {status['version']}: {status['path']} ({source}){off}")
    return lines


def _nvrtc_missing(reason):
    """One line of the C++ search's reason (src/backends/cuda/nvrtc.cpp): where it looked."""
    lines = reason.splitlines()
    if reason.startswith("SIMT_NVRTC_PATH="):
        return lines[0]
    prefix = "no libnvrtc.so* in:"
    searched = [line.strip()[len(prefix):].strip() for line in lines
                if line.strip().startswith(prefix)]
    where = f"in {searched[0]} or " if searched else ""
    return f"not found {where}on the dynamic loader's path"


def _missing_for_pocl():
    """What PoCL's kernel link needs and this machine lacks, looked for as
    src/backends/opencl/opencl_device.cpp (missing_pocl_linker) does."""
    ld = shutil.which("ld") or any(os.access(p, os.X_OK) for p in ("/usr/bin/ld", "/bin/ld"))
    libc = any(os.path.exists(p) for p in (
        "/usr/lib/x86_64-linux-gnu/libc.so", "/lib/x86_64-linux-gnu/libc.so",
        "/usr/lib64/libc.so", "/usr/lib/libc.so"))
    libgcc = glob.glob("/usr/lib/gcc/*/*/libgcc.a") or glob.glob("/usr/lib64/gcc/*/*/libgcc.a")
    return [what for found, what in ((ld, "ld (binutils)"), (libc, "libc.so (libc6-dev)"),
                                     (libgcc, "libgcc (libgcc-<N>-dev)")) if not found]


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _opencl_lines(detail):
    """Where the OpenCL backend's libraries come from: the ICD loader (or why there is none)
    and each driver a pip wheel installed (python/simt/_opencl_wheels.py), used or not."""
    status = _core.opencl_libraries()
    in_use = {library["path"]: library["kind"] for library in status["libraries"]}
    explicit = os.environ.get("SIMT_OPENCL_LIBRARY")
    lines = []
    if explicit:
        kind = next(iter(in_use.values()), None)
        what = {"loader": "an ICD loader", "driver": "a driver, opened without a loader"}
        lines.append(f"SIMT_OPENCL_LIBRARY={explicit}: "
                     + (what[kind] if kind else "could not be used"))
        return lines
    if status["loader"]:
        lines.append(f"ICD loader: {status['loader']} (system)")
    else:
        lines.append("ICD loader: none (a driver from pip needs none; for the system's drivers: "
                     "apt install ocl-icd-libopencl1)")
    problems = status["driver_problems"]
    for icd, library in _opencl_wheels.wheel_drivers():
        source = _opencl_wheels.owner(icd) or icd
        # The backend names a library as the dynamic loader first mapped it, which may be
        # another name of the same file.
        opened = next((path for path in in_use if _same_file(path, library)), None)
        if opened is not None and f"of {opened}: not used" in detail:  # opencl_api.cpp
            lines.append(f"driver from pip: {library} ({source}): not used, the ICD loader "
                         "lists a platform of the same name")
        elif opened is not None:
            lines.append(f"driver from pip: {library} ({source}), opened without a loader")
        else:
            why = next((line.split(": ", 1)[1] for line in problems.splitlines()
                        if line.strip().startswith(library + ": ")), "not opened")
            lines.append(f"driver from pip: {library} ({source}): {why}")
    return lines


def _hints(name, available, detail):
    """Lines under a backend's status: what it uses and, for what is missing, what provides it."""
    if name == "cuda":
        lines = _nvrtc_lines() + _library_lines()
        if "CUDA driver unavailable" in detail:
            lines.append(f"to get the driver: {_CUDA_DRIVER_HINT}")
        wheels = os.environ.get(_cuda_wheels.SEARCH_DIRS_VARIABLE)
        if wheels:
            lines.append(f"CUDA library search also looks in: {wheels}")
        return lines
    if name == "opencl":
        lines = _opencl_lines(detail)
        # What src/backends/opencl/opencl_device.cpp checks before PoCL builds a kernel.
        missing = _missing_for_pocl() if "PoCL" in detail else []
        if missing:
            lines.append(_POCL_LINKER_HINT.format(", ".join(missing)))
        if not available:
            missing_loader = "library not found" in detail  # src/backends/opencl/opencl_api.cpp
            lines.append(
                f"to get it: {_OPENCL_LOADER_HINT if missing_loader else _OPENCL_DRIVER_HINT}")
        return lines
    if available:
        return []
    if name == "cpu":
        return [f"to get it: {_CPU_HINT}"]
    return []


def info():
    print(f"simt {__version__} (core {_core.version()} at {_core.__file__}), "
          f"Python {platform.python_version()}, NumPy {np.__version__}")
    print("backends:")
    for name, available, detail in _core.backend_status():
        print(f"  {name:<7} {'available' if available else 'unavailable'}: {detail}")
        for line in _hints(name, available, detail):
            print(f"{_INDENT}{line}")
    print("devices:")
    for device in _core.devices():
        print(f"  {device.id:<9} {device.name}")
    try:
        print(f"default device: {_core.default_device().id}")
    except Exception as error:  # a bad SIMT_DEVICE is worth showing, not a traceback
        print(f"default device: none ({error})")
    folder = _core.cache_folder()
    print(f"cache folder: {folder or 'none (the disk cache is off: SIMT_CACHE_DIR=off)'}")


def main(argv):
    if argv[1:] in ([], ["info"]):
        info()
        return 0
    print("usage: python -m simt info", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
