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
- cuda, one row longer than SHORT_ROW: CUB's onesweep radix sort through NVRTC
  (_sorting_onesweep.py), where NVRTC compiles it: 1.2x CuPy's sort of 2**26
  float32 on an H100, where the passes below run at 0.41x (docs/performance.md);
- cuda otherwise (rows of an (M, N) array, no CCCL headers), opencl: an LSD radix sort
  generated in simt's kernel language (below).

The radix sort (radix_sort), LSD, after CUB's classic three-kernel passes. Keys are the
elements mapped to unsigned integers of their width whose unsigned order is the sort's
(floats: SIGN + magnitude bits, SIGN - them when the sign bit is set, so -0.0 and 0.0
share a key; every NaN is all ones; signed integers get the sign bit flipped; descending
complements the key, which reverses the order and keeps ties tied, so stability holds).
No key array exists: the passes move the elements themselves and compute a digit's key
from the element wherever needed, so sort returns them bit for bit and needs no final
gather. argsort (and sort of M > 1 rows) also moves each element's position in the (M,
N) layout, an int32 (int64 past 2**31 elements): pass 0 takes it from the element's
place, argsort's last pass writes it as the int64 index. Digits are RADIX_BITS = 8 wide
(float32: 4 passes, float16/int16: 2, 8-bit types 1, 64-bit 8); each pass is three
kernels over the same partition: the T = ceil(N / TILE) tiles of BLOCK x ITEMS elements
go in equal runs to as many blocks as the GPU runs at once (WAVES x CUDA's occupancy),
so each block's digit counts are few and the blocks end together:
  upsweep:   each block counts its run's digits (shared atomics, a histogram per warp),
             counts[digit, block];
  offsets:   a block per digit scans its row of counts (exclusive), plus the row total;
  downsweep: each block starts each digit's place after the smaller digits' totals and
             the earlier blocks' counts (run[d]), then per tile: loads it (item k of lane l
             of warp w is element w*32*ITEMS + k*32 + l, coalesced, every load in flight
             before any use), ranks it stably (the lanes holding the same digit found by
             one ballot per digit bit, a lane's rank = its lower peers plus the warp's
             count so far, in a per-warp counter of each digit; the counters scanned in
             digit-major order (digit, warp) give each element its place in the tile),
             stages the tile in shared memory in that order, and writes it out with
             consecutive threads at consecutive places (runs of one digit go to
             consecutive addresses: coalesced), advancing run[d].
