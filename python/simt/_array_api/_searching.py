"""searchsorted: where values would be inserted into a sorted 1-D array to keep it sorted
(the array API's, NumPy's semantics: NaN is the largest value; side='left' gives the first
such place, 'right' the last; `sorter` the indices that sort x1 when it is not sorted).
isin: whether each element of one array is among another's, by the same search in the
other's sorted elements.

Both arrays are compared in their promoted dtype (NumPy's result_type). On GPUs a
generated kernel runs a binary search per value (one thread each, grid-stride); on the
cpu device NumPy's searchsorted reads the arrays' host memory in place.
"""

import numpy as np

from .._array import Array, empty, full, to_device, zeros
from .._device import runs_on_host
from . import _generated
from .. import _launch
from ._dtypes import astype
from ._elementwise import FUNCTIONS, contiguous_copy
from ._indexing import take
from ._manipulation import reshape
from ._reduction import any as any_along
from ._sorting import check_ordered, checked_array, sort

__all__ = ["searchsorted", "isin"]

_SIDES = ("left", "right")


def _operands(x1, x2, sorter, where):
    checked_array(x1, where, "x1")
    if isinstance(x2, (bool, int, float, np.generic)):
        x2 = to_device(np.asarray(x2), device=x1.device)
    checked_array(x2, where, "x2")
    if x1.ndim != 1:
        raise ValueError(f"{where}: x1 must be one-dimensional, not of shape {x1.shape}")
    arrays = [("x2", x2)] + ([("sorter", sorter)] if sorter is not None else [])
    for name, other in arrays:
        checked_array(other, where, name)
        if other.device != x1.device:
            raise ValueError(f"{where}: x1 is on {x1.device.id}, {name} on {other.device.id}; "
                             f"move one with .to_device() (simt never copies implicitly)")
    dtype = np.result_type(x1.dtype, x2.dtype)
    check_ordered(dtype, where)
    if sorter is not None:
        if sorter.dtype.kind not in "iu":
            raise TypeError(f"{where}: sorter must be an integer array, not {sorter.dtype}")
        if sorter.shape != x1.shape:
            raise ValueError(f"{where}: sorter must have x1's shape {x1.shape}, not "
                             f"{sorter.shape}")
    return x2, dtype


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """The int64 indices (x2's shape) where x2's values would go into the sorted 1-D x1:
    for side='left' the first i with x1[i] >= v, for 'right' the first with x1[i] > v
    (x1[sorter[i]] when sorter is given)."""
    where = "simt.searchsorted"
    if side not in _SIDES:
        raise ValueError(f"{where}: side must be 'left' or 'right', not {side!r}")
    x2, dtype = _operands(x1, x2, sorter, where)
    device = x1.device
    out = empty(x2.shape, np.int64, device)
    if out.size == 0:
        return out
    if runs_on_host(device):
        if sorter is not None:
            _check_sorter_range(np.asarray(sorter), x1.shape[0], where)
        np.asarray(out)[...] = np.searchsorted(
            np.asarray(x1).astype(dtype, copy=False), np.asarray(x2).astype(dtype, copy=False),
            side=side, sorter=None if sorter is None else np.asarray(sorter))
        return out
    _launch.check_dtypes(device, (dtype,), where)
    values = x2 if x2._contiguous() else contiguous_copy(x2)
    values = Array._wrap(values._impl.view(values._impl.offset, [values.size],
                                           [values.itemsize]))
    flat_out = Array._wrap(out._impl.view(out._impl.offset, [out.size], [8]))
    bad = zeros((1,), np.int32, device)
    has_sorter = sorter is not None
    order = sorter if has_sorter else x1  # without a sorter the kernel never reads it
    _kernel(dtype, side, has_sorter)[_launch.elementwise_config(device, out.size)](
        flat_out, x1, order, values, bad)
    if has_sorter and bad.get()[0]:  # the one value brought back, with a sorter only
        raise _sorter_error(where, x1.shape[0])
    return out


def _sorter_error(where, length):
    return ValueError(f"{where}: sorter holds an index out of range for x1 of length {length}")


def _check_sorter_range(sorter, length, where):
    if sorter.size and (sorter.min() < 0 or sorter.max() >= length):
        raise _sorter_error(where, length)


_kernels = {}

