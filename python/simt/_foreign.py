"""Device functions written in CUDA C++, OpenCL C or C++, called from Python kernels:
`simt.declare_device`, `simt.CUSource` and `simt.kernel(link=[...])` (Numba's
`cuda.declare_device`, `cuda.CUSource` and `cuda.jit(link=[...])` are these).

A linked source is compiled as part of each kernel that calls into it, by the devices
of its language: `.cu` files and CUSource by CUDA and by the CPU device (as C++, with
`__device__` read as nothing), `.cl` files by OpenCL devices, `.c`/`.cpp` files by the
CPU device. OpenCL devices also compile CUDA sources, translated to OpenCL C
(`_cuda_to_opencl.device_source_for_opencl`), for a function no .cl source is linked for. A call uses Numba's ABI, `int f(T* result, args...)`, the int ignored, or
with abi="c" the C ABI, `T f(args...)`.
"""

import os

from . import _core
from ._cuda_to_opencl import device_source_for_opencl
from ._types import signature_types, type_text

_LANGUAGES = {".cu": ("cuda", "cpp"), ".cuh": ("cuda", "cpp"), ".cl": ("opencl",),
              ".c": ("cpp",), ".cc": ("cpp",), ".cpp": ("cpp",), ".cxx": ("cpp",)}
_BINARY = (".ptx", ".cubin", ".fatbin", ".o", ".a", ".ltoir", ".lib", ".obj")
_NUMBERS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64"}


class CUSource:
    """CUDA C++ source text given in Python, for `link=[...]` (Numba's cuda.CUSource)."""

    def __init__(self, data):
        if isinstance(data, bytes):
            data = data.decode()
        if not isinstance(data, str):
            raise TypeError(f"CUSource takes the source as str or bytes, not "
                            f"{type(data).__name__}")
        self.data = data

    def __repr__(self):
        return f"<CUSource of {len(self.data)} characters>"


def linked_sources(link, where):
    """[(origin, text, languages)] for a link= list of file paths and CUSource objects."""
    if isinstance(link, (str, os.PathLike, CUSource)):
        link = [link]
    out = []
    for item in link or ():
        if isinstance(item, CUSource):
            out += _with_opencl_translation("CUSource", item.data, ["cuda", "cpp"])
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"{where}: link= takes file paths and CUSource objects, not "
                            f"{type(item).__name__}")
        path = os.fspath(item)
        extension = os.path.splitext(path)[1].lower()
        if extension in _BINARY:
            raise NotImplementedError(
                f"{where}: {path!r} is compiled code ({extension}); simt links source files "
                f"(.cu, .cl, .c, .cpp) and CUSource, which it compiles with each kernel "
                f"for the device it runs on")
        if extension not in _LANGUAGES:
            raise ValueError(f"{where}: {path!r}: simt links .cu (CUDA and the CPU), .cl "
                             f"(OpenCL) and .c/.cpp (the CPU) sources; the name says the "
                             f"language")
        with open(path, encoding="utf-8") as f:
            out += _with_opencl_translation(os.path.abspath(path), f.read(),
                                            list(_LANGUAGES[extension]))
    return out


def _with_opencl_translation(origin, text, languages):
    """The source, and for CUDA C++ its OpenCL C translation, which OpenCL devices link
    where no .cl source is linked for the function called (the 4th item: translated)."""
    out = [(origin, text, languages)]
    if "cuda" in languages:
        out.append((origin, device_source_for_opencl(text), ["opencl"], True))
    return out


def _declared(text, where):
    """'int32' -> 'int32', 'CPointer(int32)' -> 'int32*': a type declare_device takes."""
    pointer = text.startswith("CPointer(")
    name = text[len("CPointer("):-1] if pointer else text
    if name not in _NUMBERS:
        raise TypeError(f"{where}: {text!r} is not a type declare_device takes (booleans, "
                        f"integers, float32, float64, and CPointer of those)")
    return name + ("*" if pointer else "")


def _parse(sig, where):
    """(result, [parameters]) as text from 'float32(float32, CPointer(int32))' or a
    type object spelling it."""
    text = type_text(sig)
    if isinstance(sig, (tuple, list)) or (text is not None and text.strip().startswith("(")):
        # Argument types alone, which a kernel's signature may be (Numba's words).
        raise TypeError(f"{where}: Return type must be provided for device declarations: "
                        f"write the signature as 'int32(float32, int32)' or "
                        f"int32(float32, int32), not {sig!r}")
    if text is None:
        raise TypeError(f"{where}: the signature is a string such as 'float32(float32, "
                        f"int32)' or a type-object signature, not {type(sig).__name__}")
    if not text.strip() or "(" not in text:
        raise ValueError(f"{where}: a signature looks like 'float32(float32, int32)', not "
                         f"{sig!r}")
    try:
        result, params = signature_types(text)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    return ("none" if result is None else _declared(result, where),
            [_declared(p, where) for p in params])


class ForeignFunction:
    """A device function defined in a linked source: call it from kernels."""

    def __init__(self, name, sig, link=None, abi="numba"):
        where = f"declare_device({name!r}, ...)"
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"declare_device: the name is the C symbol, an identifier, "
                             f"not {name!r}")
        self.name = name
        self.sig = str(sig)
        result, params = _parse(sig, where)
        self._sources = linked_sources(link, where)
        self._result, self._params = result, params
        if abi not in ("numba", "c"):
            raise NotImplementedError(f"{where}: abi must be 'numba' (int f(T* result, "
                                      f"args...)) or 'c' (T f(args...)), not {abi!r}")
        self.abi = abi

    def _simt_describe_(self):
        return _core.Global.foreign(self.name, self.name, self._result, self._params,
                                    self._sources, c_abi=self.abi == "c")

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name} is a device function declared with declare_device: "
                        f"call it from a kernel")

    def __repr__(self):
        return f"<declared device function {self.name}: {self.sig}>"


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declares a device function written in CUDA C++ (or OpenCL C, or C++ for the CPU),
    for kernels to call; its source comes from `link=` here or from the kernel's `link=`
    (`simt.kernel(link=...)`, `cuda.jit(link=...)`). `abi="numba"` (Numba's default): the
    function is `extern "C" __device__ int name(T* result, args...)`, the int ignored;
    `abi="c"`: `extern "C" __device__ T name(args...)`. `CPointer(t)` parameters take
    arrays of dtype t (their data pointer is passed). `use_cooperative=True` (the code
    syncs the grid) is not supported: declare the grid sync in the kernel
    (`cuda.cg.this_grid().sync()`), which makes its launch cooperative."""
    if use_cooperative:
        raise NotImplementedError(
            f"declare_device({name!r}, ..., use_cooperative=True): simt makes a launch "
            f"cooperative where the kernel itself syncs the grid (cuda.cg.this_grid().sync())")
    return ForeignFunction(name, sig, link, abi)
