"""numba.cuda.jit for `simt.cuda`: every form of the decorator, giving simt kernels and
device functions.

`@cuda.jit` and `@cuda.jit("void(float32[:], int32)")` (or a list of signatures,
compiled at once for the current device) make a simt.Kernel; `@cuda.jit(device=True)`
a simt.Func. Numba's compiler options are accepted; max_registers caps a kernel's
registers on CUDA devices as Numba's does (0 or None: no cap); racecheck (simt's own, not
Numba's) runs the kernel under the cpu device's race checker; those that have no meaning
for simt (opt, lineinfo, lto, inline, cache: simt caches every kernel on disk anyway)
change nothing, as docs/porting.md says.
"""

from .._foreign import linked_sources
from .._kernel import Func, Kernel
from .types import Signature

_ACCEPTED = {"opt", "lineinfo", "max_registers", "lto", "inline", "cache", "boundscheck",
             "racecheck"}


def jit(func_or_sig=None, device=False, link=(), debug=None, fastmath=False, **options):
    """Compiles a kernel (or, with device=True, a device function) as numba.cuda.jit."""
    unknown = sorted(set(options) - _ACCEPTED)
    if unknown:
        raise TypeError(f"cuda.jit: unknown option{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(unknown)} (Numba's are {', '.join(sorted(_ACCEPTED))}, "
                        f"device, link, debug, fastmath)")
    if link and device:
        raise ValueError("cuda.jit: link= is taken by kernels, not device functions (give "
                         "it to the kernels that call into the linked code)")
    sources = linked_sources(link, "cuda.jit")

    def decorate(function, signatures):
        if device:
            return Func(function, signatures=signatures)
        return Kernel(function, signatures=signatures, debug=debug, fastmath=fastmath,
                      boundscheck=options.get("boundscheck"),
                      racecheck=options.get("racecheck"), link=sources,
                      max_registers=options.get("max_registers") or None)

    if isinstance(func_or_sig, Signature):  # void(float32[:], int32) as type objects
        func_or_sig = str(func_or_sig)
    if callable(func_or_sig) and not isinstance(func_or_sig, str):
        return decorate(func_or_sig, ())
    if func_or_sig is None:
        signatures = ()
    elif isinstance(func_or_sig, str):
        signatures = (func_or_sig,)
    elif isinstance(func_or_sig, (list, tuple)) and \
            all(isinstance(s, (str, Signature)) for s in func_or_sig):
        signatures = tuple(map(str, func_or_sig))
    elif isinstance(func_or_sig, tuple):  # (float32[:], int32): one signature's argument types
        signatures = (func_or_sig,)
    else:
        raise TypeError(f"cuda.jit: a signature is a string such as 'void(float32[:], int32)' "
                        f"(or a list of them), not {type(func_or_sig).__name__}")
    return lambda function: decorate(function, signatures)
