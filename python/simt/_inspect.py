"""Inspection of a kernel's compiled code, Numba's dispatcher's names
(`k.overloads`, `k.definitions`, `k.signatures`, `k.inspect_types()`, `k.inspect_llvm()`,
`k.inspect_asm()`): a mixin of simt.Kernel (simt.cuda.compile_ptx reads the same code).

simt generates C++ (CUDA C++, OpenCL C or the CPU's C++) where Numba generates LLVM IR,
so `inspect_llvm` gives the generated CUDA C++ (what NVRTC compiles) and `inspect_asm`
the PTX NVRTC makes of it; both need no GPU, and PTX needs NVRTC (_nvrtc_ptx).

Which signatures a kernel has compiled is the dispatcher's own record
(`Dispatcher.signatures`: every specialization, launches included).
"""

import sys

from . import _nvrtc_ptx
from ._device import compute_capability, current_device
from ._types import declares_void, element_dtype, signature_types, type_text, typeof

DEFAULT_PTX_CC = (7, 5)  # the oldest architecture NVRTC 12 and 13 both compile for


def _arg_types(signature):
    """'void(float32[:], int32)', 'float32[:], int32', a type object spelling a signature,
    or a tuple of types -> a tuple of simt's type strings."""
    return tuple(typeof(t) for t in signature_types(signature)[1])


def _return_type(signature):
    """The declared result of 'float32(float32)' (or a type object spelling it); None when
    not given."""
    text = type_text(signature)
    if text is None or "(" not in text:
        return None
    return "void" if declares_void(text) else signature_types(text)[0]


class LocalType:
    """The type inference gave a local variable, in simt's type text (str()), and the dtype
    of its elements (`.dtype`: an array's, or a number's own)."""

    def __init__(self, text):
        self._text = text

    def __str__(self):
        return self._text

    __repr__ = __str__

    @property
    def dtype(self):
        dtype = element_dtype(self._text)
        if dtype is None:
            raise AttributeError(f"type {self._text} has no dtype")
        return dtype


class TypeAnnotation:
    """Numba's `overload._type_annotation`: `typemap` is {variable: its type}."""

    def __init__(self, local_types):
        self.typemap = {name: LocalType(text) for name, text in local_types.items()}


class Overload:
    """One compiled signature of a kernel: Numba's `k.overloads[argtypes]`."""

    def __init__(self, kernel, argtypes):
        self._kernel, self.argtypes = kernel, argtypes
        self.signature = f"void({', '.join(argtypes)})"

    def __repr__(self):
        return f"<{self._kernel.__name__} {self.signature}>"

    def inspect_llvm(self):
        return self._kernel.inspect_source(*self.argtypes, dialect="cuda")

    @property
    def _type_annotation(self):
        return TypeAnnotation(self._kernel._function.local_types(list(self.argtypes),
                                                                 self._kernel._globals()))

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of `blockdim` threads a launch syncing the grid may have on the
        current device (simt.Kernel.max_cooperative_grid_blocks)."""
        return self._kernel.max_cooperative_grid_blocks(blockdim, *self.argtypes,
                                                        dynsmemsize=dynsmemsize)

    def inspect_asm(self, cc=None):
        return _nvrtc_ptx.ptx(self.inspect_llvm(), cc or _current_cc(),
                              fastmath=bool(self._kernel.fastmath))


def _current_cc():
    cc = compute_capability(current_device())
    return cc if cc != (0, 0) else DEFAULT_PTX_CC


class Inspection:
    """What simt.Kernel has of Numba's dispatcher for inspection (a mixin)."""

    @property
    def _overloads(self):
        return [tuple(types) for types in self._dispatcher.signatures]

    @property
    def overloads(self):
        """{argument types: the compiled kernel}, for each signature compiled so far (on
        any device), as Numba's; the keys are tuples of type strings ('float32[::1]')."""
        return {types: Overload(self, types) for types in self._overloads}

    definitions = overloads

    @property
    def signatures(self):
        """The argument types of each signature compiled so far."""
        return list(self._overloads)

    @property
    def specialized(self):
        return False

    def _each(self, signature, method):
        if signature is not None:
            return method(Overload(self, _arg_types(signature)))
        return {types: method(o) for types, o in self.overloads.items()}

    def inspect_llvm(self, signature=None):
        """The generated CUDA C++ (simt's counterpart of Numba's LLVM IR) of `signature`,
        or {argument types: source} for each compiled signature."""
        return self._each(signature, Overload.inspect_llvm)

    def inspect_asm(self, signature=None):
        """The PTX of `signature` (NVRTC, for the current CUDA device's architecture, else
        compute_75), or {argument types: PTX} for each compiled signature."""
        return self._each(signature, Overload.inspect_asm)

    def inspect_lto_ptx(self, signature=None):
        """Numba's PTX after link-time optimization: simt compiles a kernel, its device
        functions and its linked sources as one translation unit, so its PTX is already
        that (the same as inspect_asm's)."""
        return self.inspect_asm(signature)

    def _print_types(self, file=None):
        file = file or sys.stdout
        for types in self._overloads:
            print(f"{self.__name__} ({', '.join(types)})", file=file)
            print("-" * 80, file=file)
            for name, kind in self._function.local_types(list(types), self._globals()).items():
                print(f"    {name}: {kind}", file=file)
            print("=" * 80, file=file)
