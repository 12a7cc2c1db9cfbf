"""NumPy's convenience functions that CuPy programs call, composed from simt's own array
operations (element-wise kernels, reductions, views), so they run on every device and
never copy through the host except where a result's shape depends on values:

- comparisons: isclose, allclose, array_equal, array_equiv;
- element-wise forms: copy, nan_to_num, around/round_ (decimals), fix;
- diagonals: diag, diagonal (a view), trace;
- splitting: split, array_split, hsplit, vsplit, dsplit (views);
- layout and inspection: asfortranarray, ndim, shape, size, iscomplexobj, isrealobj,
  isscalar;
- creation and products: flatnonzero, logspace, indices, vdot, kron.

allclose, array_equal and array_equiv return 0-d bool arrays, as CuPy's do (NumPy's give
Python bools): the answer stays on the device until `bool()` asks for it.
"""

import builtins
import operator

import numpy as np

from .._array import Array
from .._device import current_device
from ._creation import arange, asarray, empty, linspace, zeros
from ._elementwise import FUNCTIONS as _F, assign
from ._fusion import fuse
from ._indexing import nonzero
from ._linalg import matmul
from ._manipulation import _f_contiguous, _view, broadcast_to, moveaxis, ravel, reshape
from ._reduction import all as _all, max as _max, min as _min, sum as _sum
from .._axes import normalize_axis

__all__ = ["allclose", "isclose", "array_equal", "array_equiv", "copy", "nan_to_num",
           "around", "round_", "fix", "ptp", "diag", "diagonal", "trace", "split",
           "array_split", "hsplit", "vsplit", "dsplit", "asfortranarray", "ndim", "shape",
           "size", "iscomplexobj", "isrealobj", "isscalar", "flatnonzero", "logspace",
           "indices", "vdot", "kron"]

_WEAK = (bool, int, float, complex)


# --- helpers ---------------------------------------------------------------------------------

def _device_of(values):
    """The device of the first simt array among `values`, else the current device."""
    for v in values:
        if isinstance(v, Array):
            return v.device
    return current_device()


def _arrays_on_one_device(values, where):
    """Each value as a simt array on the device of the simt arrays among them (host values
    go there; Python scalars stay weak where the caller keeps them apart)."""
    device = _device_of(values)
    out = []
    for v in values:
        if isinstance(v, Array):
            if v.device != device:
                raise ValueError(f"{where}: arrays on two devices, {device.id} and "
                                 f"{v.device.id}; move one with .to_device()")
            out.append(v)
        else:
            out.append(asarray(v, device=device))
    return out


def _as_array(a, where):
    return a if isinstance(a, Array) else asarray(a)


def _bool0(value, device):
    """A 0-d bool array holding a Python bool (what CuPy gives for a known answer)."""
    return asarray(np.asarray(bool(value)), device=device)


