"""Creation functions: arange, linspace, eye, full/ones/zeros/empty (and their _like forms),
asarray, meshgrid, tril, triu, and NumPy's asnumpy and ascontiguousarray.

Values are computed on the array's device: sequences (arange, linspace) by an element-wise
expression of the flat index `i`, eye by writing ones through a view along the diagonal,
tril/triu by an element-wise choice between the input and zero. Only the few scalars that
define a sequence are computed on the host, as NumPy computes them, so the values are
NumPy's bit for bit.
"""

import math
import operator
import warnings

import numpy as np

from .. import _array, _interop
from .._array import Array, c_contiguous
from .._device import get_device
from .. import _broadcast
from . import _elementwise
from ._dtypes import astype
from ._elementwise import Operand, assign, contiguous_copy
from ._manipulation import _f_contiguous

__all__ = ["arange", "array", "asarray", "asnumpy", "ascontiguousarray", "empty", "empty_like", "eye",
           "full", "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu",
           "zeros", "zeros_like"]

METHODS = {}


# --- empty, zeros, ones, full and their _like forms ------------------------------------------

def empty(shape, dtype=None, device=None, order="C"):
    """An uninitialized array of `shape` on `device` (default: the current device); dtype
    defaults to float64. `order` "C" or "F" (NumPy's)."""
    return _array.empty(shape, np.float64 if dtype is None else dtype, device, order)


def full(shape, fill_value, dtype=None, device=None, order="C"):
    """An array of `shape` filled with `fill_value`: a scalar (dtype by default NumPy's for
    it: bool, int64, float64, complex128) or a simt array broadcast to `shape`."""
    if isinstance(fill_value, Array):
        array = empty(shape, fill_value.dtype if dtype is None else dtype,
                      device if device is not None else fill_value.device, order)
        # Broadcast here: the engine's assign loops over a lone array operand's own shape.
        return assign(array, _broadcast.broadcast_view(fill_value, array.shape))
    value = np.asarray(fill_value)
    if value.ndim != 0:
        array = empty(shape, value.dtype if dtype is None else dtype, device, order)
        value = _array.to_device(value, device=array.device)
        return assign(array, _broadcast.broadcast_view(value, array.shape))
    return _array.full(shape, fill_value, dtype, device, order)


def zeros(shape, dtype=None, device=None, order="C"):
    """An array of `shape` filled with zeros (dtype defaults to float64)."""
    return _array.full(shape, 0, np.float64 if dtype is None else dtype, device, order)


def ones(shape, dtype=None, device=None, order="C"):
    """An array of `shape` filled with ones (dtype defaults to float64)."""
    return _array.full(shape, 1, np.float64 if dtype is None else dtype, device, order)


def _f_only(shape, strides, itemsize):
    # Fortran-contiguous and not C-contiguous: the layout *_like(order="K") keeps.
    expected_f = itemsize
    for extent, stride in zip(shape, strides):
        if extent != 1 and stride != expected_f:
            return False
        expected_f *= extent
    return not c_contiguous(shape, strides, itemsize)


def like_order(x):
    """NumPy's order 'K' of an array made like `x`, in the two orders simt's arrays have:
    'F' for an F-contiguous x, and for a view whose strides grow strictly from the first
    axis to the last (a strided view of an F array, a transposed C view: NumPy keeps the
    axes' memory order); else 'C'."""
    shape, strides = np.shape(x), x.strides
    if _f_only(shape, strides, x.itemsize):
        return "F"
    steps = [abs(s) for s, n in zip(strides, shape) if n > 1]
    return "F" if len(steps) > 1 and all(a < b for a, b in zip(steps, steps[1:])) else "C"


def _like(x, dtype, device, order, shape, where):
    """(shape, dtype, device, order) of an array made like `x` (a simt or NumPy array)."""
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"{where}: order must be 'C', 'F', 'A' or 'K', not {order!r}")
    if dtype is None:
        dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    if device is None and isinstance(x, Array):
        device = x.device
    if shape is None:
        shape = np.shape(x)
        if order == "K" and hasattr(x, "strides") and hasattr(x, "itemsize"):
            order = like_order(x)
        elif order == "A" and hasattr(x, "strides") and hasattr(x, "itemsize"):
            order = "F" if _f_only(shape, x.strides, x.itemsize) else "C"
    if order in ("A", "K"):
        order = "C"  # another shape: C order, as NumPy
    return shape, dtype, device, order


