"""Numba's dispatcher inspection for simt's kernels (`k.overloads`, `k.definitions`,
`k.signatures`, `k.inspect_types()`, `k.inspect_llvm()`, `k.inspect_asm()`) and
`cuda.compile_ptx` / `compile_ptx_for_current_device`.

simt generates C++ (CUDA C++, OpenCL C or the CPU's C++) where Numba generates LLVM IR,
so `inspect_llvm` gives the generated CUDA C++ (what NVRTC compiles) and `inspect_asm`
the PTX NVRTC makes of it; both need no GPU, and PTX needs NVRTC (_nvrtc_ptx).

Which signatures a kernel has compiled is recorded through the compiler's observer hook,
called at each new specialization (launches included). That hook holds one observer, so
this module keeps it and puts its own `_core.set_compile_observer` in the module's place:
an observer set through it (the test suite's) is called after the record, and setting
it, or None, leaves the record on.
"""

import sys
import weakref

from . import _core, _nvrtc_ptx
from ._numba_types import SCALARS, Signature, void

DEFAULT_PTX_CC = (7, 5)  # the oldest architecture NVRTC 12 and 13 both compile for

_kernels = weakref.WeakValueDictionary()  # id(kernel._function) -> kernel


def _observe(function, arg_types, globals_, debug, boundscheck):
    kernel = _kernels.get(id(function))
    if kernel is not None and kernel._function is function:
        kernel._overloads.setdefault(tuple(arg_types), None)
    if _observer is not None:
        _observer(function, arg_types, globals_, debug, boundscheck)


def _set_compile_observer(observer):
    """Calls observer(function, arg_types, globals, debug, boundscheck) at each new
    specialization (None: no observer); returns the previous observer."""
    global _observer
    previous, _observer = _observer, observer
    return previous


_observer = _core.set_compile_observer(_observe)
_core.set_compile_observer = _set_compile_observer


def _arg_types(signature):
    """'void(float32[:], int32)', a Signature, or a tuple of types -> a tuple of simt's
    type strings."""
    from ._kernel import _signature_types

    if isinstance(signature, Signature):
        signature = signature.args
    if isinstance(signature, str):
        text = signature.strip()
        if not text.startswith(("(", "void")):
            text = text[text.index("("):] if "(" in text else f"({text})"
        signature = _signature_types(text)
    return tuple(_core.normalize_type(str(t)) for t in signature)


def _return_type(signature):
    """The declared result of 'float32(float32)' or Signature; None when not given."""
    if isinstance(signature, Signature):
        return str(signature.return_type)
    if isinstance(signature, str):
        head = signature.strip()
        if "(" in head and not head.startswith("("):
            return head[:head.index("(")].strip()
    return None


class Overload:
    """One compiled signature of a kernel: Numba's `k.overloads[argtypes]`."""

    def __init__(self, kernel, argtypes):
        self._kernel, self.argtypes = kernel, argtypes
        self.signature = f"void({', '.join(argtypes)})"

    def __repr__(self):
        return f"<{self._kernel.__name__} {self.signature}>"

    def inspect_llvm(self):
        return self._kernel.inspect_source(*self.argtypes, dialect="cuda")

    def inspect_asm(self, cc=None):
        return _nvrtc_ptx.ptx(self.inspect_llvm(), cc or _current_cc(),
                              fastmath=bool(self._kernel.fastmath))


def _current_cc():
    from ._numba_devices import get_current_device

    cc = get_current_device().compute_capability
    return cc if cc != (0, 0) else DEFAULT_PTX_CC


class NumbaDispatcher:
    """What simt.Kernel has of Numba's dispatcher for inspection (a mixin)."""

    def _register(self):
        self._overloads = {}
        _kernels[id(self._function)] = self

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

    def _print_types(self, file=None):
        file = file or sys.stdout
        for types in self._overloads:
            print(f"{self.__name__} ({', '.join(types)})", file=file)
            print("-" * 80, file=file)
            for name, kind in self._function.local_types(list(types), self._globals()).items():
                print(f"    {name}: {kind}", file=file)
            print("=" * 80, file=file)


def _python_function(pyfunc):
    return getattr(pyfunc, "py_func", pyfunc)


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                cc=None, opt=True, abi="numba", abi_info=None, output="ptx",
                forceinline=False, launch_bounds=None):
    """(PTX, return type) of `pyfunc` compiled for `sig` (Numba's compile_ptx): a kernel,
    or with device=True a device function, whose PTX is that of a kernel calling it once
    (`simt_device_call`: the result stored to an array) since simt inlines device
    functions. `cc` (default (7, 5)) is the PTX's compute capability. NVRTC compiles it;
    no GPU is needed."""
    from ._array_api import _generated
    from ._kernel import Func, Kernel

    if output != "ptx":
        raise NotImplementedError(f"compile_ptx(output={output!r}): simt emits PTX only")
    cc = tuple(cc) if cc is not None else DEFAULT_PTX_CC
    function = _python_function(pyfunc)
    argtypes = _arg_types(sig)
    declared = _return_type(sig)
    if not device:
        if declared not in (None, "void", "none"):
            raise TypeError(f"compile_ptx: a kernel returns nothing; its signature is "
                            f"'void(...)', not {sig!r}")
        kernel = Kernel(function, debug=debug, fastmath=fastmath)
        source = kernel.inspect_source(*argtypes, dialect="cuda")
        return _nvrtc_ptx.ptx(source, cc, fastmath, debug or lineinfo), void
    callee = _generated.define("compile_ptx_device", Func(function))
    params = [f"x{k}" for k in range(len(argtypes))]
    call = f"{callee}({', '.join(params)})"
    if declared in ("void", "none"):
        resty_text = "void"
    else:
        probe = _generated.kernel("compile_ptx_result",
                                  f"def compile_ptx_result({', '.join(params)}):\n"
                                  f"    r = {call}\n")
        resty_text = declared or probe.inspect_types(*argtypes)["r"]
    if resty_text == "void":
        body = f"    {call}\n"
        kernel_types = argtypes
    else:
        body = f"    out[0] = {call}\n"
        kernel_types = (f"{resty_text}[::1]",) + argtypes
        params = ["out"] + params
    wrapper = _generated.kernel("simt_device_call",
                                f"def simt_device_call({', '.join(params)}):\n{body}")
    source = wrapper.inspect_source(*kernel_types, dialect="cuda")
    resty = void if resty_text == "void" else SCALARS.get(resty_text, resty_text)
    return _nvrtc_ptx.ptx(source, cc, fastmath, debug or lineinfo), resty


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False,
                                   fastmath=False, opt=True, abi="numba", abi_info=None,
                                   output="ptx", forceinline=False, launch_bounds=None):
    """compile_ptx for the current device's compute capability (a CUDA device's; on
    OpenCL and CPU devices, which have none, compute_75)."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=_current_cc(), opt=opt, abi=abi,
                       abi_info=abi_info, output=output, forceinline=forceinline,
                       launch_bounds=launch_bounds)
