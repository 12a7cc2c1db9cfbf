"""Manipulation functions: reshape, broadcast_to/broadcast_arrays, concat and stack (and
NumPy's concatenate, vstack, hstack, dstack, column_stack), unstack, expand_dims, squeeze,
flip, roll, permute_dims (and NumPy's transpose, moveaxis, swapaxes), matrix_transpose,
tile, repeat, NumPy's ravel; and the Array methods that name them (reshape, ravel, flatten,
transpose, T, mT, squeeze, swapaxes, repeat), fill, copy and flags.

Whatever can be a view is one: a new shape and strides over the same memory (reshape
where the strides allow, flip with negative strides, broadcasting with zero strides,
permutations). The rest copies on the device, by element-wise assignments into views of
the result: concat writes each input into its slice, tile and repeat write the input once
through a view of the result that repeats it, roll writes the pieces of each shifted axis.
Nothing goes through the host.
"""

import itertools
import operator

import numpy as np

from .._array import Array, empty, full, to_device
from .. import _broadcast
from . import _generated
from .. import _launch
from ._elementwise import assign, contiguous_copy
from .._axes import normalize_axis

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_to",
           "column_stack", "concat", "concatenate", "dstack", "expand_dims", "flip",
           "hstack", "matrix_transpose", "moveaxis", "permute_dims", "ravel", "repeat",
           "reshape", "roll", "squeeze", "stack", "swapaxes", "tile", "transpose", "unstack",
           "vstack"]


# --- helpers: arguments, axes, views ----------------------------------------------------------

def _array(x, where, name="x"):
    if not isinstance(x, Array):
        raise TypeError(f"{where}: {name} must be a simt array, not {type(x).__name__}")
    return x


def _arrays(arrays, where):
    """The arrays of a sequence argument, all simt arrays on one device."""
    if isinstance(arrays, Array):
        raise TypeError(f"{where}: pass a sequence of arrays (a tuple or a list), not one "
                        f"array")
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"{where}: needs at least one array")
    for position, a in enumerate(arrays):
        _array(a, where, f"array {position}")
        if a.device != arrays[0].device:
            raise ValueError(f"{where}: arrays on two devices, {arrays[0].device.id} and "
                             f"{a.device.id}; move one with .to_device() (simt never copies "
                             f"implicitly)")
    return arrays


def _axes(axis, ndim, where):
    """`axis` (an int or a sequence of ints) as a tuple of distinct non-negative axes."""
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    found = tuple(normalize_axis(a, ndim, where) for a in items)
    if len(set(found)) != len(found):
        raise ValueError(f"{where}: repeated axis in {axis}")
    return found


def _view(x, offset, shape, strides):
    return Array._wrap(x._impl.view(offset, [int(n) for n in shape], [int(s) for s in strides]))


def _slice(x, axis, start, stop):
    """x[..., start:stop, ...] along `axis` (0 <= start <= stop <= extent), as a view."""
    shape = list(x.shape)
    shape[axis] = stop - start
    return _view(x, x._impl.offset + start * x.strides[axis], shape, x.strides)


def _take_index(x, axis, index):
    """x[..., index, ...]: the view with `axis` removed."""
    shape = x.shape[:axis] + x.shape[axis + 1:]
    strides = x.strides[:axis] + x.strides[axis + 1:]
    return _view(x, x._impl.offset + index * x.strides[axis], shape, strides)


def _with_unit_axes(x, positions):
    """x viewed with extent-1 axes at `positions` (sorted axes of the result)."""
    shape, strides = list(x.shape), list(x.strides)
    for p in positions:
        # Any stride is valid for an extent of 1; the inner axis' span keeps it tidy.
        inner = strides[p] * shape[p] if p < len(shape) else x.itemsize
        shape.insert(p, 1)
        strides.insert(p, inner)
    return _view(x, x._impl.offset, shape, strides)


