"""Products of arrays: matmul (and the @ operator), tensordot, vecdot, outer, dot, inner.

Every product is one shape: a batch of (M, K) x (K, N) matrix products, the batch axes
broadcast and merged into one. On GPUs (cuda, opencl) a template in simt's kernel language
computes it: a block of 256 threads per 64 x 64 tile of the output, the operands' 64 x 16
slices staged in shared memory, each thread keeping a 4 x 4 block of the tile in
registers. On cuda devices cuBLAS (loaded at run time, _cublas) computes floating and
complex products instead when it is found and not switched off with SIMT_CUBLAS=0.
Products with one output column (matrix times vector) take a block per output element on
every GPU, and those with one output row (vector times matrix) a thread per column where
cuBLAS does not take them. On the
cpu device the arrays' memory is the host's, and NumPy's BLAS computes the product there,
in place (much faster than a generated loop nest on two cores), except matrix times vector
of floats: a generated kernel on the device's threads (_cpu_matvec says why).
"""

import functools
import math
import operator

import numpy as np

from .._array import Array, empty
from .._device import runs_on_host
from .. import _broadcast
from . import _cublas, _generated
from .. import _launch
from ._elementwise import FUNCTIONS, assign, contiguous_copy
from ._manipulation import permute_dims, reshape
from ._reduction import _merge_tree, sum as _sum

__all__ = ["matmul", "tensordot", "vecdot", "outer", "dot", "inner"]

# The GPU tile: TILE x TILE outputs per block of (TILE // REGS)**2 threads, each thread
# REGS x REGS of them; the reduced axis staged STEP at a time.
TILE = 64
REGS = 4
STEP = 16
_THREADS = (TILE // REGS) ** 2


def _arrays(x1, x2, where):
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, Array):
            raise TypeError(f"{where}: {name} must be a simt array, not {type(x).__name__}")
    if x1.device != x2.device:
        raise ValueError(f"{where}: arrays on two devices, {x1.device.id} and {x2.device.id}; "
                         f"move one with .to_device() (simt never copies implicitly)")


_result_dtypes = {}  # (dtype, dtype) -> np.result_type of the two: a microsecond a call


def _result_dtype(x1, x2, where):
    pair = (x1.dtype, x2.dtype)
    dtype = _result_dtypes.get(pair)
    if dtype is None:
        dtype = _result_dtypes[pair] = np.result_type(*pair)
    if dtype.kind not in "biufc":
        raise TypeError(f"{where}: unsupported dtypes {pair[0]} and {pair[1]}")
    return dtype


def matmul(x1, x2, /):
    """The matrix product of x1 and x2, as NumPy's matmul: the last two axes are the
    matrices, the others a broadcast batch; a 1-D operand is a row (x1) or column (x2)
    vector whose axis the result drops."""
    where = "simt.matmul"
    _arrays(x1, x2, where)
    shape1, shape2 = x1.shape, x2.shape  # each Array property is a call: read once
    nd1, nd2 = len(shape1), len(shape2)
    if nd1 == 0 or nd2 == 0:
        raise ValueError(f"{where}: operands must have at least one dimension (shapes "
                         f"{shape1} and {shape2}); use * for scalars")
    # A 1-D operand as a row (x1) or column (x2): shapes first, views only where a kernel
    # computes the product (on the host, NumPy takes the operands as they are; the two
    # reshapes were most of a 2000-element dot's 30 us).
    a_shape = (1,) + shape1 if nd1 == 1 else shape1
    b_shape = shape2 + (1,) if nd2 == 1 else shape2
    m, k = a_shape[-2:]
    k2, n = b_shape[-2:]
    if k != k2:
        raise ValueError(f"{where}: the operands' inner dimensions differ: shapes {shape1} "
                         f"and {shape2} (core dimension {k} of x1 against {k2} of x2)")
    batch = _broadcast.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    dtype = _result_dtype(x1, x2, where)
    shape = batch + (m,) * (nd1 > 1) + (n,) * (nd2 > 1)
    if _host_blas(x1.device):
        out = empty(shape, dtype, x1.device)
        if out.size:
            _launch.check_dtypes(out.device, (x1.dtype, x2.dtype, dtype), where)
            if _cpu_matvec(x1, x2):
                _launch_cpu_matvec(x1, x2, out)
            else:
                # The operands as given: a vector stays a vector, so NumPy calls BLAS'
                # gemv (a column of one made it gemm, twice as slow).
                np.matmul(np.asarray(x1), np.asarray(x2), out=np.asarray(out))
        return out
    a = reshape(x1, a_shape) if nd1 == 1 else x1
    b = reshape(x2, b_shape) if nd2 == 1 else x2
    out = empty(batch + (m, n), dtype, x1.device)
    _product(a, b, out)
    # A reshape is a few microseconds of Python: the host cost of a small batched product.
    return out if nd1 > 1 and nd2 > 1 else reshape(out, shape)