def empty_like(x, /, dtype=None, device=None, *, order="K", shape=None):
    """An uninitialized array with the shape, dtype and device of `x` (each can be given);
    order "K" keeps a Fortran-ordered x's layout, as NumPy."""
    shape, dtype, device, order = _like(x, dtype, device, order, shape, "simt.empty_like")
    return empty(shape, dtype, device, order)


def zeros_like(x, /, dtype=None, device=None, *, order="K", shape=None):
    """An array of zeros with the shape, dtype and device of `x` (each can be given)."""
    shape, dtype, device, order = _like(x, dtype, device, order, shape, "simt.zeros_like")
    return zeros(shape, dtype, device, order)


def ones_like(x, /, dtype=None, device=None, *, order="K", shape=None):
    """An array of ones with the shape, dtype and device of `x` (each can be given)."""
    shape, dtype, device, order = _like(x, dtype, device, order, shape, "simt.ones_like")
    return ones(shape, dtype, device, order)


def full_like(x, /, fill_value, dtype=None, device=None, *, order="K", shape=None):
    """An array with the shape, dtype and device of `x` (each can be given) filled with
    `fill_value`, converted to the dtype as NumPy converts it (2.7 becomes 2 in integers)."""
    shape, dtype, device, order = _like(x, dtype, device, order, shape, "simt.full_like")
    if isinstance(fill_value, Array):
        return full(shape, fill_value, dtype, device, order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        value = np.asarray(fill_value).astype(dtype)
    return full(shape, value, dtype, device, order)


# --- arange and linspace ----------------------------------------------------------------------

def _host_scalar(value, name, where):
    """A number given as a Python or NumPy scalar, or a 0-d simt array (read back)."""
    if isinstance(value, Array):
        if value.ndim != 0:
            raise TypeError(f"{where}: {name} must be a scalar, not an array of shape "
                            f"{value.shape}")
        return value.get()[()]
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    raise TypeError(f"{where}: {name} must be a number, not {type(value).__name__}")


def _arange_length(start, stop, step):
    # NumPy's rule: ceil((stop - start) / step), in the arithmetic of the given numbers.
    if step == 0:
        raise ZeroDivisionError("simt.arange: step must not be zero")
    with np.errstate(all="ignore"):
        span = (stop - start) / step
    if isinstance(span, (complex, np.complexfloating)):
        raise TypeError("simt.arange: complex arguments are not supported")
    span = float(span)
    if not math.isfinite(span):
        raise ValueError(f"simt.arange: the length of arange({start}, {stop}, {step}) is "
                         f"not finite")
    return max(math.ceil(span), 0)


def _arange_dtype(start, stop, step):
    # NumPy's default: the arguments' types promoted with its default integer (so bools and
    # small integer scalars give int64, float32 scalars with an int give float64).
    return np.result_type(np.int64, *(np.asarray(v).dtype for v in (start, stop, step)))


def _sequence_dtype(dtype):
    """The dtype NumPy computes a sequence of `dtype` in (its arange fill functions): half
    floats in float32, integers in int64 (uint64 in itself), both wrapping as C does."""
    if dtype.kind == "f":
        return np.dtype(np.float32) if dtype.itemsize < 4 else dtype
    if dtype.kind in "iub":
        return np.dtype(np.uint64) if dtype == np.uint64 else np.dtype(np.int64)
    raise TypeError(f"simt.arange: dtype {dtype} is not supported (real numbers only)")


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop) (or [0, start)): NumPy's values, lengths and
    default dtype (int64 for integer arguments, float64 as soon as one is a float), computed
    on `device`."""
    where = "simt.arange"
    if stop is None:
        start, stop = 0, start
    start = _host_scalar(start, "start", where)
    stop = _host_scalar(stop, "stop", where)
    step = _host_scalar(step, "step", where)
    length = _arange_length(start, stop, step)
    dtype = _arange_dtype(start, stop, step) if dtype is None else np.dtype(dtype)
    if dtype.kind == "b" and length > 2:
        raise TypeError(f"{where}: a bool arange has at most 2 elements (as NumPy), "
                        f"this one would have {length}")
    out = empty(length, dtype, device)
    if length:
        _fill_arange(out, start, step)
    return out


def _fill_arange(out, start, step):
    """out[i] = start + i * delta as NumPy computes it: the first two elements are start and
    start + step converted to out's dtype, and delta is their difference in that dtype."""
    work = _sequence_dtype(out.dtype)
    first = np.array(start, dtype=out.dtype)  # OverflowError where NumPy raises one
    with np.errstate(all="ignore"):
        second = np.array(start + step, dtype=out.dtype) if out.size > 1 else first
        first_w, second_w = first.astype(work), second.astype(work)
        delta = np.subtract(second_w, first_w, dtype=work)  # wraps, as in C
    index = "i" if work == np.int64 else f"np.{work.name}(i)"
    text = f"{{0}} if i == 0 else ({{2}} if i == 1 else {{0}} + {index} * {{1}})"
    operands = [Operand(v[()], "simt.arange") for v in (first_w, delta, second_w)]
    _elementwise.run("arange", text, [], out, operands, [work] * 3)