def _assign(out, value):
    """out[...] = value, value broadcast to out's shape first: the engine's assign takes
    the shape of a lone array operand for the loop, so a smaller value would fill only its
    own extent of out."""
    assign(out, _broadcast.broadcast_view(value, out.shape))


def _permuted(x, order):
    return _view(x, x._impl.offset, [x.shape[a] for a in order], [x.strides[a] for a in order])


def _size(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n


# --- reshape ----------------------------------------------------------------------------------

def _shape_arg(shape, where):
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    try:
        return tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"{where}: shape must be an int or a tuple of ints, not "
                        f"{shape!r}") from None


def _resolved_shape(size, shape, where):
    """`shape` with its -1 (at most one) replaced by the extent that keeps `size`."""
    unknown = [axis for axis, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"{where}: invalid shape {shape} (extents are non-negative, with "
                         f"at most one -1)")
    known = _size(n for n in shape if n != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"{where}: cannot reshape an array of size {size} into shape "
                             f"{shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    elif known != size:
        raise ValueError(f"{where}: cannot reshape an array of size {size} into shape {shape}")
    return shape


def _reshaped_strides(shape, strides, new_shape, itemsize):
    """Strides giving x's elements (C order) the shape `new_shape` without moving them, or
    None where no strides do. Each run of x's axes that merges into one stride can be cut
    anew; axes of extent 1 do not matter."""
    if _size(shape) == 0:
        return _broadcast.c_strides(new_shape, itemsize)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    targets = [axis for axis, n in enumerate(new_shape) if n != 1]
    result = [None] * len(new_shape)
    i = j = 0
    while i < len(old) and j < len(targets):
        # The shortest runs of old and new axes with the same number of elements.
        i_end, j_end = i + 1, j + 1
        old_count, new_count = old[i][0], new_shape[targets[j]]
        while old_count != new_count:
            if old_count < new_count:
                old_count *= old[i_end][0]
                i_end += 1
            else:
                new_count *= new_shape[targets[j_end]]
                j_end += 1
        for k in range(i, i_end - 1):
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        stride = old[i_end - 1][1]
        for k in range(j_end - 1, j - 1, -1):
            result[targets[k]] = stride
            stride *= new_shape[targets[k]]
        i, j = i_end, j_end
    following = itemsize
    for axis in range(len(new_shape) - 1, -1, -1):
        if result[axis] is None:
            result[axis] = following
        following = result[axis] * new_shape[axis]
    return tuple(result)


def reshape(x, /, shape, *, copy=None, order="C"):
    """x with another shape (one extent may be -1), its elements in C order (NumPy's
    `order` "F" reads and places them in Fortran order): a view where the strides allow,
    else a copy. copy=True always copies, copy=False never (ValueError where it would have
    to)."""
    where = "simt.reshape"
    _array(x, where)
    new_shape = _resolved_shape(x.size, _shape_arg(shape, where), where)
    if order == "A":
        order = "F" if _f_only(x) else "C"
    if order == "F":
        return permute_dims(reshape(permute_dims(x, tuple(range(x.ndim))[::-1]),
                                    new_shape[::-1], copy=copy),
                            tuple(range(len(new_shape)))[::-1])
    if order != "C":
        raise ValueError(f"{where}: order must be 'C', 'F' or 'A', not {order!r}")
    if copy not in (None, True, False):
        raise TypeError(f"{where}: copy must be None, True or False, not {copy!r}")
    strides = None if copy else _reshaped_strides(x.shape, x.strides, new_shape, x.itemsize)
    if strides is None:
        if copy is False:
            raise ValueError(f"{where}: cannot reshape an array of shape {x.shape} and "
                             f"strides {x.strides} into shape {new_shape} without copying "
                             f"(copy=False)")
        x = contiguous_copy(x)
        strides = _broadcast.c_strides(new_shape, x.itemsize)
    return _view(x, x._impl.offset, new_shape, strides)


def _f_contiguous(x):
    # The elements dense in Fortran order from the first one.
    expected = x.itemsize
    for extent, stride in zip(x.shape, x.strides):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _f_only(x):
    # Fortran-contiguous and not C-contiguous: the layout NumPy's order "A" and "K" keep.
    return _f_contiguous(x) and not x._contiguous()


def ravel(a, order="C"):
    """a's elements as a 1-D array (NumPy's ravel): a view where the strides allow, else
    a copy."""
    return reshape(a, -1, order=order)


# --- broadcasting -----------------------------------------------------------------------------

def broadcast_to(x, /, shape):
    """x viewed with `shape` (which it broadcasts to): zero strides where it repeats."""
    where = "simt.broadcast_to"
    _array(x, where)
    shape = _shape_arg(shape, where)
    if any(n < 0 for n in shape):
        raise ValueError(f"{where}: invalid shape {shape} (extents are non-negative)")
    fits = len(shape) >= x.ndim and all(
        own in (1, target) for own, target in zip(x.shape[::-1], shape[::-1]))
    if not fits:
        raise ValueError(f"{where}: cannot broadcast an array of shape {x.shape} to shape "
                         f"{shape}")
    strides = _broadcast.broadcast_strides(x.shape, x.strides, shape)
    view = _view(x, x._impl.offset, shape, strides)
    if any(stride == 0 and extent > 1 for stride, extent in zip(strides, shape)):
        # Elements repeat: a write through one would change the others (NumPy's view is
        # read-only too).
        view = Array._wrap(view._impl.readonly_view())
    return view


def broadcast_arrays(*arrays):
    """The arrays broadcast to their common shape (a list of views)."""
    where = "simt.broadcast_arrays"
    if not arrays:
        return []
    arrays = _arrays(arrays, where)
    try:
        shape = _broadcast.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return [broadcast_to(a, shape) for a in arrays]


# --- joining ----------------------------------------------------------------------------------

def _result_dtype(arrays, dtype, casting, where):
    if dtype is None:
        return np.result_type(*(a.dtype for a in arrays))
    dtype = np.dtype(dtype)
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting):
            raise TypeError(f"{where}: cannot cast an array of dtype {a.dtype} to {dtype} "
                            f"under casting rule {casting!r}")
    return dtype


