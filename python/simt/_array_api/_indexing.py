"""Indexing: NumPy's rules for reading and assigning with ints, slices, Ellipsis, None,
integer index arrays and boolean masks; take, take_along_axis, nonzero and argwhere.

Basic indexing (ints, slices, Ellipsis, None) gives a view sharing x's memory; an all-int
key gives a 0-d array (the array API's rule), also a view. Advanced indexing (integer
arrays, boolean masks) gives a new array of NumPy's shape: the index arrays broadcast
together, and their dimensions go where the first advanced index is when the advanced
indices (ints among them) are adjacent in the key, else first.

Generated templates do the work on the device:

- walk: out's flat element i is mapped to an element of x through x's strides and the
  index arrays (read through flat views broadcast to out's shape by per-dimension
  strides, 0 where they repeat). Its modes: gather (out[i] = x[...]), scatter (x[...] =
  value) and check (nothing but the bounds). Every mode checks each index against its
  dimension and sets a flag instead of touching memory out of range: the bounds check is
  on the device, and only the flag (4 bytes) comes to the host. A scatter checks first,
  in its own pass, so that an IndexError leaves x unchanged (NumPy's behaviour).
- count and compact: the positions of a boolean array's true elements in C order, in two
  passes: per block (GPU) or chunk (CPU), how many are true; the exclusive prefix of those
  counts (one value per block, on the host); then each block writes its positions from
  its prefix. GPUs scan each round of a block's tile in shared memory, so reads stay
  coalesced; the CPU walks its chunk in order. Both run on one-dimensional boolean arrays
  only (a mask of another layout, or nonzero's argument, becomes one element-wise first),
  so each compiles once per device.
- unravel: flat positions as one index per dimension (nonzero, masks over dimensions that
  are not one stride apart).

Only small metadata comes to the host: per-block counts, the bounds flag and, when a
bound is violated, the index arrays, to name the offending index as NumPy does.
"""

import math
import operator
import threading

import numpy as np

from .._array import Array, _numpy_dtype, c_contiguous, empty, to_device, zeros
from .. import _core
from .. import _broadcast
from . import _elementwise, _generated
from .. import _launch
from .._axes import normalize_axis

__all__ = ["take", "take_along_axis", "nonzero", "argwhere"]

# Kinds of a key's entries, once parsed.
_INT, _SLICE, _NEW, _ELLIPSIS, _ARRAY, _MASK, _MASK0 = range(7)

_ADVANCED = (_ARRAY, _MASK, _MASK0)

_VALID = ("only integers, slices (`:`), ellipsis (`...`), None (new axis) and integer or "
          "boolean arrays are valid indices")


# ----------------------------------------------------------------------------------------
# The key


class _Entry:
    """One item of a key: its kind, value (int, slice, array, a 0-d mask's count) and how
    many of x's dimensions it consumes. An index array from a mask is `checked` False (its
    positions are in range) and may consume several dimensions one stride apart."""

    __slots__ = ("kind", "value", "dims", "checked")

    def __init__(self, kind, value=None, dims=1, checked=True):
        self.kind, self.value, self.dims, self.checked = kind, value, dims, checked


def _on_device(values, x, where):
    """A host array-like (a NumPy array, a list) as an array on x's device."""
    host = np.asarray(values)
    if host.dtype == object:
        raise IndexError(f"{where}: {_VALID}, not a ragged or mixed sequence")
    if host.size == 0 and host.dtype.kind not in "biu":
        host = host.astype(np.int64)  # [] indexes nothing, as NumPy's intp array
    return to_device(host, device=x.device)


def _entry(k, x):
    """One item of a key as an _Entry (host arrays moved to x's device)."""
    if k is None:
        return _Entry(_NEW, dims=0)
    if k is Ellipsis:
        return _Entry(_ELLIPSIS, dims=0)
    if isinstance(k, slice):
        return _Entry(_SLICE, k)
    if isinstance(k, (bool, np.bool_)):
        return _Entry(_MASK0, int(bool(k)), dims=0)
    if isinstance(k, (list, tuple, np.ndarray)):
        k = _on_device(k, x, "index")
    if isinstance(k, Array):
        if k.device != x.device:
            raise ValueError(f"index: the index array is on {k.device.id}, the array on "
                             f"{x.device.id}; move one with .to_device()")
        if k.dtype.kind == "b":
            if k.ndim == 0:  # its one value comes to the host: the result's extent
                return _Entry(_MASK0, int(bool(k.get())), dims=0)
            return _Entry(_MASK, k, dims=k.ndim)
        if k.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean dtype, "
                             f"not {k.dtype}")
        return _Entry(_ARRAY, k)
    if isinstance(k, (float, complex, np.floating, np.complexfloating, str, bytes)):
        raise IndexError(f"{_VALID}; got {type(k).__name__} {k!r}")
    try:
        return _Entry(_INT, operator.index(k))
    except TypeError:
        raise IndexError(f"{_VALID}; got {type(k).__name__}") from None