Memory traffic per element and pass: the upsweep reads the element, the downsweep reads
and writes it (and the position): sort float32 moves 12 bytes a pass, 48 in all; argsort
float32 about 76 (positions as int32, the indices written as int64 once).
OpenCL has no warp operations in simt: there the downsweep ranks with per-thread counters
of PORTABLE_RADIX_BITS = 4-bit digits (each thread ITEMS consecutive elements), with the
same staging and coalesced writes ("thread" ranking; the cpu device runs both rankings in
the tests). float16 on OpenCL sorts a float32 copy's indices (see
_sort_float16_on_opencl).
Segments: for M > 1 rows the row of each element (its position // N) is sorted as more
significant digits after the key's, so one sort of all M * N elements leaves every row
in order in its own place (log256(M) extra passes instead of M launches).
Rows of at most SHORT_ROW elements skip the passes: a block per row sorts the row's
(key, position) pairs in shared memory with a bitonic network, in one launch.
"""


import numpy as np

from .._array import Array, empty
from .._device import builds_cuda, builds_opencl, runs_on_host
from .. import _broadcast
from . import _generated, _host_arg, _sorting_onesweep
from .. import _launch
from .._axes import normalize_axis
from ._elementwise import assign
from ._indexing import take_along_axis
from ._reduction import _as_rows

__all__ = ["sort", "argsort"]


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
    if runs_on_host(x.device):
        return _numpy_sort(x, axis, descending)
    return gpu_sort(x, axis, descending, indices=False)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The int64 indices along `axis` that sort x (stable: equal elements keep their
    order, also when descending)."""
    x, axis = _checked(x, axis, "simt.argsort")
    if runs_on_host(x.device):
        return _numpy_argsort(x, axis, descending)
    return gpu_sort(x, axis, descending, indices=True)


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
    _host_arg.sort_last_axis(np.moveaxis(result, axis, -1), x.device.compute_units or 1)
    return out


def _numpy_argsort(x, axis, descending):
    out = empty(x.shape, np.int64, x.device)
    if out.size == 0:
        return out
    host = np.asarray(x)
    threads = x.device.compute_units or 1
    if descending:
        flipped = np.empty(x.shape, np.int64)
        _host_arg.argsort_last_axis(np.moveaxis(np.flip(host, axis), axis, -1),
                                    np.moveaxis(flipped, axis, -1), threads)
        np.subtract(x.shape[axis] - 1, np.flip(flipped, axis), out=np.asarray(out))
    else:
        _host_arg.argsort_last_axis(np.moveaxis(host, axis, -1),
                                    np.moveaxis(np.asarray(out), axis, -1), threads)
    return out


# ----------------------------------------------------------------------------------------
# GPUs: CUB's onesweep for one long row on CUDA, else the generated kernels (short rows by
# a block each, else the radix sort)


def gpu_sort(x, axis, descending, indices):
    """sort or argsort on a GPU: one row longer than SHORT_ROW (x.size is the axis's
    length) by CUB's onesweep (_sorting_onesweep) on CUDA devices where NVRTC compiles it,
    2.5-3x faster than the generated passes; everything else by generated_sort."""
    n = x.shape[axis]
    if builds_cuda(x.device) and x.size == n and \
            SHORT_ROW < n <= _sorting_onesweep.MAX_ELEMENTS:
        program = _sorting_onesweep.program(x.device, x.dtype, descending, indices)
        if program is not None:
            out = empty((n,), np.int64 if indices else x.dtype, x.device)
            flat = _contiguous_flat(_as_rows(x, (axis,))[0])
            _sorting_onesweep.onesweep_sort(flat, out, descending, indices, program)
            return _broadcast.element_view(out, x.shape, _broadcast.c_strides(x.shape,
                                                                              out.itemsize))
    return generated_sort(x, axis, descending, indices)


# Knobs of the radix sort (module constants: change them, then call _kernels.clear()).
RADIX_BITS = 8  # digit width with warp ranking (CUDA, and the cpu device's kernels)
PORTABLE_RADIX_BITS = 4  # digit width with per-thread ranking (OpenCL: no warp operations)
BLOCK = 256  # threads per block of the passes (at least the radix: thread d keeps digit d)
ITEMS = 8  # elements per thread of a tile, at most (fewer where SHARED_BYTES runs out): 8
# sorted 2^26 float32 on the H200 in 4.29 ms, 16 (127 registers a thread) in 4.93
SHARED_BYTES = 48 * 1024  # shared memory a pass's block may use (the device's, if less)
DOWNSWEEP_REGISTERS = None  # the downsweep's register cap on CUDA (None: NVRTC's choice)
WAVES = 1  # blocks of a pass: WAVES times what the GPU holds at once (CUDA's occupancy)
BLOCKS_PER_UNIT = 4  # ... or, where no occupancy is known, this many per compute unit


def generated_sort(x, axis, descending, indices, short_rows=True, ranking=None):
    """sort (indices False) or argsort (True) of x along `axis` by the generated kernels,
    on any device (the cpu device runs them too, which the tests use): rows of at most
    SHORT_ROW elements by a block each (unless short_rows is False), others by the radix
    sort's passes, ranking "warp" or "thread" (None: the device's; see _ranking)."""
    out_dtype = np.dtype(np.int64) if indices else x.dtype
    if x.size == 0:
        return empty(x.shape, out_dtype, x.device)
    _launch.check_dtypes(x.device, (x.dtype,), "simt.argsort" if indices else "simt.sort")
    rows, kept_shape = _as_rows(x, (axis,))
    m, n = rows.shape
    flat = empty((m * n,), out_dtype, x.device)
    ranking = ranking or _ranking(x.device)
    if short_rows and n <= SHORT_ROW:
        _sort_short_rows(rows, flat, descending, indices)
    elif rows.dtype == np.float16 and builds_opencl(x.device):
        _sort_float16_on_opencl(rows, flat, descending, indices, ranking)
    else:
        radix_sort(rows, flat, descending, indices, ranking)
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


def _sort_float16_on_opencl(rows, flat, descending, indices, ranking):
    """PoCL drops a local store of the downsweep when float16 elements are staged next to
    it (its work-group passes; tests/python/test_float16_radix_passes.py has the evidence),
    so elements land in the wrong places: the indices come from a float32 copy's sort (the
    same order), the values by them from rows (take_along_axis copies elements whole)."""
    m, n = rows.shape
    wide = empty((m, n), np.float32, rows.device)
    assign(wide, rows)
    order = flat if indices else empty((m * n,), np.int64, rows.device)
    radix_sort(wide, order, descending, True, ranking)
    if not indices:
        assign(_broadcast.element_view(flat, (m, n), (n * flat.itemsize, flat.itemsize)),
               take_along_axis(rows, _broadcast.element_view(
                   order, (m, n), (n * order.itemsize, order.itemsize)), axis=1))


def _ranking(device):
    """How the scatter ranks a tile: "warp" (ballots, 8-bit digits) where warp operations
    compile, "thread" (per-thread counters, 4-bit digits) on OpenCL."""
    return "thread" if builds_opencl(device) else "warp"


class _Plan:
    """The radix sort's shapes for one dtype and device: digit width, block, tile."""

    def __init__(self, device, dtype, position_dtype, ranking):
        self.ranking = ranking
        self.bits = RADIX_BITS if ranking == "warp" else PORTABLE_RADIX_BITS
        self.radix = 1 << self.bits
        self.block = BLOCK
        if self.block > device.max_threads_per_block or self.block < self.radix:
            raise ValueError(f"simt.sort: the radix sort runs {self.block} threads per block "
                             f"(at least {self.radix}); {device.id} runs at most "
                             f"{device.max_threads_per_block}")
        self.owners = self.block // 32 if ranking == "warp" else self.block
        # Shared memory: the counters, the scan's and digits' arrays, then per element of
        # the tile its value, digit and (pairs) position staged in sorted order.
        budget = min(SHARED_BYTES, device.max_shared_memory_per_block)
        fixed = 4 * self.radix * self.owners + 8 * self.block + 16 * self.radix
        per_item = self.block * (dtype.itemsize + 1 + (position_dtype.itemsize
                                                       if position_dtype else 0))
        self.items = min(ITEMS, (budget - fixed) // per_item)
        if self.items < 1:
            raise ValueError(f"simt.sort: {device.id}'s {budget} bytes of shared memory "
                             f"per block cannot hold a tile of {dtype}")
        self.tile = self.block * self.items

    def sizes(self):
        """The numbers the kernels' text is written with."""
        return {"RADIX": self.radix, "RADIX_BITS": self.bits, "MASK": self.radix - 1,
                "BLOCK": self.block, "ITEMS": self.items, "TILE": self.tile,
                "OWNERS": self.owners, "COUNTERS": self.radix * self.owners,
                "RUN": self.radix * self.owners // self.block, "WARPS": self.block // 32,
                "WARP_TILE": 32 * self.items}


def radix_sort(rows, out, descending, indices, ranking):
    """out (flat, C order over rows' (M, N)) = the rows sorted (indices False) or the
    indices along N that sort them (int64), by the LSD radix sort's passes."""
    device = rows.device
    m, n = rows.shape
    total = m * n
    src = _contiguous_flat(rows)
    pairs = indices or m > 1  # positions travel with the values
    position_dtype = np.dtype(np.int32 if total < 2 ** 31 else np.int64)
    plan = _Plan(device, rows.dtype, position_dtype if pairs else None, ranking)
    passes = _digits(_key_dtype(rows.dtype).itemsize * 8, m, plan.bits)
    upsweep, offsets_kernel, downsweep = _pass_kernels(plan, rows.dtype,
                                                       position_dtype if pairs else None)
    values = _pass_targets(len(passes), src, None if indices else out,
                           lambda: empty((total,), rows.dtype, device),
                           share_final=not indices)
    positions = _pass_targets(len(passes), None, out if indices else None,
                              lambda: empty((total,), position_dtype, device)) if pairs \
        else [None] * (len(passes) + 1)
    unused_values = empty((1,), rows.dtype, device)
    unused_positions = empty((1,), position_dtype, device)
    write_positions = 0 if not indices else (2 if m > 1 else 1)  # 2: p % N, the index

    tiles = -(-total // plan.tile)
    n64, N = np.int64(total), np.int64(n)
    grid = tiles_per_block = counts = offsets = None
    for j, (by_row, shift) in enumerate(passes):
        last = j == len(passes) - 1
        source, source_positions = values[j], positions[j]
        target = values[j + 1] if values[j + 1] is not None else unused_values
        target_positions = positions[j + 1] if positions[j + 1] is not None \
            else unused_positions
        digit = (np.int32(shift), np.int32(by_row), N, np.int32(descending))
        down_args = (target, target_positions, source,
                     source_positions if source_positions is not None else unused_positions)
        flags = (np.int32(source_positions is not None),
                 np.int32(not (indices and last)),
                 np.int32(write_positions if last else (1 if pairs else 0)))
        if grid is None:  # the partition of the tiles among blocks, the same every pass
            resident = _resident_blocks(device, downsweep, plan, down_args)
            tiles_per_block = -(-tiles // max(1, min(tiles, resident)))
            grid = -(-tiles // tiles_per_block)
            counts = empty((plan.radix, grid), position_dtype, device)
            offsets = empty((plan.radix, grid + 1), np.int64, device)
        tpb = np.int64(tiles_per_block)
        upsweep[grid, plan.block](counts, source, down_args[3], n64, tpb, *digit)
        offsets_kernel[plan.radix, plan.block](offsets, counts)
        downsweep[grid, plan.block](*down_args, offsets, n64, tpb, *digit, *flags)


def _contiguous_flat(rows):
    """rows' elements as a flat C-order array: a view of their memory when it is, else a
    copy."""
    m, n = rows.shape
    itemsize = rows.itemsize
    if not (rows.strides[1] == itemsize and (m == 1 or rows.strides[0] == n * itemsize)):
        copy = empty((m, n), rows.dtype, rows.device)
        assign(copy, rows)
        rows = copy
    return _broadcast.element_view(rows, (m * n,), (itemsize,))


def _pass_targets(passes, first, final, make, share_final=False):
    """[what pass 0 reads, what pass 0 writes, ..., what the last pass writes (final;
    None: nothing)]: before final, arrays alternate, from make() (made only if used), or
    final itself and one spare when share_final (the sort's values, ending in out)."""
    made = {}

    def alternate(k):
        if share_final and k == 0:
            return final
        if k not in made:
            made[k] = make()
        return made[k]
    return [first] + [alternate((passes - j) % 2 if share_final else (passes - 1 - j) % 2)
                      for j in range(1, passes)] + [final]


def _digits(key_bits, rows, bits):
    """(by_row, shift) of each pass: the key's digits, then the row's (when rows > 1)."""
    passes = [(False, shift) for shift in range(0, key_bits, bits)]
    row_bits = (rows - 1).bit_length()
    return passes + [(True, shift) for shift in range(0, row_bits, bits)]


_resident = {}


def _resident_blocks(device, downsweep, plan, args):
    """Blocks of a pass: WAVES x as many downsweep blocks as the GPU runs at once (CUDA's
    occupancy), else BLOCKS_PER_UNIT per compute unit. Each block takes an equal run of
    tiles, so the counts to scan are few (radix x blocks) and the blocks end together."""
    if not builds_cuda(device):
        return BLOCKS_PER_UNIT * max(1, device.compute_units)
    key = (device.id, id(downsweep), tuple(a.dtype for a in args))
    found = _resident.get(key)
    if found is None:
        example = args + (empty((plan.radix, 2), np.int64, device),) + \
            (np.int64(0),) * 2 + (np.int32(0), np.int32(0), np.int64(1)) + (np.int32(0),) * 4
        found = _resident[key] = WAVES * downsweep.max_cooperative_grid_blocks(
            plan.block, *example, device=device)
    return found


# The keys: unsigned integers of the element's width whose order is the sort's, computed
# from the element wherever a digit is needed (the passes move the elements themselves,
# so sort returns them bit for bit and no key array is read or written).
_KEY_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _key_dtype(dtype):
    return np.dtype(_KEY_DTYPES[max(dtype.itemsize, 1)])


def _key_lines(dtype):
    """Lines from the element `v` to its `key`, from its bits: for floats `key` is SIGN +
    magnitude (SIGN - magnitude when the sign bit is set), so -0.0 and 0.0 meet at SIGN;
    every NaN is all ones (after +inf)."""
    key = _key_dtype(dtype)
    k = _generated.dtype_name(key)
    bits = key.itemsize * 8
    sign, ones = 1 << (bits - 1), (1 << bits) - 1
    if dtype.kind == "b":
        return [f"key = {k}(1) if v else {k}(0)"]
    if dtype.kind == "u":
        return [f"key = {k}(v)"]
    if dtype.kind == "i":
        return [f"key = {k}(v) ^ {k}({sign})"]
    if dtype == np.float16:
        # float16 has no bit cast here: its float32 value's bits, rebiased (normal
        # float16s), or the value in units of 2**-24 (subnormals), are its own bits.
        lines = ["f = np.float32(v)",
                 "raw = simt.cuda.libdevice.float_as_int(f)",
                 "a = raw & 0x7FFFFFFF",
                 "nan = a > 0x7F800000",
                 "if a == 0x7F800000:",
                 "    a = 0x7C00",
                 "elif a >= 0x38800000:",
                 "    a = (a - 0x38000000) >> 13",
                 "else:",
                 "    a = np.int32(abs(f) * 16777216.0)"]
    else:
        cast, mask, inf = ("double_as_longlong", 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000) \
            if bits == 64 else ("float_as_int", 0x7FFFFFFF, 0x7F800000)
        lines = [f"raw = simt.cuda.libdevice.{cast}(v)", f"a = raw & {mask}",
                 f"nan = a > {inf}"]
    return lines + [
        "if nan:",  # every NaN, whatever its sign and payload
        f"    key = {k}({ones})",
        "elif raw < 0:",
        f"    key = {k}({sign}) - {k}(a)",
        "else:",
        f"    key = {k}({sign}) + {k}(a)"]


def _key_function(dtype):
    """dev_key(v, descending): the key; descending complements it, which reverses the
    order and keeps ties tied (so the sort stays stable)."""
    k = _generated.dtype_name(_key_dtype(dtype))
    ones = (1 << _key_dtype(dtype).itemsize * 8) - 1
    body = "".join(f"    {line}\n" for line in _key_lines(dtype))
    return f'''
def dev_key(v, descending):
{body}    if descending != 0:
        key = key ^ {k}({ones})
    return key
'''


_kernels = {}


def _cached(key, name, make, max_registers=None):
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = _generated.kernel(name, make(), max_registers)
    return found


def _per_item(text, items):
    """text once per item of a thread's tile, '@' standing for the item's number: the
    items' values live in registers (v0, v1, ...), not in a per-thread array."""
    return "".join(text.replace("@", str(k)) for k in range(items))


# The digit of a pass: the key's, or for the passes over rows, the row's (position // N).
_DIGIT = '''
def dev_digit(v, p, shift, by_row, N, descending):
    if by_row != 0:
        return np.int32((np.int64(p) // N >> shift) & {MASK})
    return np.int32((dev_key(v, descending) >> {K}(shift)) & {MASK})
'''

# Block-wide inclusive scans of `own` (an int64 per thread) into `inclusive`, through
# part[] (BLOCK int64). Hillis-Steele, barriers only (every device): it starts with a
# barrier, as each thread reads values the others have just written.
_SCAN_BARRIERS = '''
    simt.syncthreads()
    part[t] = own
    width = 1
    while width < {BLOCK}:
        simt.syncthreads()
        x = part[t]
        if t >= width:
            x += part[t - width]
        simt.syncthreads()
        part[t] = x
        width *= 2
    simt.syncthreads()
    inclusive = part[t]'''

# With warp shuffles (CUDA, cpu): each warp scans its lanes, warp 0 the warps' totals;
# two barriers instead of two per step.
_SCAN_WARPS = '''
    inclusive = own
    for delta in (1, 2, 4, 8, 16):
        lower = simt.shfl_up_sync(0xFFFFFFFF, inclusive, delta)
        if lane >= delta:
            inclusive += lower
    if lane == 31:
        part[w] = inclusive
    simt.syncthreads()
    if w == 0:
        warp_total = np.int64(0)
        if lane < {WARPS}:
            warp_total = part[lane]
        for delta in (1, 2, 4, 8, 16):
            lower = simt.shfl_up_sync(0xFFFFFFFF, warp_total, delta)
            if lane >= delta:
                warp_total += lower
        if lane < {WARPS}:
            part[lane] = warp_total
    simt.syncthreads()
    if w > 0:
        inclusive += part[w - 1]'''

# Upsweep: counts[d, b] = how many elements of block b's tiles have digit d (shared
# atomics into a histogram per warp, whose order does not matter).
_UPSWEEP = '''
def radix_upsweep(counts, src, src_pos, n, tiles_per_block, shift, by_row, N, descending):
    hist = simt.shared.array({HISTOGRAMS}, np.int32)
    t = simt.thread_idx.x
    b = simt.block_idx.x
    j = t
    while j < {HISTOGRAMS}:
        hist[j] = 0
        j += {BLOCK}
    simt.syncthreads()
    mine = (t // 32) * {RADIX}
    start = b * tiles_per_block * {TILE}
    stop = min(start + tiles_per_block * {TILE}, n)
    last = n - 1
    tile = start
    while tile < stop:
{LOADS}{COUNTS}        tile += {TILE}
    simt.syncthreads()
    d = t
    while d < {RADIX}:
        total = 0
        j = d
        while j < {HISTOGRAMS}:
            total += hist[j]
            j += {RADIX}
        counts[d, b] = total
        d += {BLOCK}
'''

# All of a tile's loads before any use, so that each thread has ITEMS in flight.
_UPSWEEP_LOAD = '''        e@ = tile + @ * {BLOCK} + t
        if by_row == 0:
            v@ = src[min(e@, last)]
        else:
            p@ = src_pos[min(e@, last)]
'''
_UPSWEEP_COUNT = '''        if e@ < stop:
            simt.atomic.add(hist, mine + dev_digit(v@, p@, shift, by_row, N, descending), 1)
'''

_OFFSETS = '''
def radix_offsets(offsets, counts):
    # Block d: offsets[d, b] = counts[d, :b].sum(), offsets[d, B] = the digit's total.
    # Each thread sums a run of consecutive blocks, the runs' sums are scanned.
    part = simt.shared.array({BLOCK}, np.int64)
    t = simt.thread_idx.x
    d = simt.block_idx.x
    B = counts.shape[1]
    length = (B + {BLOCK} - 1) // {BLOCK}
    start = min(t * length, B)
    stop = min(start + length, B)
    own = np.int64(0)
    j = start
    while j < stop:
        own += counts[d, j]
        j += 1{SCAN}
    below = inclusive - own
    j = start
    while j < stop:
        offsets[d, j] = below
        below += counts[d, j]
        j += 1
    if t == {BLOCK} - 1:
        offsets[d, B] = inclusive
'''

# Downsweep: each block ranks its tiles' elements by digit, stably, stages them in shared
# memory in that order and writes them out, consecutive threads to consecutive places.
# The counters cnt[owner * RADIX + d]: an owner's (a warp's or a thread's) digit-d
# elements, scanned in digit-major order (d, owner), give each element its place in the
# tile: after every smaller digit, and after the same digit's elements of earlier owners
# and earlier items of its own. base[d] turns a place into one in dst: run[d], the block's
# next place for digit d, minus where the tile's digit-d elements start.
_DOWNSWEEP = '''
def radix_downsweep(dst, dst_pos, src, src_pos, offsets, n, tiles_per_block, shift, by_row,
                    N, descending, has_pos, write_values, write_pos):
    cnt = simt.shared.array({COUNTERS}, np.int32)
    part = simt.shared.array({BLOCK}, np.int64)
    run = simt.shared.array({RADIX}, np.int64)
    base = simt.shared.array({RADIX}, np.int64)
    staged = simt.shared.array({TILE}, {E})
    digits = simt.shared.array({TILE}, np.uint8){STAGED_POS_ARRAY}
    t = simt.thread_idx.x
    b = simt.block_idx.x
    lane = t % 32
    w = t // 32
{LANEMASK}    # run[d] starts after every element of a smaller digit (the digits' totals, scanned)
    # and the digit-d elements of the blocks before this one.
    G = offsets.shape[1] - 1
    own = np.int64(0)
    if t < {RADIX}:
        own = offsets[t, G]{SCAN}
    if t < {RADIX}:
        run[t] = inclusive - own + offsets[t, b]{ZERO}
    simt.syncthreads()
    start = b * tiles_per_block * {TILE}
    stop = min(start + tiles_per_block * {TILE}, n)
    last = n - 1
    tile = start
    while tile < stop:
{LOADS}{RANKS}        simt.syncthreads()
        # The counters, exclusive-scanned in place in digit-major order: thread t the
        # run q = t * RUN ... of (digit q // OWNERS, owner q % OWNERS).
        own = np.int64(0)
        for j in range({RUN}):
            q = t * {RUN} + j
            own += cnt[(q % {OWNERS}) * {RADIX} + q // {OWNERS}]{TILE_SCAN}
        below = np.int32(inclusive - own)
        for j in range({RUN}):
            q = t * {RUN} + j
            slot = (q % {OWNERS}) * {RADIX} + q // {OWNERS}
            c = cnt[slot]
            cnt[slot] = below
            below += c
        simt.syncthreads()
        if t < {RADIX}:
            first = cnt[t]
            after = {TILE}
            if t + 1 < {RADIX}:
                after = cnt[t + 1]
            base[t] = run[t] - first
            run[t] += after - first
{STAGE}        simt.syncthreads()
        valid = min(stop - tile, {TILE})
        for j in range({ITEMS}):
            s = j * {BLOCK} + t
            if s < valid:
                at = base[digits[s]] + s
                if write_values != 0:
                    dst[at] = staged[s]{WRITE_POS}{TILE_ZERO}
        simt.syncthreads()
        tile += {TILE}
'''

_ZERO_COUNTERS = '''
    j = t
    while j < {COUNTERS}:
        cnt[j] = 0
        j += {BLOCK}'''

# Loads: item @ of a warp's lanes are consecutive elements (warp ranking: the warp's
# items in element order are (item, lane)); of a thread, ITEMS consecutive ones. Elements
# past the end take the largest digit: they rank after every element of the tile.
_DOWNSWEEP_ELEMENT = {
    "warp": "        e@ = tile + w * {WARP_TILE} + @ * 32 + lane\n",
    "thread": "        e@ = tile + t * {ITEMS} + @\n"}
_DOWNSWEEP_LOAD = '''        p@ = e@
        if has_pos != 0:
            p@ = src_pos[min(e@, last)]
        if by_row == 0 or write_values != 0:
            v@ = src[min(e@, last)]
'''
_DOWNSWEEP_DIGIT = '''        d@ = {MASK}
        if e@ < stop:
            d@ = dev_digit(v@, p@, shift, by_row, N, descending)
'''

# Ranks: r@ = how many of the owner's earlier elements have digit d@.
# Warp: the lanes with the same digit (peers) by one ballot per digit bit; the lowest
# peer adds their number to the warp's counter once every lane has read it.
_RANK = {"warp": '''        peers = np.uint32(0xFFFFFFFF)
        for bit in range({RADIX_BITS}):
            votes = simt.ballot_sync(0xFFFFFFFF, ((d@ >> bit) & 1) != 0)
            peers &= votes ^ (np.uint32((d@ >> bit) & 1) - np.uint32(1))
        lower_peers = simt.popc(peers & lt)
        before = cnt[w * {RADIX} + d@]
        simt.syncwarp()
        if lower_peers == 0:
            cnt[w * {RADIX} + d@] = before + np.int32(simt.popc(peers))
        simt.syncwarp()
        r@ = before + np.int32(lower_peers)
''', "thread": '''        r@ = cnt[t * {RADIX} + d@]
        cnt[t * {RADIX} + d@] = r@ + 1
'''}
_OWNER = {"warp": "w", "thread": "t"}

_STAGE = '''        s@ = cnt[{OWNER} * {RADIX} + d@] + r@
        staged[s@] = {STAGED_VALUE}
        digits[s@] = np.uint8(d@)
'''
# float16 elements are staged from memory again, not from v@: a float16 variable is a
# float32 in registers, converted back by the store (a copy from array to array moves the
# 16 bits themselves).
_STAGED_VALUE = {True: "src[min(e@, last)]", False: "v@"}
_STAGE_POS = "        staged_pos[s@] = p@\n"
_STAGED_POS_ARRAY = "\n    staged_pos = simt.shared.array({TILE}, {P})"
_WRITE_POS = '''
                if write_pos == 1:
                    dst_pos[at] = staged_pos[s]
                elif write_pos == 2:
                    dst_pos[at] = staged_pos[s] % N'''


def _indent(text, spaces):
    return "\n".join((" " * spaces + line) if line.strip() else line
                     for line in text.split("\n"))


def _render(template, pieces, sizes):
    """template with each {NAME} of pieces replaced by its text, then formatted with
    sizes (the pieces' own {SIZE}s too)."""
    for name, piece in pieces.items():
        template = template.replace("{" + name + "}", piece)
    return template.format(**sizes)


def _pass_kernels(plan, dtype, position_dtype):
    """(upsweep, offsets, downsweep) of `plan` for elements of `dtype`, moving positions
    of `position_dtype` with them (None: none)."""
    warp = plan.ranking == "warp"
    sizes = dict(plan.sizes(), E=_generated.dtype_name(dtype), OWNER=_OWNER[plan.ranking],
                 P=_generated.dtype_name(position_dtype or np.int32),
                 K=_generated.dtype_name(_key_dtype(dtype)),
                 HISTOGRAMS=plan.radix * (plan.block // 32))
    functions = _key_function(dtype) + _DIGIT.format(**sizes)
    scan = _SCAN_WARPS if warp else _SCAN_BARRIERS

    def upsweep():
        return functions + _render(_UPSWEEP, {
            "LOADS": _per_item(_UPSWEEP_LOAD, plan.items),
            "COUNTS": _per_item(_UPSWEEP_COUNT, plan.items)}, sizes)

    def downsweep():
        return functions + _render(_DOWNSWEEP, {
            # lt: the lanes below this one (simt.lanemask_lt(), whose cpu code does not
            # compile outside a barrier region of a kernel with barriers).
            "LANEMASK": "    lt = (np.uint32(1) << np.uint32(lane)) - np.uint32(1)\n"
                        if warp else "",
            "SCAN": scan, "TILE_SCAN": _indent(scan, 4),
            "ZERO": _ZERO_COUNTERS, "TILE_ZERO": _indent(_ZERO_COUNTERS, 4),
            "LOADS": _per_item(_DOWNSWEEP_ELEMENT[plan.ranking] + _DOWNSWEEP_LOAD
                               + _DOWNSWEEP_DIGIT, plan.items),
            "RANKS": _per_item(_RANK[plan.ranking], plan.items),
            "STAGE": _per_item(_STAGE.replace("{STAGED_VALUE}",
                                              _STAGED_VALUE[dtype == np.float16])
                               + (_STAGE_POS if position_dtype else ""), plan.items),
            "STAGED_POS_ARRAY": _STAGED_POS_ARRAY if position_dtype else "",
            "WRITE_POS": _WRITE_POS if position_dtype else ""}, sizes)

    key = (plan.ranking, plan.block, plan.items, dtype, position_dtype)
    return (_cached(("upsweep",) + key, "radix_upsweep", upsweep),
            _cached(("offsets", plan.block), "radix_offsets",
                    lambda: _render(_OFFSETS, {"SCAN": _SCAN_BARRIERS}, sizes)),
            _cached(("downsweep", DOWNSWEEP_REGISTERS) + key, "radix_downsweep", downsweep,
                    DOWNSWEEP_REGISTERS))


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
                keys[k] = dev_key(rows[m, k], descending)
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
    threads = min(BLOCK, device.max_threads_per_block)
    key = _key_dtype(rows.dtype)
    kernel = _cached(("short", rows.dtype, indices, threads), "sort_short_rows",
                     lambda: _key_function(rows.dtype) + _SHORT.format(
                         P=SHORT_ROW, T=threads, K=_generated.dtype_name(key),
                         PAD=f"{_generated.dtype_name(key)}({(1 << key.itemsize * 8) - 1})",
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