def _output(shape, dtype, device, out, where):
    """A new result array, or `out` checked against the result's shape and device."""
    if out is None:
        return empty(shape, dtype, device)
    _array(out, where, "out")
    if out.shape != tuple(shape):
        raise ValueError(f"{where}: out has shape {out.shape}, the result {tuple(shape)}")
    if out.device != device:
        raise ValueError(f"{where}: out is on {out.device.id}, the arrays on {device.id}")
    return out


def _concatenate(arrays, axis, dtype, out, casting, where):
    arrays = _arrays(arrays, where)
    if axis is None:
        arrays = [reshape(a, -1) for a in arrays]
        axis = 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError(f"{where}: 0-d arrays cannot be concatenated")
    axis = normalize_axis(axis, first.ndim, where)
    for position, a in enumerate(arrays):
        if a.ndim != first.ndim:
            raise ValueError(f"{where}: array 0 has {first.ndim} dimensions (shape "
                             f"{first.shape}), array {position} has {a.ndim} (shape "
                             f"{a.shape})")
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError(f"{where}: the shapes must match except along axis "
                                 f"{axis}: array 0 has shape {first.shape}, array "
                                 f"{position} {a.shape}")
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    dtype = out.dtype if dtype is None and isinstance(out, Array) else dtype
    result = _output(shape, _result_dtype(arrays, dtype, casting, where), first.device, out,
                     where)
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        assign(_slice(result, axis, start, stop), a)
        start = stop
    return result


