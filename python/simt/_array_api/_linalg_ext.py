"""The parts of the array API's linalg extension built from the array operations, so they
run on every device: diagonal (a view), trace, cross, vector_norm, matrix_norm (but for
the singular-value norms), NumPy's norm, and matrix_power by repeated squaring.

What needs a decomposition (singular values for the 2-norm and nuclear norm, the inverse
for a negative power) asks simt.linalg for it through the `svdvals` and `inv` arguments
(NumPy's LAPACK on the cpu device and on host copies for OpenCL devices, cuSOLVER on
cuda devices).
"""

import operator

import numpy as np

from .._array import Array
from ._creation import eye
from ._elementwise import FUNCTIONS, contiguous_copy
from ._linalg import matmul
from ._manipulation import broadcast_arrays, broadcast_to, moveaxis, reshape, stack
from ._reduction import count_nonzero, max as _max, min as _min, sum as _sum
from .._axes import normalize_axis

__all__ = ["diagonal", "trace", "cross", "vector_norm", "matrix_norm", "norm",
           "matrix_power"]

_abs, _multiply, _subtract = FUNCTIONS["abs"], FUNCTIONS["multiply"], FUNCTIONS["subtract"]


def _array(x, where):
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")
    return x


def _matrices(x, where):
    _array(x, where)
    if x.ndim < 2:
        raise ValueError(f"{where}: x must have at least two dimensions (a stack of "
                         f"matrices), not shape {x.shape}")
    return x


def _floating(x):
    """x, as float64 when it holds integers or bools (NumPy's linalg computes those so)."""
    return contiguous_copy(x, np.float64) if x.dtype.kind in "biu" else x


def diagonal(x, /, *, offset=0):
    """The diagonals of x's matrices (its last two axes): offset 0 the main one, > 0
    above, < 0 below. A view of x's memory."""
    where = "simt.linalg.diagonal"
    _matrices(x, where)
    offset = operator.index(offset)
    rows, cols = x.shape[-2:]
    row_stride, col_stride = x.strides[-2:]
    first_row, first_col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(rows - first_row, cols - first_col))
    start = x._impl.offset + (first_row * row_stride + first_col * col_stride if length else 0)
    return Array._wrap(x._impl.view(start, list(x.shape[:-2]) + [length],
                                    list(x.strides[:-2]) + [row_stride + col_stride]))


def trace(x, /, *, offset=0, dtype=None):
    """The sums of the diagonals of x's matrices (sum's dtype rules; `dtype` overrides)."""
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def cross(x1, x2, /, *, axis=-1):
    """The cross products of the 3-element vectors along `axis` (the other axes
    broadcast)."""
    where = "simt.linalg.cross"
    _array(x1, where)
    _array(x2, where)
    a, b = broadcast_arrays(x1, x2)
    if a.ndim == 0:
        raise ValueError(f"{where}: the operands must have at least one dimension")
    axis = operator.index(axis)
    if not -a.ndim <= axis < a.ndim:
        raise np.exceptions.AxisError(axis, a.ndim, where)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"{where}: the vectors along axis {axis} must have 3 elements "
                         f"(shapes {x1.shape} and {x2.shape})")
    a, b = moveaxis(a, axis, -1), moveaxis(b, axis, -1)
    u = [a[..., i] for i in range(3)]
    v = [b[..., i] for i in range(3)]
    parts = [_subtract(_multiply(u[1], v[2]), _multiply(u[2], v[1])),
             _subtract(_multiply(u[2], v[0]), _multiply(u[0], v[2])),
             _subtract(_multiply(u[0], v[1]), _multiply(u[1], v[0]))]
    return stack(parts, axis=axis % a.ndim)


# --- norms ------------------------------------------------------------------------------------

def _magnitudes(x):
    """|x| in x's real floating dtype (float64 for integers, as NumPy's norms)."""
    return _abs(_floating(x))


