"""cuda.compile_ptx and compile_ptx_for_current_device for `simt.cuda`: the PTX NVRTC
makes of the CUDA C++ simt generates for a kernel or a device function (no GPU needed).
"""

from .. import _nvrtc_ptx
from .._array_api import _generated
from .._inspect import DEFAULT_PTX_CC, _arg_types, _current_cc, _return_type
from .._kernel import Func, Kernel
from .types import SCALARS, void


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
