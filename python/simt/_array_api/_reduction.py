"""Reductions (sum, prod, min, max, mean, var, std, all, any, count_nonzero, argmin,
argmax) and scans (cumulative_sum, cumulative_prod), over any axes of any layout.

Every reduction is one shape: the array viewed as (M kept, K reduced) elements, the kept
and the reduced axes each merged into one (copied to C order first when their strides do
not merge), reduced to M values. Two templates, in simt's kernel language, cover every
layout:
- ROWS, when the reduced axis is the faster one in memory (sum(axis=-1) of a C array,
  a whole-array sum): a block of threads per row (or per segment of a long row), each
  thread striding through it, then a tree in shared memory;
- COLUMNS, when the kept axis is the faster one (sum(axis=0) of a C array): a thread per
  kept element (and segment), neighbouring threads reading neighbouring elements.
A row split into segments leaves (M, S) partial results that the same templates reduce
again. On the CPU device a block is one thread, so ROWS is a serial loop per row.

An operation is four pieces of kernel language: the identity, how an element becomes an
accumulator value (MAP), how two accumulator values combine (COMBINE) and the final
value (FINAL), with the accumulator's dtype.
"""

import builtins
import textwrap

import numpy as np

from .. import _core
from .._array import Array, empty
from .._device import builds_cuda, runs_on_host
from .._snippet_kernels import ReductionKernel
from .. import _broadcast
from . import _generated, _host_arg, _scan_cub
from ._accumulators import accumulator as _accumulator
from .. import _launch
from .._axes import normalize_axes
from ._elementwise import FUNCTIONS, TracedValue, assign, check_out, contiguous_copy
from ._manipulation import with_ends

__all__ = ["sum", "prod", "min", "max", "mean", "var", "std", "all", "any", "count_nonzero",
           "argmin", "argmax", "cumulative_sum", "cumulative_prod", "cumsum", "cumprod",
           "diff", "amin", "amax"]


class _Op:
    """A reduction: identity, MAP, COMBINE (of `a` and `b`) and FINAL (of `acc`), as
    kernel-language text with {A} for the accumulator dtype's name."""

    def __init__(self, name, identity, combine, mapping="{A}(v)", final="acc",
                 needs_identity=False, centred=False):
        self.name, self.identity, self.combine = name, identity, combine
        self.mapping, self.final, self.needs_identity = mapping, final, needs_identity
        # The kernel takes one more array, `centre`, a value per result ({ROW} in MAP).
        self.centred = centred


_OPS = {
    "sum": _Op("sum", "{A}(0)", "a + b"),
    "prod": _Op("prod", "{A}(1)", "a * b"),
    # Threads with no elements (and empty segments) hold the identity: the largest
    # (smallest) value of the dtype, which any element replaces.
    "min": _Op("min", "{HIGH}", "np.minimum(a, b)", needs_identity=True),
    "max": _Op("max", "{LOW}", "np.maximum(a, b)", needs_identity=True),
    "all": _Op("all", "True", "a and b", mapping="bool(v)"),
    "any": _Op("any", "False", "a or b", mapping="bool(v)"),
    "count_nonzero": _Op("count_nonzero", "np.int64(0)", "a + b",
                         mapping="np.int64(1) if bool(v) else np.int64(0)"),
    "mean": _Op("mean", "{A}(0)", "a + b", final="acc / divisor"),
    # var's sum of squared deviations from each result's mean, read once: a subtraction
    # and a product into temporaries, then their sum, moved the data three times as often
    # (std(axis=0) at 0.55x CuPy's).
    "squared_deviations": _Op("squared_deviations", "{A}(0)", "a + b",
                              mapping="({A}(v) - centre[{ROW}]) * ({A}(v) - centre[{ROW}])",
                              centred=True),
}


def _axes(x, axis, what):
    """The reduced axes, sorted, as non-negative ints."""
    return normalize_axes(axis, x.ndim, what)


def _as_rows(x, axes):
    """x as a 2-D (M kept, K reduced) view (or C-order copy when the axes do not merge),
    and the kept shape."""
    key = (x.shape, x.strides, axes)
    geometry = _geometries.get(key)
    if geometry is None:
        geometry = _rows_geometry(x, axes)
        if len(_geometries) < 4096:
            _geometries[key] = geometry
    (m, k), merged, kept_shape, order = geometry
    if merged is None:
        # The axes do not merge into one stride each: reduce a C-order copy instead.
        permuted = _broadcast.element_view(x, [x.shape[a] for a in order],
                                           [x.strides[a] for a in order])
        x = contiguous_copy(permuted)
        merged = [k * x.itemsize, x.itemsize]
    return _broadcast.element_view(x, (m, k), merged), kept_shape


_geometries = {}  # (shape, strides, axes) -> what _as_rows needs of them


def _rows_geometry(x, axes):
    kept = [a for a in range(x.ndim) if a not in axes]
    order = kept + list(axes)
    shape = [x.shape[a] for a in order]
    strides = [x.strides[a] for a in order]
    kept_shape = tuple(shape[:len(kept)])
    m = _product(kept_shape)
    k = _product(shape[len(kept):])
    merged = []
    for part in (slice(0, len(kept)), slice(len(kept), len(order))):
        dims, (s,) = _broadcast.collapse(shape[part], [strides[part]])
        merged.append(s[0] if len(dims) == 1 else (0 if not dims else None))
    return (m, k), (None if None in merged else merged), kept_shape, order


def _product(values):
    n = 1
    for v in values:
        n *= v
    return n


def reduce(name, x, axis=None, keepdims=False, dtype=None, what=None):
    """The reduction `name` of x over `axis`: the shared path of every reduction."""
    calls = _warm_calls(name, axis, keepdims, dtype)
    if calls is not None:
        result = calls(x)
        if result is not None:
            return result
    what = what or f"simt.{name}"
    if isinstance(x, TracedValue):  # the end of a function simt.fuse traces
        return x.trace.reduction(x, name, axis, keepdims, dtype)
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a simt array, not {type(x).__name__}")
    op = _OPS[name]
    axes = _axes(x, axis, what)
    acc, result_dtype = _accumulator(name, x.dtype, dtype)
    kept_shape = tuple(x.shape[a] for a in range(x.ndim) if a not in axes)
    final_shape = tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)) if keepdims \
        else kept_shape
    count = _product(x.shape[a] for a in axes)
    out = empty(kept_shape, result_dtype, x.device)
    if out.size == 0:
        return _reshaped(out, final_shape)
    if count == 0:
        if op.needs_identity:
            raise ValueError(f"{what}: zero-size array to a reduction with no identity")
        empty_value = {"sum": 0, "prod": 1, "all": True, "any": False, "count_nonzero": 0,
                       "mean": float("nan")}[name]
        assign(out, empty_value)
        return _reshaped(out, final_shape)
    _launch.check_dtypes(x.device, (x.dtype, acc, result_dtype), what)
    if not kept_shape and builds_cuda(x.device) and _whole_by_snippet(name, x, acc, out):
        return _reshaped(out, final_shape)
    rows, _ = _as_rows(x, axes)
    target = out if acc == result_dtype else empty(kept_shape, acc, x.device)
    steps = []
    _reduce_rows(op, rows, _flat(target), acc, float(count), steps)
    if target is not out:
        assign(out, target)
    elif calls is not None and _shares_memory(rows, x):
        _keep(calls, x, out, final_shape, steps)
    return _reshaped(out, final_shape)


