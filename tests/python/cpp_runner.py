"""Runs a kernel's generated C++ (dialect "cpp") on NumPy arrays, with no simt backend.

A test utility: the kernel's C++ is compiled by the system's C++ compiler into
a shared library, loaded with ctypes and called once per block of the grid,
so kernel semantics can be compared with NumPy before any backend exists.

The generated entry point is::

    extern "C" void simt_kernel_<name>(const simt_block_ctx* ctx, void* const* args);

It runs every thread of one block; ``args[k]`` points to the value of the
k-th C parameter. Arguments are flattened: a scalar is one parameter (bool as
uint8, float16 as its uint16 bits, complex as a {re, im} struct), an n-d array
is its data pointer, n extents and n strides in elements (int64), a tuple is
its items in order.

    run(kernel, grid, block, *args)   # grid, block: ints or tuples of up to 3
"""

import ctypes
import hashlib
import itertools
import os
import shutil
import subprocess
import tempfile

import numpy as np

# Clang first: the CPU backend's compiler is Clang, and GCC lacks
# -fno-strict-float-cast-overflow.
CXX = os.environ.get("CXX") or shutil.which("clang++") or shutil.which("c++")
CXXFLAGS = ["-std=c++20", "-O1", "-shared", "-fPIC", "-fwrapv"]
if "clang" in subprocess.run([CXX, "--version"], capture_output=True, text=True).stdout:
    CXXFLAGS.append("-fno-strict-float-cast-overflow")

# The C parameter types the cpp dialect uses, as NumPy dtypes of the same layout
# (simt_c64 / simt_c128 are {re, im} structs: NumPy's complex layout).
_C_TYPES = {
    "signed char": np.int8, "short": np.int16, "int": np.int32, "long long": np.int64,
    "unsigned char": np.uint8, "unsigned short": np.uint16, "unsigned int": np.uint32,
    "unsigned long long": np.uint64, "float": np.float32, "double": np.float64,
    "simt_c64": np.complex64, "simt_c128": np.complex128,
}

_build_dir = None
_libraries = {}  # source hash -> ctypes.CDLL, for this session


class _BlockCtx(ctypes.Structure):
    _fields_ = [("grid_dim", ctypes.c_longlong * 3), ("block_dim", ctypes.c_longlong * 3),
                ("block_idx", ctypes.c_longlong * 3)]


def generate(kernel, *args):
    """generate()'s dict (source, entry, param_types) for these argument values."""
    return kernel._function.generate(kernel._signature(args), kernel._globals(), "cpp",
                                     kernel.debug)


def compile_source(source):
    """The shared library built from `source`, compiled once per session."""
    global _build_dir
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    if key not in _libraries:
        if _build_dir is None:
            _build_dir = tempfile.mkdtemp(prefix="simt_cpp_runner_")
        src = os.path.join(_build_dir, key + ".cpp")
        lib = os.path.join(_build_dir, key + ".so")
        with open(src, "w") as f:
            f.write(source)
        done = subprocess.run([CXX, *CXXFLAGS, "-o", lib, src], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"the generated C++ does not compile ({src}):\n{done.stderr}")
        _libraries[key] = ctypes.CDLL(lib)
    return _libraries[key]


def _flatten(value):
    """The C parameter values of one kernel argument, in order."""
    if isinstance(value, tuple):
        return [v for item in value for v in _flatten(item)]
    if isinstance(value, np.ndarray):
        itemsize = value.dtype.itemsize
        assert all(s % itemsize == 0 for s in value.strides), "strides must be whole elements"
        return ([value.ctypes.data] + list(value.shape)
                + [s // itemsize for s in value.strides])
    if isinstance(value, (bool, np.bool_)):
        return [int(value)]
    if isinstance(value, np.float16):
        return [int(value.view(np.uint16))]
    return [value]


def _dims(value):
    dims = (value,) if isinstance(value, int) else tuple(value)
    assert 1 <= len(dims) <= 3
    return dims + (1,) * (3 - len(dims))


def run(kernel, grid, block, *args):
    """Launches `kernel` over `grid` blocks of `block` threads, like kernel[grid, block](*args)."""
    generated = generate(kernel, *args)
    entry = getattr(compile_source(generated["source"]), generated["entry"])
    entry.argtypes = [ctypes.POINTER(_BlockCtx), ctypes.c_void_p]
    entry.restype = None
    values = _flatten(tuple(args))
    c_types = generated["param_types"]
    assert len(values) == len(c_types), (values, c_types)
    boxes = []  # one 1-element array per C parameter; keeps the values alive
    for value, c_type in zip(values, c_types):
        dtype = np.uintp if c_type.endswith("*") else _C_TYPES[c_type]
        if np.dtype(dtype).kind in "iu" and not isinstance(value, np.ndarray):
            value = np.array(int(value)).astype(dtype)  # wraps like C for the exact int types
        boxes.append(np.array([value], dtype=dtype))
    pointers = (ctypes.c_void_p * max(1, len(boxes)))(*[b.ctypes.data for b in boxes])
    ctx = _BlockCtx()
    grid, block = _dims(grid), _dims(block)
    ctx.grid_dim[:] = grid
    ctx.block_dim[:] = block
    for z, y, x in itertools.product(range(grid[2]), range(grid[1]), range(grid[0])):
        ctx.block_idx[:] = (x, y, z)
        entry(ctypes.byref(ctx), pointers)