def with_ends(x, axis, prepend, append, where):
    """x with `prepend` before it and `append` after it along `axis` (a normalized axis of
    x), as diff takes them: arrays of x's shape except along the axis, on x's device, or
    scalars (NumPy's), which are one slice of that shape in their own NumPy dtype; the
    result's dtype is the promoted one, as concat's."""
    parts = []
    for name, end in (("prepend", prepend), ("append", append)):
        if end is None:
            parts.append(None)
            continue
        if not isinstance(end, Array):
            if not isinstance(end, (bool, int, float, complex, np.generic)):
                raise TypeError(f"{where}: {name} must be a simt array or a scalar, not "
                                f"{type(end).__name__}")
            shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
            end = full(shape, end, np.asarray(end).dtype, x.device)
        if end.device != x.device:
            raise ValueError(f"{where}: x is on {x.device.id}, {name} on {end.device.id}; "
                             f"move one with .to_device() (simt never copies implicitly)")
        if end.ndim == 0:  # a 0-d array is a scalar: one slice, as NumPy's
            end = broadcast_to(end, x.shape[:axis] + (1,) + x.shape[axis + 1:])
        if end.ndim != x.ndim or any(end.shape[d] != x.shape[d]
                                     for d in range(x.ndim) if d != axis):
            raise ValueError(f"{where}: {name} must have x's shape {x.shape} except along "
                             f"axis {axis}, not {end.shape}")
        parts.append(end)
    arrays = [a for a in (parts[0], x, parts[1]) if a is not None]
    return x if len(arrays) == 1 else _concatenate(arrays, axis, None, None, "same_kind", where)


def concat(arrays, /, *, axis=0):
    """The arrays joined along an existing `axis` (None: flattened first), in their
    promoted dtype."""
    return _concatenate(arrays, axis, None, None, "same_kind", "simt.concat")


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """NumPy's concatenate: concat, with `out` and `dtype` (inputs cast under `casting`)."""
    return _concatenate(arrays, axis, dtype, out, casting, "simt.concatenate")


def stack(arrays, /, axis=0, *, out=None, dtype=None, casting="same_kind"):
    """The arrays (all of one shape) joined along a new `axis`."""
    where = "simt.stack"
    arrays = _arrays(arrays, where)
    shape = arrays[0].shape
    for position, a in enumerate(arrays):
        if a.shape != shape:
            raise ValueError(f"{where}: all arrays must have one shape: array 0 has shape "
                             f"{shape}, array {position} {a.shape}")
    axis = normalize_axis(axis, len(shape) + 1, where)
    result_shape = shape[:axis] + (len(arrays),) + shape[axis:]
    dtype = out.dtype if dtype is None and isinstance(out, Array) else dtype
    result = _output(result_shape, _result_dtype(arrays, dtype, casting, where),
                     arrays[0].device, out, where)
    for k, a in enumerate(arrays):
        assign(_take_index(result, axis, k), a)
    return result


def unstack(x, /, *, axis=0):
    """The arrays x holds along `axis` (a tuple of views)."""
    where = "simt.unstack"
    _array(x, where)
    axis = normalize_axis(axis, x.ndim, where)
    return tuple(_take_index(x, axis, k) for k in range(x.shape[axis]))


def _at_least(x, ndim, where):
    # NumPy's atleast_Nd: 0-d -> (1, ...), 1-D (n,) -> (1, n) or (1, n, 1), 2-D -> (m, n, 1).
    _array(x, where)
    if x.ndim >= ndim:
        return x
    if x.ndim == 0:
        return _with_unit_axes(x, range(ndim))
    if x.ndim == 1:
        return _with_unit_axes(x, [0] if ndim == 2 else [0, 2])
    return _with_unit_axes(x, [2])


def _at_least_all(arrays, ndim, where):
    found = [_at_least(a, ndim, where) for a in arrays]
    return found[0] if len(found) == 1 else tuple(found)


def atleast_1d(*arrays):
    """Each array with at least one dimension (views)."""
    return _at_least_all(arrays, 1, "simt.atleast_1d")


def atleast_2d(*arrays):
    """Each array with at least two dimensions: (n,) becomes (1, n) (views)."""
    return _at_least_all(arrays, 2, "simt.atleast_2d")