def _parse(x, key):
    """The key's entries, Ellipsis expanded (its marker kept: it separates advanced
    indices even when it stands for no dimension, as in NumPy), trailing slices added."""
    items = key if isinstance(key, tuple) else (key,)
    entries = [_entry(k, x) for k in items]
    ellipses = sum(e.kind == _ELLIPSIS for e in entries)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(e.dims for e in entries)
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but "
                         f"{used} were indexed")
    fill = [_Entry(_SLICE, slice(None)) for _ in range(x.ndim - used)]
    if ellipses:
        at = next(n for n, e in enumerate(entries) if e.kind == _ELLIPSIS)
        entries[at + 1:at + 1] = fill
    else:
        entries += fill
    return entries


def _int_index(i, extent, axis):
    if not -extent <= i < extent:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {extent}")
    return i % extent


def _slice(s, extent, stride):
    """(byte offset of the first element, extent, stride) of a slice of a dimension."""
    start, stop, step = s.indices(extent)
    count = len(range(start, stop, step))
    return (start * stride if count else 0), count, stride * step


def _basic_view(x, entries):
    """x[key] for a key of ints, slices, None and Ellipsis: a view of x's memory."""
    offset = x._impl.offset
    shape, strides = [], []
    dim = 0
    for e in entries:
        if e.kind == _NEW:
            shape.append(1)
            strides.append(0)
        elif e.kind == _SLICE:
            start, count, stride = _slice(e.value, x.shape[dim], x.strides[dim])
            offset += start
            shape.append(count)
            strides.append(stride)
            dim += 1
        elif e.kind == _INT:
            offset += _int_index(e.value, x.shape[dim], dim) * x.strides[dim]
            dim += 1
    return Array._wrap(x._impl.view(offset, shape, strides))


class _Indexer:
    """An index array of a walk: its strides (bytes) per out dimension, and the extent and
    stride of the dimension of x it indexes (`axis`, for messages)."""

    __slots__ = ("index", "strides", "extent", "stride", "axis", "checked")

    def __init__(self, index, strides, extent, stride, axis, checked=True):
        self.index, self.strides, self.extent, self.stride = index, strides, extent, stride
        self.axis, self.checked = axis, checked


class _Plan:
    """A walk: out's shape; per out dimension, x's stride (bytes; 0 for the index arrays'
    dimensions); the byte offset in x's memory of out's element 0 before the index arrays
    add theirs; the indexers."""

    __slots__ = ("shape", "x_strides", "offset", "indexers")

    def __init__(self, shape, x_strides, offset, indexers):
        self.shape, self.x_strides, self.offset = tuple(shape), list(x_strides), offset
        self.indexers = indexers

    @property
    def size(self):
        n = 1
        for extent in self.shape:
            n *= extent
        return n


def _merged_stride(shape, strides):
    """The stride s with which C-order flat positions f over `shape` address
    sum(coordinate * stride), as f * s; None when there is none."""
    s = None
    expected = None
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent == 1:
            continue
        if s is None:
            s, expected = stride, stride
        elif stride != expected:
            return None
        expected = stride * extent
    return 0 if s is None else s


def _expand_masks(x, entries):
    """Entries with each mask replaced by index arrays of its true positions: one array
    over the mask's dimensions when x steps through them with one stride, else one per
    dimension."""
    expanded = []
    dim = 0
    for e in entries:
        if e.kind != _MASK:
            expanded.append(e)
            dim += e.dims
            continue
        mask = e.value
        for axis, extent in enumerate(mask.shape):
            if extent != x.shape[dim + axis]:
                raise IndexError(
                    f"boolean index did not match indexed array along axis {dim + axis}; "
                    f"size of axis is {x.shape[dim + axis]} but size of corresponding "
                    f"boolean axis is {extent}")
        positions = _positions(_flags(mask))
        if mask.ndim == 1 or _merged_stride(x.shape[dim:dim + mask.ndim],
                                            x.strides[dim:dim + mask.ndim]) is not None:
            expanded.append(_Entry(_ARRAY, positions, dims=mask.ndim, checked=False))
        else:
            expanded += [_Entry(_ARRAY, row, checked=False)
                         for row in _unraveled(positions, mask.shape)]
        dim += mask.ndim
    return expanded


