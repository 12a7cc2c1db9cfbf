"""Numba's numba.cuda.typing: `signature(return_type, *args)`, a signature as the type
object `cuda.jit`, `vectorize` and `declare_device` take (`signature(void, float32[:])` is
`void(float32[:])`); the types may also be NumPy's (`np.float32`)."""

from .types import Signature

__all__ = ["signature"]


def signature(return_type, *args):
    return Signature(return_type, args)