def _linspace_dtype(start, stop):
    # NumPy's: the numbers' promoted type (Python scalars weak), at least float64 when
    # that is an integer type.
    dtype = np.result_type(start, stop)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """`num` evenly spaced values from start to stop (included when `endpoint`): NumPy's
    values (i * step + start in the promoted float type, the last one stop itself; floored
    for an integer dtype), computed on `device`."""
    where = "simt.linspace"
    start = _host_scalar(start, "start", where)
    stop = _host_scalar(stop, "stop", where)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"{where}: the number of samples, {num}, must be non-negative")
    compute = _linspace_dtype(start, stop)
    dtype = compute if dtype is None else np.dtype(dtype)
    if dtype.kind in "iub" and compute.kind == "c":
        raise TypeError(f"{where}: complex values into dtype {dtype} (NumPy cannot floor "
                        f"complex numbers either)")
    out = empty(num, dtype, device)
    if num:
        _fill_linspace(out, compute, start, stop, num, endpoint)
    return out


def _fill_linspace(out, compute, start, stop, num, endpoint):
    div = num - 1 if endpoint else num
    kind = compute.type
    with np.errstate(all="ignore"):
        first, last = kind(start), kind(stop)
        delta = np.subtract(last, first, dtype=compute)
        step = delta / kind(div) if div > 0 else None
    t = f"np.{compute.name}(i)"
    if step is not None and step != 0:
        value, scale = f"{t} * {{1}} + {{0}}", step
    elif step is not None:
        # A step that underflows to zero (denormal spans): NumPy divides first.
        value, scale = f"({t} / {{3}}) * {{1}} + {{0}}", delta
    else:
        value, scale = f"{t} * {{1}} + {{0}}", delta  # at most one element: start
    last_index = num - 1 if endpoint and num > 1 else -1
    text = f"{{2}} if i == {{4}} else {value}"
    if out.dtype.kind in "iu":
        text = f"np.floor({text})"  # NumPy floors every value, stop too, for integers
    elif compute.kind == "c" and out.dtype.kind != "c":
        text = f"({text}).real"  # as NumPy's astype: the real part
    operands = [Operand(first, "simt.linspace"), Operand(kind(scale), "simt.linspace"),
                Operand(last, "simt.linspace"), Operand(kind(max(div, 1)), "simt.linspace"),
                Operand(np.int64(last_index), "simt.linspace")]
    _elementwise.run("linspace", text, [], out, operands, [compute] * 4 + [np.dtype(np.int64)])


# --- eye, tril, triu, meshgrid ----------------------------------------------------------------

def eye(n_rows, n_cols=None, /, k=0, dtype=None, device=None, *, order="C"):
    """A 2-D array with ones on diagonal `k` (0 the main one, > 0 above, < 0 below) and
    zeros elsewhere; dtype defaults to float64."""
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    k = operator.index(k)
    out = zeros((n_rows, n_cols), dtype, device, order)
    first_row, first_col = max(0, -k), max(0, k)
    length = max(0, min(n_rows - first_row, n_cols - first_col))
    if length:
        row_stride, col_stride = out.strides
        offset = out._impl.offset + first_row * row_stride + first_col * col_stride
        diagonal = Array._wrap(out._impl.view(offset, [length], [row_stride + col_stride]))
        assign(diagonal, 1)
    return out


