"""Sorting: sort and argsort (the array API's, 2024.12), and Array.sort / Array.argsort.

Semantics are NumPy's stable sort along one axis: ties keep their order, NaNs sort last
(whatever their sign or payload), -0.0 and 0.0 are equal (so they keep their order too).
descending=True gives the reverse of that total order with ties still in their original
order, as the array API asks (NaNs then come first). Complex arrays are not ordered by
the array API: they raise TypeError on every device (NumPy's lexicographic order would
be a cpu-only extra).

Where it runs:
- cpu: the array's memory is the host's, so NumPy's stable sort (radix sort for 8- and
  16-bit types, timsort otherwise) sorts it there, in place in the result's memory. That
  is NumPy's semantics by construction, and on a few cores it is as fast as a parallel
  sort written here; oneTBB's parallel_sort (which the issue suggests) is not stable and
  would need C++ in the runtime, for a gain of about the core count on large arrays.
- cuda, opencl: an LSD radix sort generated in simt's kernel language (below).

The radix sort. Keys are the elements mapped to unsigned integers of their width whose
unsigned order is the sort's order (floats: positive get the sign bit set, negative are
complemented; every NaN becomes all ones, -0.0 becomes 0.0's key; signed integers get
the sign bit flipped; descending complements the key, which reverses the order and keeps
ties tied, so stability still holds). Each key travels with its element's position in
the (M rows, N along the axis) layout, an int32 (int64 past 2**31 elements), which gives
argsort its indices and sort its values (gathered from x at the end, so -0.0 and NaN
payloads come back bit for bit). One pass per RADIX_BITS-bit digit, least significant
first, each three kernels:
  histogram: each block counts its tile's digits (counts[digit, block]);
  offsets:   a block per digit scans its row of counts (exclusive), plus the row total;
  scatter:   each block ranks its tile's elements by digit, stably (each thread owns
             ITEMS consecutive elements; per-thread digit counts in shared memory are
             scanned in digit-major order), and writes each to the digit's base + the
             block's offset + its rank.
Segments: for M > 1 rows the row of each element (its position // N) is sorted as more
significant digits after the key's, so one sort of all M * N elements leaves every row
in order in its own place (extra passes of log16(M) instead of M launches).
Rows of at most SHORT_ROW elements skip the passes: a block per row sorts the row's
(key, position) pairs in shared memory with a bitonic network, in one launch.
"""


import numpy as np

from .._array import Array, empty
from . import _broadcast, _generated, _launch
from ._axes import normalize_axis
from ._elementwise import assign
from ._reduction import _as_rows

__all__ = ["sort", "argsort"]

RADIX_BITS = 4
RADIX = 1 << RADIX_BITS
ITEMS = 8  # consecutive elements per thread in a tile of the histogram and scatter


def checked_array(x, where, name="x"):
    if not isinstance(x, Array):
        raise TypeError(f"{where}: {name} must be a simt array, not {type(x).__name__}")
    return x


def check_ordered(dtype, where):
    """TypeError for dtypes the sort has no order for (complex, as the array API)."""
    if dtype.kind == "c":
        raise TypeError(f"{where}: complex arrays ({dtype}) have no order in the array API; "
                        f"sort their real parts, or build a key with simt.real/simt.imag")
    if dtype.kind not in "biuf":
        raise TypeError(f"{where}: cannot sort arrays of dtype {dtype}")