def _product(a, b, out):
    """out[..., m, n] = sum over k of a[..., m, k] * b[..., k, n], the batch broadcast."""
    if out.size == 0:
        return
    _launch.check_dtypes(out.device, (a.dtype, b.dtype, out.dtype), "simt.matmul")
    k = a.shape[-1]
    if k == 0:
        assign(out, 0)
        return
    if _host_blas(out.device):
        # Host memory: NumPy's BLAS writes the result in place.
        np.matmul(np.asarray(a), np.asarray(b), out=np.asarray(out))
        return
    _gpu_product(a, b, out)


def _host_blas(device):
    return runs_on_host(device)


# The host's matrix-vector products of floats (2-D @ 1-D, rows contiguous) run as simt's
# own kernel on the device's threads, not NumPy's BLAS: OpenBLAS splits gemv statically
# between its threads and spins while it waits, so on a shared machine (or beside simt's
# own threads, which it then competes with) one descheduled thread held the whole product:
# a 2000^2 float64 gemv took 1.4 ms on one thread and 4-35 ms on two under load, and the
# conjugate-gradient program ran at 0.09-0.89x NumPy's time. simt's blocks are taken by
# whichever thread is free (TBB), and a product this size is memory-bound either way.
# Each row is summed in 128 bytes of independent accumulators (four AVX2 vectors in
# flight: one vector's chain of additions ran at half the memory's speed).
_MATVEC_BYTES = 128