def _vector_norm(x, axis, keepdims, ord, where):
    a = _magnitudes(x)
    real = a.dtype
    if ord == 2:
        return FUNCTIONS["sqrt"](_sum(_multiply(a, a), axis=axis, keepdims=keepdims))
    if ord == 1:
        return _sum(a, axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return _max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        counts = count_nonzero(a, axis=axis, keepdims=keepdims)
        return contiguous_copy(counts, real)
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise ValueError(f"{where}: ord must be a number (or inf, -inf) for vectors, not "
                         f"{ord!r}")
    power = float(ord)
    summed = _sum(FUNCTIONS["pow"](a, power), axis=axis, keepdims=keepdims)
    return FUNCTIONS["pow"](summed, 1.0 / power)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ord-norm of the vectors along `axis` (an int, a tuple: those axes flattened
    into one vector, None: all): ord 2, 1, inf, -inf, 0 (the count of nonzeros) or any
    other p (sum of |x|**p to the 1/p)."""
    where = "simt.linalg.vector_norm"
    _array(x, where)
    return _vector_norm(x, axis, keepdims, ord, where)


def _matrix_norm_last_two(x, ord, keepdims, where, svdvals):
    """The ord-norm of the matrices in x's last two axes."""
    axes = (-2, -1)
    if ord == "fro":
        a = _magnitudes(x)
        result = FUNCTIONS["sqrt"](_sum(_multiply(a, a), axis=axes, keepdims=keepdims))
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum of |x|; inf: the largest row sum (-: the smallest).
        summed_axis = -2 if ord in (1, -1) else -1
        sums = _sum(_magnitudes(x), axis=summed_axis, keepdims=True)
        pick = _max if ord > 0 else _min
        result = pick(sums, axis=axes, keepdims=keepdims)
    elif ord in (2, -2, "nuc"):
        values = svdvals(x, where)
        pick = {2: _max, -2: _min, "nuc": _sum}[ord]
        result = pick(values, axis=-1)
        if keepdims:
            result = reshape(result, result.shape + (1, 1))
    else:
        raise ValueError(f"{where}: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf "
                         f"for matrices, not {ord!r}")
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro", svdvals=None):
    """The ord-norm of x's matrices (its last two axes): 'fro' (Frobenius), 1 / -1 (the
    largest / smallest column sum of magnitudes), inf / -inf (row sums), 2 / -2 / 'nuc'
    (the largest / smallest / sum of the singular values: where simt.linalg computes
    them)."""
    where = "simt.linalg.matrix_norm"
    _matrices(x, where)
    return _matrix_norm_last_two(x, ord, keepdims, where, svdvals)


def norm(x, ord=None, axis=None, keepdims=False, *, svdvals=None):
    """NumPy's norm: of the flattened x (axis None, ord None), of vectors (axis an int, or
    x 1-D) or of matrices (axis a pair, or x 2-D with an ord)."""
    where = "simt.linalg.norm"
    _array(x, where)
    if axis is None:
        if ord is None:
            result = _vector_norm(reshape(x, (x.size,)), 0, False, 2, where)
            return reshape(result, (1,) * x.ndim) if keepdims else result
        if x.ndim == 1:
            axis = (0,)
        elif x.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError(f"{where}: ord={ord!r} needs axis for an array of {x.ndim} "
                             f"dimensions (vectors: 1-D, matrices: 2-D)")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(normalize_axis(a, x.ndim, where) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, axes[0], keepdims, 2 if ord is None else ord, where)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"{where}: axis must name one axis (vectors) or two distinct "
                         f"axes (matrices), not {axis!r}")
    moved = moveaxis(x, axes, (-2, -1))
    result = _matrix_norm_last_two(moved, "fro" if ord is None else ord, False, where,
                                   svdvals)
    if keepdims:
        shape = list(x.shape)
        for a in axes:
            shape[a] = 1
        result = reshape(result, tuple(shape))
    return result


# --- matrix_power -----------------------------------------------------------------------------

def matrix_power(x, n, /, *, inv=None):
    """x's square matrices to the integer power n, by repeated squaring (matmul, on every
    device); n = 0 gives identities, n < 0 powers of the inverse (which needs inv)."""
    where = "simt.linalg.matrix_power"
    _matrices(x, where)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{where}: the exponent must be an integer, not "
                        f"{type(n).__name__}") from None
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{where}: the matrices must be square, not {x.shape[-2:]}")
    if n == 0:
        identity = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return contiguous_copy(broadcast_to(identity, x.shape))
    base = inv(x, where) if n < 0 else x
    n = abs(n)
    result = None
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return contiguous_copy(result) if result is x else result
