"""numba.cuda.cudaimpl's `lower`: registers the LLVM lowering of a call (Numba's extension
API). simt compiles kernels from source without Numba's lowering: a lowering of a class
that builds a struct model type by setting its members from the arguments
(cgutils.create_struct_proxy) makes the class a constructor kernels call, giving a tuple
that stores into an array of the type; other lowerings are kept and named in the error of a
kernel calling them (see extending)."""

from .. import _resolve
from . import _models

__all__ = ["lower"]


def lower(func, *argtypes):
    def decorate(impl):
        _models.LOWERINGS[(func, *argtypes)] = impl
        if isinstance(func, type):
            _resolve.CLASS_DESCRIPTIONS[func] = lambda: _models.constructor_description(func)
        return impl
    return decorate