def _cpu_matvec(x1, x2):
    return (x1.ndim == 2 and x2.ndim == 1 and x1.dtype == x2.dtype
            and x1.dtype in (np.float32, np.float64) and x1.strides[1] == x1.itemsize
            and x1.shape[1] >= _MATVEC_BYTES // x1.itemsize)


def _launch_cpu_matvec(a, v, out):
    m, k = a.shape
    blocks = min(m, _launch.elementwise_config(a.device, m * k)[0])
    _matvec_kernel(out.dtype)[blocks, 1](out, a, v)


@functools.lru_cache(maxsize=None)
def _matvec_kernel(dtype):
    """out[i] = sum over k of a[i, k] * v[k], a contiguous run of rows per thread, each row
    summed in independent accumulators (lanes) and the last K % lanes products as one more
    round of the lanes, zero past the end: a remainder loop updating one lane made Clang
    pair the lanes two by two (<2 x double>) instead of one vector, as in the row
    reductions (_reduction._template)."""
    zero = _zero(dtype)
    count = _MATVEC_BYTES // dtype.itemsize
    lanes = range(count)
    text = "\n".join([
        "def matvec_rows(out, a, v):",
        "    M = a.shape[0]",
        "    K = a.shape[1]",
        "    chunk = M // simt.gridsize(1) + 1",
        "    i = simt.grid(1) * chunk",
        "    stop = min(i + chunk, M)",
        "    while i < stop:",
        *(f"        acc{j} = {zero}" for j in lanes),
        "        k = 0",
        f"        last = K - {count}",
        # `k <= last`: a counted loop, without the cancellation check that keeps Clang
        # from vectorizing (_reduction._template).
        "        while k <= last:",
        *(f"            acc{j} = acc{j} + a[i, k + {j}] * v[k + {j}]" for j in lanes),
        f"            k += {count}",
        "        if k < K:",
        "            e = K - 1",
        *(f"            acc{j} = acc{j} + (a[i, min(k + {j}, e)] * v[min(k + {j}, e)] "
          f"if k + {j} < K else {zero})" for j in lanes),
        f"        out[i] = {_merge_tree('a + b', [f'acc{j}' for j in lanes])}",
        "        i += 1",
    ])
    return _generated.kernel("matvec_rows", text)


def _gpu_product(a, b, out):
    """_product on a GPU: cuBLAS where it applies (_cublas), else the tiled kernel."""
    batch = out.shape[:-2]
    count = math.prod(batch)
    m, n = out.shape[-2:]
    a3 = _batched(a, batch, count)
    b3 = _batched(b, batch, count)
    out3 = _batched(out, batch, count)  # a view: out is C-contiguous
    device = out.device
    acc = _accumulator(out.dtype)
    layers = min(count, device.max_grid_dim[2])
    if n == 1 and m <= device.max_grid_dim[0]:
        # Matrix times vector (and vector dot vector), before cuBLAS, whose GEMM with one
        # column ran at half CuPy's speed (2026-12-06, H100): a block per output element,
        # its threads striding over the row (four loads in flight each) and summing in
        # shared memory, reading a's row consecutively. A 64 x 64 tile would compute 64
        # columns to keep one.
        threads = _launch.threads_for(a.shape[-1], min(256, device.max_threads_per_block))
        _row_kernel(acc, threads)[(m, 1, layers), threads](a3, b3, out3)
        return
    if _cublas.product(a3, b3, out3):
        return
    if device.max_threads_per_block < _THREADS:
        raise ValueError(f"simt.matmul: {device.id} runs at most {device.max_threads_per_block} "
                         f"threads per block; the product kernel uses {_THREADS}")
    if m == 1:
        # Vector times matrix: a thread per output column walking down b's rows, which
        # neighbouring threads read side by side.
        threads = min(256, device.max_threads_per_block)
        grid = (-(-n // threads), 1, layers)
        _column_kernel(acc)[grid, threads](a3, b3, out3)
        return
    # Row tiles on the grid's x (2**31 - 1 blocks), column tiles on y.
    grid = (-(-m // TILE), -(-n // TILE), layers)
    if grid[1] > device.max_grid_dim[1]:
        raise ValueError(f"simt.matmul: {n} columns need {grid[1]} tiles of {TILE}, more "
                         f"than {device.id}'s {device.max_grid_dim[1]} blocks along a grid's y")
    _kernel(acc)[grid, _THREADS](a3, b3, out3)


def _batched(x, batch, count):
    """x (..., r, c) broadcast to batch + (r, c), viewed as (count, r, c): a view where the
    batch axes merge into one stride, else a C-order copy."""
    # The commonest layouts first, without the general walk (a small product's host cost).
    if x.ndim == 3 and x.shape[0] == count:
        return x
    if x.ndim == 2:
        return _broadcast.element_view(x, (count,) + x.shape, (0,) + x.strides)
    shape = batch + x.shape[-2:]
    strides = _broadcast.broadcast_strides(x.shape, x.strides, shape)
    dims, (merged,) = _broadcast.collapse(batch, [strides[:len(batch)]])
    if len(dims) <= 1:
        stride = merged[0] if dims else 0
        return _broadcast.element_view(x, (count,) + x.shape[-2:], (stride,) + strides[-2:])
    copy = contiguous_copy(_broadcast.element_view(x, shape, strides))
    return reshape(copy, (count,) + x.shape[-2:])


def _accumulator(dtype):
    # float16 products are summed in float32, as NumPy's and cuBLAS's default.
    return np.dtype(np.float32) if dtype == np.float16 else dtype


@functools.lru_cache(maxsize=None)
def _kernel(acc):
    """The tiled matmul kernel accumulating in `acc` (it specializes on the operands'
    dtypes as every kernel does)."""
    return _generated.kernel("matmul_tiled", _source(acc))


def _mac(acc):
    """Multiply-accumulate as generated source: `c + x * y` (or and and, for bool)."""
    if acc.kind == "b":
        return lambda c, x, y: f"{c} or ({x} and {y})"
    return lambda c, x, y: f"{c} + {x} * {y}"


def _zero(acc):
    return "False" if acc.kind == "b" else f"{_generated.dtype_name(acc)}(0)"


@functools.lru_cache(maxsize=None)
def _row_kernel(acc, threads):
    """out[z, r, 0] = sum over k of a[z, r, k] * b[z, k, 0], a block of `threads` per r."""
    name, mac = _generated.dtype_name(acc), _mac(acc)
    text = "\n".join([
        "def matmul_rows(a, b, out):",
        f"    part = simt.shared.array({threads}, {name})",
        "    t = simt.threadIdx.x",
        "    r = simt.blockIdx.x",
        "    k = a.shape[2]",
        "    z = simt.blockIdx.z",
        "    while z < out.shape[0]:",
        f"        c = {_zero(acc)}",
        "        j = t",
        f"        while j + {3 * threads} < k:",
        *[f"            p{u} = {name}(a[z, r, j + {u * threads}])" for u in range(4)],
        *[f"            q{u} = {name}(b[z, j + {u * threads}, 0])" for u in range(4)],
        *[f"            c = {mac('c', f'p{u}', f'q{u}')}" for u in range(4)],
        f"            j += {4 * threads}",
        "        while j < k:",
        f"            c = {mac('c', f'{name}(a[z, r, j])', f'{name}(b[z, j, 0])')}",
        f"            j += {threads}",
        "        part[t] = c",
        "        simt.syncthreads()",
        f"        s = {threads // 2}",
        "        while s > 0:",
        "            if t < s:",
        f"                part[t] = part[t] {'or' if acc.kind == 'b' else '+'} part[t + s]",
        "            simt.syncthreads()",
        "            s //= 2",
        "        if t == 0:",
        "            out[z, r, 0] = part[0]",
        "        simt.syncthreads()",
        "        z += simt.gridDim.z",
    ]) + "\n"
    return _generated.kernel("matmul_rows", text)


@functools.lru_cache(maxsize=None)
def _column_kernel(acc):
    """out[z, 0, c] = sum over k of a[z, 0, k] * b[z, k, c], a thread per c."""
    name, mac = _generated.dtype_name(acc), _mac(acc)
    text = "\n".join([
        "def matmul_columns(a, b, out):",
        "    col = simt.grid(1)",
        "    if col >= out.shape[2]:",
        "        return",
        "    k = a.shape[2]",
        "    z = simt.blockIdx.z",
        "    while z < out.shape[0]:",
        f"        c = {_zero(acc)}",
        "        for j in range(k):",
        f"            c = {mac('c', f'{name}(a[z, 0, j])', f'{name}(b[z, j, col])')}",
        "        out[z, 0, col] = c",
        "        z += simt.gridDim.z",
    ]) + "\n"
    return _generated.kernel("matmul_columns", text)


def _source(acc):
    """The tiled matmul kernel's module text, in simt's kernel language."""
    name = _generated.dtype_name(acc)
    per = TILE // REGS  # threads along a tile's edge
    loads = TILE * STEP // _THREADS  # elements of each operand a thread stages per step
    plus = _mac(acc)

    def mac(c, x, y):
        return f"{c} = {plus(c, x, y)}"
    cells = [(i, j) for i in range(REGS) for j in range(REGS)]
    zero = _zero(acc)
    lines = [
        "def matmul_tiled(a, b, out):",
        f"    sa = simt.shared.array({STEP * TILE}, {name})",
        f"    sb = simt.shared.array({STEP * TILE}, {name})",
        "    t = simt.threadIdx.x",
        f"    tx = t % {per}",
        f"    ty = t // {per}",
        f"    row0 = simt.blockIdx.x * {TILE}",
        f"    col0 = simt.blockIdx.y * {TILE}",
        "    m = out.shape[1]",
        "    n = out.shape[2]",
        "    k = a.shape[2]",
        "    z = simt.blockIdx.z",
        "    while z < out.shape[0]:",
        *[f"        c{i}{j} = {zero}" for i, j in cells],
        "        k0 = 0",
        "        while k0 < k:",
    ]
    for j in range(loads):
        # a's slice: TILE rows x STEP columns, stored column-major (sa[kk * TILE + r]).
        lines += [
            f"            e = t + {j * _THREADS}",
            f"            r = e // {STEP}",
            f"            kk = e % {STEP}",
            "            if row0 + r < m and k0 + kk < k:",
            f"                sa[kk * {TILE} + r] = {name}(a[z, row0 + r, k0 + kk])",
            "            else:",
            f"                sa[kk * {TILE} + r] = {zero}",
            # b's slice: STEP rows x TILE columns (sb[kk * TILE + c]).
            f"            kk = e // {TILE}",
            f"            c = e % {TILE}",
            "            if k0 + kk < k and col0 + c < n:",
            f"                sb[kk * {TILE} + c] = {name}(b[z, k0 + kk, col0 + c])",
            "            else:",
            f"                sb[kk * {TILE} + c] = {zero}",
        ]
    lines += [
        "            simt.syncthreads()",
        f"            for kk in range({STEP}):",
        *[f"                x{i} = sa[kk * {TILE} + ty + {i * per}]" for i in range(REGS)],
        *[f"                y{j} = sb[kk * {TILE} + tx + {j * per}]" for j in range(REGS)],
        *[f"                {mac(f'c{i}{j}', f'x{i}', f'y{j}')}" for i, j in cells],
        "            simt.syncthreads()",
        f"            k0 += {STEP}",
    ]
    for i, j in cells:
        lines += [
            f"        if row0 + ty + {i * per} < m and col0 + tx + {j * per} < n:",
            f"            out[z, row0 + ty + {i * per}, col0 + tx + {j * per}] = c{i}{j}",
        ]
    lines.append("        z += simt.gridDim.z")
    return "\n".join(lines) + "\n"


def _normalized_axes(axes, ndim, where, name):
    found = []
    for axis in axes:
        a = operator.index(axis)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim, f"{where} ({name})")
        found.append(a % ndim)
    if len(set(found)) != len(found):
        raise ValueError(f"{where}: an axis of {name} repeats in {tuple(axes)}")
    return found


def tensordot(x1, x2, /, *, axes=2):
    """The sum of products over `axes` (an int: x1's last and x2's first that many axes;
    or two sequences of axes, paired), as NumPy's tensordot."""
    where = "simt.tensordot"
    _arrays(x1, x2, where)
    if isinstance(axes, (int, np.integer)):
        count = operator.index(axes)
        if count < 0 or count > min(x1.ndim, x2.ndim):
            raise ValueError(f"{where}: axes={count} for operands of {x1.ndim} and "
                             f"{x2.ndim} dimensions")
        axes1, axes2 = list(range(x1.ndim - count, x1.ndim)), list(range(count))
    else:
        try:
            axes1, axes2 = axes
        except (TypeError, ValueError):
            raise TypeError(f"{where}: axes must be an int or a pair of sequences of axes, "
                            f"not {axes!r}") from None
        axes1 = [axes1] if isinstance(axes1, (int, np.integer)) else list(axes1)
        axes2 = [axes2] if isinstance(axes2, (int, np.integer)) else list(axes2)
        if len(axes1) != len(axes2):
            raise ValueError(f"{where}: {len(axes1)} axes of x1 paired with {len(axes2)} "
                             f"of x2")
        axes1 = _normalized_axes(axes1, x1.ndim, where, "x1")
        axes2 = _normalized_axes(axes2, x2.ndim, where, "x2")
    for a1, a2 in zip(axes1, axes2):
        if x1.shape[a1] != x2.shape[a2]:
            raise ValueError(f"{where}: shape mismatch for the summed axes: x1's axis {a1} "
                             f"has {x1.shape[a1]} elements, x2's axis {a2} {x2.shape[a2]}")
    free1 = [a for a in range(x1.ndim) if a not in axes1]
    free2 = [a for a in range(x2.ndim) if a not in axes2]
    m = math.prod(x1.shape[a] for a in free1)
    n = math.prod(x2.shape[a] for a in free2)
    k = math.prod(x1.shape[a] for a in axes1)
    a = reshape(permute_dims(x1, tuple(free1 + axes1)), (m, k))
    b = reshape(permute_dims(x2, tuple(axes2 + free2)), (k, n))
    out = empty((m, n), _result_dtype(x1, x2, where), x1.device)
    _product(a, b, out)
    return reshape(out, tuple(x1.shape[a] for a in free1) + tuple(x2.shape[a] for a in free2))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of the vectors along `axis` (x1's conjugated), the other axes
    broadcast, in the operands' promoted dtype (the array API's vecdot)."""
    where = "simt.vecdot"
    _arrays(x1, x2, where)
    dtype = _result_dtype(x1, x2, where)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"{where}: operands must have at least one dimension")
    ndim = max(x1.ndim, x2.ndim)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim, where)
    axis = axis - ndim if axis >= 0 else axis
    n1 = x1.shape[axis] if x1.ndim >= -axis else None
    n2 = x2.shape[axis] if x2.ndim >= -axis else None
    if n1 is None or n1 != n2:
        raise ValueError(f"{where}: the vectors along axis {axis} differ in length: shapes "
                         f"{x1.shape} and {x2.shape}")
    left = FUNCTIONS["conj"](x1) if x1.dtype.kind == "c" else x1
    return _sum(FUNCTIONS["multiply"](left, x2), axis=axis, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of two vectors (NumPy flattens other inputs first)."""
    where = "simt.outer"
    _arrays(x1, x2, where)
    a = reshape(x1, (x1.size, 1))
    b = reshape(x2, (1, x2.size))
    return FUNCTIONS["multiply"](a, b)


def dot(a, b, /, out=None):
    """NumPy's dot: scalars multiply, vectors give their inner product, matrices their
    product, and N-D operands sum over a's last axis and b's second-to-last."""
    where = "simt.dot"
    _arrays(a, b, where)
    if a.ndim == 0 or b.ndim == 0:
        result = FUNCTIONS["multiply"](a, b)
    elif b.ndim <= 2 and a.ndim <= 2:
        result = matmul(a, b)
    else:
        result = tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2 if b.ndim > 1 else 0]))
    if out is None:
        return result
    if not isinstance(out, Array) or out.shape != result.shape or out.dtype != result.dtype:
        raise ValueError(f"{where}: out must be a simt array of shape {result.shape} and "
                         f"dtype {result.dtype} (NumPy's rule for dot)")
    return assign(out, result)


def inner(a, b, /):
    """NumPy's inner: the sum of products over the last axes of both."""
    where = "simt.inner"
    _arrays(a, b, where)
    if a.ndim == 0 or b.ndim == 0:
        return FUNCTIONS["multiply"](a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def _matmul_operator(self, other):
    if not isinstance(other, Array):
        return _foreign(other)
    return matmul(self, other)


def _rmatmul_operator(self, other):
    if not isinstance(other, Array):
        return _foreign(other)
    return matmul(other, self)


def _imatmul_operator(self, other):
    if not isinstance(other, Array):
        return _foreign(other)
    result = matmul(self, other)
    if result.shape != self.shape:
        raise ValueError(f"a @= b: the product has shape {result.shape}, a has {self.shape} "
                         f"(in-place matmul keeps a's shape)")
    if not np.can_cast(result.dtype, self.dtype, "same_kind"):
        raise TypeError(f"a @= b: cannot cast the product from {result.dtype} to "
                        f"{self.dtype} (NumPy's casting rule 'same_kind')")
    assign(self, result)
    return self


def _foreign(other):
    if isinstance(other, np.ndarray):
        raise TypeError("a simt array @ a NumPy array: copy the NumPy array to the device "
                        "first (simt.asarray(x, device=a.device)), or bring the simt array "
                        "back with .get()")
    return NotImplemented


METHODS = {
    "__matmul__": _matmul_operator,
    "__rmatmul__": _rmatmul_operator,
    "__imatmul__": _imatmul_operator,
    "dot": lambda self, b, out=None: dot(self, b, out=out),
}