# A reduction repeated on arrays of one layout (x.sum() in a loop) runs the launches the
# first call planned, in one call into C++ (_core.ReductionCalls): the axes, dtypes, rows
# view and segments are worked out once (on a 16-element sum they cost several times the
# launch itself).
_warm = {}  # (name, axis, keepdims, dtype) -> ReductionCalls, keyed by x's layout


def _warm_calls(name, axis, keepdims, dtype):
    """The warm reductions of this signature; None for one that cannot be a key (an axis
    list, an unhashable dtype)."""
    key = (name, axis, keepdims, dtype)
    try:
        calls = _warm.get(key)
    except TypeError:
        return None
    if calls is None and len(_warm) < 1024:
        calls = _warm[key] = _core.ReductionCalls()
    return calls


def _shares_memory(rows, x):
    # The rows are a view of x itself, not a C-order copy of it (_as_rows).
    return rows._impl.data_ptr == x._impl.data_ptr


def _keep(calls, x, out, final_shape, steps):
    """Keeps the launches (`steps`, from _reduce_rows) of a reduction of x into out."""
    partial_bytes, kept = 0, []
    for step in steps:
        if step[0] == "partial":
            partial_bytes = step[1][0] * np.dtype(step[2]).itemsize
        else:
            launch, (out_shape, out_strides), (shape, strides), arguments = step
            kept.append((launch, list(out_shape), list(out_strides), list(shape),
                         list(strides), arguments))
    final = None if tuple(final_shape) == out.shape else list(final_shape)
    calls.keep(x, out._impl.dtype, list(out.shape), final, partial_bytes, kept)


# A whole C-contiguous array's sum or product on a CUDA device goes through
# ReductionKernel's machinery: a grid of one wave of resident blocks, each thread loading
# 16-byte vectors. On the H200 that sums 2^28 float32 at 1.01-1.06x cupy.sum where the
# ROWS template's segments reach 0.87 (docs/performance.md). Real floats only: integer
# overflow, which NumPy wraps, is undefined in the snippets' C. Dtype objects, not names:
# NumPy's dtype.name costs microseconds a read.
_SNIPPET_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_snippet_reductions = {}  # (op, input dtype, accumulator, result dtype) -> ReductionKernel


def _whole_by_snippet(name, x, acc, out):
    """out[()] = the reduction `name` (sum or prod) of all of x through a ReductionKernel;
    False (nothing done) where it does not apply."""
    if name != "sum" and name != "prod":
        return False
    dtype, result = x.dtype, out.dtype
    if dtype not in _SNIPPET_TYPES or acc not in _SNIPPET_TYPES or \
            result not in _SNIPPET_TYPES or not x._contiguous():
        return False
    key = (name, dtype, acc, result)
    kernel = _snippet_reductions.get(key)
    if kernel is None:
        names = [d.name for d in key[1:]]
        kernel = _snippet_reductions[key] = ReductionKernel(
            f"{names[0]} x", f"{names[2]} y", "x", "a + b" if name == "sum" else "a * b",
            "y = a", "0" if name == "sum" else "1", f"simt_whole_{name}_{'_'.join(names)}",
            reduce_type=acc)
    kernel(x, out)
    return True


def _reshaped(out, shape):
    if out.shape == tuple(shape):
        return out
    return _broadcast.element_view(out, shape, _broadcast.c_strides(shape, out.itemsize))


def _flat(out):
    """A 1-D view of a C-contiguous array."""
    return _broadcast.element_view(out, (out.size,), (out.itemsize,))


# A row is split into segments (each a block on a GPU, a thread on the CPU) when there
# are too few rows to fill the device: at least _SEGMENT_MIN elements per segment (a GPU
# column's thread, _COLUMN_SEGMENT_MIN), and about _TARGET_BLOCKS blocks in all on a GPU
# (several waves of resident blocks, so that the last wave's idle time is small).
_SEGMENT_MIN = 4096
_COLUMN_SEGMENT_MIN = 64
_TARGET_BLOCKS = 4096
_MAX_SEGMENTS = 4096
# Rows up to this long are reduced by a group of _GROUP threads each (several rows per
# block) rather than by a whole block per row, whose threads would mostly idle.
_GROUP = 32
_GROUP_ROWS_MAX_K = 16384


def _workers(device):
    if _launch.block_size(device) == 1:
        return (device.compute_units or 1) * _launch.CPU_CHUNKS_PER_CORE
    return _TARGET_BLOCKS


