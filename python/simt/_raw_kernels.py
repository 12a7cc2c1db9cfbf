"""Raw kernels: CUDA C++ or OpenCL C source in a string, as CuPy's RawKernel and RawModule.

The source language follows the device a kernel launches on: CUDA C++ (NVRTC) on
``cuda:N``, compiled as C++ on the cpu device, OpenCL C on ``opencl:N``, where CUDA
C++ given without ``backend=`` is translated (_cuda_to_opencl). Launches use the syntax
of Python kernels, ``k[grid, block](*args)``; arguments are checked against the
parameters the driver reports.
"""

import operator

from . import _core, _cuda_to_opencl
from ._device import get_device
from .errors import BackendCompileError

_BACKENDS = (None, "cuda", "nvrtc", "opencl")


def _strings(value, what):
    if isinstance(value, str):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be a string or a sequence of strings, "
                        f"not {type(value).__name__}") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must hold strings, not {type(item).__name__}")
    return items


def _source(code, what):
    if isinstance(code, bytes):
        code = code.decode()
    if not isinstance(code, str):
        raise TypeError(f"{what} takes the kernel's source as a string, not {type(code).__name__}")
    return code


def _device_or_none(device):
    return None if device is None else get_device(device)


class RawKernel:
    """A kernel written in the device's language: CUDA C++ (``extern "C" __global__``) on a
    CUDA device, OpenCL C (``__kernel``) on an OpenCL device.

    ``RawKernel(code, name, options=(), backend=None, *, device=None)``: ``options`` are
    passed to the compiler (NVRTC's, or clBuildProgram's, e.g. ``-I/path`` or ``-D N=4``);
    ``backend`` ("cuda" or "opencl") states the source language, so launching on another
    kind of device is a clear error; ``device`` pins the kernel to a device (else it runs
    on the current one). Launch as ``k[grid, block](*args)`` or
    ``k[grid, block, stream, shared_bytes](*args)``, or CuPy's ``k(grid, block, args)``.
    Arrays are passed as a pointer to their first element; Python ``int``, ``float``,
    ``bool`` and ``complex`` as int64, float64, bool and complex128 (pass NumPy scalars,
    e.g. ``numpy.int32(n)``, for other types).
    """

    def __init__(self, code, name, options=(), backend=None, *, device=None,
                 name_expressions=()):
        if not isinstance(name, str):
            raise TypeError(f"a raw kernel's name is a string, not {type(name).__name__}")
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be None, 'cuda' (or 'nvrtc') or 'opencl', "
                             f"not {backend!r}")
        self.code = _source(code, "RawKernel")
        self.name = name
        self.options = tuple(_strings(options, "options"))
        self.backend = backend
        self._device = _device_or_none(device)
        expressions = _strings(name_expressions, "name_expressions")
        # CUDA C++ given no backend: its OpenCL C translation goes along, for OpenCL devices.
        opencl = None if backend is not None else \
            _cuda_to_opencl.raw_kernel_for_opencl(self.code, name, expressions, self.options)
        self._kernel = _core.RawKernel(self.code, name, list(self.options), expressions,
                                       self._device, backend, opencl)

    def compile(self, device=None):
        """Compiles now (for ``device``, else the kernel's or the current device) instead of
        at the first launch; raises simt.BackendCompileError with the compiler's log."""
        self._kernel.prepare(get_device(device) if device is not None else self._device)

    def __getitem__(self, config):
        # Parsed anew each time in C++ (0.14 us): cheaper than a cache of them in Python.
        return self._kernel.configure(config)

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        """CuPy's form: ``kernel(grid, block, args, shared_mem=0)``."""
        if not isinstance(args, tuple):
            raise TypeError(f"a raw kernel called as kernel(grid, block, args) takes args as a "
                            f"tuple, not {type(args).__name__}")
        self[grid, block, stream, shared_mem](*args)

    def max_resident_blocks(self, threads, shared_mem=0, device=None):
        """The most blocks of `threads` threads (with `shared_mem` bytes of dynamic shared
        memory each) resident on the device at once: a full wave of a grid-stride launch.
        0 where the device cannot say (OpenCL); the CPU runs every block at once."""
        threads, shared_mem = operator.index(threads), operator.index(shared_mem)
        if threads < 1 or shared_mem < 0:
            raise ValueError(f"{self.name}.max_resident_blocks: threads must be at least 1 "
                             f"and shared_mem at least 0, not {threads} and {shared_mem}")
        return self._kernel.max_resident_blocks(
            get_device(device) if device is not None else (self._device or get_device()),
            threads, shared_mem)

    def param_info(self, device=None):
        """[(bytes, type name)] of each parameter as the driver reports them (the type name
        on OpenCL only); [] when the driver cannot say (CUDA drivers before 12.4)."""
        return self._kernel.param_info(get_device(device) if device is not None
                                       else (self._device or get_device()))

    def __repr__(self):
        return f"<simt.RawKernel {self.name}>"


class RawModule:
    """Source holding several kernels (and templates): ``module.get_function(name)``.

    ``name_expressions`` (CUDA only) lists template instances to compile, such as
    ``"scale<float>"``; ``get_function("scale<float>")`` then finds the instance.
    """

    def __init__(self, code=None, *, options=(), name_expressions=(), device=None,
                 backend=None):
        if code is None:
            raise TypeError("RawModule needs the source code (code=...)")
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be None, 'cuda' (or 'nvrtc') or 'opencl', "
                             f"not {backend!r}")
        self.code = _source(code, "RawModule")
        self.options = tuple(_strings(options, "options"))
        self.name_expressions = tuple(_strings(name_expressions, "name_expressions"))
        self.backend = backend
        self._device = _device_or_none(device)

    def get_function(self, name):
        """The kernel `name` (or a name expression's instance), compiled now for the module's
        device (else the current one); the program compiles once per device."""
        kernel = RawKernel(self.code, name, self.options, self.backend, device=self._device,
                           name_expressions=self.name_expressions)
        kernel.compile()
        return kernel

    def __repr__(self):
        return "<simt.RawModule>"


def cached_program(programs, unavailable, device, key, build):
    """programs[key], made by build() at its first use: the library's NVRTC programs
    (CUB's sort and scan agents). None where NVRTC cannot compile the source on `device`:
    its log is kept in unavailable[device.id], and later calls for that device answer
    None at once (the caller's generated kernels run instead)."""
    if device.id in unavailable:
        return None
    found = programs.get(key)
    if found is None:
        try:
            found = programs[key] = build()
        except BackendCompileError as error:
            unavailable[device.id] = str(error)
            return None
    return found