def _triangle(x, k, keep, where):
    """x where the element's (column - row) satisfies `keep` against k, else zero."""
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{where}: x must have at least 2 dimensions, not {x.ndim} "
                         f"(shape {x.shape})")
    rows, cols = x.shape[-2:]
    # Beyond the matrix every diagonal is all in or all out: keep k in int64.
    k = min(max(operator.index(k), -rows - 1), cols + 1)
    out = empty(x.shape, x.dtype, x.device)
    row_index = arange(rows, dtype=np.int64, device=x.device)
    row_index = _broadcast.element_view(row_index, (rows, 1), (8, 0))
    col_index = arange(cols, dtype=np.int64, device=x.device)
    text = f"{{0}} if {{2}} - {{1}} {keep} {{3}} else {{4}}"
    operands = [Operand(x, where), Operand(row_index, where), Operand(col_index, where),
                Operand(np.int64(k), where), Operand(x.dtype.type(0), where)]
    dtypes = [x.dtype, np.dtype(np.int64), np.dtype(np.int64), np.dtype(np.int64), x.dtype]
    _elementwise.run("tril" if keep == "<=" else "triu", text, [], out, operands, dtypes)
    return out


def tril(x, /, *, k=0):
    """The lower triangle of the matrices of x (its last two axes): the elements on and
    below diagonal k, zeros above."""
    return _triangle(x, k, "<=", "simt.tril")


def triu(x, /, *, k=0):
    """The upper triangle of the matrices of x (its last two axes): the elements on and
    above diagonal k, zeros below."""
    return _triangle(x, k, ">=", "simt.triu")


def meshgrid(*arrays, indexing="xy", sparse=False, copy=True):
    """Coordinate matrices from 1-D coordinate arrays: a list of N-D arrays, each the
    corresponding input broadcast along the other axes. indexing "xy" (Cartesian, the
    default: the first two axes swapped) or "ij" (matrix); NumPy's `sparse` and `copy`."""
    where = "simt.meshgrid"
    if indexing not in ("xy", "ij"):
        raise ValueError(f"{where}: indexing must be 'xy' or 'ij', not {indexing!r}")
    device = None
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"{where}: the arrays must be simt arrays, not "
                            f"{type(a).__name__}")
        if device is not None and a.device != device:
            raise ValueError(f"{where}: arrays on two devices, {device.id} and {a.device.id}")
        device = a.device
    ndim = len(arrays)
    flat = [_raveled(a) for a in arrays]
    shapes = [[1] * ndim for _ in arrays]
    for axis, a in enumerate(flat):
        shapes[axis][axis] = a.size
    if indexing == "xy" and ndim > 1:
        for shape in shapes[:2]:
            shape[0], shape[1] = shape[1], shape[0]
    views = [_broadcast.element_view(a, shape, [a.strides[0] if n != 1 else 0 for n in shape])
             for a, shape in zip(flat, shapes)]
    if not sparse:
        full_shape = _broadcast.broadcast_shapes(*(v.shape for v in views))
        views = [_broadcast.broadcast_view(v, full_shape) for v in views]
    return [contiguous_copy(v) for v in views] if copy else views


def _raveled(a):
    # A 1-D view (or copy) of a's elements in C order.
    if a.ndim == 1:
        return a
    if a._contiguous():
        return _broadcast.element_view(a, (a.size,), (a.itemsize,))
    copy = contiguous_copy(a)
    return _broadcast.element_view(copy, (a.size,), (a.itemsize,))


# --- asarray and NumPy's conversions ----------------------------------------------------------