def _segments(device, m, k, thread_per_segment=False):
    workers, minimum = _workers(device), _SEGMENT_MIN
    if thread_per_segment and _launch.block_size(device) > 1:
        # The GPU's COLUMNS: a segment is a thread's, not a block's.
        workers, minimum = workers * _launch.block_size(device), _COLUMN_SEGMENT_MIN
    if m >= workers or k <= minimum:
        return 1
    return builtins.min(-(-workers // m), -(-k // minimum), _MAX_SEGMENTS)


def _cpu_column_segments(device, m, k):
    """Segments of the K reduced rows for the CPU's columns, one per thread: each thread then
    reads whole rows of its segment, one stream of memory (a chunk of columns per thread
    read a short run of every row: sum(axis=0) of 4096^2 at 0.65x NumPy's one core).
    Only with at least 8 rows per segment: the (S, M) partial results cost S/K of the
    input's reads again."""
    workers = _workers(device)
    if m * k < workers * _launch.CPU_MIN_CHUNK:
        return 1
    segments = builtins.min(workers, k // 8)
    return segments if segments > 1 else 1


def _reduce_rows(op, rows, out, acc, divisor, steps=None, extra=()):
    """out[m] = FINAL(reduce of rows[m, :]) (out of the accumulator's dtype), through
    partial results when rows are split into segments. `steps`, a list, gets what was
    launched (_keep: the warm path replays it)."""
    device = rows.device
    m, k = rows.shape
    row_stride, elem_stride = rows.strides
    columns = m > 1 and abs(row_stride) < abs(elem_stride)
    layout = _layout_of(device, columns)
    if layout == _CPU_COLUMNS:
        segments = _cpu_column_segments(device, m, k)
        if segments > 1:
            layout = _CPU_COLUMN_SEGMENTS
    else:
        segments = _segments(device, m, k, columns)
    if segments == 1 and layout == _GPU_ROWS and m > 1 and k <= _GROUP_ROWS_MAX_K:
        layout = _GPU_GROUP_ROWS
    if segments == 1:
        _launch_reduction(op, rows, out, acc, divisor, layout, mapped=True, final=True,
                          steps=steps, extra=extra)
        return
    partial = empty((segments * m,), acc, device)
    if steps is not None:
        steps.append(("partial", [segments * m], partial._impl.dtype))
    _launch_reduction(op, rows, partial, acc, divisor, layout, mapped=True, final=False,
                      segments=segments, steps=steps, extra=extra)
    # The partials are (S, M) from COLUMNS, (M, S) from ROWS: reduce over S.
    size = acc.itemsize
    strides = (size, m * size) if columns else (segments * size, size)
    again = _broadcast.element_view(partial, (m, segments), strides)
    again_layout = _layout_of(device, columns)
    if again_layout == _GPU_ROWS and m > 1:
        again_layout = _GPU_GROUP_ROWS  # rows of at most _MAX_SEGMENTS partials
    _launch_reduction(op, again, out, acc, divisor, again_layout, mapped=False, final=True,
                      steps=steps, extra=extra)


# The templates' layouts over the device's threads.
_GPU_ROWS, _GPU_GROUP_ROWS, _GPU_COLUMNS, _CPU_ROWS, _CPU_COLUMNS, _CPU_COLUMN_SEGMENTS = (
    "gpu_rows", "gpu_group_rows", "gpu_columns", "cpu_rows", "cpu_columns",
    "cpu_column_segments")


def _layout_of(device, columns):
    if _launch.block_size(device) == 1:
        return _CPU_COLUMNS if columns else _CPU_ROWS
    return _GPU_COLUMNS if columns else _GPU_ROWS


_kernels = {}  # (operation, accumulator dtype, layout, block, mapped, final, shuffles)


def _launch_reduction(op, rows, out, acc, divisor, layout, mapped, final, segments=1,
                      steps=None, extra=()):
    m, k = rows.shape
    device = rows.device
    block = _launch.block_size(device)
    # Long CPU rows take _LONG_LANES accumulators: several vectors in flight, where one
    # vector's chain of compare-and-select kept the NaN-propagating max at about half
    # NumPy's speed; short rows keep _LANES (the last, partial round costs every lane).
    lanes = _LONG_LANES if layout == _CPU_ROWS and k >= _LONG_ROW else _LANES
    key = (op.name, acc, layout, block, mapped, final, _shuffles(device, acc), lanes)
    kernel = _kernels.get(key)
    if kernel is None:  # the template's text built once per specialization, not per call
        kernel = _kernels[key] = _generated.kernel(f"reduce_{op.name}", _template(op, *key[1:]))
    items = m * segments
    if layout == _GPU_ROWS:
        config = (builtins.min(items, 2 ** 31 - 1), block)
    elif layout == _GPU_GROUP_ROWS:
        config = (builtins.min(-(-m // (block // _GROUP)), 2 ** 31 - 1), block)
    elif layout == _GPU_COLUMNS:
        config = (-(-items // block), block)
    elif layout == _CPU_COLUMN_SEGMENTS:  # a thread per segment of rows, all columns
        config = (segments, 1)
    else:  # the CPU: a thread per row, segment or chunk of columns
        config = (builtins.max(1, builtins.min(items, _workers(device))), 1)
    if layout == _CPU_COLUMNS or layout == _CPU_COLUMN_SEGMENTS:
        rows = _broadcast.element_view(rows, (k, m), rows.strides[::-1])
    if layout == _CPU_COLUMN_SEGMENTS:  # the partial results, (S, M)
        size = out.itemsize
        out = _broadcast.element_view(out, (segments, m), (m * size, size))
    # divisor (read by mean alone) in the accumulator's dtype: a float32 mean divides in
    # float32, as NumPy's, and needs no float64 on the device.
    divisor = acc.type(divisor) if acc.kind in "fc" else np.int64(divisor)
    launch = kernel[config]
    launch(out, rows, m, k, segments, divisor, *extra)
    if steps is not None:
        steps.append((launch, (out.shape, out.strides), (rows.shape, rows.strides),
                      (m, k, segments, divisor)))


def _pieces(op, acc, mapped, final, scan=False):
    """(identity, MAP of v, COMBINE of a and b, FINAL of acc) for accumulator dtype acc (a
    scan's, `scan`, or a reduction's)."""
    a = _generated.dtype_name(acc)
    identity = op.identity.replace("{A}", a)
    if scan and acc.kind == "f" and identity == f"{a}(0)":
        # A scan starts from -0.0, the identity of IEEE addition: NumPy's cumsum starts
        # from the first element, so a row of -0.0 scans to -0.0 (+0.0 made it +0.0).
        # Its reductions start from +0.0 (np.sum of -0.0 is +0.0), as these do.
        identity = f"{a}(-0.0)"
    if "{HIGH}" in identity or "{LOW}" in identity:
        identity = identity.replace("{HIGH}", _extreme(acc, high=True)).replace(
            "{LOW}", _extreme(acc, high=False))
    mapping = op.mapping.replace("{A}", a) if mapped else "v"
    final_text = op.final if final else "acc"
    if "divisor" in final_text:
        final_text = f"{a}(acc / divisor)"
    return identity, mapping, op.combine, final_text


def _initial_value(op, acc):
    """The value include_initial= puts first: NumPy's identity, +0.0 for a float sum (the
    accumulators start from -0.0, _pieces)."""
    return _OPS[op].identity.replace("{A}", _generated.dtype_name(acc))


def _extreme(dtype, high):
    """The dtype's largest (smallest) value, as kernel-language text."""
    if dtype.kind == "b":
        return "True" if high else "False"
    if dtype.kind == "f":
        return f"{_generated.dtype_name(dtype)}({'math.inf' if high else '-math.inf'})"
    info = np.iinfo(dtype)
    value = info.max if high else info.min
    return f"{_generated.dtype_name(dtype)}({value})"


def _shuffles(device, acc):
    """Whether the GPU tree of a block reduces within warps by shuffles (CUDA's, of 32- and
    64-bit numbers) rather than through shared memory alone."""
    return builds_cuda(device) and acc.kind in "iuf" and acc.itemsize in (4, 8)


def _template(op, acc, layout, block, mapped, final, shuffles=False, lanes=None):
    identity, mapping, combine, final_text = _pieces(op, acc, mapped, final)
    group_mapping = mapping.replace("{ROW}", "r")  # _group_rows' row is r, the others' m
    mapping = mapping.replace("{ROW}", "m")
    element = "(" + mapping.replace("v", "x[m, k]") + ")"
    accumulate = "acc = " + _substitute(combine, "acc", element)
    centre = ", centre" if op.centred else ""
    head = f"def reduce_{op.name}(out, x, rows_, columns_, segments, divisor{centre}):" + \
        _SIZES[layout]
    if layout in (_CPU_COLUMN_SEGMENTS, _CPU_COLUMNS):
        # x comes transposed, (K, M), so that a C array's columns are its fastest axis and
        # the inner loop vectorizes; a thread walks its rows [k, end) row by row (the
        # cache lines of a C array) over its columns [first, last), accumulating in out.
        segments = layout == _CPU_COLUMN_SEGMENTS
        # Segments: a thread per segment of the K rows, all M columns, into its row of the
        # (S, M) partial results. Columns: a chunk of columns per thread, all K rows.
        at = "out[s, m]" if segments else "out[m]"
        into_out = at + " = " + _substitute(
            combine, at, "(" + mapping.replace("v", "x[k, m]") + ")")
        walk = f'''
m = first
while m < last:
    {at} = {identity}
    m += 1
while k < end:
    m = first
    while m < last:
        {into_out}
        m += 1
    k += 1
m = first
while m < last:
    acc = {at}
    {at} = {final_text}
    m += 1
'''
        if segments:
            return head + f'''
    s = simt.grid(1)
    L = K // S + 1
    k = s * L
    end = min(k + L, K)
    first = 0
    last = M
    if s < S:{textwrap.indent(walk, " " * 8)}'''
        return head + f'''
    threads = simt.gridsize(1)
    chunk = M // threads + 1
    first = simt.grid(1) * chunk
    last = min(first + chunk, M)
    k = 0
    end = K{textwrap.indent(walk, " " * 4)}'''
    if layout == _CPU_ROWS:
        # A thread per (row, segment), with _LANES independent accumulators so that the
        # loop is not one long chain of dependent operations (and vectorizes). The unrolled
        # loop's test is a variable against a bound (`k <= last`, not `k + 8 <= end`): the
        # emitter then knows it counted and leaves out the cancellation check, whose early
        # exit kept Clang from vectorizing it (0.4-0.6x NumPy's sum).
        # The remainder (fewer than _LANES elements) is one more round of the lanes, each
        # taking its element or, past the end, the identity: a remainder loop updating
        # one lane made Clang pair the lanes two by two instead of keeping them in one
        # vector (the NaN-propagating max ran at 0.27x NumPy's).
        lanes = lanes or _LANES
        init = "\n        ".join(f"acc{j} = {identity}" for j in range(lanes))
        unrolled = "\n            ".join(
            f"acc{j} = " + _substitute(combine, f"acc{j}",
                                       "(" + mapping.replace("v", f"x[m, k + {j}]") + ")")
            for j in range(lanes))
        # Where combining a value twice changes nothing (max, min, all, any), the lanes past
        # the end take the last element again: the round then has no select, and stays
        # eight wide (four with them).
        again = op.name in ("max", "min", "all", "any")
        tail = "\n            ".join(
            f"acc{j} = " + _substitute(
                combine, f"acc{j}", "((" + mapping.replace("v", f"x[m, min(k + {j}, e)]") +
                ("))" if again else f") if k + {j} < end else {identity})"))
            for j in range(lanes))
        merge = _merge_tree(combine, [f"acc{j}" for j in range(lanes)])
        # Each thread takes a contiguous run of (row, segment) items, as element-wise
        # loops take a chunk: threads striding over rows wrote neighbouring results
        # (a cache line passed between cores for every row: sum(axis=1) of 4096^2 took
        # 3x the time of the same elements in 64 rows) and read rows far apart.
        return head + f'''
    items = M * S
    chunk = items // simt.gridsize(1) + 1
    i = simt.grid(1) * chunk
    stop = min(i + chunk, items)
    L = K // S + 1
    while i < stop:
        m = i // S
        s = i % S
        k = s * L
        end = min(k + L, K)
        {init}
        last = end - {lanes}
        while k <= last:
            {unrolled}
            k += {lanes}
        if k < end:
            e = end - 1
            {tail}
        acc = {merge}
        out[i] = {final_text}
        i += 1
'''
    if layout == _GPU_COLUMNS:
        # A thread per (row, segment): item i is m + s * M.
        split = "s = i // M\n        m = i % M"
        return head + f'''
    i = simt.grid(1)
    step = simt.gridsize(1)
    L = K // S + 1
    while i < M * S:
        {split}
        k = s * L
        end = min(k + L, K)
        acc = {identity}
        while k < end:
            {accumulate}
            k += 1
        out[i] = {final_text}
        i += step
'''
    if layout == _GPU_GROUP_ROWS:
        return head + _group_rows(combine, identity, group_mapping, acc, block, final_text,
                                  shuffles)
    # Each thread keeps _GPU_LANES accumulators, a block's width apart: independent loads
    # in flight instead of one chain of dependent additions.
    gpu_lanes = _GPU_LANES
    init = "\n        ".join(f"acc{j} = {identity}" for j in range(gpu_lanes))
    unrolled = "\n            ".join(
        f"acc{j} = " + _substitute(combine, f"acc{j}", "(" + mapping.replace(
            "v", f"x[m, k + {j * block}]") + ")") for j in range(gpu_lanes))
    tail = "acc0 = " + _substitute(combine, "acc0", element)
    merge = _merge_tree(combine, [f"acc{j}" for j in range(gpu_lanes)])
    tree = _shuffle_tree(combine, identity, block, final_text) if shuffles else \
        _shared_tree(combine, block, final_text)
    width = block // 32 if shuffles else block
    return head + f'''
    sh = simt.shared.array({width}, {_generated.dtype_name(acc)})
    t = simt.threadIdx.x
    b = simt.blockIdx.x
    L = K // S + 1
    while b < M * S:
        m = b // S
        s = b % S
        k = s * L + t
        end = min(s * L + L, K)
        {init}
        while k + {block * (gpu_lanes - 1)} < end:
            {unrolled}
            k += {block * gpu_lanes}
        while k < end:
            {tail}
            k += {block}
        v = {merge}
{tree}
        simt.syncthreads()
        b += simt.gridDim.x
'''


def _group_rows(combine, identity, mapping, acc, block, final_text, shuffles):
    """A group of _GROUP threads per row, block // _GROUP rows per block: each thread
    strides through its row with _GPU_LANES accumulators, then the group combines its
    values (by warp shuffles on CUDA, else in shared memory). The loop runs while the
    block's first row exists, so every thread of a block reaches the same barriers."""
    lanes, group = _GPU_LANES, _GROUP
    init = "\n        ".join(f"acc{j} = {identity}" for j in range(lanes))
    unrolled = "\n                ".join(
        f"acc{j} = " + _substitute(combine, f"acc{j}", "(" + mapping.replace(
            "v", f"x[r, k + {j * group}]") + ")") for j in range(lanes))
    tail = "acc0 = " + _substitute(combine, "acc0", "(" + mapping.replace("v", "x[r, k]") + ")")
    merge = _merge_tree(combine, [f"acc{j}" for j in range(lanes)])
    if shuffles:
        tree = _warp_steps(combine, 8) + "\n        acc = v"  # a group is one warp
        shared = ""
    else:
        halving = _substitute(combine, "sh[t]", "sh[t + w]")
        tree = "\n".join([
            "        sh[t] = v", "        simt.syncthreads()", f"        w = {group // 2}",
            "        while w > 0:", "            if lane < w:", f"                sh[t] = {halving}",
            "            simt.syncthreads()", "            w //= 2", "        acc = sh[t]",
            "        simt.syncthreads()"])
        shared = f"\n    sh = simt.shared.array({block}, {_generated.dtype_name(acc)})"
    return "\n".join([
        shared,
        "    t = simt.threadIdx.x",
        f"    lane = t % {group}",
        f"    g = t // {group}",
        f"    first = simt.blockIdx.x * {block // group}",
        f"    step = simt.gridDim.x * {block // group}",
        "    while first < M:",
        "        r = first + g",
        f"        {init}",
        "        if r < M:",
        "            k = lane",
        f"            while k + {group * (lanes - 1)} < K:",
        f"                {unrolled}",
        f"                k += {group * lanes}",
        "            while k < K:",
        f"                {tail}",
        f"                k += {group}",
        f"        v = {merge}",
        tree,
        "        if lane == 0 and r < M:",
        f"            out[r] = {final_text}",
        "        first += step",
    ]) + "\n"


def _shared_tree(combine, block, final_text):
    """A block's values v combined in shared memory, halving the threads each step."""
    tree = _substitute(combine, "sh[t]", "sh[t + w]")
    return f'''        sh[t] = v
        simt.syncthreads()
        w = {block // 2}
        while w > 0:
            if t < w:
                sh[t] = {tree}
            simt.syncthreads()
            w //= 2
        if t == 0:
            acc = sh[0]
            out[b] = {final_text}'''


def _shuffle_tree(combine, identity, block, final_text):
    """A block's values v combined within each warp by shuffles, the warps' results through
    shared memory, then by the first warp: one barrier instead of one per halving."""
    return f'''{_warp_steps(combine, 8)}
        if t % 32 == 0:
            sh[t // 32] = v
        simt.syncthreads()
        if t < 32:
            v = {identity}
            if t < {block // 32}:
                v = sh[t]
{_warp_steps(combine, 12)}
            if t == 0:
                acc = v
                out[b] = {final_text}'''


def _warp_steps(combine, indent):
    """Lines combining each lane's v across its warp of 32 by shuffles: lane 0 ends with the
    warp's value."""
    pad = " " * indent
    return "\n".join(f"{pad}o = simt.shfl_down_sync(0xFFFFFFFF, v, {d})\n"
                     f"{pad}v = {_substitute(combine, 'v', 'o')}" for d in (16, 8, 4, 2, 1))


_LANES = 8
_LONG_LANES = 32
_LONG_ROW = 256
_GPU_LANES = 4

# The first lines of each reduction kernel: M, K and S as values the compiler knows are
# non-negative (array extents, max(..., 1)), so that indices built from them need no
# negative-index wrapping and the CPU's loops vectorize.
_SIZES = {
    "gpu_rows": "\n    M = x.shape[0]\n    K = x.shape[1]\n    S = max(segments, 1)",
    "gpu_group_rows": "\n    M = x.shape[0]\n    K = x.shape[1]",
    "gpu_columns": "\n    M = x.shape[0]\n    K = x.shape[1]\n    S = max(segments, 1)",
    "cpu_rows": "\n    M = x.shape[0]\n    K = x.shape[1]\n    S = max(segments, 1)",
    "cpu_columns": "\n    K = x.shape[0]\n    M = x.shape[1]",
    "cpu_column_segments": "\n    K = x.shape[0]\n    M = x.shape[1]\n    S = out.shape[0]",
}


def _merge_tree(combine, names):
    """COMBINE applied pairwise over `names`: ((a0 . a1) . (a2 . a3)) ..."""
    while len(names) > 1:
        names = [_substitute(combine, names[j], names[j + 1]) if j + 1 < len(names)
                 else names[j] for j in range(0, len(names), 2)]
        names = [f"({n})" for n in names]
    return names[0]


def _substitute(combine, a, b):
    """COMBINE with its operands a and b replaced (they are single letters in the text)."""
    import re

    return re.sub(r"\b[ab]\b", lambda match: a if match.group(0) == "a" else b, combine)


# The public reductions, with NumPy's signatures (the array API's keyword-only arguments are
# NumPy's positional ones in the same order: simt.sum(x, 1), mean(x, 0, None, out) work).

def _into(out, result, name):
    """The reduction's result, or `out` holding it (NumPy's out=: same shape, the result
    cast to out's dtype under 'same_kind')."""
    if out is None:
        return result
    if not isinstance(out, Array):
        raise TypeError(f"simt.{name}: out must be a simt array, not {type(out).__name__}")
    check_out(name, out, result.shape, result.dtype)
    return assign(out, result)


def _no_where(where, name):
    if where is not True:
        raise NotImplementedError(f"simt.{name}: where= is not supported (mask the input with "
                                  f"simt.where first)")


def _initial(result, initial, combine, name):
    # NumPy's initial=: one more value folded into each result.
    if initial is None:
        return result
    return FUNCTIONS[combine](result, result.dtype.type(initial))


def sum(x, /, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """Sum over `axis` (an int, a tuple, None for all): ints accumulate in int64 (uint64),
    as NumPy's; `dtype` overrides."""
    _no_where(where, "sum")
    result = _initial(reduce("sum", x, axis, keepdims, dtype), initial, "add", "sum")
    return _into(out, result, "sum")


def prod(x, /, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """Product over `axis`; dtypes as sum's."""
    _no_where(where, "prod")
    result = _initial(reduce("prod", x, axis, keepdims, dtype), initial, "multiply", "prod")
    return _into(out, result, "prod")


def min(x, /, axis=None, out=None, keepdims=False, initial=None, where=True):
    """Minimum over `axis` (NaN if any element is NaN, as NumPy's)."""
    _no_where(where, "min")
    result = _initial(reduce("min", x, axis, keepdims), initial, "minimum", "min")
    return _into(out, result, "min")


def max(x, /, axis=None, out=None, keepdims=False, initial=None, where=True):
    """Maximum over `axis` (NaN if any element is NaN, as NumPy's)."""
    _no_where(where, "max")
    result = _initial(reduce("max", x, axis, keepdims), initial, "maximum", "max")
    return _into(out, result, "max")


amin, amax = min, max


def all(x, /, axis=None, out=None, keepdims=False, *, where=True):
    """Whether every element over `axis` is true (nonzero)."""
    _no_where(where, "all")
    return _into(out, reduce("all", x, axis, keepdims), "all")


def any(x, /, axis=None, out=None, keepdims=False, *, where=True):
    """Whether some element over `axis` is true (nonzero)."""
    _no_where(where, "any")
    return _into(out, reduce("any", x, axis, keepdims), "any")


def count_nonzero(x, /, axis=None, *, keepdims=False):
    """How many elements over `axis` are nonzero (int64)."""
    return reduce("count_nonzero", x, axis, keepdims)


def mean(x, /, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over `axis`: float64 for integer arrays, as NumPy's."""
    _no_where(where, "mean")
    if isinstance(x, Array) and x.dtype.kind in "biu" and dtype is None:
        dtype = np.float64
    return _into(out, reduce("mean", x, axis, keepdims, dtype), "mean")


def var(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=None,
        where=True):
    """Variance over `axis`, dividing by N - correction (NumPy's ddof; give one of them)."""
    _no_where(where, "var")
    if ddof is not None and correction is not None:
        raise ValueError("simt.var: give ddof or correction, not both")
    correction = ddof if ddof is not None else (correction or 0.0)
    if not isinstance(x, Array):
        raise TypeError(f"simt.var takes a simt array, not {type(x).__name__}")
    axes = _axes(x, axis, "simt.var")
    n = _product(x.shape[a] for a in axes)
    work = x if x.dtype.kind in "fc" else contiguous_copy(x, np.float64)
    if dtype is not None:
        work = contiguous_copy(work, dtype)
    if work.dtype in (np.float32, np.float64) and n and work.size:
        total = _squared_deviations(work, axes, mean(work, axis=axes))
        if keepdims:
            total = _reshaped(total, tuple(1 if a in axes else work.shape[a]
                                           for a in range(work.ndim)))
    else:  # float16, complex, empty: the deviations as an array, then their sum
        deviation = FUNCTIONS["subtract"](work, mean(work, axis=axes, keepdims=True))
        if deviation.dtype.kind == "c":
            squares = FUNCTIONS["multiply"](deviation, FUNCTIONS["conj"](deviation))
            real = empty(squares.shape, np.finfo(squares.dtype).dtype, squares.device)
            assign(real, squares)
            squares = real
        else:
            squares = FUNCTIONS["multiply"](deviation, deviation)
        total = sum(squares, axis=axes, keepdims=keepdims)
    result = FUNCTIONS["divide"](total, total.dtype.type(builtins.max(n - correction, 0)))
    return _into(out, result, "var")


def _squared_deviations(x, axes, centre):
    """The sum over `axes` of (x - centre)**2 (float x; centre: x's mean over them, of the
    kept shape), each element read once."""
    kept_shape = tuple(x.shape[a] for a in range(x.ndim) if a not in axes)
    total = empty(kept_shape, x.dtype, x.device)
    rows, _ = _as_rows(x, axes)
    if not centre._contiguous():
        centre = contiguous_copy(centre)
    _reduce_rows(_OPS["squared_deviations"], rows, _flat(total), x.dtype, 1.0,
                 extra=(_flat(centre),))
    return total


def std(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=None,
        where=True):
    """Standard deviation over `axis`: the square root of var."""
    _no_where(where, "std")
    result = FUNCTIONS["sqrt"](var(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                                   correction=correction))
    return _into(out, result, "std")


# Arg reductions: the index of the first minimum (maximum); the first NaN wins, as NumPy's.

_ARG_TEXT = '''
def dev_arg_better(v, i, best, best_i, greater):
    if v != v:
        if best != best:
            return i < best_i
        return True
    if best != best:
        return False
    if greater:
        return v > best or (v == best and i < best_i)
    return v < best or (v == best and i < best_i)
'''


def _arg(name, x, axis, keepdims):
    what = f"simt.{name}"
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a simt array, not {type(x).__name__}")
    if x.dtype.kind == "c":
        raise TypeError(f"{what}: complex arrays are not ordered (the array API)")
    axis = _one_axis(x, axis, what)
    if runs_on_host(x.device) and x.size:
        # The array's memory is the host's: NumPy's vectorized loop reads it in place, in
        # one pass (a generated loop tracking an index does not vectorize: 0.06x NumPy).
        shape = tuple(1 if axis is None or a == axis else e for a, e in enumerate(x.shape)
                      if keepdims or (axis is not None and a != axis))
        out = empty(shape, np.int64, x.device)
        host = np.asarray(x)
        threads = x.device.compute_units or 1
        if (axis is None or x.ndim == 1) and host.flags.c_contiguous:
            # One long run: split over threads (_host_arg), NumPy's loop per piece.
            index = _host_arg.split_arg(name, host.reshape(-1), threads)
            if index is not None:
                np.asarray(out)[...] = index
                return out
        elif axis is not None and not keepdims and _host_arg.split_arg_rows(
                name, host, axis, np.asarray(out), threads):
            return out  # rows (columns) split over threads, NumPy's loop on each part
        getattr(np, name)(host, axis=axis, out=np.asarray(out), keepdims=keepdims)
        return out
    if axis is None:
        flat = x if x.ndim == 1 else _flat(contiguous_copy(x))
        result = _arg(name, flat, 0, False)
        return _reshaped(result, (1,) * x.ndim) if keepdims else result
    if x.shape[axis] == 0:
        raise ValueError(f"{what}: attempt to get {name} of an empty sequence")
    rows, kept_shape = _as_rows(x, (axis,))
    out = empty(kept_shape, np.int64, x.device)
    if out.size:
        _arg_rows(name, rows, _flat(out))
    if keepdims:
        return _reshaped(out, tuple(1 if a == axis else x.shape[a] for a in range(x.ndim)))
    return out


def _one_axis(x, axis, what):
    """`axis` of an arg reduction: None, or one int (normalized)."""
    if axis is None:
        return None
    axes = _axes(x, axis, what)
    if len(axes) != 1:
        raise TypeError(f"{what}: axis must be one int or None")
    return axes[0]


def _arg_kernel(name, pairs):
    """Pass 1 (`pairs` False): the best (value, index) of each segment of each row of x,
    into values and indices. Pass 2 (True): the index of the best of each row of those
    (value, index) partials, in order (so the first of equals wins)."""
    greater = name == "argmax"
    if not pairs:
        return _ARG_TEXT + f'''
def {name}_segments(values, indices, x, segments):
    M = x.shape[0]
    K = x.shape[1]
    S = max(segments, 1)
    i = simt.grid(1)
    step = simt.gridsize(1)
    L = K // S + 1
    while i < M * S:
        m = i // S
        s = i % S
        best_i = s * L
        end = min(best_i + L, K)
        if best_i >= end:  # an empty segment: the row's first element stands in
            best_i = 0
            end = 1
        best = x[m, best_i]
        k = best_i + 1
        while k < end:
            if dev_arg_better(x[m, k], k, best, best_i, {greater}):
                best = x[m, k]
                best_i = k
            k += 1
        values[i] = best
        indices[i] = best_i
        i += step
'''
    return _ARG_TEXT + f'''
def {name}_rows(out, values, indices):
    M = values.shape[0]
    S = values.shape[1]
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < M:
        best = values[i, 0]
        best_i = indices[i, 0]
        s = 1
        while s < S:
            if dev_arg_better(values[i, s], indices[i, s], best, best_i, {greater}):
                best = values[i, s]
                best_i = indices[i, s]
            s += 1
        out[i] = best_i
        i += step
'''


def _arg_block_shared(dtype, block):
    """A block's (value, index) slots in shared memory, and its thread's number."""
    return f"""    sv = simt.shared.array({block}, {_generated.dtype_name(dtype)})
    si = simt.shared.array({block}, np.int64)
    t = simt.threadIdx.x
"""


def _arg_block_tree(block, greater):
    """Each thread's (best, best_i) into the block's slots, then the block's best into
    slot 0 by a tree (the index breaks ties: the first of equals wins)."""
    return f"""        sv[t] = best
        si[t] = best_i
        simt.syncthreads()
        half = {block // 2}
        while half > 0:
            if t < half and dev_arg_better(sv[t + half], si[t + half], sv[t], si[t], {greater}):
                sv[t] = sv[t + half]
                si[t] = si[t + half]
            simt.syncthreads()
            half //= 2
"""


def _arg_block_kernel(name, dtype, block):
    """Pass 1 on GPUs: a block per segment of a row, its threads reading the segment's
    elements side by side (a thread per segment, walking it alone, read memory in
    scattered lines: argmax of 2**26 floats at 0.02x CuPy's speed), each keeping the best
    it saw, then the block's best by a tree in shared memory. Every thread starts from
    the segment's first element, so each holds a candidate; the index breaks ties, so the
    first of equal values wins whatever the order of the tree."""
    greater = name == "argmax"
    at = ["k"] + [f"k + {u * block}" for u in range(1, 4)]
    loads = "".join(f"            v{u} = x[m, {at[u]}]\n" for u in range(4))
    compares = "".join(f"            if dev_arg_better(v{u}, {at[u]}, best, best_i, {greater}):\n"
                       f"                best = v{u}\n"
                       f"                best_i = {at[u]}\n" for u in range(4))
    return _ARG_TEXT + f'''
def {name}_blocks(values, indices, x, segments):
{_arg_block_shared(dtype, block)}    M = x.shape[0]
    K = x.shape[1]
    S = max(segments, 1)
    L = K // S + 1
    b = simt.blockIdx.x
    while b < M * S:
        m = b // S
        start = (b % S) * L
        end = min(start + L, K)
        if start >= end:  # an empty segment: the row's first element stands in
            start = 0
            end = 1
        best = x[m, start]
        best_i = start
        k = start + t
        while k + {3 * block} < end:  # four loads in flight, then their comparisons
{loads}{compares}            k += {4 * block}
        while k < end:
            if dev_arg_better(x[m, k], k, best, best_i, {greater}):
                best = x[m, k]
                best_i = k
            k += {block}
{_arg_block_tree(block, greater)}        if t == 0:
            values[b] = sv[0]
            indices[b] = si[0]
        simt.syncthreads()
        b += simt.gridDim.x
'''


def _arg_pairs_block_kernel(name, dtype, block):
    """Pass 2 on GPUs where rows have many segments: a block per row over its segments'
    (value, index) bests, as pass 1's tree."""
    greater = name == "argmax"
    return _ARG_TEXT + f'''
def {name}_pairs(out, values, indices):
{_arg_block_shared(dtype, block)}    M = values.shape[0]
    S = values.shape[1]
    m = simt.blockIdx.x
    while m < M:
        best = values[m, 0]
        best_i = indices[m, 0]
        s = t
        while s < S:
            if dev_arg_better(values[m, s], indices[m, s], best, best_i, {greater}):
                best = values[m, s]
                best_i = indices[m, s]
            s += {block}
{_arg_block_tree(block, greater)}        if t == 0:
            out[m] = si[0]
        simt.syncthreads()
        m += simt.gridDim.x
'''


def _arg_rows(name, rows, out):
    device = rows.device
    m, k = rows.shape
    segments = _segments(device, m, k)
    values = empty((m * segments,), rows.dtype, device)
    indices = empty((m * segments,), np.int64, device)
    block = _launch.block_size(device)
    grid_max = 2 ** 31 - 1
    if block > 1 and k > _GROUP:
        threads = _launch.threads_for(-(-k // segments), block)
        source = _arg_block_kernel(name, rows.dtype, threads)
        first = _generated.kernel(f"{name}_blocks", source)
        first[builtins.min(m * segments, grid_max), threads](values, indices, rows,
                                                              np.int64(segments))
    else:
        # A thread per segment: the cpu device's chunks, and rows too short for a block.
        config = _launch.elementwise_config(device, m * segments * _SEGMENT_MIN)
        first = _generated.kernel(f"{name}_segments", _arg_kernel(name, pairs=False))
        first[config](values, indices, rows, np.int64(segments))
    shape, strides = (m, segments), (segments * rows.itemsize, rows.itemsize)
    pairs = (_broadcast.element_view(values, shape, strides),
             _broadcast.element_view(indices, shape, (segments * 8, 8)))
    if block > 1 and segments > _GROUP:
        threads = _launch.threads_for(segments, block)
        second = _generated.kernel(f"{name}_pairs",
                                   _arg_pairs_block_kernel(name, rows.dtype, threads))
        second[builtins.min(m, grid_max), threads](out, *pairs)
        return
    second = _generated.kernel(f"{name}_rows", _arg_kernel(name, pairs=True))
    second[_launch.elementwise_config(device, m * _SEGMENT_MIN)](out, *pairs)


def argmin(x, /, axis=None, out=None, *, keepdims=False):
    """The index of the first minimum over `axis` (int64)."""
    return _into(out, _arg("argmin", x, axis, keepdims), "argmin")


def argmax(x, /, axis=None, out=None, *, keepdims=False):
    """The index of the first maximum over `axis` (int64)."""
    return _into(out, _arg("argmax", x, axis, keepdims), "argmax")


# Scans.

def _scan(name, x, axis, dtype, include_initial):
    what = f"simt.{name}"
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a simt array, not {type(x).__name__}")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{what}: axis is required for arrays of more than one "
                             f"dimension (the array API)")
        axis = 0
    x = x if x.ndim else _reshaped(contiguous_copy(x), (1,))
    (a,) = _axes(x, axis, what)
    op = "sum" if name == "cumulative_sum" else "prod"
    acc, result_dtype = _accumulator(op, x.dtype, dtype)
    rows, kept_shape = _as_rows(x, (a,))
    m, k = rows.shape
    width = k + 1 if include_initial else k
    out = empty((m, width), acc, x.device)
    segments = _scan_segments(x.device, m, k)
    if out.size and _cub_scan(op, acc, out, rows, segments, include_initial):
        pass
    elif out.size and segments > 1:
        _segmented_scan(op, acc, out, rows, segments, include_initial)
    elif out.size:
        identity, mapping, combine, _ = _pieces(_OPS[op], acc, True, True, scan=True)
        text = f'''
def scan_{op}(out, x, first):
    M = x.shape[0]
    K = x.shape[1]
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < M:
        acc = {identity}
        if first == 1:
            out[i, 0] = {_initial_value(op, acc)}
        k = 0
        while k < K:
            acc = {_substitute(combine, "acc", "(" + mapping.replace("v", "x[i, k]") + ")")}
            out[i, k + first] = acc
            k += 1
        i += step
'''
        kernel = _generated.kernel(f"scan_{op}", text)
        kernel[_launch.elementwise_config(x.device, m * _SEGMENT_MIN)](
            out, rows, np.int64(1 if include_initial else 0))
    # Back to x's axis order: the scanned axis was moved last.
    shape = list(kept_shape) + [width]
    order = [d for d in range(x.ndim) if d != a] + [a]
    result_shape = [0] * x.ndim
    result_strides = [0] * x.ndim
    strides = _broadcast.c_strides(shape, acc.itemsize)
    for position, d in enumerate(order):
        result_shape[d] = shape[position]
        result_strides[d] = strides[position]
    result = _broadcast.element_view(out, result_shape, result_strides)
    if result_dtype != acc:
        result = contiguous_copy(result, result_dtype)
    return result


def _cub_scan(op, acc, out, rows, segments, include_initial):
    """The scan by _scan_cub (CUB's single pass, or a warp per short row) on CUDA devices,
    for rows contiguous along the axis, and for others but one: rows that neighbour each
    other element by element (a scan along an axis but the last), enough to fill the device
    by a thread each, where neighbouring threads of the generated scan read neighbouring
    addresses. Other strided rows are copied first: a coalesced copy costs less than their
    uncoalesced reads (and, too few, the segments' three passes). False where it does not
    apply or NVRTC cannot compile it."""
    m, k = rows.shape
    if not builds_cuda(rows.device) or not _scan_cub.supported(rows.dtype, acc):
        return False
    contiguous = k <= 1 or rows.strides[1] == rows.itemsize
    if not contiguous and segments == 1 and (m <= 1 or abs(rows.strides[0]) == rows.itemsize):
        return False
    plan = _scan_cub.program(rows.device, rows.dtype, acc, op == "prod")
    if plan is None:
        return False
    if not contiguous or rows.strides[0] % rows.itemsize:
        rows = contiguous_copy(rows)
    _scan_cub.scan(rows, out, op == "prod", 1 if include_initial else 0, plan)
    return True


# A scan with too few rows to fill the device (a 1-D cumulative_sum is one row) splits each
# row into segments: one thread per segment sums it, the segments' totals are scanned (the
# same function, on a much smaller array), then each segment is scanned again from its
# offset. Segments hold at least _SCAN_SEGMENT elements; a GPU gets about _SCAN_THREADS
# of them in all, the CPU a few per core. Float results then differ from a sequential
# sum by rounding, as CuPy's do.
_SCAN_SEGMENT = 256
_SCAN_THREADS = 65536


def _scan_segments(device, rows, length):
    if runs_on_host(device):
        wanted = (device.compute_units or 1) * _launch.CPU_CHUNKS_PER_CORE
        minimum = _launch.CPU_MIN_CHUNK
    else:
        wanted, minimum = _SCAN_THREADS, _SCAN_SEGMENT
    per_row = builtins.min(length // minimum, wanted // builtins.max(rows, 1))
    return per_row if per_row > 1 else 1


def _segmented_scan(op, acc, out, rows, segments, include_initial):
    identity, mapping, combine, _ = _pieces(_OPS[op], acc, True, True, scan=True)
    step = _substitute(combine, "acc", "(" + mapping.replace("v", "x[i, k]") + ")")
    loop = '''
    M = x.shape[0]
    K = x.shape[1]
    G = S.shape[1]
    t = simt.grid(1)
    stride = simt.gridsize(1)
    while t < M * G:
        i = t // G
        s = t - i * G
        k = s * length
        end = min(k + length, K)'''
    # A segment's total in _LANES independent accumulators, as a row's reduction: this
    # pass only reads, and a single chain of dependent additions made it as slow as the
    # pass that writes the scan (a total in another association only rounds otherwise).
    lanes = _LANES  # and the remainder's accumulator apart, as a row's (_template)
    init = "\n        ".join(f"acc{j} = {identity}" for j in range(lanes + 1))
    unrolled = "\n            ".join(
        f"acc{j} = " + _substitute(combine, f"acc{j}",
                                   "(" + mapping.replace("v", f"x[i, k + {j}]") + ")")
        for j in range(lanes))
    # Two texts: a generated module's text is its kernel's key (_generated.kernel).
    totals_text = f'''
def scan_totals_{op}(S, x, length):{loop}
        {init}
        last = end - {lanes}
        while k <= last:
            {unrolled}
            k += {lanes}
        while k < end:
            acc{lanes} = {_substitute(combine, f"acc{lanes}",
                                      "(" + mapping.replace("v", "x[i, k]") + ")")}
            k += 1
        S[i, s] = {_merge_tree(combine, [f"acc{j}" for j in range(lanes + 1)])}
        t += stride
'''
    offsets_text = f'''
def scan_from_offsets_{op}(out, x, S, length, first):{loop}
        acc = S[i, s] if s > 0 else {identity}
        if first == 1 and s == 0:
            out[i, 0] = {_initial_value(op, acc)}
        while k < end:
            acc = {step}
            out[i, k + first] = acc
            k += 1
        t += stride
'''
    m, k = rows.shape
    length = -(-k // segments)
    segments = -(-k // length)
    totals = empty((m, segments), acc, rows.device)
    config = _launch.elementwise_config(rows.device, m * segments)
    _generated.kernel(f"scan_totals_{op}", totals_text)[config](totals, rows, np.int64(length))
    # Each segment's offset: the scan of the totals before it (the identity for the first).
    offsets = _scan(f"cumulative_{op}", totals, 1, acc, True)
    offsets = _broadcast.element_view(offsets, (m, segments), offsets.strides)
    _generated.kernel(f"scan_from_offsets_{op}", offsets_text)[config](
        out, rows, offsets, np.int64(length), np.int64(1 if include_initial else 0))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along `axis` (the array API's; optional for 1-D)."""
    return _scan("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products along `axis`."""
    return _scan("cumulative_prod", x, axis, dtype, include_initial)


def cumsum(a, axis=None, dtype=None):
    """NumPy's cumsum: along `axis`, or over the flattened array when axis is None."""
    if axis is None and isinstance(a, Array) and a.ndim != 1:
        a = contiguous_copy(a)
        a = _broadcast.element_view(a, (a.size,), (a.itemsize,))
    return cumulative_sum(a, axis=axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None):
    """NumPy's cumprod: along `axis`, or over the flattened array when axis is None."""
    if axis is None and isinstance(a, Array) and a.ndim != 1:
        a = contiguous_copy(a)
        a = _broadcast.element_view(a, (a.size,), (a.itemsize,))
    return cumulative_prod(a, axis=axis, dtype=dtype)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th differences along `axis` (x[1:] - x[:-1], n times), of x with `prepend`
    before it and `append` after it along the axis (arrays, or NumPy's scalars)."""
    if not isinstance(x, Array):
        raise TypeError(f"simt.diff takes a simt array, not {type(x).__name__}")
    if n < 0:
        raise ValueError(f"simt.diff: n must be non-negative, not {n}")
    (a,) = _axes(x, axis, "simt.diff")
    x = with_ends(x, a, prepend, append, "simt.diff")
    for _ in range(n):
        upper = [slice(None)] * x.ndim
        lower = [slice(None)] * x.ndim
        upper[a], lower[a] = slice(1, None), slice(None, -1)
        x = FUNCTIONS["subtract"](x[tuple(upper)], x[tuple(lower)]) if x.dtype.kind != "b" \
            else FUNCTIONS["not_equal"](x[tuple(upper)], x[tuple(lower)])
    return x


def _method(function):
    def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return function(self, axis, dtype, out, keepdims, **kwargs)
    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _method_no_dtype(function):
    def method(self, axis=None, out=None, keepdims=False, **kwargs):
        return function(self, axis, out, keepdims=keepdims, **kwargs)
    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _moment_method(function):
    def method(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return function(self, axis, dtype, out, ddof, keepdims, **kwargs)
    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


METHODS = {
    "sum": _method(sum), "prod": _method(prod), "mean": _method(mean),
    "min": _method_no_dtype(min), "max": _method_no_dtype(max),
    "all": _method_no_dtype(all), "any": _method_no_dtype(any),
    "argmin": _method_no_dtype(argmin), "argmax": _method_no_dtype(argmax),
    "var": _moment_method(var), "std": _moment_method(std),
    "cumsum": lambda self, axis=None, dtype=None: cumsum(self, axis, dtype),
    "cumprod": lambda self, axis=None, dtype=None: cumprod(self, axis, dtype),
}