def _checked(x, axis, where):
    """(x, axis as a non-negative int) after the checks every sort makes."""
    checked_array(x, where)
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension (it is 0-d); "
                         f"a 0-d array has nothing to sort")
    check_ordered(x.dtype, where)
    return x, normalize_axis(axis, x.ndim, where)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """x's elements sorted along `axis` (a new array): stable, NaNs last (first when
    descending), on every device."""
    x, axis = _checked(x, axis, "simt.sort")
    if x.device.backend == "cpu":
        return _numpy_sort(x, axis, descending)
    return generated_sort(x, axis, descending, indices=False)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The int64 indices along `axis` that sort x (stable: equal elements keep their
    order, also when descending)."""
    x, axis = _checked(x, axis, "simt.argsort")
    if x.device.backend == "cpu":
        return _numpy_argsort(x, axis, descending)
    return generated_sort(x, axis, descending, indices=True)


# ----------------------------------------------------------------------------------------
# cpu: NumPy on the host memory of the arrays


def _numpy_sort(x, axis, descending):
    out = empty(x.shape, x.dtype, x.device)
    if out.size == 0:
        return out
    host = np.asarray(x)  # a view: the cpu device's memory is the host's
    result = np.asarray(out)
    if descending:
        # flip(sort(flip(x))): the reversed order with ties (and NaNs) in their order.
        result = np.flip(result, axis)
        host = np.flip(host, axis)
    result[...] = host
    result.sort(axis=axis, kind="stable")
    return out


def _numpy_argsort(x, axis, descending):
    out = empty(x.shape, np.int64, x.device)
    if out.size == 0:
        return out
    host = np.asarray(x)
    if descending:
        flipped = np.argsort(np.flip(host, axis), axis=axis, kind="stable")
        np.subtract(x.shape[axis] - 1, np.flip(flipped, axis), out=np.asarray(out))
    else:
        np.asarray(out)[...] = np.argsort(host, axis=axis, kind="stable")
    return out


# ----------------------------------------------------------------------------------------
# GPUs: the generated kernels (short rows by a block each, else the radix sort)


def generated_sort(x, axis, descending, indices, short_rows=True):
    """sort (indices False) or argsort (True) of x along `axis` by the generated kernels,
    on any device (the cpu device runs them too, which the tests use): rows of at most
    SHORT_ROW elements by a block each (unless short_rows is False), others by the radix
    sort's passes."""
    out_dtype = np.dtype(np.int64) if indices else x.dtype
    if x.size == 0:
        return empty(x.shape, out_dtype, x.device)
    _launch.check_dtypes(x.device, (x.dtype,), "simt.argsort" if indices else "simt.sort")
    rows, kept_shape = _as_rows(x, (axis,))
    m, n = rows.shape
    flat = empty((m * n,), out_dtype, x.device)
    if short_rows and n <= SHORT_ROW:
        _sort_short_rows(rows, flat, descending, indices)
    else:
        order = sorted_positions(rows, descending)
        finish = _finish_kernel(indices)
        finish[_launch.elementwise_config(x.device, m * n)](flat, order, rows)
    # flat is C order over kept_shape + (n,): viewed back in x's axis order, and copied
    # to C order when the axis was not the last.
    sorted_shape = tuple(kept_shape) + (n,)
    strides = _broadcast.c_strides(sorted_shape, flat.itemsize)
    moved = [d for d in range(x.ndim) if d != axis] + [axis]
    shape, view_strides = [0] * x.ndim, [0] * x.ndim
    for position, d in enumerate(moved):
        shape[d], view_strides[d] = sorted_shape[position], strides[position]
    view = _broadcast.element_view(flat, shape, view_strides)
    if axis == x.ndim - 1:
        return view
    out = empty(x.shape, out_dtype, x.device)
    assign(out, view)
    return out


