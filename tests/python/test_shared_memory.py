"""Shared memory, local arrays and barriers on every available device, against NumPy.

Each kernel runs on every device (the `device` fixture) on fresh random inputs, with
outputs poisoned before the launch and sizes that do not divide the block, and is
compared with what NumPy computes for the same inputs. The CPU backend runs the
threads of a block between barriers, so these tests also check that values private to
a thread (scalars, local arrays, loop counters) survive barriers there, and that
barriers the compiler cannot prove uniform run there too (in fiber mode).
"""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt
import kernel_helpers
from kernel_helpers import blocks
from simt import cuda

TILE = 16
TILE_PADDED = 17  # TILE + 1 columns: a transposing tile without bank conflicts
BLOCK = 128
LOCAL_N = 8
BIG_LOCAL = 512  # float64 items: 4 KiB per thread
POISON_F = np.nan
POISON_I = -77

THIS_FILE = Path(__file__).resolve()


def line_of(marker):
    """The 1-based line of this file holding the comment `# <marker>`."""
    return kernel_helpers.marker_line(THIS_FILE, marker)




def padded(x, block):
    """x with zeros appended up to a multiple of `block`, as a (blocks, block) array."""
    out = np.zeros(blocks(len(x), block) * block, x.dtype)
    out[:len(x)] = x
    return out.reshape(-1, block)


# ------------------------------------------------------------------- tiled matrix multiply

