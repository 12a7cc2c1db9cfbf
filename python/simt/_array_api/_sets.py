"""Sets: the array API's unique_all, unique_counts, unique_inverse and unique_values, and
NumPy's unique. x is flattened (C order); the unique values come sorted.

Equality is the array API's: NaNs are distinct (each NaN is a value of its own), and
-0.0 equals 0.0 (the group's value is the one that comes first in x). NumPy's unique
takes equal_nan (default True: NaNs are one value, as NumPy 2's). Complex values come in
NumPy's lexicographic order (real parts, then imaginary parts, values with a NaN part
last), which the array API leaves open; a complex value with a NaN part is a NaN there.

One path on every device: the flattened x is argsorted (stably, so a group's first
element in sorted order is its first occurrence in x; complex values by three stable
argsorts, of the imaginary parts, the real parts and the NaN flags), then generated kernels
- flag each sorted place that starts a group (its value differs from the one before),
- number the groups by the running sum of the flags (simt.cumulative_sum's scan),
- compact: each group's first place writes the group's value, first index and start,
  its last place the end, and every place writes its group into inverse_indices.
One number comes to the host: the count of groups, which sizes the results.
Where only the values are asked for (unique_values, NumPy's unique without extras) of
real values, the values themselves are sorted and the first of each run kept
(_distinct_sorted), as CuPy does.
"""

import math
from collections import namedtuple

import numpy as np

from .._array import Array, empty
from . import _generated
from .. import _launch
from .._axes import normalize_axis
from ._creation import arange, asarray
from ._indexing import nonzero, take
from ._manipulation import concat, moveaxis, reshape
from ._elementwise import FUNCTIONS, contiguous_copy
from ._reduction import any as any_along, cumulative_sum
from ._sorting import argsort, check_ordered, checked_array, sort

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values", "unique"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _flat(x):
    """x's elements as a 1-D array in C order (a view when x is C-contiguous)."""
    if not x._contiguous():
        x = contiguous_copy(x)
    return Array._wrap(x._impl.view(x._impl.offset, [x.size], [x.itemsize]))


def _sorted_order(flat):
    """The stable argsort of the 1-D `flat`; complex values (which simt.argsort refuses:
    the array API has no order for them) in NumPy's lexicographic order, by stable sorts
    of the keys from the least significant: imaginary parts, real parts, NaN flags."""
    if flat.dtype.kind != "c":
        return argsort(flat)
    order = argsort(FUNCTIONS["imag"](flat))
    order = take(order, argsort(take(FUNCTIONS["real"](flat), order)))
    return take(order, argsort(take(FUNCTIONS["isnan"](flat), order)))


def _groups(x, where, equal_nan=False):
    """UniqueAllResult of x (inverse_indices in x's shape)."""
    checked_array(x, where)
    if x.dtype.kind != "c":
        check_ordered(x.dtype, where)
    device = x.device
    flat = _flat(x)
    n = flat.size
    if n == 0:
        nothing = empty((0,), np.int64, device)
        return UniqueAllResult(empty((0,), x.dtype, device), nothing,
                               empty(x.shape, np.int64, device), nothing)
    order = _sorted_order(flat)
    config = _launch.elementwise_config(device, n)
    starts = empty((n,), np.int64, device)
    _kernel("flags", x.dtype.kind in "fc")[config](starts, flat, order, np.int32(equal_nan))
    group = cumulative_sum(starts)  # group[i]: 1 + the group of sorted place i
    total = int(group[n - 1:].get()[0])
    values = empty((total,), x.dtype, device)
    indices, begin, end = (empty((total,), np.int64, device) for _ in range(3))
    inverse = empty(x.shape, np.int64, device)
    flat_inverse = Array._wrap(inverse._impl.view(inverse._impl.offset, [n], [8]))
    _kernel("compact")[config](values, indices, begin, end, flat_inverse, flat, order, group)
    counts = FUNCTIONS["subtract"](end, begin)
    return UniqueAllResult(values, indices, inverse, counts)


def _sorts_by_value(x):
    """Whether _distinct_sorted takes x (an array of real values; anything else, complex
    values or no array at all, goes to _groups, which checks and says what is wrong)."""
    return getattr(getattr(x, "dtype", None), "kind", "c") != "c"


def _distinct_sorted(x, where, equal_nan=False):
    """x's distinct values, sorted, where nothing else is asked for (CuPy's way): the
    values themselves sorted (stably: a group's first value is its first occurrence, the
    one kept of -0.0 and 0.0), a flag where a value differs from the one before, then the
    flagged values. No argsort, no group numbers: about half the work of _groups."""
    checked_array(x, where)
    check_ordered(x.dtype, where)
    flat = _flat(x)
    n = flat.size
    if n == 0:
        return empty((0,), x.dtype, x.device)
    ordered = sort(flat)
    keep = empty((n,), np.bool_, x.device)
    _kernel("distinct", x.dtype.kind == "f")[_launch.elementwise_config(x.device, n)](
        keep, ordered, np.int32(equal_nan))
    return ordered[keep]


