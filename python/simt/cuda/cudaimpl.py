"""numba.cuda.cudaimpl's `lower`: registers the LLVM lowering of a call (Numba's extension
API). simt keeps the registration; it compiles kernels from source without Numba's
lowering, so a kernel calling the function is an error naming it (see extending)."""

from . import _models

__all__ = ["lower"]


def lower(func, *argtypes):
    def decorate(impl):
        _models.LOWERINGS[(func, *argtypes)] = impl
        return impl
    return decorate