def _advanced_plan(x, entries):
    """The walk of x[key] for a key with index arrays or masks."""
    entries = _expand_masks(x, entries)
    advanced = [n for n, e in enumerate(entries) if e.kind in (_ARRAY, _INT, _MASK0)]
    adjacent = advanced[-1] - advanced[0] + 1 == len(advanced)
    shapes = [e.value.shape for e in entries if e.kind == _ARRAY]
    shapes += [(e.value,) for e in entries if e.kind == _MASK0]
    try:
        b_shape = _broadcast.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(tuple(s)) for s in shapes)) from None
    offset = x._impl.offset
    shape, x_strides = [], []
    arrays = []  # (entry, x extent, x stride, axis)
    at = 0  # where the broadcast dimensions go
    dim = 0
    for n, e in enumerate(entries):
        if n == advanced[0] and adjacent:
            at = len(shape)
        if e.kind == _NEW:
            shape.append(1)
            x_strides.append(0)
        elif e.kind == _SLICE:
            start, count, stride = _slice(e.value, x.shape[dim], x.strides[dim])
            offset += start
            shape.append(count)
            x_strides.append(stride)
        elif e.kind == _INT:
            offset += _int_index(e.value, x.shape[dim], dim) * x.strides[dim]
        elif e.kind == _ARRAY:
            extent = 1
            for d in range(dim, dim + e.dims):
                extent *= x.shape[d]
            stride = x.strides[dim] if e.dims == 1 else \
                _merged_stride(x.shape[dim:dim + e.dims], x.strides[dim:dim + e.dims])
            arrays.append((e, extent, stride, dim))
        dim += e.dims
    rank = len(b_shape)
    out_shape = tuple(shape[:at]) + b_shape + tuple(shape[at:])
    indexers = []
    for e, extent, stride, axis in arrays:
        inner = _broadcast.broadcast_strides(e.value.shape, e.value.strides, b_shape)
        strides = [0] * at + list(inner) + [0] * (len(out_shape) - at - rank)
        indexers.append(_Indexer(e.value, strides, extent, stride, axis, e.checked))
    return _Plan(out_shape, x_strides[:at] + [0] * rank + x_strides[at:], offset, indexers)


# ----------------------------------------------------------------------------------------
# Flat views: walks read arrays as one dimension of elements from their lowest address,
# with strides in elements.