@simt.kernel
def k_matmul(a, b, c):
    sa = cuda.shared.array((TILE, TILE), np.float32)
    sb = cuda.shared.array(shape=(TILE, TILE), dtype=simt.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n, k = a.shape
    m = b.shape[1]
    acc = np.float32(0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < n and kk + tx < k:
            sa[ty, tx] = a[row, kk + tx]
        else:
            sa[ty, tx] = 0
        if kk + ty < k and col < m:
            sb[ty, tx] = b[kk + ty, col]
        else:
            sb[ty, tx] = 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < n and col < m:
        c[row, col] = acc


@pytest.mark.parametrize("n,k,m", [(50, 37, 45), (16, 16, 16), (5, 70, 3)])
def test_tiled_matmul(device, rng, n, k, m):
    """C = A @ B through 16x16 shared tiles (shape given positionally and by keyword),
    with sizes that are not multiples of the tile."""
    a = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal((k, m)).astype(np.float32)
    with simt.use_device(device):
        c = simt.full((n, m), POISON_F, dtype=np.float32, device=device)
        k_matmul[(blocks(m, TILE), blocks(n, TILE)), (TILE, TILE)](
            simt.to_device(a, device=device), simt.to_device(b, device=device), c)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c.get(), expected, rtol=1e-4, atol=1e-4 * np.sqrt(k),
                               err_msg=f"tiled matmul ({n}x{k}) @ ({k}x{m}) on {device.id}")


# ------------------------------------------------------------------------ tree reduction

@simt.kernel
def k_block_sum(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sh[0]


@pytest.mark.parametrize("block", [BLOCK, 64, 32])
def test_shared_tree_reduction(device, rng, block):
    """Sum per block: halving stride in a `while` loop bounded by blockDim, a barrier per
    step; blocks smaller than the shared array too."""
    n = 3000
    x = rng.integers(-10**12, 10**12, n)
    nb = blocks(n, block)
    with simt.use_device(device):
        out = simt.full(nb, POISON_I, dtype=np.int64, device=device)
        k_block_sum[nb, block](simt.to_device(x, device=device), out)
    np.testing.assert_array_equal(out.get(), padded(x, block).sum(axis=1),
                                  err_msg=f"per-block sums with block={block}")


# ------------------------------------------------------------------- block prefix scan

@simt.kernel
def k_block_scan(x, out):
    """Hillis-Steele inclusive scan in one buffer: read, barrier, write, barrier."""
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    offset = 1
    while offset < cuda.blockDim.x:
        v = sh[tid]
        if tid >= offset:
            v += sh[tid - offset]
        cuda.syncthreads()
        sh[tid] = v
        cuda.syncthreads()
        offset *= 2
    if i < x.size:
        out[i] = sh[tid]


@simt.kernel
def k_block_scan_double_buffer(x, out):
    """Hillis-Steele inclusive scan ping-ponging between two shared buffers."""
    b0 = cuda.shared.array(BLOCK, np.float64)
    b1 = cuda.shared.array(BLOCK, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    b0[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    offset = 1
    src = 0
    while offset < cuda.blockDim.x:
        if src == 0:
            v = b0[tid]
            if tid >= offset:
                v += b0[tid - offset]
            b1[tid] = v
        else:
            v = b1[tid]
            if tid >= offset:
                v += b1[tid - offset]
            b0[tid] = v
        cuda.syncthreads()
        src = 1 - src
        offset *= 2
    if i < x.size:
        if src == 0:
            out[i] = b0[tid]
        else:
            out[i] = b1[tid]


@pytest.mark.parametrize("block", [BLOCK, 32, 100])
def test_block_inclusive_scan(device, rng, block):
    n = 1000
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    with simt.use_device(device):
        out = simt.full(n, POISON_I, dtype=np.int32, device=device)
        k_block_scan[blocks(n, block), block](simt.to_device(x, device=device), out)
    expected = np.cumsum(padded(x, block), axis=1, dtype=np.int32).ravel()[:n]
    np.testing.assert_array_equal(out.get(), expected, err_msg=f"block scan, block={block}")


@pytest.mark.parametrize("block", [BLOCK, 64])
def test_block_inclusive_scan_two_buffers(device, rng, block):
    n = 1000
    x = rng.integers(-1000, 1000, n).astype(np.float64) / 8  # sums are exact
    with simt.use_device(device):
        out = simt.full(n, POISON_F, dtype=np.float64, device=device)
        k_block_scan_double_buffer[blocks(n, block), block](simt.to_device(x, device=device), out)
    expected = np.cumsum(padded(x, block), axis=1).ravel()[:n]
    np.testing.assert_array_equal(out.get(), expected, err_msg=f"two-buffer scan, block={block}")


# -------------------------------------------------------------- transpose through a tile

@simt.kernel
def k_transpose(a, out):
    tile = cuda.shared.array(shape=(TILE, TILE_PADDED), dtype=np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[tx, ty]


@pytest.mark.parametrize("shape", [(37, 53), (16, 32), (1, 20)])
def test_transpose_through_padded_tile(device, rng, shape):
    a = rng.standard_normal(shape).astype(np.float32)
    rows, cols = shape
    with simt.use_device(device):
        out = simt.full((cols, rows), POISON_F, dtype=np.float32, device=device)
        k_transpose[(blocks(cols, TILE), blocks(rows, TILE)), (TILE, TILE)](
            simt.to_device(a, device=device), out)
    np.testing.assert_array_equal(out.get(), a.T, err_msg=f"transpose of {shape}")


# ------------------------------------------------------------------ dynamic shared memory

@simt.kernel
def k_reverse_segments(a, out):
    sh = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    start = cuda.blockIdx.x * cuda.blockDim.x
    i = start + tid
    seg = min(cuda.blockDim.x, a.size - start)
    if i < a.size:
        sh[tid] = a[i]
    cuda.syncthreads()
    if tid < seg:
        out[i] = sh[seg - 1 - tid]


@pytest.mark.parametrize("block", [64, 256, 100])
@pytest.mark.parametrize("stream", [0, None])
def test_dynamic_shared_memory_reverses_each_block(device, rng, block, stream):
    """cuda.shared.array(0, dtype) sized at launch: kernel[grid, block, stream, nbytes]."""
    n = 1000
    a = rng.standard_normal(n).astype(np.float32)
    with simt.use_device(device):
        out = simt.full(n, POISON_F, dtype=np.float32, device=device)
        k_reverse_segments[blocks(n, block), block, stream, block * 4](
            simt.to_device(a, device=device), out)
    expected = np.concatenate([seg[::-1] for seg in np.split(a, range(block, n, block))])
    np.testing.assert_array_equal(out.get(), expected, err_msg=f"block={block}")


@simt.kernel
def k_dynamic_aliases(x, bits, same):
    f = cuda.shared.array(0, np.float32)
    u = cuda.shared.array(0, np.uint32)
    g = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        f[tid] = x[i]
    cuda.syncthreads()
    if i < x.size:
        bits[i] = u[tid]
        same[i] = g[tid]


def test_dynamic_shared_arrays_alias_one_buffer(device, rng):
    """Every dynamic shared array of a kernel starts at the same address (as in CUDA)."""
    n, block = 700, 128
    x = rng.standard_normal(n).astype(np.float32)
    with simt.use_device(device):
        bits = simt.full(n, 0xDEADBEEF, dtype=np.uint32, device=device)
        same = simt.full(n, POISON_F, dtype=np.float32, device=device)
        k_dynamic_aliases[blocks(n, block), block, 0, block * 4](
            simt.to_device(x, device=device), bits, same)
    np.testing.assert_array_equal(bits.get(), x.view(np.uint32),
                                  err_msg="uint32 view of the dynamic buffer")
    np.testing.assert_array_equal(same.get(), x, err_msg="second float32 dynamic array")


@simt.kernel
def k_fixed_dynamic_slots(out):
    d = cuda.shared.array(0, np.float64)
    if cuda.threadIdx.x == 0:
        d[0] = 1.5
        d[9] = 2.5
    cuda.syncthreads()
    out[cuda.threadIdx.x] = d[0] + d[9]


def test_a_launch_giving_less_dynamic_shared_memory_than_a_constant_index_needs(device):
    """`d[9]` of a float64 dynamic array needs 80 bytes: fewer is an error at the launch,
    naming the line, on every device (CUDA would read out of bounds, the CPU fault)."""
    out = simt.full(32, POISON_F, dtype=np.float64, device=device)
    with simt.use_device(device):
        with pytest.raises(ValueError, match=r"d\[9\] = 2.5\), which needs 80 bytes of "
                                             r"dynamic shared memory; the launch gives 72"):
            k_fixed_dynamic_slots[1, 32, 0, 72](out)
        k_fixed_dynamic_slots[1, 32, 0, 80](out)
    np.testing.assert_array_equal(out.get(), np.full(32, 4.0))


@simt.kernel
def k_big_dynamic(x, out, per):
    buf = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    for j in range(per):
        buf[j * bdim + tid] = x[i] * (j + 1)
    cuda.syncthreads()
    acc = np.float32(0)
    for j in range(per):
        acc += buf[j * bdim + (bdim - 1 - tid)]
    out[i] = acc


def test_large_dynamic_shared_memory(device, rng):
    """40 KiB of dynamic shared memory per block."""
    nb, block = 3, 256
    per = 40 * 1024 // 4 // block
    x = rng.integers(-50, 50, nb * block).astype(np.float32)  # exact sums
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_F, dtype=np.float32, device=device)
        k_big_dynamic[nb, block, 0, per * block * 4](simt.to_device(x, device=device), out, per)
    factor = per * (per + 1) // 2
    np.testing.assert_array_equal(out.get(), (x.reshape(nb, block)[:, ::-1] * factor).ravel())


# ------------------------------------------------------- several shared arrays per kernel

@simt.kernel
def k_three_static_arrays(x, y, z, ox, oy, oz):
    bytes_ = cuda.shared.array(BLOCK - 1, np.int8)  # odd size: the next must be aligned
    doubles = cuda.shared.array(BLOCK, np.float64)
    ints = cuda.shared.array((2, BLOCK), np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    if i < x.size:
        doubles[tid] = x[i]
        ints[0, tid] = y[i]
        ints[1, tid] = -y[i]
        if tid < BLOCK - 1:
            bytes_[tid] = z[i]
    cuda.syncthreads()
    if i < x.size:
        j = bdim - 1 - tid
        ox[i] = doubles[j]
        oy[i] = ints[0, j] - ints[1, (tid + 1) % bdim]
        oz[i] = bytes_[(tid + 1) % (BLOCK - 1)] if tid < BLOCK - 1 else 0


def test_several_static_shared_arrays_do_not_overlap(device, rng):
    block = BLOCK
    nb = 5
    n = nb * block  # full blocks: every element read was written
    x = rng.standard_normal(n)
    y = rng.integers(-10**6, 10**6, n).astype(np.int32)
    z = rng.integers(-128, 128, n).astype(np.int8)
    with simt.use_device(device):
        ox = simt.full(n, POISON_F, dtype=np.float64, device=device)
        oy = simt.full(n, POISON_I, dtype=np.int32, device=device)
        oz = simt.full(n, 99, dtype=np.int8, device=device)
        k_three_static_arrays[nb, block](
            *(simt.to_device(v, device=device) for v in (x, y, z)), ox, oy, oz)
    xb, yb, zb = (v.reshape(nb, block) for v in (x, y, z))
    exp_x = xb[:, ::-1].ravel()
    exp_y = (yb[:, ::-1] + np.roll(yb, -1, axis=1)).ravel()
    exp_z = np.zeros_like(zb)
    exp_z[:, :block - 1] = np.roll(zb[:, :block - 1], -1, axis=1)
    np.testing.assert_array_equal(ox.get(), exp_x, err_msg="float64 shared array")
    np.testing.assert_array_equal(oy.get(), exp_y, err_msg="2-d int32 shared array")
    np.testing.assert_array_equal(oz.get(), exp_z.ravel(), err_msg="int8 shared array")


@simt.kernel
def k_static_and_dynamic(x, y, ox, oy):
    st = cuda.shared.array(BLOCK, np.int32)
    dyn = cuda.shared.array(0, np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    st[tid] = x[i]
    dyn[tid] = y[i]
    cuda.syncthreads()
    ox[i] = st[bdim - 1 - tid]
    oy[i] = dyn[bdim - 1 - tid]


def test_static_and_dynamic_shared_arrays_do_not_overlap(device, rng):
    nb, block = 4, BLOCK
    n = nb * block
    x = rng.integers(-10**9, 10**9, n).astype(np.int32)
    y = rng.integers(-10**9, 10**9, n).astype(np.int32)
    with simt.use_device(device):
        ox = simt.full(n, POISON_I, dtype=np.int32, device=device)
        oy = simt.full(n, POISON_I, dtype=np.int32, device=device)
        k_static_and_dynamic[nb, block, 0, block * 4](
            simt.to_device(x, device=device), simt.to_device(y, device=device), ox, oy)
    np.testing.assert_array_equal(ox.get(), x.reshape(nb, block)[:, ::-1].ravel(),
                                  err_msg="static array")
    np.testing.assert_array_equal(oy.get(), y.reshape(nb, block)[:, ::-1].ravel(),
                                  err_msg="dynamic array")


def make_rotate_kernel(dtype):
    """A kernel whose shared array's dtype is a closure variable."""
    DT = dtype

    @simt.kernel
    def k_rotate(x, out):
        sh = cuda.shared.array(BLOCK, DT)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        sh[tid] = x[i]
        cuda.syncthreads()
        out[i] = sh[(tid + 1) % cuda.blockDim.x]

    return k_rotate


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.uint64, np.complex64])
def test_shared_array_dtype_from_a_closure(device, rng, dtype):
    nb, block = 3, BLOCK
    n = nb * block
    x = (np.abs(rng.standard_normal(n)) * 1000).astype(dtype)
    with simt.use_device(device):
        out = simt.zeros(n, dtype=dtype, device=device)
        make_rotate_kernel(dtype)[nb, block](simt.to_device(x, device=device), out)
    np.testing.assert_array_equal(out.get(), np.roll(x.reshape(nb, block), -1, axis=1).ravel())


# ------------------------------------------------------------------------- local arrays

@simt.kernel
def k_local_sort(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        buf = cuda.local.array(LOCAL_N, np.float32)
        for j in range(LOCAL_N):
            buf[j] = x[i, j]
        for j in range(1, LOCAL_N):  # insertion sort
            v = buf[j]
            k = j - 1
            while k >= 0 and buf[k] > v:
                buf[k + 1] = buf[k]
                k -= 1
            buf[k + 1] = v
        for j in range(LOCAL_N):
            out[i, j] = buf[j]


def test_local_array_per_thread_sort(device, rng):
    n = 1000
    x = rng.standard_normal((n, LOCAL_N)).astype(np.float32)
    with simt.use_device(device):
        out = simt.full((n, LOCAL_N), POISON_F, dtype=np.float32, device=device)
        k_local_sort[blocks(n, 64), 64](simt.to_device(x, device=device), out)
    np.testing.assert_array_equal(out.get(), np.sort(x, axis=1))


@simt.kernel
def k_local_counts(x, out):
    i = cuda.grid(1)
    counts = cuda.local.array((2, 4), np.int32)
    for p in range(2):
        for b in range(4):
            counts[p, b] = 0
    if i < x.shape[0]:
        for j in range(x.shape[1]):
            counts[j % 2, x[i, j]] += 1
        for p in range(2):
            for b in range(4):
                out[i, p, b] = counts[p, b]


def test_local_array_2d_accumulation(device, rng):
    """A (2, 4) local array per thread counts the values at even and odd positions."""
    n, m = 500, 21
    x = rng.integers(0, 4, (n, m))
    with simt.use_device(device):
        out = simt.full((n, 2, 4), POISON_I, dtype=np.int32, device=device)
        k_local_counts[blocks(n, 64), 64](simt.to_device(x, device=device), out)
    expected = np.stack([(x[:, p::2, None] == np.arange(4)).sum(axis=1) for p in range(2)],
                        axis=1)
    np.testing.assert_array_equal(out.get(), expected)


@simt.kernel
def k_local_zeroed(out):
    i = cuda.grid(1)
    loc = cuda.local.array((3, 5), np.int64)
    acc = 0
    for r in range(3):
        for c in range(5):
            acc += loc[r, c]
    if i < out.size:
        out[i] = acc
    for r in range(3):
        loc[r, r] = i + 1  # dirty the thread's array: later threads must not see it


def test_local_arrays_start_zeroed(device):
    """simt documents local arrays as zeroed (Numba leaves them undefined)."""
    n = 300
    with simt.use_device(device):
        out = simt.full(n, POISON_I, dtype=np.int64, device=device)
        k_local_zeroed[3, BLOCK](out)
    np.testing.assert_array_equal(out.get(), np.zeros(n, np.int64))


@simt.kernel
def k_private_across_barriers(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    loc = cuda.local.array(4, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    mine = x[i] if i < x.size else 0
    for r in range(4):
        sh[tid] = mine + r
        cuda.syncthreads()
        loc[r] = sh[(tid + r + 1) % bdim]
        cuda.syncthreads()
    if i < x.size:
        for r in range(4):
            out[i, r] = loc[r] * 10 + mine % 7


def test_private_values_survive_barriers(device, rng):
    """Scalars, a local array and the loop counter of each thread keep their values
    across barriers (the CPU backend runs a block's threads between barriers)."""
    n, block = 1000, BLOCK
    x = rng.integers(-10**6, 10**6, n)
    with simt.use_device(device):
        out = simt.full((n, 4), POISON_I, dtype=np.int64, device=device)
        k_private_across_barriers[blocks(n, block), block](simt.to_device(x, device=device), out)
    xb = padded(x, block)
    tid = np.arange(block)
    expected = np.stack([(xb[:, (tid + r + 1) % block] + r) * 10 + xb % 7 for r in range(4)],
                        axis=2).reshape(-1, 4)[:n]
    np.testing.assert_array_equal(out.get(), expected)


@simt.kernel
def k_big_locals(x, out):
    sh = cuda.shared.array(1024, np.float64)
    loc = cuda.local.array(BIG_LOCAL, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    for j in range(BIG_LOCAL):
        loc[j] = x[i] + j
    sh[tid] = loc[BIG_LOCAL - 1]
    cuda.syncthreads()
    acc = np.float64(0)
    for j in range(BIG_LOCAL):
        acc += loc[j]
    out[i] = acc + sh[cuda.blockDim.x - 1 - tid]


BIG_LOCALS_CHILD = """
import sys
import numpy as np
import simt
sys.path.insert(0, {folder!r})
import test_shared_memory as t
nb, block, L = 3, 1024, t.BIG_LOCAL
x = np.arange(nb * block, dtype=np.float64) % 1000
with simt.use_device({device!r}):
    out = simt.zeros(nb * block, dtype=np.float64)
    t.k_big_locals[nb, block](simt.to_device(x), out)
xb = x.reshape(nb, block)
expected = (xb * L + L * (L - 1) / 2 + xb[:, ::-1] + L - 1).ravel()
bad = np.flatnonzero(out.get() != expected)
print("OK" if len(bad) == 0 else f"wrong at {{bad[:10]}}: {{out.get()[bad[:5]]}} != {{expected[bad[:5]]}}")
"""


def test_large_local_arrays_across_a_barrier_in_a_full_block(device):
    """4 KiB of local array per thread, live across a barrier, in blocks of 1024 threads
    (on the CPU: 4 MiB of per-thread state per block). Run in a child process so that a
    crash fails this test only."""
    if device.backend == "opencl":
        pytest.skip("PoCL itself overflows its stack with 4 KiB private arrays x 1024 items")
    if device.max_threads_per_block < 1024:
        pytest.skip(f"{device.id} runs at most {device.max_threads_per_block} threads a block")
    code = BIG_LOCALS_CHILD.format(folder=str(THIS_FILE.parent), device=device.id)
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300)
    assert child.returncode == 0 and child.stdout.strip() == "OK", (
        f"exit status {child.returncode} (negative: killed by that signal); stdout: "
        f"{child.stdout[-500:]!r}; stderr: {child.stderr[-1500:]}")


# ------------------------------------------------------- barriers in uniform control flow

@simt.kernel
def k_barrier_in_tile_loop(x, out, n_tiles):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    acc = 0
    for k in range(n_tiles):
        j = k * bdim + tid
        sh[tid] = x[j] if j < x.size else 0
        cuda.syncthreads()
        acc += sh[(tid + k) % bdim]
        cuda.syncthreads()
    if i < out.size:
        out[i] = acc


def test_barrier_in_for_loop_over_tiles(device, rng):
    """`for k in range(n_tiles)` with a parameter bound, two barriers per iteration: every
    block walks all of x through shared memory."""
    n, block = 1500, BLOCK
    n_tiles = blocks(n, block)
    x = rng.integers(-10**6, 10**6, n)
    with simt.use_device(device):
        out = simt.full(n, POISON_I, dtype=np.int64, device=device)
        k_barrier_in_tile_loop[n_tiles, block](simt.to_device(x, device=device), out, n_tiles)
    xt = padded(x, block)
    tid = np.arange(block)
    per_tid = sum(xt[k, (tid + k) % block] for k in range(n_tiles))
    np.testing.assert_array_equal(out.get(), np.tile(per_tid, n_tiles)[:n])


@simt.kernel
def k_uniform_branches(x, out, flag):
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    v = 0
    last = cuda.gridDim.x - 1
    if cuda.blockIdx.x == last:  # derived from gridDim and blockIdx
        cuda.syncthreads()
        v = sh[bdim - 1 - tid]
        cuda.syncthreads()
    elif flag > 0:  # a parameter
        cuda.syncthreads()
        v = sh[(tid + 1) % bdim]
        cuda.syncthreads()
    else:
        v = sh[tid]
    steps = flag * 2 + 1
    while steps > 0:  # a variable computed from a parameter
        sh[tid] = v
        cuda.syncthreads()
        v = sh[(tid + 3) % bdim]
        cuda.syncthreads()
        steps -= 1
    out[i] = v


@pytest.mark.parametrize("flag", [0, 1])
def test_barriers_under_block_uniform_conditions(device, rng, flag):
    """Barriers inside if/elif/while whose conditions depend on blockIdx, gridDim and
    parameters only: allowed on every backend, the CPU's included."""
    nb, block = 4, BLOCK
    n = nb * block
    x = rng.integers(-10**6, 10**6, n).astype(np.int32)
    with simt.use_device(device):
        out = simt.full(n, POISON_I, dtype=np.int32, device=device)
        k_uniform_branches[nb, block](simt.to_device(x, device=device), out, flag)
    xb = x.reshape(nb, block)
    v = np.roll(xb, -1, axis=1) if flag else xb.copy()
    v[-1] = xb[-1, ::-1]
    for _ in range(flag * 2 + 1):
        v = np.roll(v, -3, axis=1)
    np.testing.assert_array_equal(out.get(), v.ravel())


@simt.kernel
def k_uniform_return(x, out, active_blocks):
    sh = cuda.shared.array(BLOCK, np.float32)
    if cuda.blockIdx.x >= active_blocks:  # whole blocks leave: uniform
        return
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    cuda.syncthreads()
    out[i] = sh[cuda.blockDim.x - 1 - tid]


def test_barrier_after_a_block_uniform_return(device, rng):
    nb, block, active = 5, BLOCK, 3
    x = rng.standard_normal(nb * block).astype(np.float32)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_F, dtype=np.float32, device=device)
        k_uniform_return[nb, block](simt.to_device(x, device=device), out, active)
    expected = np.full((nb, block), POISON_F, np.float32)
    expected[:active] = x.reshape(nb, block)[:active, ::-1]
    np.testing.assert_array_equal(out.get(), expected.ravel())


@simt.kernel
def k_early_exit(x, out, counts, n_active):
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    if tid >= n_active:  # these threads leave; the others meet at the barriers
        return
    sh[tid] = x[tid]
    cuda.syncthreads()
    out[tid] = sh[n_active - 1 - tid]
    counts[tid] = cuda.syncthreads_count(x[tid] > 0)


def test_threads_that_returned_skip_later_barriers(device, rng):
    """A thread may return before a barrier; the others go on (CPU and CUDA; OpenCL leaves
    it undefined)."""
    if device.backend == "opencl":
        pytest.skip("OpenCL leaves barriers after a divergent return undefined")
    block, n_active = BLOCK, 77
    x = rng.integers(-100, 100, block).astype(np.int32)
    with simt.use_device(device):
        out = simt.full(block, POISON_I, dtype=np.int32, device=device)
        counts = simt.full(block, POISON_I, dtype=np.int32, device=device)
        k_early_exit[1, block](simt.to_device(x, device=device), out, counts, n_active)
    expected = np.full(block, POISON_I, np.int32)
    expected[:n_active] = x[:n_active][::-1]
    np.testing.assert_array_equal(out.get(), expected, err_msg="reverse among active threads")
    expected[:n_active] = (x[:n_active] > 0).sum()
    np.testing.assert_array_equal(counts.get(), expected,
                                  err_msg="syncthreads_count over the threads still running")


@simt.kernel
def k_block_1024(x, out):
    sh = cuda.shared.array(1024, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    a = x[i]
    b = a * 2
    c = a - 1
    sh[tid] = a
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    out[i] = sh[0] + b * 1000 + c * 1000000


def test_block_of_1024_threads_with_barriers(device, rng):
    """The largest block: per-thread state of 1024 threads across barriers."""
    if device.max_threads_per_block < 1024:
        pytest.skip(f"{device.id} runs at most {device.max_threads_per_block} threads a block")
    nb, block = 2, 1024
    x = rng.integers(-8, 8, nb * block).astype(np.float64)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_F, dtype=np.float64, device=device)
        try:
            k_block_1024[nb, block](simt.to_device(x, device=device), out)
        except ValueError as error:
            # An OpenCL driver may allow fewer threads for this kernel than for the device
            # (NVIDIA's: 256 here, for its registers); the launch says so.
            if "more than this kernel can run" not in str(error):
                raise
            pytest.skip(str(error))
    sums = np.repeat(x.reshape(nb, block).sum(axis=1), block)
    np.testing.assert_array_equal(out.get(), sums + x * 2 * 1000 + (x - 1) * 1000000)


@simt.kernel
def k_uniform_from_math(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    start = cuda.blockIdx.x * cuda.blockDim.x
    valid = min(cuda.blockDim.x, x.size - start)  # pure math on shapes and block values
    steps = int(math.log2(cuda.blockDim.x))
    i = start + tid
    sh[tid] = x[i] if tid < valid else 0
    cuda.syncthreads()
    offset = 1
    for _ in range(steps):
        if offset < valid:
            v = sh[tid]
            if tid >= offset:
                v += sh[tid - offset]
            cuda.syncthreads()
            sh[tid] = v
            cuda.syncthreads()
        offset *= 2
    if tid < valid:
        out[i] = sh[tid]


def test_barriers_under_conditions_computed_from_shapes_and_math(device, rng):
    n, block = 1000, BLOCK
    x = rng.integers(-1000, 1000, n)
    with simt.use_device(device):
        out = simt.full(n, POISON_I, dtype=np.int64, device=device)
        k_uniform_from_math[blocks(n, block), block](simt.to_device(x, device=device), out)
    np.testing.assert_array_equal(out.get(), np.cumsum(padded(x, block), axis=1).ravel()[:n])


# ------------------------------------------------------------- syncthreads_count/and/or

@simt.kernel
def k_sync_predicates(pred, x, count, all_, any_, count_gt):
    i = cuda.grid(1)
    p = pred[i]
    count[i] = cuda.syncthreads_count(p)
    all_[i] = cuda.syncthreads_and(p)
    any_[i] = cuda.syncthreads_or(p)
    count_gt[i] = cuda.syncthreads_count(x[i] > 0.5)


def test_syncthreads_count_and_or(device, rng):
    """Every thread of a block gets the block's count / all / any (and/or: non-zero)."""
    nb, block = 8, BLOCK
    n = nb * block
    pred = rng.integers(0, 2, (nb, block)).astype(np.int32)
    pred[0] = 1                  # all true
    pred[1] = 0                  # all false
    pred[2] = 0
    pred[2, rng.integers(block)] = 1   # one true
    pred[3] = 1
    pred[3, rng.integers(block)] = 0   # one false
    pred[4] *= rng.integers(-5, 6, block).astype(np.int32)  # any non-zero value is true
    x = rng.random(n)
    with simt.use_device(device):
        outs = [simt.full(n, POISON_I, dtype=np.int32, device=device) for _ in range(4)]
        k_sync_predicates[nb, block](simt.to_device(pred.ravel(), device=device),
                                     simt.to_device(x, device=device), *outs)
    count, all_, any_, count_gt = (o.get().reshape(nb, block) for o in outs)
    truth = pred != 0
    np.testing.assert_array_equal(count, np.repeat(truth.sum(1, keepdims=True), block, 1),
                                  err_msg="syncthreads_count")
    np.testing.assert_array_equal(all_ != 0, np.repeat(truth.all(1, keepdims=True), block, 1),
                                  err_msg="syncthreads_and")
    np.testing.assert_array_equal(any_ != 0, np.repeat(truth.any(1, keepdims=True), block, 1),
                                  err_msg="syncthreads_or")
    gt = (x > 0.5).reshape(nb, block)
    np.testing.assert_array_equal(count_gt, np.repeat(gt.sum(1, keepdims=True), block, 1),
                                  err_msg="syncthreads_count of a comparison")


@simt.kernel
def k_sync_count_side_effect(counter, counts):
    i = cuda.grid(1)
    c = cuda.syncthreads_count(cuda.atomic.add(counter, 0, 1) % 3 == 0)
    counts[i] = c


def test_syncthreads_count_operand_is_evaluated_once(device):
    nb, block = 3, BLOCK
    n = nb * block
    with simt.use_device(device):
        counter = simt.zeros(1, dtype=np.int32, device=device)
        counts = simt.full(n, POISON_I, dtype=np.int32, device=device)
        k_sync_count_side_effect[nb, block](counter, counts)
    assert counter.get()[0] == n, f"{counter.get()[0]} tickets taken by {n} threads"
    per_block = counts.get().reshape(nb, block)
    assert (per_block == per_block[:, :1]).all(), "threads of a block got different counts"
    # the tickets 0..n-1 are spread over the blocks: the counts add up to the multiples of 3
    assert per_block[:, 0].sum() == len(range(0, n, 3)), per_block[:, 0]


@simt.kernel
def k_sync_types(p, out):
    i = cuda.grid(1)
    c = cuda.syncthreads_count(p[i])
    a = cuda.syncthreads_and(p[i])
    o = cuda.syncthreads_or(p[i])
    out[i] = c + a + o


def test_syncthreads_reductions_return_int32(device):
    p = np.zeros(BLOCK, np.int32)
    types = k_sync_types.inspect_types(p, p)
    assert (types["c"], types["a"], types["o"]) == ("int32", "int32", "int32"), types


@simt.kernel
def k_fences(x, out):
    sh = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    cuda.syncthreads()
    out[i] = sh[cuda.blockDim.x - 1 - tid]


def test_threadfences_compile_and_run(device, rng):
    nb, block = 2, BLOCK
    x = rng.standard_normal(nb * block).astype(np.float32)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_F, dtype=np.float32, device=device)
        k_fences[nb, block](simt.to_device(x, device=device), out)
    np.testing.assert_array_equal(out.get(), x.reshape(nb, block)[:, ::-1].ravel())


# ----------------------------------------------------- more barrier and shared-array shapes

@simt.kernel
def k_nested_uniform_loops(x, out, n_outer, stop_at):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    v = x[i]
    for a in range(n_outer):
        if a == stop_at:  # uniform: a loop counter and a parameter
            break
        if a % 2 == 1:
            continue
        b = 0
        while b < 2:
            sh[tid] = v
            cuda.syncthreads()
            v = sh[(tid + 1) % bdim] + a
            cuda.syncthreads()
            b += 1
    for k in range(cuda.blockIdx.x + 1):  # trip count differs between blocks, not threads
        sh[tid] = v
        cuda.syncthreads()
        v = sh[bdim - 1 - tid] * 3 + k
        cuda.syncthreads()
    out[i] = v


@pytest.mark.parametrize("n_outer,stop_at", [(5, 9), (6, 3), (0, 0)])
def test_barriers_in_nested_uniform_loops_with_break_and_continue(device, rng, n_outer,
                                                                   stop_at):
    nb, block = 3, 64
    x = rng.integers(-1000, 1000, nb * block)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_I, dtype=np.int64, device=device)
        k_nested_uniform_loops[nb, block](simt.to_device(x, device=device), out, n_outer,
                                          stop_at)
    v = x.reshape(nb, block).copy()
    for a in range(n_outer):
        if a == stop_at:
            break
        if a % 2 == 1:
            continue
        for _ in range(2):
            v = np.roll(v, -1, axis=1) + a
    for b in range(nb):
        for k in range(b + 1):
            v[b] = v[b, ::-1] * 3 + k
    np.testing.assert_array_equal(out.get(), v.ravel(), err_msg=f"n_outer={n_outer}, "
                                  f"stop_at={stop_at}")


@simt.kernel
def k_private_kinds(x, m, out_f, out_c, out_h, out_t, out_row, out_b):
    sh = cuda.shared.array(BLOCK, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    pair = (x[i], i)                       # a tuple
    c = complex(x[i], -x[i])               # complex128
    h = np.float16(x[i])                   # float16
    flag = x[i] > 0                        # bool
    row = m[i % m.shape[0]]                # an array view
    sh[tid] = x[i] * 2
    cuda.syncthreads()
    f = sh[(tid + 5) % cuda.blockDim.x]
    cuda.syncthreads()
    sh[tid] = f
    cuda.syncthreads()
    out_f[i] = sh[tid] + pair[0]
    out_c[i] = c * 2
    out_h[i] = h
    out_t[i] = pair[1]
    out_row[i] = row[0] + row[row.shape[0] - 1]
    out_b[i] = flag


def test_private_state_of_every_kind_survives_barriers(device, rng):
    """Tuples, complex, float16, bool and array-view variables of each thread keep their
    values across barriers."""
    nb, block = 3, BLOCK
    n = nb * block
    x = rng.standard_normal(n)
    m = rng.standard_normal((7, 5))
    with simt.use_device(device):
        outs = [simt.zeros(n, dtype=dt, device=device) for dt in
                (np.float64, np.complex128, np.float16, np.int64, np.float64, np.bool_)]
        k_private_kinds[nb, block](simt.to_device(x, device=device),
                                   simt.to_device(m, device=device), *outs)
    out_f, out_c, out_h, out_t, out_row, out_b = (o.get() for o in outs)
    xb = x.reshape(nb, block)
    np.testing.assert_array_equal(out_f, (np.roll(xb * 2, -5, axis=1)).ravel() + x,
                                  err_msg="float through shared memory plus a tuple item")
    np.testing.assert_array_equal(out_c, (x - 1j * x) * 2, err_msg="complex")
    np.testing.assert_array_equal(out_h, x.astype(np.float16), err_msg="float16")
    np.testing.assert_array_equal(out_t, np.arange(n), err_msg="tuple item")
    rows = m[np.arange(n) % 7]
    np.testing.assert_array_equal(out_row, rows[:, 0] + rows[:, -1], err_msg="array view")
    np.testing.assert_array_equal(out_b, x > 0, err_msg="bool")


@simt.kernel
def k_block3d(x, out):
    cube = cuda.shared.array((4, 4, 4), np.int32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    b = cuda.blockIdx.x
    cube[tz, ty, tx] = x[b, tz, ty, tx]
    cuda.syncthreads()
    out[b, tz, ty, tx] = cube[tx, tz, ty]


def test_3d_block_and_3d_shared_array(device, rng):
    nb = 3
    x = rng.integers(-10**6, 10**6, (nb, 4, 4, 4)).astype(np.int32)
    with simt.use_device(device):
        out = simt.full(x.shape, POISON_I, dtype=np.int32, device=device)
        k_block3d[nb, (4, 4, 4)](simt.to_device(x, device=device), out)
    # out[b, z, y, x] = in[b, x, z, y]
    np.testing.assert_array_equal(out.get(), np.transpose(x, (0, 2, 3, 1)))


@simt.kernel
def k_array_attributes(out):
    sh = cuda.shared.array((3, 5), np.float32)
    loc = cuda.local.array(7, np.int16)
    dyn = cuda.shared.array(0, np.float64)
    if cuda.grid(1) == 0:
        out[0] = sh.size
        out[1] = sh.shape[0]
        out[2] = sh.shape[1]
        out[3] = sh.ndim
        out[4] = loc.size
        out[5] = len(loc)
        out[6] = sh.itemsize
        out[7] = dyn.ndim


def test_shared_and_local_array_attributes(device):
    with simt.use_device(device):
        out = simt.full(8, POISON_I, dtype=np.int64, device=device)
        k_array_attributes[1, 32, 0, 64](out)
    np.testing.assert_array_equal(out.get(), [15, 3, 5, 2, 7, 7, 4, 1])


@simt.func
def sum_first(arr, n):
    s = arr[0] * 0
    for j in range(n):
        s += arr[j]
    return s


@simt.kernel
def k_func_on_every_space(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    loc = cuda.local.array(4, np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    for j in range(4):
        loc[j] = x[i] * (j + 1)
    cuda.syncthreads()
    out[i, 0] = sum_first(x, 4)
    out[i, 1] = sum_first(sh, tid + 1)
    out[i, 2] = sum_first(loc, 4)


def test_device_function_on_global_shared_and_local_arrays(device, rng):
    """One @simt.func called with a global, a shared and a local array (on OpenCL, three
    address spaces)."""
    nb, block = 2, BLOCK
    n = nb * block
    x = rng.integers(-1000, 1000, n)
    with simt.use_device(device):
        out = simt.full((n, 3), POISON_I, dtype=np.int64, device=device)
        k_func_on_every_space[nb, block](simt.to_device(x, device=device), out)
    out = out.get()
    np.testing.assert_array_equal(out[:, 0], np.full(n, x[:4].sum()), err_msg="global array")
    np.testing.assert_array_equal(out[:, 1], np.cumsum(x.reshape(nb, block), axis=1).ravel(),
                                  err_msg="shared array")
    np.testing.assert_array_equal(out[:, 2], x * 10, err_msg="local array")


@simt.kernel
def k_simt_names(x, out, count):
    sh = simt.shared.array(BLOCK, simt.int32)
    loc = simt.local.array(2, simt.int32)
    tid = simt.threadIdx.x
    i = simt.grid(1)
    loc[0] = x[i]
    sh[tid] = loc[0]
    simt.syncthreads()
    out[i] = sh[simt.blockDim.x - 1 - tid]
    c = simt.syncthreads_count(x[i] > 0)
    if tid == 0:
        simt.atomic.add(count, 0, c)


def test_device_api_under_simt_names(device, rng):
    """simt.shared / simt.local / simt.syncthreads / simt.atomic: the same as cuda.*."""
    nb, block = 2, BLOCK
    x = rng.integers(-100, 100, nb * block).astype(np.int32)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_I, dtype=np.int32, device=device)
        count = simt.zeros(1, dtype=np.int32, device=device)
        k_simt_names[nb, block](simt.to_device(x, device=device), out, count)
    np.testing.assert_array_equal(out.get(), x.reshape(nb, block)[:, ::-1].ravel())
    assert count.get()[0] == (x > 0).sum()


def test_device_api_names_imported_from_simt_cuda(device, rng):
    """Names imported from simt.cuda (as from numba.cuda) work in kernels."""
    from simt.cuda import atomic, local, shared, syncthreads  # noqa: PLC0415

    @simt.kernel
    def k_imported(x, out, total):
        sh = shared.array(BLOCK, np.float32)
        loc = local.array(1, np.float32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        loc[0] = x[i]
        sh[tid] = loc[0]
        syncthreads()
        out[i] = sh[(tid + 1) % cuda.blockDim.x]
        atomic.add(total, 0, 1)

    nb, block = 2, BLOCK
    x = rng.standard_normal(nb * block).astype(np.float32)
    with simt.use_device(device):
        out = simt.full(nb * block, POISON_F, dtype=np.float32, device=device)
        total = simt.zeros(1, dtype=np.int32, device=device)
        k_imported[nb, block](simt.to_device(x, device=device), out, total)
    np.testing.assert_array_equal(out.get(), np.roll(x.reshape(nb, block), -1, axis=1).ravel())
    assert total.get()[0] == nb * block


def e_shape_from_parameter(a, n):
    sh = cuda.shared.array(n, np.float32)  # err:shape-param
    a[0] = sh[0]


def e_local_shape_from_array(a):
    loc = cuda.local.array(a.shape[0], np.float32)  # err:shape-array
    a[0] = loc[0]


@pytest.mark.parametrize("function,marker", [(e_shape_from_parameter, "shape-param"),
                                             (e_local_shape_from_array, "shape-array")],
                         ids=["shared-param", "local-array-shape"])
def test_array_shapes_must_be_constants(device, function, marker):
    kernel = simt.kernel(function)
    args = (8,) if function is e_shape_from_parameter else ()
    with simt.use_device(device):
        a = simt.zeros(8, dtype=np.float32, device=device)
        with pytest.raises(simt.CompileError) as info:
            kernel[1, 32](a, *args)
    error = info.value
    assert not isinstance(error, simt.BackendCompileError), str(error)
    assert error.line == line_of(f"err:{marker}"), str(error)


# --------------------------------------- divergent barriers: fiber mode on the CPU

def e_sync_under_thread_if(a):
    if cuda.threadIdx.x < 16:
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


def e_sync_in_thread_loop(a):
    for j in range(cuda.threadIdx.x):
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


def e_sync_in_grid_while(a):
    i = cuda.grid(1)
    while i < a.size:
        cuda.syncthreads()
        a[i] = 1
        i += 64


def e_sync_under_data_if(a):
    if a[0] > 0:
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


def e_sync_under_derived_if(a):
    t = cuda.threadIdx.x
    u = t * 2 + cuda.blockIdx.x
    if u > 4:
        a[t] = 2
    else:
        cuda.syncthreads()
    a[t] = 1


def e_sync_after_divergent_assignment(a):
    s = cuda.blockDim.x
    if cuda.threadIdx.x == 0:
        s = 1
    while s > 0:
        cuda.syncthreads()
        s -= 1
    a[cuda.threadIdx.x] = 1


def e_sync_after_divergent_break(a):
    for k in range(4):
        if cuda.threadIdx.x == k:
            break
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


def e_sync_after_divergent_continue(a):
    for k in range(4):
        if cuda.threadIdx.x % 4 == k:
            continue
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


def e_sync_count_under_thread_if(a):
    if cuda.threadIdx.x % 2 == 0:
        a[0] = cuda.syncthreads_count(a[cuda.threadIdx.x] > 0)


@pytest.mark.parametrize("function", [
    e_sync_under_thread_if, e_sync_in_thread_loop, e_sync_in_grid_while, e_sync_under_data_if,
    e_sync_under_derived_if, e_sync_after_divergent_assignment, e_sync_after_divergent_break,
    e_sync_after_divergent_continue, e_sync_count_under_thread_if,
], ids=lambda f: f.__name__)
def test_divergent_barriers_run_on_cpu(function):
    """Barriers under control flow that may differ between a block's threads: the CPU runs
    such kernels in fiber mode, where a barrier completes once every thread that has not
    exited waits at one (as on Volta and later GPUs)."""
    kernel = simt.kernel(function)
    with simt.use_device("cpu"):
        a = simt.full(64, 5, dtype=np.int32, device="cpu")
        kernel[1, 64](a)
        got = a.get()
    if function is e_sync_count_under_thread_if:
        # The even threads count their elements above 0: all 5 until thread 0 writes a[0].
        assert got[0] == 32 and (got[1:] == 5).all(), got
    else:
        assert (got == 1).all(), got


LIST_ROWS, LIST_COLS = 4, 8


@simt.kernel
def k_list_shapes(out):
    s = cuda.shared.array(shape=[LIST_ROWS, LIST_COLS], dtype=np.float32)
    t = cuda.local.array([2, 3], np.int32)
    i, j = cuda.threadIdx.x, cuda.threadIdx.y
    s[i, j] = i * 10 + j
    t[1, 2] = 5
    cuda.syncthreads()
    out[i, j] = s[LIST_ROWS - 1 - i, j] + t[1, 2]


def test_shapes_written_as_list_displays(device):
    """`shape=[n, m]` as Numba takes it: the list is read as the shape's tuple; a list
    anywhere else is still a CompileError."""
    out = simt.full((LIST_ROWS, LIST_COLS), POISON_F, dtype=np.float32, device=device)
    with simt.use_device(device):
        k_list_shapes[1, (LIST_ROWS, LIST_COLS)](out)
    i, j = np.indices((LIST_ROWS, LIST_COLS))
    np.testing.assert_array_equal(out.get(), (LIST_ROWS - 1 - i) * 10 + j + 5)

    def listed(a):
        x = [1, 2]
        a[0] = x[0]

    with pytest.raises(simt.CompileError, match="list displays are not supported"):
        simt.kernel(listed)[1, 1](out)