def atleast_3d(*arrays):
    """Each array with at least three dimensions: (n,) becomes (1, n, 1), (m, n) becomes
    (m, n, 1) (views)."""
    return _at_least_all(arrays, 3, "simt.atleast_3d")


def vstack(arrays, /, *, dtype=None, casting="same_kind"):
    """The arrays joined along their first axis, 1-D ones as rows (NumPy's vstack)."""
    where = "simt.vstack"
    arrays = [_at_least(a, 2, where) for a in _arrays(arrays, where)]
    return _concatenate(arrays, 0, dtype, None, casting, where)


def hstack(arrays, /, *, dtype=None, casting="same_kind"):
    """The arrays joined along their second axis (their only one when 1-D; NumPy's
    hstack)."""
    where = "simt.hstack"
    arrays = [_at_least(a, 1, where) for a in _arrays(arrays, where)]
    return _concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype, None, casting, where)


def dstack(arrays, /):
    """The arrays joined along their third axis (NumPy's dstack)."""
    where = "simt.dstack"
    arrays = [_at_least(a, 3, where) for a in _arrays(arrays, where)]
    return _concatenate(arrays, 2, None, None, "same_kind", where)


def column_stack(arrays, /):
    """1-D arrays as the columns of a 2-D array (2-D arrays as they are), joined along the
    second axis (NumPy's column_stack)."""
    where = "simt.column_stack"
    arrays = [_with_unit_axes(a, [1]) if a.ndim < 2 else a for a in _arrays(arrays, where)]
    arrays = [_with_unit_axes(a, [0]) if a.ndim < 2 else a for a in arrays]  # 0-d: (1, 1)
    return _concatenate(arrays, 1, None, None, "same_kind", where)


# --- axes: expand_dims, squeeze, flip, permutations -------------------------------------------

def expand_dims(x, /, axis=0):
    """x with extent-1 axes inserted at `axis` (an int or a tuple, axes of the result)."""
    where = "simt.expand_dims"
    _array(x, where)
    count = len(axis) if isinstance(axis, (tuple, list)) else 1
    positions = sorted(_axes(axis, x.ndim + count, where))
    return _with_unit_axes(x, positions)


def squeeze(x, /, axis=None):
    """x without its extent-1 axes (all of them, or those of `axis`: ValueError for an
    axis of another extent)."""
    where = "simt.squeeze"
    _array(x, where)
    if axis is None:
        axes = {a for a, n in enumerate(x.shape) if n == 1}
    else:
        axes = set(_axes(axis, x.ndim, where))
        for a in sorted(axes):
            if x.shape[a] != 1:
                raise ValueError(f"{where}: cannot squeeze axis {a}, of extent {x.shape[a]} "
                                 f"(shape {x.shape}); only axes of extent 1 can be")
    kept = [a for a in range(x.ndim) if a not in axes]
    return _view(x, x._impl.offset, [x.shape[a] for a in kept], [x.strides[a] for a in kept])