def sorted_positions(rows, descending):
    """The positions (m * N + k, int32 or int64) of the (M, N) array `rows`' elements in
    sorted order: each row's elements stay within that row's N places."""
    device = rows.device
    m, n = rows.shape
    total = m * n
    key_dtype = _key_dtype(rows.dtype)
    position_dtype = np.dtype(np.int32 if total < 2 ** 31 else np.int64)
    keys = empty((total,), key_dtype, device)
    positions = empty((total,), position_dtype, device)
    _keys_kernel(rows.dtype)[_launch.elementwise_config(device, total)](
        keys, positions, rows, np.int32(descending))
    block = _block(device)
    tile = block * ITEMS
    blocks = -(-total // tile)
    if blocks > device.max_grid_dim[0]:
        raise ValueError(f"simt.sort: {total} elements need {blocks} blocks, more than "
                         f"{device.id} launches")
    counts = empty((RADIX, blocks), np.int64, device)
    offsets = empty((RADIX, blocks + 1), np.int64, device)
    spare_keys = empty((total,), key_dtype, device)
    spare_positions = empty((total,), position_dtype, device)
    histogram, scan, scatter = (_radix_kernel(kind, block) for kind in
                                ("histogram", "offsets", "scatter"))
    key_type, n64 = key_dtype.type, np.int64(n)
    for by_row, shift in _digits(key_dtype.itemsize * 8, m):
        key_shift, row_shift = (key_type(0), np.int64(shift)) if by_row else \
            (key_type(shift), np.int64(0))
        common = (np.int64(total), key_shift, row_shift, np.int32(by_row), n64)
        histogram[blocks, block](counts, keys, positions, *common)
        scan[RADIX, block](offsets, counts)
        scatter[blocks, block](spare_keys, spare_positions, keys, positions, offsets, *common)
        keys, spare_keys = spare_keys, keys
        positions, spare_positions = spare_positions, positions
    return positions


def _digits(key_bits, rows):
    """(by_row, shift) of each pass: the key's digits, then the row's (when rows > 1)."""
    passes = [(False, shift) for shift in range(0, key_bits, RADIX_BITS)]
    row_bits = (rows - 1).bit_length()
    return passes + [(True, shift) for shift in range(0, row_bits, RADIX_BITS)]


def _block(device):
    """Threads per block of the radix kernels: a power of two, at least RADIX (thread d
    handles digit d's totals)."""
    block = _launch.GPU_BLOCK
    while block > device.max_threads_per_block:
        block //= 2
    if block < RADIX:
        raise ValueError(f"simt.sort: {device.id} runs at most {device.max_threads_per_block} "
                         f"threads per block; the radix sort needs {RADIX}")
    return block


# The keys: unsigned integers of the element's width (float16 through float32) whose
# order is the sort's. Kernel-language text per dtype kind, from `v` to `key`.
_KEY_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _key_dtype(dtype):
    width = 4 if dtype == np.float16 else max(dtype.itemsize, 1)
    return np.dtype(_KEY_DTYPES[width])


def _key_lines(dtype):
    """Lines from the element `v` to its `key`; a run-time `descending` (int32) complements
    it."""
    key = _key_dtype(dtype)
    k = _generated.dtype_name(key)
    bits = key.itemsize * 8
    sign, ones = 1 << (bits - 1), (1 << bits) - 1
    if dtype.kind == "b":
        lines = [f"key = {k}(1) if v else {k}(0)"]
    elif dtype.kind == "u":
        lines = [f"key = {k}(v)"]
    elif dtype.kind == "i":
        lines = [f"key = {k}(v) ^ {k}({sign})"]
    else:
        as_bits = "simt.cuda.libdevice.double_as_longlong" if bits == 64 else \
            "simt.cuda.libdevice.float_as_int"
        value = "v" if dtype != np.float16 else "np.float32(v)"
        lines = [
            f"f = {value}",
            f"raw = {k}({as_bits}(f))",
            "if f != f:",  # every NaN, whatever its sign and payload: after +inf
            f"    key = {k}({ones})",
            "elif f == 0:",  # -0.0 equals 0.0
            f"    key = {k}({sign})",
            "elif f < 0:",
            f"    key = raw ^ {k}({ones})",
            "else:",
            f"    key = raw | {k}({sign})",
        ]
    lines += ["if descending != 0:", f"    key = key ^ {k}({ones})"]
    return lines


_kernels = {}


def _cached(key, name, make):
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = _generated.kernel(name, make())
    return found


def _keys_kernel(dtype):
    def make():
        body = "\n".join("        " + line for line in _key_lines(dtype))
        return f'''
def sort_keys(keys, positions, rows, descending):
    M = rows.shape[0]
    N = rows.shape[1]
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < M * N:
        v = rows[i // N, i % N]
{body}
        keys[i] = key
        positions[i] = i
        i += step
'''
    return _cached(("keys", dtype), "sort_keys", make)


def _finish_kernel(indices):
    """out[i] = the index along the axis (argsort) or the value (sort) of the element at
    sorted place i."""
    value = "np.int64(p % N)" if indices else "rows[p // N, p % N]"
    return _cached(("finish", indices), "sort_finish", lambda: f'''
def sort_finish(out, positions, rows):
    N = np.int64(rows.shape[1])
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < out.size:
        p = np.int64(positions[i])
        out[i] = {value}
        i += step
''')


# The radix pass's kernels. Parameters shared by histogram and scatter: n elements, the
# digit's shift in the key (key_shift, of the key's dtype: unsigned shifts stay unsigned)
# or in the row (row_shift), by_row saying which, and N, the row length.
_DIGIT = f'''
def dev_digit(key, position, n, key_shift, row_shift, by_row, N):
    if by_row != 0:
        return np.int32(((np.int64(position) // N) >> row_shift) & {RADIX - 1})
    return np.int32((key >> key_shift) & {RADIX - 1})
'''

# Each thread's digits of its ITEMS elements, counted in cnt[digit * BLOCK + thread].
_COUNT = '''
    cnt = simt.shared.array({SHARED}, np.int32)
    t = simt.thread_idx.x
    b = simt.block_idx.x
    for d in range({RADIX}):
        cnt[d * {BLOCK} + t] = 0
    first = b * {TILE} + t * {ITEMS}
    for j in range({ITEMS}):
        i = first + j
        if i < n:
            d = dev_digit(keys[i], positions[i], n, key_shift, row_shift, by_row, N)
            cnt[d * {BLOCK} + t] += 1
    simt.syncthreads()'''

_HISTOGRAM = '''
def radix_histogram(counts, keys, positions, n, key_shift, row_shift, by_row, N):{COUNT}
    if t < {RADIX}:
        total = np.int64(0)
        u = 0
        while u < {BLOCK}:
            total += cnt[t * {BLOCK} + u]
            u += 1
        counts[t, b] = total
'''

# Block-wide inclusive scan (Hillis-Steele) of one value per thread, in part[]. It
# starts with a barrier: each thread reads the others' values, which they have just
# written (GPUs run a block's threads at once; without it a thread reads a neighbour's
# slot before the neighbour wrote it).
_BLOCK_SCAN = '''
    simt.syncthreads()
    w = 1
    while w < {BLOCK}:
        v = part[t]
        if t >= w:
            v += part[t - w]
        simt.syncthreads()
        part[t] = v
        simt.syncthreads()
        w *= 2'''

_OFFSETS = '''
def radix_offsets(offsets, counts):
    # Block d: offsets[d, b] = counts[d, :b].sum(), offsets[d, B] = the digit's total.
    # Each thread sums a run of consecutive blocks, the runs' sums are scanned.
    part = simt.shared.array({BLOCK}, np.int64)
    t = simt.thread_idx.x
    d = simt.block_idx.x
    B = counts.shape[1]
    run = (B + {BLOCK} - 1) // {BLOCK}
    start = min(t * run, B)
    stop = min(start + run, B)
    own = np.int64(0)
    j = start
    while j < stop:
        own += counts[d, j]
        j += 1
    part[t] = own{SCAN}
    below = part[t] - own
    j = start
    while j < stop:
        offsets[d, j] = below
        below += counts[d, j]
        j += 1
    if t == {BLOCK} - 1:
        offsets[d, B] = part[t]
'''

_SCATTER = '''
def radix_scatter(keys_out, positions_out, keys, positions, offsets, n, key_shift, row_shift,
                  by_row, N):{COUNT}
    # The tile's counts scanned in digit-major order: cnt[d * BLOCK + t] becomes how many
    # of the tile's elements have a smaller digit, or digit d and a smaller thread.
    part = simt.shared.array({BLOCK}, np.int32)
    base = simt.shared.array({RADIX}, np.int64)
    own = 0
    for j in range({RADIX}):
        own += cnt[t * {RADIX} + j]
    part[t] = own{SCAN}
    below = part[t] - own
    for j in range({RADIX}):
        c = cnt[t * {RADIX} + j]
        cnt[t * {RADIX} + j] = below
        below += c
    simt.syncthreads()
    if t == 0:
        # base[d]: where the tile's digit-d elements start in the output, minus where
        # they start in the tile's ranking.
        B = offsets.shape[1] - 1
        smaller = np.int64(0)
        for d in range({RADIX}):
            base[d] = smaller + offsets[d, b] - cnt[d * {BLOCK}]
            smaller += offsets[d, B]
    simt.syncthreads()
    for j in range({ITEMS}):
        i = first + j
        if i < n:
            key = keys[i]
            p = positions[i]
            d = dev_digit(key, p, n, key_shift, row_shift, by_row, N)
            rank = cnt[d * {BLOCK} + t]
            cnt[d * {BLOCK} + t] = rank + 1
            at = base[d] + rank
            keys_out[at] = key
            positions_out[at] = p
'''

_RADIX_TEMPLATES = {"histogram": ("radix_histogram", _HISTOGRAM),
                    "offsets": ("radix_offsets", _OFFSETS),
                    "scatter": ("radix_scatter", _SCATTER)}


def _radix_kernel(kind, block):
    name, template = _RADIX_TEMPLATES[kind]

    def make():
        sizes = {"RADIX": RADIX, "BLOCK": block, "ITEMS": ITEMS, "TILE": block * ITEMS,
                 "SHARED": RADIX * block}
        pieces = {"COUNT": _COUNT.format(**sizes), "SCAN": _BLOCK_SCAN.format(**sizes)}
        return _DIGIT + template.format(**sizes, **pieces)
    return _cached(("radix", kind, block), name, make)


# Short rows: a block per row sorts it in shared memory with a bitonic network (its
# length padded to a power of two with keys after every element's), comparing (key,
# position) pairs, which makes it stable; one launch instead of a radix pass's three
# launches per digit, and for many short rows (an (M, 16) array sorted along its last
# axis) no passes over the row digits.
SHORT_ROW = 2048

_SHORT = '''
def sort_short_rows(out, rows, padded, descending):
    # padded: the row length rounded up to a power of two (at most {P}, the arrays' size).
    keys = simt.shared.array({P}, {K})
    places = simt.shared.array({P}, np.int32)
    M = rows.shape[0]
    N = rows.shape[1]
    t = simt.thread_idx.x
    m = simt.block_idx.x
    while m < M:
        k = t
        while k < padded:
            if k < N:
                v = rows[m, k]
{KEY}
                keys[k] = key
            else:
                keys[k] = {PAD}
            places[k] = k
            k += {T}
        simt.syncthreads()
        size = 2
        while size <= padded:
            stride = size // 2
            while stride > 0:
                j = t
                while j < padded // 2:
                    low = 2 * j - (j & (stride - 1))
                    high = low + stride
                    a = keys[low]
                    b = keys[high]
                    later = a > b or (a == b and places[low] > places[high])
                    if later == ((low & size) == 0):
                        keys[low] = b
                        keys[high] = a
                        p = places[low]
                        places[low] = places[high]
                        places[high] = p
                    j += {T}
                simt.syncthreads()
                stride //= 2
            size *= 2
        k = t
        while k < N:
            out[m * N + k] = {VALUE}
            k += {T}
        simt.syncthreads()
        m += simt.grid_dim.x
'''


def _sort_short_rows(rows, flat, descending, indices):
    device = rows.device
    m, n = rows.shape
    # One kernel per dtype and result for every row length (sizes and the order are
    # arguments): each specialization costs a compile on every device.
    padded = 1 << max(1, (n - 1).bit_length())
    threads = _block(device)
    key = _key_dtype(rows.dtype)
    kernel = _cached(("short", rows.dtype, indices, threads), "sort_short_rows",
                     lambda: _SHORT.format(
                         P=SHORT_ROW, T=threads, K=_generated.dtype_name(key),
                         PAD=f"{_generated.dtype_name(key)}({(1 << key.itemsize * 8) - 1})",
                         KEY="\n".join(" " * 16 + line for line in _key_lines(rows.dtype)),
                         VALUE="np.int64(places[k])" if indices else "rows[m, places[k]]"))
    kernel[min(m, device.max_grid_dim[0]), threads](flat, rows, np.int64(padded),
                                                    np.int32(descending))


# ----------------------------------------------------------------------------------------
# Array methods (NumPy's and CuPy's: sort in place, argsort a new array)


def _sort_method(self, axis=-1, kind=None, order=None):
    """Sorts the array in place along `axis` (stable whatever `kind` asks; NumPy's
    `order=` names fields, which simt arrays do not have)."""
    if order is not None:
        raise ValueError("Array.sort: order= names fields of structured arrays, which "
                         "simt arrays do not have")
    assign(self, sort(self, axis=axis))


def _argsort_method(self, axis=-1, kind=None, order=None):
    """The indices that sort the array along `axis` (stable; see simt.argsort)."""
    if order is not None:
        raise ValueError("Array.argsort: order= names fields of structured arrays, which "
                         "simt arrays do not have")
    return argsort(self, axis=axis)


METHODS = {"sort": _sort_method, "argsort": _argsort_method}