def _device_arg(device):
    return None if device is None else get_device(device)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """`obj` as a simt array of `dtype` on `device`, without copying where it can:

    - a simt array: itself (converted with astype's rules when `dtype` differs, copied
      when `device` is another one);
    - a device array of another library (DLPack, __cuda_array_interface__): a view of its
      memory, as simt.from_dlpack;
    - a NumPy array, a list, a number: as numpy.asarray(obj, dtype) takes it, on the
      current device when `device` is None, as CuPy's asarray: a view of that NumPy array
      where the current device is ``cpu``, a copy on any other.

    copy=True always copies; copy=False never does (ValueError where it would have to).
    """
    if copy not in (None, True, False):
        raise TypeError(f"simt.asarray: copy must be None, True or False, not {copy!r}")
    target = _device_arg(device)
    dtype = None if dtype is None else np.dtype(dtype)
    if isinstance(obj, Array):
        return _from_simt(obj, dtype, target, copy)
    if not isinstance(obj, np.ndarray) and (
            (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"))
            or _interop._cuda_array_interface(obj) is not None):
        return _from_device_library(obj, dtype, target, copy)
    return _from_host(obj, dtype, target, copy)


def _from_simt(x, dtype, target, copy):
    moved = target is not None and target != x.device
    converted = dtype is not None and dtype != x.dtype
    if copy is False and (moved or converted):
        what = f"to {target.id}" if moved else f"from {x.dtype} to {dtype}"
        raise ValueError(f"simt.asarray: copy=False, but converting the array {what} copies it")
    if converted:
        x = astype(x, dtype)
    if moved:
        return _array.to_device(x, device=target)
    return x.copy() if copy and not converted else x


def _from_device_library(obj, dtype, target, copy):
    # A view of the producer's memory (ValueError from from_dlpack when it is on another
    # device and copy is False), converted on the device when dtype asks.
    if copy is False:
        x = _interop.from_dlpack(obj, device=target, copy=False)
    elif copy and dtype is None:
        return _interop.from_dlpack(obj, device=target, copy=True)
    else:
        x = _interop.asarray(obj, target)
    if dtype is not None and dtype != x.dtype:
        if copy is False:
            raise ValueError(f"simt.asarray: copy=False, but converting from {x.dtype} to "
                             f"{dtype} copies")
        x = astype(x, dtype)
    return x


def _from_host(obj, dtype, target, copy):
    # NumPy makes the array (its conversions of lists and numbers; ValueError for copy=False
    # where it must copy) on the host, and it goes to the current device, as CuPy's does: a
    # program run with another device current must not compute on the CPU unasked.
    arrays_on = _device_of_nested(obj)
    if arrays_on is not None:
        # A list of simt arrays (CuPy's asarray([a[i] * b[j] for ...])): their values,
        # read to the host once, make the array, on their device unless one is named.
        obj, target = _host_values(obj), target or arrays_on
    if target is None:
        target = get_device()
    if copy is False:
        try:
            host = np.asarray(obj, dtype=dtype, copy=False)
        except ValueError as e:
            raise ValueError(f"simt.asarray: copy=False, but {e}") from None
        return _interop.from_dlpack(host, device=target, copy=False)
    host = np.asarray(obj, dtype=dtype)
    if copy:
        return _array.to_device(host, device=target)
    return _interop.asarray(host, target)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, device=None):
    """NumPy's and CuPy's array constructor: `obj` as a new simt array (on `device`, default
    the current one) unless copy=False lets it be `obj` itself; `ndmin` leading axes of
    length 1 added; order "C", "F", "A" or "K" (F gives a Fortran-ordered copy)."""
    if order not in ("K", "A", "C", "F", None):
        raise ValueError(f"simt.array: order must be 'K', 'A', 'C' or 'F', not {order!r}")
    if subok:
        raise ValueError("simt.array: subok=True has no meaning for simt arrays (there are no "
                         "subclasses)")
    ndmin = operator.index(ndmin)
    x = asarray(obj, dtype=dtype, device=device, copy=None if copy is False else copy)
    if x.ndim < ndmin:
        x = x.reshape((1,) * (ndmin - x.ndim) + x.shape)
    if order == "F" and not _f_contiguous(x):
        out = _array.empty(x.shape, x.dtype, x.device, "F")
        return assign(out, x)
    return x


def _device_of_nested(obj):
    """The device of the first simt array in the lists and tuples of `obj`, or None."""
    if isinstance(obj, Array):
        return obj.device
    if isinstance(obj, (list, tuple)):
        for item in obj:
            found = _device_of_nested(item)
            if found is not None:
                return found
    return None


def _host_values(obj):
    if isinstance(obj, Array):
        return obj.get()
    if isinstance(obj, (list, tuple)):
        return [_host_values(item) for item in obj]
    return obj


def asnumpy(a, stream=None, out=None):
    """A NumPy copy of `a` (CuPy's name): a simt array copied to the host (into `out` when
    given); a NumPy array as it is; anything else through numpy.asarray."""
    if isinstance(a, Array):
        return a.get(stream=stream, out=out)
    host = np.asarray(a)
    if out is None:
        return host
    out[...] = host
    return out


def ascontiguousarray(a, dtype=None):
    """`a` as a C-contiguous simt array (of `dtype`), itself when it is one already; as
    NumPy, a 0-d array becomes 1-D."""
    x = a if isinstance(a, Array) else asarray(a)
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    if x.ndim == 0:
        x = _broadcast.element_view(x, (1,), (x.itemsize,))
    if x._contiguous() and dtype == x.dtype:
        return x
    return contiguous_copy(x, dtype)