def flip(x, /, *, axis=None):
    """x with the order of its elements reversed along `axis` (all axes when None): a view
    with negative strides."""
    where = "simt.flip"
    _array(x, where)
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim, where)
    offset, strides = x._impl.offset, list(x.strides)
    for a in axes:
        if x.shape[a] > 0:
            offset += (x.shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return _view(x, offset, x.shape, strides)


def permute_dims(x, /, axes):
    """x with its axes in the order `axes` (a permutation of range(x.ndim)): a view."""
    where = "simt.permute_dims"
    _array(x, where)
    axes = tuple(axes)
    if len(axes) != x.ndim:
        raise ValueError(f"{where}: axes {axes} do not match an array of {x.ndim} dimensions")
    return _permuted(x, _axes(axes, x.ndim, where))


def transpose(a, axes=None):
    """NumPy's transpose: a's axes reversed, or in the order `axes` (a view)."""
    _array(a, "simt.transpose", "a")
    if axes is None:
        return _permuted(a, range(a.ndim)[::-1])
    return permute_dims(a, axes)


def matrix_transpose(x, /):
    """x with its last two axes swapped (the transposes of its matrices): a view."""
    where = "simt.matrix_transpose"
    _array(x, where)
    if x.ndim < 2:
        raise ValueError(f"{where}: x must have at least 2 dimensions, not {x.ndim} "
                         f"(shape {x.shape})")
    return _permuted(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def swapaxes(x, axis1, axis2, /):
    """x with two axes exchanged (a view)."""
    where = "simt.swapaxes"
    _array(x, where)
    order = list(range(x.ndim))
    a, b = normalize_axis(axis1, x.ndim, where), normalize_axis(axis2, x.ndim, where)
    order[a], order[b] = b, a
    return _permuted(x, order)


def moveaxis(x, source, destination, /):
    """x with the axes `source` moved to the positions `destination` (the others in their
    order): a view."""
    where = "simt.moveaxis"
    _array(x, where)
    source = _axes(source, x.ndim, where)
    destination = _axes(destination, x.ndim, where)
    if len(source) != len(destination):
        raise ValueError(f"{where}: source {source} and destination {destination} must "
                         f"have the same number of axes")
    order = [a for a in range(x.ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _permuted(x, order)


# --- copies with a pattern: roll, tile, repeat ------------------------------------------------

def _pairs(shift, axis, where):
    """{axis: total shift} for roll's (shift, axis), each an int or a sequence."""
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        else:
            raise ValueError(f"{where}: shift {shift} and axis {axis} have different lengths")
    return list(zip(shifts, axes))


def roll(x, /, shift, *, axis=None):
    """x with its elements shifted by `shift` along `axis` (those leaving one end coming in
    at the other); axis None: over the flattened elements, shape kept."""
    where = "simt.roll"
    _array(x, where)
    if axis is None:
        return reshape(roll(reshape(x, -1), shift, axis=0), x.shape)
    total = {}
    for s, a in _pairs(shift, axis, where):
        a = normalize_axis(a, x.ndim, where)
        total[a] = total.get(a, 0) + operator.index(s)
    out = empty(x.shape, x.dtype, x.device)
    # Each shifted axis splits into two pieces, [n - s, n) going to [0, s) and [0, n - s)
    # to [s, n): one assignment per combination of pieces.
    pieces = []
    for a, s in total.items():
        n = x.shape[a]
        s = s % n if n else 0
        pieces.append([(a, 0, n - s, s)] + ([(a, n - s, n, 0)] if s else []))
    for combination in itertools.product(*pieces):
        source, target = x, out
        for a, start, stop, to in combination:
            source = _slice(source, a, start, stop)
            target = _slice(target, a, to, to + stop - start)
        assign(target, source)
    return out


def tile(x, repetitions, /):
    """x repeated `repetitions` times along each axis (an int or a tuple; the shorter of
    the two padded with leading ones, as NumPy's tile)."""
    where = "simt.tile"
    _array(x, where)
    reps = _shape_arg(repetitions, where)
    if any(r < 0 for r in reps):
        raise ValueError(f"{where}: repetitions must be non-negative, not {reps}")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    x = _with_unit_axes(x, range(ndim - x.ndim))
    out = empty(tuple(r * n for r, n in zip(reps, x.shape)), x.dtype, x.device)
    # out viewed as (r0, n0, r1, n1, ...): x (as (1, n0, 1, n1, ...)) broadcasts into it.
    shape, strides = [], []
    for r, n, stride in zip(reps, x.shape, out.strides):
        shape += [r, n]
        strides += [n * stride, stride]
    _assign(_view(out, out._impl.offset, shape, strides),
            _with_unit_axes(x, range(0, 2 * ndim, 2)))
    return out


def repeat(x, repeats, /, *, axis=None):
    """Each element of x repeated `repeats` times along `axis` (None: over the flattened
    elements). `repeats` is an int, or one count per element along the axis (a sequence
    or a simt integer array, read back to size the result)."""
    where = "simt.repeat"
    _array(x, where)
    if axis is None:
        x, axis = reshape(x, -1), 0
    axis = normalize_axis(axis, x.ndim, where)
    counts = _repeat_counts(repeats, x.shape[axis], where)
    if isinstance(counts, int):
        return _repeat_each(x, counts, axis)
    return _repeat_varying(x, counts, axis)


def _repeat_counts(repeats, extent, where):
    """An int for a single count; else a NumPy int64 array of `extent` counts."""
    if isinstance(repeats, Array):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"{where}: repeats must be integers, not {repeats.dtype}")
        repeats = repeats.get()
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iub":
        raise TypeError(f"{where}: repeats must be integers, not {counts.dtype}")
    if counts.ndim > 1:
        raise ValueError(f"{where}: repeats must be an int or 1-D, not of shape {counts.shape}")
    if np.any(counts < 0):
        raise ValueError(f"{where}: repeats must be non-negative")
    if counts.ndim == 0 or counts.size == 1:
        return int(counts.reshape(-1)[0]) if counts.size else 0
    if counts.size != extent:
        raise ValueError(f"{where}: {counts.size} repeats for an axis of extent {extent}")
    return counts.astype(np.int64)


def _repeat_each(x, count, axis):
    shape = list(x.shape)
    shape[axis] *= count
    out = empty(shape, x.dtype, x.device)
    # out viewed as (..., n, count, ...): x (as (..., n, 1, ...)) broadcasts into it.
    view_shape = list(x.shape[:axis + 1]) + [count] + list(x.shape[axis + 1:])
    view_strides = list(out.strides)
    view_strides[axis] = out.strides[axis] * count
    view_strides.insert(axis + 1, out.strides[axis])
    _assign(_view(out, out._impl.offset, view_shape, view_strides),
            _with_unit_axes(x, [axis + 1]))
    return out


def _repeat_varying(x, counts, axis):
    # Element j of the result along the axis is element index[j] of x: the index is
    # computed on the host (one int per element of that axis), the gather on the device.
    index = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    shape = list(x.shape)
    shape[axis] = index.size
    out = empty(shape, x.dtype, x.device)
    if out.size == 0:
        return out
    _gather(out, x, to_device(index, device=x.device), axis)
    return out


_GATHER_TEXT = """
def gather_axis(out, x, index):
{loop}
"""


def _as_three_axes(a, axis):
    """a as (before, extent, after) strides, or None where the axes around `axis` do not
    merge into one stride each."""
    parts = []
    for span in (range(axis), range(axis + 1, a.ndim)):
        dims, (strides,) = _broadcast.collapse([a.shape[d] for d in span],
                                               [[a.strides[d] for d in span]])
        if len(dims) > 1:
            return None
        parts.append(strides[0] if dims else 0)
    return parts[0], a.strides[axis], parts[1]


def _gather(out, x, index, axis):
    """out[..., j, ...] = x[..., index[j], ...] along `axis`, by a generated kernel over
    3-D views (before, axis, after) of out and x."""
    strides = _as_three_axes(x, axis)
    if strides is None:
        x = contiguous_copy(x)
        strides = _as_three_axes(x, axis)
    before, after = _size(x.shape[:axis]), _size(x.shape[axis + 1:])
    x3 = _view(x, x._impl.offset, (before, x.shape[axis], after), strides)
    out3 = _view(out, out._impl.offset, (before, out.shape[axis], after),
                 (out.shape[axis] * after * out.itemsize, after * out.itemsize, out.itemsize))
    body = ["c = i % out.shape[2]", "r = i // out.shape[2]", "b = r % out.shape[1]",
            "a = r // out.shape[1]", "out[a, b, c] = x[a, index[b], c]"]
    loop = "\n".join(_launch.flat_loop(body, _launch.loop_form(x.device)))
    kernel = _generated.kernel("gather_axis", _GATHER_TEXT.format(loop=loop))
    kernel[_launch.elementwise_config(x.device, out.size)](out3, x3, index)


# --- Array methods ----------------------------------------------------------------------------

def _reshape_method(self, *shape, copy=None, order="C"):
    """a.reshape(2, 3) or a.reshape((2, 3)): simt.reshape."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return reshape(self, shape, copy=copy, order=order)


def _transpose_method(self, *axes):
    """a.transpose(), a.transpose(1, 0, 2) or a.transpose((1, 0, 2)): NumPy's."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        return transpose(self)
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = axes[0]
    return permute_dims(self, axes)


def _fill(self, value):
    """a.fill(value): every element set to `value`, converted as NumPy's fill converts it
    (2.7 is 2 in integers; OverflowError for a Python int out of the dtype's range)."""
    if isinstance(value, Array):
        if value.size != 1:
            raise ValueError(f"fill: the value must be a scalar, not an array of shape "
                             f"{value.shape}")
        _assign(self, reshape(value, ()))
        return
    scalar = np.array(value, dtype=self.dtype)
    if (self._contiguous() or _f_only(self)) and not self.readonly:
        # Dense from its first element: the device's fill writes the bytes (no kernel).
        self._impl.fill(scalar.tobytes())
    else:
        assign(self, scalar[()])


def _copy(self, stream=None, *, order="C"):
    """A new array on the same device with the same contents, copied on the device
    (C order, or NumPy's `order` "F", "A", "K": Fortran order for a Fortran array)."""
    if order in ("A", "K"):
        order = "F" if _f_only(self) else "C"
    if order not in ("C", "F"):
        raise ValueError(f"copy: order must be 'C', 'F', 'A' or 'K', not {order!r}")
    out = empty(self.shape, self.dtype, self.device, order)
    if out.strides == self.strides or (self._contiguous() and order == "C"):
        out._impl.copy_from_device(self._impl, stream)
        return out
    return assign(out, self)


def _mt(self):
    """The transposes of the matrices (the last two axes swapped)."""
    return matrix_transpose(self)


class Flags:
    """The layout of an array, as NumPy's and CuPy's a.flags: c_contiguous, f_contiguous,
    writeable (also as a.flags["C_CONTIGUOUS"], ...)."""

    __slots__ = ("c_contiguous", "f_contiguous", "writeable")

    def __init__(self, array):
        self.c_contiguous = array._contiguous()
        self.f_contiguous = _f_contiguous(array)
        self.writeable = not array.readonly

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "F_CONTIGUOUS":
               "f_contiguous", "F": "f_contiguous", "WRITEABLE": "writeable", "W": "writeable"}
        try:
            return getattr(self, key[name.upper()])
        except KeyError:
            raise KeyError(f"unknown flag {name!r}") from None

    def __repr__(self):
        return "\n".join(f"  {name.upper()} : {getattr(self, name)}" for name in self.__slots__)


METHODS = {
    "reshape": _reshape_method,
    "ravel": lambda self, order="C": reshape(self, -1, order=order),
    "flatten": lambda self, order="C": reshape(
        _copy(self, order="F" if order == "F" else "C"), -1, order=order),
    "transpose": _transpose_method,
    "T": property(transpose, doc="The array with its axes reversed (a view), as NumPy's."),
    "mT": property(_mt, doc="The transposes of the matrices (the last two axes swapped)."),
    "squeeze": lambda self, axis=None: squeeze(self, axis),
    "swapaxes": lambda self, axis1, axis2: swapaxes(self, axis1, axis2),
    "repeat": lambda self, repeats, axis=None: repeat(self, repeats, axis=axis),
    "flags": property(Flags, doc="The array's layout: c_contiguous, f_contiguous, writeable."),
    "fill": _fill,
    "copy": _copy,
}