# dev_less(a, b): a < b with NaN the largest value (floats only: a NaN test of an
# integer would be a self-comparison, which OpenCL compilers warn about). side='left'
# finds the first a not before v; for side='right', a goes before v unless v goes
# before a.
_LESS = {True: '''
def dev_less(a, b):
    if b != b:
        return a == a
    return a < b
''', False: '''
def dev_less(a, b):
    return a < b
'''}
_BEFORE = {"left": "dev_less(a, v)", "right": "not dev_less(v, a)"}


def _kernel(dtype, side, has_sorter):
    key = (dtype, side, has_sorter)
    found = _kernels.get(key)
    if found is None:
        t = _generated.dtype_name(dtype)
        n = "x1.shape[0]"
        if has_sorter:
            # An index out of range reads nothing: it is flagged, and the call raises.
            element = ["s = np.int64(order[mid])", "if s < 0 or s >= n:",
                       "    bad[0] = 1", "    s = 0", f"a = {t}(x1[s])"]
        else:
            element = [f"a = {t}(x1[mid])"]
        body = "\n".join(" " * 12 + line for line in element)
        found = _kernels[key] = _generated.kernel("search_sorted", _LESS[dtype.kind == "f"] + f'''
def search_sorted(out, x1, order, values, bad):
    n = {n}
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < values.size:
        v = {t}(values[i])
        low = np.int64(0)
        high = np.int64(n)
        while low < high:
            mid = (low + high) // 2
{body}
            if {_BEFORE[side]}:
                low = mid + 1
            else:
                high = mid
        out[i] = low
        i += step
''')
    return found


_ISIN_KINDS = (None, "sort", "table")


def isin(x1, x2, /, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of x1 equals some element of x2 (a bool array of x1's shape;
    its negation with invert=True): the array API's isin (2025.12) and NumPy's. Values
    compare in the promoted dtype, as `==` does: NaN is in nothing, -0.0 equals 0.0.
    Either may be a Python scalar. NumPy's `assume_unique` and `kind` ('sort', 'table')
    are accepted; they change how NumPy searches, not the result, and simt always sorts.

    Real values: x2 flattened and sorted, then each x1 value's place in it found by
    searchsorted and compared with the element there (O((n + m) log m)). Complex values,
    which have no order: every x1 value compared with every x2 value (n * m booleans)."""
    where = "simt.isin"
    if kind not in _ISIN_KINDS:
        raise ValueError(f"{where}: kind must be None, 'sort' or 'table', not {kind!r}")
    x1, x2 = _isin_operands(x1, x2, where)
    dtype = np.result_type(x1.dtype, x2.dtype)
    if x2.size == 0 or x1.size == 0:
        return full(x1.shape, bool(invert), np.bool_, x1.device)
    values = reshape(astype(x1, dtype, copy=False), (-1,))
    if dtype.kind == "c":
        table = reshape(astype(x2, dtype, copy=False), (1, -1))
        found = any_along(FUNCTIONS["equal"](reshape(values, (-1, 1)), table), axis=1)
    else:
        table = sort(reshape(astype(x2, dtype, copy=False), (-1,)))
        n = table.shape[0]
        place = searchsorted(table, values)
        there = take(table, FUNCTIONS["minimum"](place, n - 1))
        found = FUNCTIONS["logical_and"](FUNCTIONS["less"](place, n),
                                         FUNCTIONS["equal"](there, values))
    found = reshape(found, x1.shape)
    return FUNCTIONS["logical_not"](found) if invert else found


def _isin_operands(x1, x2, where):
    """x1 and x2 as simt arrays on one device (a Python scalar becomes a 0-d array on the
    other's device)."""
    scalars = (bool, int, float, complex, np.generic)
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError(f"{where}: x1 or x2 must be a simt array, not "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    if isinstance(x1, scalars):
        x1 = to_device(np.asarray(x1), device=x2.device)
    if isinstance(x2, scalars):
        x2 = to_device(np.asarray(x2), device=x1.device)
    checked_array(x1, where, "x1")
    checked_array(x2, where, "x2")
    if x1.device != x2.device:
        raise ValueError(f"{where}: x1 is on {x1.device.id}, x2 on {x2.device.id}; move one "
                         f"with .to_device() (simt never copies implicitly)")
    return x1, x2