# --- comparisons -----------------------------------------------------------------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's isclose: |a - b| <= atol + rtol * |b| element-wise, infinities equal only to
    themselves, NaN equal to NaN where `equal_nan`; computed in b's dtype promoted with a
    float (Python scalars weak, as NumPy 2's)."""
    arrays = [v for v in (a, b) if not isinstance(v, _WEAK)]
    device = _device_of(arrays)
    a, b = (v if isinstance(v, _WEAK) or isinstance(v, Array) else asarray(v, device=device)
            for v in (a, b))
    if isinstance(b, Array):
        dtype = np.result_type(b.dtype, 1.0)
        if dtype != b.dtype:
            b = b.astype(dtype)
    else:
        b = float(b) if not isinstance(b, complex) else b
    if not isinstance(a, Array) and not isinstance(b, Array):
        a = asarray(a, device=device)
    if isinstance(a, Array) and isinstance(b, Array) and isinstance(rtol, (int, float)) \
            and isinstance(atol, (int, float)):
        # The common case, two arrays: one fused kernel, each element read once.
        return (_isclose_nan if equal_nan else _isclose)(a, b, float(rtol), float(atol))
    finite = _F["logical_and"](_test("isfinite", a), _test("isfinite", b))
    if isinstance(b, Array):
        tolerance = _F["add"](atol, _F["multiply"](rtol, _F["abs"](b)))
    else:  # a Python scalar: its tolerance stays one (a weak scalar, on no device)
        tolerance = atol + rtol * builtins.abs(b)
    close = _F["less_equal"](_F["abs"](_F["subtract"](a, b)), tolerance)
    result = _F["where"](finite, close, _F["equal"](a, b))
    if equal_nan:
        both_nan = _F["logical_and"](_test("isnan", a), _test("isnan", b))
        result = _F["logical_or"](result, both_nan)
    return result


def _isclose_formula(a, b, rtol, atol):
    finite = _F["logical_and"](_F["isfinite"](a), _F["isfinite"](b))
    close = _F["less_equal"](_F["abs"](a - b), atol + rtol * _F["abs"](b))
    return _F["where"](finite, close, a == b)


_isclose = fuse(kernel_name="isclose")(_isclose_formula)
_isclose_nan = fuse(kernel_name="isclose_equal_nan")(
    lambda a, b, rtol, atol: _F["logical_or"](
        _isclose_formula(a, b, rtol, atol),
        _F["logical_and"](_F["isnan"](a), _F["isnan"](b))))


def _test(name, v):
    """isfinite or isnan of an array, or of a Python scalar on the host (a weak bool then,
    which goes with the other operand's device)."""
    return _F[name](v) if isinstance(v, Array) else bool(getattr(np, name)(v))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere, as a 0-d bool array (CuPy's result)."""
    return _all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether a1 and a2 have one shape and equal elements (NaN == NaN where `equal_nan`),
    as a 0-d bool array."""
    a1, a2 = _arrays_on_one_device([a1, a2], "array_equal")
    if a1.shape != a2.shape:
        return _bool0(False, a1.device)
    equal = _F["equal"](a1, a2)
    if equal_nan and np.result_type(a1.dtype, a2.dtype).kind in "fc":
        equal = _F["logical_or"](equal, _F["logical_and"](_F["isnan"](a1), _F["isnan"](a2)))
    return _all(equal)


def array_equiv(a1, a2):
    """Whether a1 and a2 broadcast to one shape and are equal there, as a 0-d bool array."""
    a1, a2 = _arrays_on_one_device([a1, a2], "array_equiv")
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return _bool0(False, a1.device)
    return _all(_F["equal"](a1, a2))


# --- element-wise forms ----------------------------------------------------------------------

def copy(a, order="K", subok=False):
    """A copy of `a` (host data: a copy on the current device), in C order."""
    if order not in ("K", "A", "C"):
        raise ValueError(f"copy: simt copies to C order ('K', 'A' or 'C'), not order={order!r}")
    if isinstance(a, Array):
        return a.copy()
    return asarray(a, copy=True)


def _finite_part(x, nan, posinf, neginf):
    big = np.finfo(x.dtype)
    posinf = big.max if posinf is None else posinf
    neginf = big.min if neginf is None else neginf
    x = _F["where"](_F["isnan"](x), nan, x)
    x = _F["where"](_F["logical_and"](_F["isinf"](x), _F["greater"](x, 0)), posinf, x)
    return _F["where"](_F["logical_and"](_F["isinf"](x), _F["less"](x, 0)), neginf, x)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NumPy's nan_to_num: NaN to `nan`, infinities to `posinf`/`neginf` (the dtype's
    largest and smallest finite values by default); complex parts each so; integers and
    bools unchanged. copy=False writes the result into x."""
    x = _as_array(x, "nan_to_num")
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    if x.dtype.kind == "c":
        parts = [_finite_part(_F[p](x), nan, posinf, neginf) for p in ("real", "imag")]
        # real + 1j * imag: no infinity meets the multiplication (the parts are finite now).
        fixed = _F["add"](parts[0].astype(x.dtype), _F["multiply"](parts[1].astype(x.dtype), 1j))
    else:
        fixed = _finite_part(x, nan, posinf, neginf).astype(x.dtype)
    if copy:
        return fixed
    assign(x, fixed)
    return x


def around(a, decimals=0, out=None):
    """NumPy's round with `decimals`: half to even at that decimal (x * 10**d rounded, then
    divided, as NumPy computes it); integers keep their dtype (negative decimals round them
    through float64)."""
    a = _as_array(a, "around")
    decimals = operator.index(decimals)
    if decimals == 0 or (a.dtype.kind in "iub" and decimals > 0):
        result = _F["round"](a)
    elif a.dtype.kind in "iu":
        scale = 10.0 ** -decimals
        result = _F["multiply"](_F["round"](_F["divide"](a.astype(np.float64), scale)),
                                scale).astype(a.dtype)
    elif decimals > 0:
        scale = 10.0 ** decimals
        result = _F["divide"](_F["round"](_F["multiply"](a, scale)), scale)
    else:
        scale = 10.0 ** -decimals
        result = _F["multiply"](_F["round"](_F["divide"](a, scale)), scale)
    if out is None:
        return result
    assign(out, result)
    return out


round_ = around


def fix(x, out=None):
    """Rounds toward zero (NumPy's fix: floor of positives, ceil of negatives)."""
    x = _as_array(x, "fix")
    result = _F["where"](_F["greater_equal"](x, 0), _F["floor"](x), _F["ceil"](x))
    if out is None:
        return result
    assign(out, result)
    return out


def ptp(a, axis=None, out=None, keepdims=False):
    """Peak to peak: max - min along `axis`, in a's dtype (integers wrap, as NumPy's)."""
    a = _as_array(a, "ptp")
    result = _F["subtract"](_max(a, axis=axis, keepdims=keepdims),
                            _min(a, axis=axis, keepdims=keepdims))
    if out is None:
        return result
    assign(out, result)
    return out


# --- diagonals -------------------------------------------------------------------------------

def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's diagonal: a view of the diagonal `offset` of the planes of axis1 and axis2,
    along a last new axis (CuPy's view is writable, and so is simt's)."""
    a = _as_array(a, "diagonal")
    if a.ndim < 2:
        raise ValueError(f"diagonal: needs an array of at least 2 dimensions, not {a.ndim}")
    axis1 = normalize_axis(axis1, a.ndim, "diagonal")
    axis2 = normalize_axis(axis2, a.ndim, "diagonal")
    if axis1 == axis2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    offset = operator.index(offset)
    n1, n2 = a.shape[axis1], a.shape[axis2]
    s1, s2 = a.strides[axis1], a.strides[axis2]
    start = a._impl.offset
    if offset >= 0:
        length = builtins.max(0, builtins.min(n1, n2 - offset))
        start += offset * s2 if length else 0
    else:
        length = builtins.max(0, builtins.min(n1 + offset, n2))
        start += -offset * s1 if length else 0
    keep = [i for i in range(a.ndim) if i not in (axis1, axis2)]
    shape = [a.shape[i] for i in keep] + [length]
    strides = [a.strides[i] for i in keep] + [s1 + s2]
    return _view(a, start, shape, strides)


def diag(v, k=0):
    """NumPy's diag: of a 1-D array, the matrix with it on diagonal k; of a 2-D array, its
    diagonal k (a view)."""
    v = _as_array(v, "diag")
    k = operator.index(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: input must be 1-D or 2-D, not {v.ndim}-D")
    n = v.shape[0] + builtins.abs(k)
    out = zeros((n, n), dtype=v.dtype, device=v.device)
    assign(diagonal(out, k), v)
    return out


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's trace: the sums along the diagonals (sum's dtype rules)."""
    result = _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
    if out is None:
        return result
    assign(out, result)
    return out


# --- splitting -------------------------------------------------------------------------------

def _pieces(a, bounds, axis):
    """Views of a between consecutive `bounds` along `axis` (NumPy clips them to the axis)."""
    n = a.shape[axis]
    pieces = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start, stop = slice(start, stop).indices(n)[:2]
        stop = builtins.max(start, stop)
        key = (slice(None),) * axis + (slice(start, stop),)
        pieces.append(a[key])
    return pieces


def array_split(ary, indices_or_sections, axis=0):
    """NumPy's array_split: `sections` pieces as equal as can be (the first ones one
    longer), or the pieces between the sorted `indices`; views."""
    ary = _as_array(ary, "array_split")
    axis = normalize_axis(axis, builtins.max(ary.ndim, 1), "array_split")
    n = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("array_split: number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [0] + extra * [each + 1] + (sections - extra) * [each]
        bounds = np.cumsum(sizes).tolist()
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    return _pieces(ary, bounds, axis)


def split(ary, indices_or_sections, axis=0):
    """NumPy's split: array_split where `sections` must divide the axis."""
    ary = _as_array(ary, "split")
    if isinstance(indices_or_sections, (int, np.integer)):
        axis_n = ary.shape[normalize_axis(axis, builtins.max(ary.ndim, 1), "split")]
        if indices_or_sections <= 0 or axis_n % indices_or_sections:
            raise ValueError("split: array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """split along axis 1 (axis 0 of 1-D arrays)."""
    ary = _as_array(ary, "hsplit")
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """split along axis 0 of arrays of 2 or more dimensions."""
    ary = _as_array(ary, "vsplit")
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """split along axis 2 of arrays of 3 or more dimensions."""
    ary = _as_array(ary, "dsplit")
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# --- layout and inspection -------------------------------------------------------------------

def asfortranarray(a, dtype=None):
    """A in Fortran (column-major) order: itself where it is already, else a copy."""
    a = _as_array(a, "asfortranarray")
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if dtype == a.dtype and _f_contiguous(a):
        return a
    out = empty(a.shape if a.ndim else (), dtype=dtype, device=a.device, order="F")
    assign(out, a)
    return out


def ndim(a):
    """The number of dimensions of an array or array-like."""
    return a.ndim if isinstance(a, Array) else np.ndim(a)


def shape(a):
    """The shape of an array or array-like."""
    return a.shape if isinstance(a, Array) else np.shape(a)


def size(a, axis=None):
    """The number of elements, or the extent of `axis`."""
    if not isinstance(a, Array):
        return np.size(a, axis)
    if axis is None:
        return a.size
    return a.shape[normalize_axis(axis, a.ndim, "size")]


def iscomplexobj(x):
    """Whether x's dtype is complex (whatever its values)."""
    return x.dtype.kind == "c" if isinstance(x, Array) else np.iscomplexobj(x)


def isrealobj(x):
    """Whether x's dtype is not complex."""
    return not iscomplexobj(x)


def isscalar(element):
    """NumPy's isscalar: Python and NumPy scalars (simt arrays, 0-d too, are not)."""
    return np.isscalar(element)


# --- creation and products -------------------------------------------------------------------

def flatnonzero(a):
    """The indices of the non-zero elements of a flattened (int64)."""
    return nonzero(ravel(_as_array(a, "flatnonzero")))[0]


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num, endpoint), on the current device."""
    if isinstance(start, Array) or isinstance(stop, Array) or np.ndim(start) or np.ndim(stop):
        raise NotImplementedError("logspace: simt takes scalar start and stop only")
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1, "logspace")
    exponents = linspace(start, stop, num=num, endpoint=endpoint)
    result = _F["pow"](float(base) if not isinstance(base, Array) else base, exponents)
    return result if dtype is None else result.astype(dtype)


def indices(dimensions, dtype=int, sparse=False):
    """NumPy's indices: grid[i] holds index i of each position of `dimensions` (one array
    of shape (len(dimensions), *dimensions)), or the sparse broadcastable tuple."""
    dimensions = tuple(operator.index(d) for d in dimensions)
    n = len(dimensions)
    ranges = [reshape(arange(d, dtype=dtype), (1,) * i + (d,) + (1,) * (n - i - 1))
              for i, d in enumerate(dimensions)]
    if sparse:
        return tuple(ranges)
    out = empty((n,) + dimensions, dtype=np.dtype(dtype), device=current_device())
    for i, r in enumerate(ranges):
        assign(out[i], r)
    return out


def vdot(a, b):
    """The dot product of a and b flattened, a conjugated (a 0-d array)."""
    a, b = _arrays_on_one_device([a, b], "vdot")
    if a.size != b.size:
        raise ValueError(f"vdot: the arrays have {a.size} and {b.size} elements; they must "
                         f"have as many")
    a = ravel(a)
    if a.dtype.kind == "c":
        a = _F["conj"](a)
    return matmul(a, ravel(b))


def kron(a, b):
    """The Kronecker product: blocks a[i] * b, the shorter shape padded with leading 1s."""
    a, b = _arrays_on_one_device([a, b], "kron")
    nd = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    # Interleave the axes, (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...), then merge each pair.
    left = reshape(a, tuple(x for n in sa for x in (n, 1)))
    right = reshape(b, tuple(x for n in sb for x in (1, n)))
    product = _F["multiply"](left, right)
    return reshape(product, tuple(p * q for p, q in zip(sa, sb)))


# NumPy's and CuPy's ndarray methods that name these functions.
METHODS = {
    "round": lambda self, decimals=0, out=None: around(self, decimals, out),
    "clip": lambda self, min=None, max=None, out=None: _F["clip"](self, min, max, out=out),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: diagonal(self, offset, axis1, axis2),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None:
        trace(self, offset, axis1, axis2, dtype, out),
    "ptp": lambda self, axis=None, out=None, keepdims=False: ptp(self, axis, out, keepdims),
}