def _flat(a, offset=None):
    """(1-d view of the elements a spans, the index in it of the element at byte
    `offset` of a's memory, default a's first element)."""
    offset = a._impl.offset if offset is None else offset
    low = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    size = a.itemsize
    view = a._impl.view(a._impl.offset + low, [(high - low) // size + 1], [size])
    return Array._wrap(view), (offset - a._impl.offset - low) // size


def _whole_elements(a):
    return all(s % a.itemsize == 0 for s in a.strides)


def _elements(strides, itemsize):
    return [s // itemsize for s in strides]


def _one_dimension(a):
    """A C-contiguous array as one dimension (a view)."""
    return Array._wrap(a._impl.view(a._impl.offset, [a.size], [a.itemsize]))


# ----------------------------------------------------------------------------------------
# Templates


def _loop(body, form, size, indent="    "):
    """The lines of a loop running `body` over i < `size` (an expression), laid out as
    _launch.flat_loop lays its loops out on each device."""
    inner = [indent * 2 + line for line in body]
    if form == _launch.GRID_STRIDE:
        return [indent + "i = simt.grid(1)", indent + "step = simt.gridsize(1)",
                indent + f"n = {size}", indent + "while i < n:", *inner,
                indent * 2 + "i += step"]
    return [indent + f"n = {size}", indent + "threads = simt.gridsize(1)",
            indent + "chunk = (n + threads - 1) // threads",
            indent + "i = simt.grid(1) * chunk", indent + "end = min(i + chunk, n)",
            indent + "while i < end:", *inner, indent * 2 + "i += 1"]


def _walk(rank, kinds, value_array):
    """Statements giving p (x's element) for out's flat element i, over `rank` out
    dimensions and the index arrays (their dtypes' kinds, 'i' or 'u'), ok False when an
    index is out of range (and wq, the value's element, for a scatter of an array)."""
    lines = ["ok = True", "r = i", "p = base"] + [f"q{j} = b{j}" for j in range(len(kinds))]
    if value_array:
        lines.append("wq = wb")
    for k in range(rank - 1, -1, -1):
        if k:
            lines += [f"o = r % n{k}", f"r = r // n{k}"]
        else:
            lines.append("o = r")
        lines.append(f"p += o * s{k}")
        lines += [f"q{j} += o * t{j}_{k}" for j in range(len(kinds))]
        if value_array:
            lines.append(f"wq += o * u{k}")
    for j, kind in enumerate(kinds):
        # Unsigned values past int64's range become negative here: out of range too.
        lines.append(f"v = np.int64(a{j}[q{j}])")
        if kind == "i":
            lines += ["if v < 0:", f"    v += e{j}"]
        lines += [f"if v < 0 or v >= e{j}:", "    ok = False", f"p += v * x{j}"]
    return lines


def _walk_params(rank, count):
    params = ["base"] + [f"n{k}" for k in range(rank)] + [f"s{k}" for k in range(rank)]
    for j in range(count):
        params += [f"a{j}", f"b{j}"] + [f"t{j}_{k}" for k in range(rank)] + [f"e{j}", f"x{j}"]
    return params


_templates = {}


def _template(key, make):
    found = _templates.get(key)
    if found is None:
        name, text = make()
        found = _templates[key] = _generated.kernel(name, text)
    return found


# The walk's modes: what it does at x's element p.
_GATHER, _SCATTER, _SCATTER_ARRAY, _CHECK = "gather", "scatter", "scatter_array", "check"


def _walk_kernel(mode, rank, kinds, form):
    def make():
        first = {_GATHER: ["out", "src"], _SCATTER: ["dst", "w"],
                 _SCATTER_ARRAY: ["dst", "w", "wb"] + [f"u{k}" for k in range(rank)],
                 _CHECK: []}[mode]
        params = first + ["bad", "total"] + _walk_params(rank, len(kinds))
        action = {_GATHER: "out[i] = src[p]", _SCATTER: "dst[p] = w",
                  _SCATTER_ARRAY: "dst[p] = w[wq]", _CHECK: "pass"}[mode]
        body = _walk(rank, kinds, mode == _SCATTER_ARRAY)
        body += ["if ok:", "    " + action, "else:", "    bad[0] = 1"]
        lines = [f"def ix_{mode}({', '.join(params)}):"] + _loop(body, form, "total")
        return f"ix_{mode}", "\n".join(lines) + "\n"
    return _template(("walk", mode, rank, kinds, form), make)


def _count_kernel(form):
    """counts[b] = how many of the 1-d boolean a's elements in tile b are true."""
    def make():
        lines = ["def ix_count(a, counts, tile):", "    n = a.size"]
        if form == _launch.GRID_STRIDE:
            lines += [
                "    t = simt.thread_idx.x", "    nb = simt.block_dim.x",
                "    b = simt.block_idx.x", "    start = b * tile",
                "    end = min(start + tile, n)", "    c = np.int64(0)", "    at = start",
                "    while at < end:", "        i = at + t", "        f = False",
                "        if i < end:", "            f = a[i]",
                "        c += simt.syncthreads_count(f)", "        at += nb",
                "    if t == 0:", "        counts[b] = c"]
        else:
            lines += [
                # Branch-free (a mask's values are unpredictable): vectorizes.
                "    b = simt.grid(1)", "    start = b * tile",
                "    end = min(start + tile, n)", "    c = np.int64(0)", "    i = start",
                "    while i < end:", "        c += a[i]", "        i += 1",
                "    counts[b] = c"]
        return "ix_count", "\n".join(lines) + "\n"
    return _template(("count", form), make)


_SHARED = _launch.GPU_BLOCK  # the scan's shared array: one value per thread of a block


def _compact_kernel(form):
    """out[offsets[b] + k] = the flat position of the k-th true element of the 1-d
    boolean a in tile b (offsets: the exclusive prefix of the counts, then their total)."""
    def make():
        lines = ["def ix_compact(a, offsets, out, tile):", "    n = a.size"]
        if form == _launch.GRID_STRIDE:
            lines += [
                "    t = simt.thread_idx.x", "    nb = simt.block_dim.x",
                "    b = simt.block_idx.x",
                f"    scan = simt.shared.array({_SHARED}, np.int64)",
                "    start = b * tile", "    end = min(start + tile, n)",
                "    base = offsets[b]", "    at = start",
                "    while at < end:",
                "        i = at + t", "        f = 0", "        if i < end:",
                "            if a[i]:", "                f = 1",
                "        scan[t] = f", "        simt.syncthreads()",
                # Hillis-Steele inclusive scan of the round's flags.
                "        s = 1", "        while s < nb:", "            v = 0",
                "            if t >= s:", "                v = scan[t - s]",
                "            simt.syncthreads()", "            scan[t] += v",
                "            simt.syncthreads()", "            s = s * 2",
                "        if f == 1:", "            out[base + scan[t] - 1] = i",
                "        base += scan[nb - 1]", "        simt.syncthreads()",
                "        at += nb"]
        else:
            lines += [
                # Branch-free: every element's position is written at pos, which moves
                # on past the true ones; the chunk's writes stay below its successor's
                # offset (offsets has one more item: the total).
                "    b = simt.grid(1)", "    start = b * tile",
                "    end = min(start + tile, n)", "    pos = offsets[b]",
                "    limit = offsets[b + 1]", "    i = start", "    while i < end:",
                "        if pos < limit:", "            out[pos] = i", "        pos += a[i]",
                "        i += 1"]
        return "ix_compact", "\n".join(lines) + "\n"
    return _template(("compact", form), make)


def _unravel_kernel(ndim, form):
    """out[d, i] = coordinate d (C order, of extents n0..) of the flat position pos[i]."""
    def make():
        params = ["out", "pos", "total"] + [f"n{d}" for d in range(1, ndim)]
        body = ["r = pos[i]"]
        for d in range(ndim - 1, 0, -1):
            body += [f"out[{d}, i] = r % n{d}", f"r = r // n{d}"]
        body.append("out[0, i] = r")
        lines = [f"def ix_unravel({', '.join(params)}):"] + _loop(body, form, "total")
        return "ix_unravel", "\n".join(lines) + "\n"
    return _template(("unravel", ndim, form), make)


# ----------------------------------------------------------------------------------------
# Launches


def _threads(device):
    """Threads per block of the count and compact kernels: a power of two, at most the
    scan's shared array."""
    block = min(_launch.block_size(device), _SHARED)
    return 1 << (block.bit_length() - 1)


# GPUs: each block takes a tile of at least _GPU_ROUNDS rounds of its threads, tiles
# growing so that at most _GPU_TILES blocks (counts to bring to the host) are made.
_GPU_ROUNDS = 8
_GPU_TILES = 4096


def _tiles(device, n):
    """(tile, blocks, threads per block) of a count or compact of n elements."""
    if _launch.loop_form(device) == _launch.CHUNKED:
        chunks = _launch.elementwise_config(device, n)[0]
        tile = -(-n // chunks)
        return tile, -(-n // tile), 1
    threads = _threads(device)
    tile = max(threads * _GPU_ROUNDS, -(-n // _GPU_TILES))
    tile = -(-tile // threads) * threads
    return tile, -(-n // tile), threads


def _flags(a):
    """a != 0 as a 1-d C-ordered boolean array (a itself, as a view, when it is one)."""
    if a.ndim == 0:
        a = Array._wrap(a._impl.view(a._impl.offset, [1], [a.itemsize]))
    if a.dtype.kind != "b":
        a = _elementwise.FUNCTIONS["not_equal"](a, 0)
    elif not a._contiguous():
        a = _elementwise.contiguous_copy(a)
    return _one_dimension(a)


def _positions(flags):
    """The positions of the true elements of a 1-d boolean array, in order (int64)."""
    device = flags.device
    n = flags.size
    if n == 0:
        return empty((0,), np.int64, device)
    form = _launch.loop_form(device)
    tile, blocks, threads = _tiles(device, n)
    counts = empty((blocks,), np.int64, device)
    _count_kernel(form)[blocks, threads](flags, counts, tile)
    counts = counts.get()  # the one synchronization: the result's extent
    total = int(counts.sum())
    out = empty((total,), np.int64, device)
    if total:
        offsets = np.zeros(blocks + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])  # the exclusive prefix, on the host
        offsets = to_device(offsets, device=device)
        _compact_kernel(form)[blocks, threads](flags, offsets, out, tile)
    return out


def _unravel(positions, shape, out):
    """Writes the coordinates (over `shape`, C order) of flat `positions` into out,
    2-d [dimension, position]."""
    total = positions.size
    if total == 0:
        return
    device = positions.device
    kernel = _unravel_kernel(len(shape), _launch.loop_form(device))
    grid, block = _launch.elementwise_config(device, total)
    kernel[grid, block](out, positions, total, *shape[1:])


def _unraveled(positions, shape):
    """The coordinates of flat `positions` over `shape`: one int64 array per dimension
    (rows of one (ndim, count) array)."""
    total = positions.size
    out = empty((len(shape), total), np.int64, positions.device)
    _unravel(positions, shape, out)
    return [Array._wrap(out._impl.view(out._impl.offset + d * out.strides[0], [total],
                                       [out.strides[1]])) for d in range(len(shape))]


def _launch_walk(mode, plan, device, first, base, itemsize, value_strides=None):
    """Runs the walk kernel of `mode` over the plan's elements, the dimensions that every
    array steps through as one merged first (as element-wise kernels merge them): `first`
    are the mode's leading arguments, `base` x's element of out's element 0 (in x's flat
    view, of `itemsize`), value_strides a scattered array's strides per out dimension."""
    strides = [plan.x_strides] + [ix.strides for ix in plan.indexers]
    if value_strides is not None:
        strides.append(list(value_strides))
    shape, strides = _broadcast.collapse(plan.shape, strides)
    size = plan.size
    bad = zeros((1,), np.int32, device)
    args = list(first)
    if value_strides is not None:  # first is [x, the value's flat view, its base]
        args += _elements(strides.pop(), first[1].itemsize)
    args += [bad, size, base] + shape + _elements(strides[0], itemsize)
    for ix, ix_strides in zip(plan.indexers, strides[1:]):
        flat, start = _flat(ix.index)
        args += [flat, start] + _elements(ix_strides, ix.index.itemsize)
        args += [ix.extent, ix.stride // itemsize]
    kinds = tuple(ix.index.dtype.kind for ix in plan.indexers)
    kernel = _walk_kernel(mode, len(shape), kinds, _launch.loop_form(device))
    grid, block = _launch.elementwise_config(device, size)
    kernel[grid, block](*args)
    return bad


def _raise_out_of_range(indexers):
    """The IndexError NumPy gives for the first out-of-range index (the index arrays
    come to the host: this runs only when the device found one)."""
    for ix in indexers:
        if not ix.checked or ix.index.size == 0:
            continue
        host = ix.index.get().reshape(-1)
        if host.dtype.kind == "i":
            bad = host[(host < -ix.extent) | (host >= ix.extent)]
        else:
            bad = host[host >= ix.extent]
        if bad.size:
            raise IndexError(f"index {bad[0]} is out of bounds for axis {ix.axis} with size "
                             f"{ix.extent}")
    raise AssertionError("the device found an index out of range that the host does not")


def _check(indexers, device):
    """IndexError unless every element of the checked index arrays is in range: one check
    walk over each (on the device), one flag to the host."""
    indexers = [ix for ix in indexers if ix.checked and ix.index.size]
    if not indexers:
        return
    flags = []
    for ix in indexers:
        own = _Indexer(ix.index, list(ix.index.strides), ix.extent, 0, ix.axis)
        plan = _Plan(ix.index.shape, [0] * ix.index.ndim, 0, [own])
        flags.append(_launch_walk(_CHECK, plan, device, [], 0, 1))
    if any(flag.get()[0] for flag in flags):
        _raise_out_of_range(indexers)


def _gather(x, plan):
    """A new array: x's elements as the plan walks them (IndexError for an index out of
    range: checked in the same pass)."""
    out = empty(plan.shape, x.dtype, x.device)
    size = out.size
    if size == 0:
        _check(plan.indexers, x.device)  # NumPy checks the indices of empty results too
        return out
    if not _whole_elements(x):
        raise NotImplementedError("indexing an array whose strides are not whole elements")
    src, base = _flat(x, plan.offset)
    bad = _launch_walk(_GATHER, plan, x.device, [_one_dimension(out), src], base, x.itemsize)
    if any(ix.checked for ix in plan.indexers) and bad.get()[0]:
        _raise_out_of_range(plan.indexers)
    return out


def _scatter(x, plan, value):
    """Writes value (a scalar of x's dtype, or an array of x's dtype broadcast to the
    plan's shape) at the elements of x the plan walks, once every index is checked."""
    _check(plan.indexers, x.device)
    size = plan.size
    if size == 0:
        return
    if not _whole_elements(x):
        raise NotImplementedError("assigning into an array whose strides are not whole "
                                  "elements")
    dst, base = _flat(x, plan.offset)
    if isinstance(value, Array):
        strides = _broadcast.broadcast_strides(value.shape, value.strides, plan.shape)
        w, wb = _flat(value)
        _launch_walk(_SCATTER_ARRAY, plan, x.device, [dst, w, wb], base, x.itemsize, strides)
    else:
        _launch_walk(_SCATTER, plan, x.device, [dst, value], base, x.itemsize)


# ----------------------------------------------------------------------------------------
# getitem and setitem


def _check_array(x, where):
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")


def getitem(x, key, /):
    """x[key], NumPy's indexing: a view for ints, slices, Ellipsis and None (a 0-d array
    for all-int keys); a new array for integer index arrays and boolean masks."""
    if type(x) is Array:
        # Ints, slices, None and Ellipsis: the view made in one call into C++ (None for
        # any other key, or one in error: the full path below says what is wrong).
        view = x._impl.basic_view(key)
        if view is not None:
            return Array._wrap(view)
    _check_array(x, "getitem")
    if type(key) is Array and x.ndim == 1:
        taken = _take_flat(x, key)
        if taken is not None:
            return taken
    entries = _parse(x, key)
    if not any(e.kind in _ADVANCED for e in entries):
        return _basic_view(x, entries)
    if not _whole_elements(x):
        x = _elementwise.contiguous_copy(x)
    return _gather(x, _advanced_plan(x, entries))


# x[index] for a 1-D x and one integer index array, the commonest gather (CuPy's
# examples, k-means' centers[labels]): one launch of a kernel kept per index kind and loop
# form, with no plan, and an out-of-range flag per device and thread that stays zero until
# an index is out of range (then IndexError, and the flag is cleared), so that no launch
# zeroes it first. The general path below planned, zeroed a new flag and launched a walk:
# 40 us a call on the cpu device for 3 indices.
_take_reuse = threading.local()


def _take_kernel(kind, form):
    def make():
        body = ["v = np.int64(index[i])"]
        if kind == "i":
            body += ["if v < 0:", "    v += x.shape[0]"]
        body += ["if v < 0 or v >= x.shape[0]:", "    bad[0] = 1", "else:", "    out[i] = x[v]"]
        lines = [f"def ix_take_{kind}(out, x, index, bad):"]
        return f"ix_take_{kind}", "\n".join(lines + _loop(body, form, "out.size")) + "\n"
    return _template(("take", kind, form), make)


class _Take:
    """What x[index] reuses on one device and thread for one index dtype: the kernel, the
    out-of-range flag, the host word the flag is read into and the last launch layout
    (a NumPy array made per call, Array.get's and empty's checks were half the call)."""
    __slots__ = ("kernel", "flag", "word", "size", "config")

    def __init__(self, device, kind):
        self.kernel = _take_kernel(kind, _launch.loop_form(device))
        self.flag = zeros((1,), np.int32, device)
        self.word = np.zeros(1, np.int32)
        self.size = self.config = None


def _take_entry(device, index_dtype):
    """The _Take for an index array of dtype name index_dtype, None for a non-integer."""
    entries = getattr(_take_reuse, "entries", None)
    if entries is None:
        entries = _take_reuse.entries = {}
    key = (device, index_dtype)
    entry = entries.get(key, False)
    if entry is False:
        kind = _numpy_dtype(index_dtype).kind
        entry = entries[key] = _Take(device, kind) if kind in "iu" else None
    return entry


def _take_flat(x, index):
    """x[index] for a 1-D x and an integer index array on its device (index's shape), or
    None where the general path applies (a mask, another device, strides of partial
    elements, a non-contiguous index, no elements). Reads the arrays' C++ side directly:
    each Array property is a Python call."""
    xi, ii = x._impl, index._impl
    device = xi.device
    entry = _take_entry(device, ii.dtype)
    shape = ii.shape
    if entry is None or ii.device != device or xi.strides[0] % xi.itemsize or \
            not c_contiguous(shape, ii.strides, ii.itemsize):
        return None
    size = math.prod(shape)
    if size == 0:
        return None
    out = Array._wrap(_core.empty(shape, xi.dtype, device, "C"))
    if entry.size != size:
        entry.size, entry.config = size, _launch.elementwise_config(device, size)
    flat_out, flat_index = (out, index) if len(shape) == 1 else \
        (_one_dimension(out), _one_dimension(index))
    entry.kernel[entry.config](flat_out, x, flat_index, entry.flag)
    entry.flag._impl.copy_to_host(entry.word, None)
    if entry.word[0]:
        entry.flag[...] = 0
        _raise_out_of_range([_Indexer(index, [], x.shape[0], 0, 0)])
    return out


def _numpy_shape(shape):
    """A shape as NumPy's messages write it: (2,3), (35,)."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _value_operand(x, value):
    """The value of an assignment: an array on x's device, or a scalar of x's dtype."""
    if isinstance(value, Array):
        if value.device != x.device:
            raise ValueError(f"assignment: the value is on {value.device.id}, the array on "
                             f"{x.device.id}; move one with .to_device()")
        return value
    # Host data NumPy reads as an array (sequences, ranges, buffers, __array__ objects).
    if isinstance(value, (list, tuple, range, memoryview, np.ndarray)) or \
            hasattr(value, "__array__") or hasattr(value, "__array_interface__"):
        host = np.asarray(value)
        if host.dtype == object:
            raise TypeError("assignment: the value is a ragged or mixed sequence")
        if host.ndim == 0:
            return _scalar_of(x, host[()])
        return to_device(host, device=x.device)
    return _scalar_of(x, value)


def _scalar_of(x, value):
    if not isinstance(value, (bool, int, float, complex, np.generic)) or \
            (isinstance(value, np.generic) and value.dtype.kind not in "biufc"):
        raise TypeError(f"assignment: the value must be a simt array or a number, not "
                        f"{type(value).__name__}")
    if type(value) is int and x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {x.dtype}")
    if type(value) is complex and x.dtype.kind != "c":
        raise TypeError(f"assignment: a Python complex into an array of dtype {x.dtype}")
    if x.dtype.kind in "iu" and isinstance(value, (float, np.floating)):
        # NumPy's: a float scalar becomes an integer as Python's int() makes one (NaN is a
        # ValueError, an infinity an OverflowError), which must fit the dtype.
        integral = int(value)
        info = np.iinfo(x.dtype)
        if not info.min <= integral <= info.max:
            raise OverflowError(f"{value!r} out of bounds for {x.dtype}")
        return x.dtype.type(integral)
    # A NumPy complex into a real array keeps the real part, with NumPy's ComplexWarning.
    return np.asarray(value).astype(x.dtype)[()]


def _strip_leading_ones(value, rank):
    """value without its leading extents of 1 beyond `rank` dimensions (NumPy assigns a
    (1, 1, 3) value to a (3,) target)."""
    lead = 0
    while value.ndim - lead > rank and value.shape[lead] == 1:
        lead += 1
    if not lead:
        return value
    return Array._wrap(value._impl.view(value._impl.offset, list(value.shape[lead:]),
                                        list(value.strides[lead:])))


def setitem(x, key, value, /):
    """x[key] = value, NumPy's indexing and assignment: value (a simt array, a NumPy array
    or list, or a number) broadcast to x[key]'s shape and converted to x's dtype. With
    repeated indices one of the values is written (which one is unspecified on GPUs);
    x[idx] += 1 adds once per distinct index, as in NumPy."""
    _check_array(x, "setitem")
    if x.readonly:
        raise ValueError("assignment destination is read-only")
    entries = _parse(x, key)
    value = _value_operand(x, value)
    if not any(e.kind in _ADVANCED for e in entries):
        view = _basic_view(x, entries)
        if isinstance(value, Array):
            value = _strip_leading_ones(value, view.ndim)
            try:  # broadcast here, for NumPy's message
                value = _broadcast.broadcast_view(value, view.shape)
            except ValueError:
                raise ValueError(f"could not broadcast input array from shape "
                                 f"{_numpy_shape(value.shape)} into shape "
                                 f"{_numpy_shape(view.shape)}") from None
        _elementwise.assign(view, value)
        return
    if _assign_where(x, entries, value):
        return
    plan = _advanced_plan(x, entries)
    if isinstance(value, Array):
        value = _strip_leading_ones(value, len(plan.shape))
        try:
            _broadcast.broadcast_strides(value.shape, value.strides, plan.shape)
        except ValueError:
            raise ValueError(f"shape mismatch: value array of shape {value.shape} could not "
                             f"be broadcast to indexing result of shape {plan.shape}") from None
        if value.dtype != x.dtype or not _whole_elements(value) or \
                _elementwise._may_overlap(value, x):
            value = _elementwise.contiguous_copy(value, x.dtype)
    for ix in plan.indexers:  # index arrays sharing x's memory: read before x is written
        if _elementwise._may_overlap(ix.index, x):
            ix.index = _elementwise.contiguous_copy(ix.index)
    _scatter(x, plan, value)


def _assign_where(x, entries, value):
    """x[mask] = value for one mask among full slices (x[mask], x[:, mask], x[..., mask])
    and a value that broadcasts along the dimensions after the mask's: one element-wise
    where(mask, value, x) into x, no compaction. False when the key is not of that form."""
    masks = [n for n, e in enumerate(entries) if e.kind == _MASK]
    if len(masks) != 1:
        return False
    for e in entries:
        if e.kind not in (_MASK, _ELLIPSIS) and (e.kind != _SLICE or e.value != slice(None)):
            return False
    at = masks[0]
    mask = entries[at].value
    lead = sum(e.dims for e in entries[:at])
    if mask.shape != x.shape[lead:lead + mask.ndim]:
        return False  # the general path says which axis
    rest = x.ndim - lead - mask.ndim
    if isinstance(value, Array):
        value = _strip_leading_ones(value, rest)
        if value.ndim > rest:
            return False
        try:
            _broadcast.broadcast_strides(value.shape, value.strides, x.shape[x.ndim - rest:])
        except ValueError:
            return False
        if value.dtype != x.dtype:
            value = _elementwise.contiguous_copy(value, x.dtype)
    # The mask with extents of 1 for x's dimensions after it: it broadcasts over them.
    view = Array._wrap(mask._impl.view(mask._impl.offset, list(mask.shape) + [1] * rest,
                                       list(mask.strides) + [0] * rest))
    _elementwise.FUNCTIONS["where"](view, value, x, out=x)
    return True


# ----------------------------------------------------------------------------------------
# Functions


def nonzero(x, /):
    """The indices of x's non-zero elements, one int64 array per dimension, in C order."""
    _check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array is not allowed (the array API's rule); "
                         "take nonzero of a 1-d view of it instead")
    positions = _positions(_flags(x))
    if x.ndim == 1:
        return (positions,)
    return tuple(_unraveled(positions, x.shape))


def argwhere(x, /):
    """The indices of x's non-zero elements as the rows of a (count, x.ndim) int64
    array, in C order."""
    _check_array(x, "argwhere")
    positions = _positions(_flags(x))
    total = positions.size
    if x.ndim <= 1:
        return Array._wrap(positions._impl.view(positions._impl.offset, [total, x.ndim],
                                                [8 * x.ndim, 8]))
    result = empty((total, x.ndim), np.int64, x.device)
    # Written through its transpose: [dimension, position].
    _unravel(positions, x.shape, Array._wrap(result._impl.view(
        result._impl.offset, [x.ndim, total], [8, 8 * x.ndim])))
    return result


def _index_array(x, indices, where):
    if isinstance(indices, (list, tuple, np.ndarray)):
        indices = _on_device(indices, x, where)
    if not isinstance(indices, Array):
        raise TypeError(f"{where}: indices must be an integer array, not "
                        f"{type(indices).__name__}")
    if indices.device != x.device:
        raise ValueError(f"{where}: the indices are on {indices.device.id}, x on "
                         f"{x.device.id}; move one with .to_device()")
    if indices.dtype.kind not in "iu":
        raise IndexError(f"{where}: indices must be of an integer dtype, not {indices.dtype}")
    return indices


def take(x, indices, /, *, axis=None):
    """The elements of x at `indices` along `axis` (x[:, ..., indices, ...]); without an
    axis, of x flattened (C order). An index out of range is an IndexError."""
    _check_array(x, "take")
    indices = _index_array(x, indices, "take")
    if axis is None:
        if x.ndim != 1:
            x = _one_dimension(x if x._contiguous() else _elementwise.contiguous_copy(x))
        axis = 0
    else:
        axis = normalize_axis(axis, x.ndim, "take")
    return getitem(x, (slice(None),) * axis + (indices,))


def take_along_axis(x, indices, /, *, axis=-1):
    """out[..., j, ...] = x[..., indices[..., j, ...], ...] along `axis`: x and indices
    of the same rank, broadcast against each other in the other dimensions."""
    _check_array(x, "take_along_axis")
    indices = _index_array(x, indices, "take_along_axis")
    if x.ndim == 0:
        raise ValueError("take_along_axis: x must have at least one dimension")
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices must have x's rank {x.ndim}, not "
                         f"{indices.ndim}")
    axis = normalize_axis(axis, x.ndim, "take_along_axis")
    if not _whole_elements(x):
        x = _elementwise.contiguous_copy(x)
    shape = []
    for d, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if d == axis or a == b or a == 1:
            shape.append(b)
        elif b == 1:
            shape.append(a)
        else:
            raise ValueError(f"take_along_axis: x of shape {x.shape} and indices of shape "
                             f"{indices.shape} do not broadcast outside axis {axis}")
    x_strides = [0 if d == axis or x.shape[d] != shape[d] else x.strides[d]
                 for d in range(x.ndim)]
    strides = [0 if indices.shape[d] != shape[d] else indices.strides[d]
               for d in range(x.ndim)]
    indexer = _Indexer(indices, strides, x.shape[axis], x.strides[axis], axis)
    return _gather(x, _Plan(shape, x_strides, x._impl.offset, [indexer]))


METHODS = {
    "__getitem__": getitem,
    "__setitem__": setitem,
    "nonzero": nonzero,
}