def _sub_array_groups(x, axis, where):
    """UniqueAllResult of the sub-arrays of x along `axis` (NumPy's unique(axis=)): x as
    rows (the axis first, the rest flattened), ordered by stable argsorts of each
    column from the last to the first (lexicographic order, a group's first row its
    first occurrence), a group starting where a row differs from the one before (!=:
    NaN differs from itself, -0.0 equals 0.0, as NumPy's sub-array comparison)."""
    checked_array(x, where)
    check_ordered(x.dtype, where)
    if x.ndim == 0:
        raise np.exceptions.AxisError(axis, 0, where)
    axis = normalize_axis(axis, x.ndim, where)
    moved = moveaxis(x, axis, 0)
    m, rest = moved.shape[0], moved.shape[1:]
    rows = reshape(moved, (m, math.prod(rest)))
    device = x.device
    order = arange(m, dtype=np.int64, device=device)
    for j in reversed(range(rows.shape[1])):
        order = take(order, argsort(take(rows[:, j], order)))
    ordered = take(rows, order, axis=0)
    starts = empty((m,), np.bool_, device)
    if m:
        starts[:1] = True
        starts[1:] = any_along(ordered[1:] != ordered[:-1], axis=1)
    first = nonzero(starts)[0]
    total = first.shape[0]
    values = reshape(moveaxis(reshape(take(ordered, first, axis=0), (total, *rest)), 0, axis),
                     tuple(total if k == axis else n for k, n in enumerate(x.shape)))
    bounds = concat([first, asarray([m], dtype=np.int64, device=device)])
    counts = FUNCTIONS["subtract"](bounds[1:], bounds[:-1])
    group = FUNCTIONS["subtract"](cumulative_sum(starts, dtype=np.int64), 1)
    inverse = take(group, argsort(order))  # argsort inverts the permutation
    return UniqueAllResult(values, take(order, first), inverse, counts)


# The kernels, over the n sorted places i (order[i]: x's element at place i).
_TEMPLATES = {
    "flags": '''
def unique_flags(starts, x, order, equal_nan):
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < x.size:
        start = np.int64(1)
        if i > 0:
            a = x[order[i]]
            b = x[order[i - 1]]
            if {SAME}:
                start = np.int64(0)
        starts[i] = start
        i += step
''',
    "distinct": '''
def unique_distinct(keep, x, equal_nan):
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < x.size:
        start = True
        if i > 0:
            a = x[i]
            b = x[i - 1]
            if {SAME}:
                start = False
        keep[i] = start
        i += step
''',
    "compact": '''
def unique_compact(values, indices, begin, end, inverse, x, order, group):
    n = x.size
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < n:
        g = group[i] - 1
        p = order[i]
        inverse[p] = g
        if i == 0 or group[i - 1] != group[i]:
            values[g] = x[p]
            indices[g] = p
            begin[g] = i
        if i == n - 1 or group[i + 1] != group[i]:
            end[g] = i + 1
        i += step
''',
}

_kernels = {}


# When two neighbours in sorted order are one value: NaN tests for floats only (on
# integers they are self-comparisons, which OpenCL compilers warn about).
_SAME = {True: "a == b or (equal_nan != 0 and a != a and b != b)", False: "a == b"}


def _kernel(name, floats=False):
    found = _kernels.get((name, floats))
    if found is None:
        text = _TEMPLATES[name].replace("{SAME}", _SAME[floats])
        found = _kernels[name, floats] = _generated.kernel(f"unique_{name}", text)
    return found


def unique_all(x, /):
    """(values, indices, inverse_indices, counts) of x's distinct values: sorted values,
    the index of each one's first occurrence in flattened x, each element's value's place
    in values (x's shape), and how often each occurs. NaNs are distinct."""
    return _groups(x, "simt.unique_all")


def unique_counts(x, /):
    """(values, counts) of x's distinct values (NaNs distinct)."""
    found = _groups(x, "simt.unique_counts")
    return UniqueCountsResult(found.values, found.counts)


def unique_inverse(x, /):
    """(values, inverse_indices) of x's distinct values: values[inverse_indices]
    rebuilds x (NaNs distinct)."""
    found = _groups(x, "simt.unique_inverse")
    return UniqueInverseResult(found.values, found.inverse_indices)


def unique_values(x, /):
    """x's distinct values, sorted (NaNs distinct)."""
    if _sorts_by_value(x):
        return _distinct_sorted(x, "simt.unique_values")
    return _groups(x, "simt.unique_values").values


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """NumPy's unique: the sorted distinct values of the flattened array and, as asked,
    first indices, inverse (ar's shape, as NumPy 2's) and counts; NaNs are one value
    unless equal_nan=False. With `axis`, the distinct sub-arrays along that axis (rows
    for axis=0), in lexicographic order, inverse of shape (ar.shape[axis],); there, as in
    NumPy, sub-arrays holding NaN are each distinct and equal_nan has no effect (except
    for 1-D arrays, whose sub-arrays are their elements)."""
    where = "simt.unique"
    if axis is not None and getattr(ar, "ndim", None) == 1:
        normalize_axis(axis, 1, where)
        axis = None  # a 1-D array's sub-arrays are its elements (NumPy's equal_nan applies)
    plain = not (return_index or return_inverse or return_counts)
    if plain and axis is None and _sorts_by_value(ar):
        return _distinct_sorted(ar, where, equal_nan)
    found = _groups(ar, where, equal_nan=equal_nan) if axis is None else \
        _sub_array_groups(ar, axis, where)
    extras = [part for wanted, part in ((return_index, found.indices),
                                        (return_inverse, found.inverse_indices),
                                        (return_counts, found.counts)) if wanted]
    return (found.values, *extras) if extras else found.values
