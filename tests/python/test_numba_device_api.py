"""Numba-CUDA's device API inside kernels (issue 19), written as Numba users write it,
through `from simt import cuda`, on every device, against NumPy or Python references."""

import math

import numpy as np
import pytest

import simt
from simt import cuda

POISON = -7777

# NumPy arguments are staged to GPU devices as Numba stages them; the warning is not tested here.
pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


# ------------------------------------------------------------------ enumerate and zip

def test_enumerate_over_a_range(current, rng):
    @cuda.jit
    def weighted(x, out):
        i = cuda.grid(1)
        if i < out.size:
            acc = 0.0
            for k, j in enumerate(range(i, x.size, 7)):
                acc += k * x[j]
            out[i] = acc

    x = rng.random(200)
    out = np.full(50, POISON, np.float64)
    weighted[2, 32](x, out)
    expected = [sum(k * x[j] for k, j in enumerate(range(i, x.size, 7))) for i in range(50)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_enumerate_with_a_start_and_a_negative_step(current, rng):
    @cuda.jit
    def backwards(x, idx, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for k, j in enumerate(range(x.size - 1, -1, -3), 10):
                if k == 10 + i:
                    idx[i] = j
                    out[i] = x[j]
                    break

    x = rng.random(40)
    idx = np.full(14, POISON, np.int64)
    out = np.full(14, POISON, np.float64)
    backwards[1, 32](x, idx, out)
    js = list(range(39, -1, -3))
    np.testing.assert_array_equal(idx, js)
    np.testing.assert_array_equal(out, x[js])


def test_zip_of_ranges_stops_at_the_shortest(current, rng):
    @cuda.jit
    def pairs(a, b, out, count):
        i = cuda.grid(1)
        if i < out.size:
            n = 0
            acc = 0.0
            for p, q in zip(range(i, a.size), range(b.size - 1, -1, -2)):
                acc += a[p] * b[q]
                n += 1
            out[i] = acc
            count[i] = n

    a = rng.random(30)
    b = rng.random(25)
    out = np.full(30, POISON, np.float64)
    count = np.full(30, POISON, np.int32)
    pairs[1, 32](a, b, out, count)
    for i in range(30):
        zipped = list(zip(range(i, 30), range(24, -1, -2)))
        assert count[i] == len(zipped)
        np.testing.assert_allclose(out[i], sum(a[p] * b[q] for p, q in zipped), rtol=1e-12)


def test_enumerate_of_zip_and_a_tuple_target(current):
    @cuda.jit
    def nested(out):
        i = cuda.grid(1)
        if i < 1:
            for k, (p, q) in enumerate(zip(range(3, 100, 5), range(7))):
                out[k, 0] = k
                out[k, 1] = p
                out[k, 2] = q
            for t in enumerate(range(2)):
                out[7 + t[0], 0] = t[1] + 100

    out = np.full((9, 3), POISON, np.int64)
    nested[1, 1](out)
    expected = np.array([(k, p, q) for k, (p, q) in enumerate(zip(range(3, 100, 5), range(7)))])
    np.testing.assert_array_equal(out[:7], expected)
    np.testing.assert_array_equal(out[7:, 0], [100, 101])


def test_enumerate_and_zip_over_tuples_unroll(current, rng):
    COEFFS = (0.5, -1.25, 2.0)

    @cuda.jit
    def poly(x, out):
        i = cuda.grid(1)
        if i < x.size:
            acc = 0.0
            for k, c in enumerate(COEFFS):
                acc += c * x[i] ** k
            for a, b in zip((1.0, 2.0, 3.0), (x[i], 2 * x[i])):
                acc += a * b
            for k, (a, b) in enumerate(zip((1, 2), (3, 4, 5)), 1):
                acc += k * a * b
            out[i] = acc

    x = rng.random(100)
    out = np.full(100, POISON, np.float64)
    poly[4, 32](x, out)
    expected = sum(c * x ** k for k, c in enumerate(COEFFS)) + x + 2 * (2 * x) + (1 * 3 + 2 * 2 * 4)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_zip_of_a_range_and_a_tuple_reads_the_tuple_by_position(current, rng):
    @cuda.jit
    def mixed(x, out, count):
        i = cuda.grid(1)
        if i < x.size:
            n = 0
            acc = 0.0
            for a, b, w in zip(range(i, i + 10), (1, 2, 3, 4), (0.5, x[i], 2, 1.5)):
                acc += a * b * w
                n += 1
            out[i] = acc
            count[i] = n

    x = rng.random(40)
    out = np.full(40, POISON, np.float64)
    count = np.full(40, POISON, np.int64)
    mixed[2, 32](x, out, count)
    expected = [sum(a * b * w for a, b, w in zip(range(i, i + 10), (1, 2, 3, 4), (0.5, x[i], 2, 1.5)))
                for i in range(40)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    np.testing.assert_array_equal(count, 4)


# ------------------------------------------------------------------ loops over arrays

def test_for_over_an_array_and_its_rows(current, rng):
    @cuda.jit
    def sums(v, m, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            acc = 0.0
            for x in v:
                acc += x * i
            for row in m:                  # a 2-D array yields its rows (views)
                for y in row:
                    acc += y
            out[i] = acc

    v = rng.random(37).astype(np.float32)
    m = rng.random((5, 4))
    out = np.full(20, POISON, np.float64)
    sums[1, 32](v, m, out)
    # float32 elements times an int64 index compute in float64, as NumPy's promotion does.
    expected = [sum(float(x) * i for x in v) + m.sum() for i in range(20)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_enumerate_and_zip_over_arrays(current, rng):
    @cuda.jit
    def dot_and_argmax(x, y, out, where):
        i = cuda.grid(1)
        if i < 1:
            acc = 0.0
            for a, b in zip(x, y):             # stops at the shorter array
                acc += a * b
            out[0] = acc
            best = -1.0
            for k, v in enumerate(x, 1):
                if v > best:
                    best = v
                    where[0] = k
            n = 0
            k = 0
            while k < 3:                       # while loops and views of arrays zip too
                for a, j in zip(x[k::3], range(100, 0, -1)):
                    out[1] += a * j
                    n += 1
                k += 1
            where[1] = n

    x = rng.random(50)
    y = rng.random(41)
    out = np.zeros(2)
    out[0] = POISON
    where = np.full(2, POISON, np.int64)
    dot_and_argmax[1, 1](x, y, out, where)
    np.testing.assert_allclose(out[0], np.dot(x[:41], y), rtol=1e-12)
    assert where[0] == np.argmax(x) + 1
    expected = sum(a * j for k in range(3) for a, j in zip(x[k::3], range(100, 0, -1)))
    np.testing.assert_allclose(out[1], expected, rtol=1e-12)
    assert where[1] == 50


def test_zip_of_arrays_ranges_and_tuples_with_a_device_function(current, rng):
    @cuda.jit(device=True)
    def weighted(values, weights):
        acc = 0.0
        for j, (v, w, s) in enumerate(zip(values, weights, (1, -1, 1, -1, 1))):
            acc += j * v * w * s
        return acc

    @cuda.jit
    def rows(m, w, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = weighted(m[i], w)

    m = rng.random((30, 8))
    w = rng.random(6).astype(np.float32)
    out = np.full(30, POISON, np.float64)
    rows[1, 32](m, w, out)
    signs = (1, -1, 1, -1, 1)
    expected = [sum(j * v * float(wj) * s for j, (v, wj, s) in enumerate(zip(m[i], w, signs)))
                for i in range(30)]
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_loop_over_an_array_with_barriers(current, rng):
    # The loop holds barriers: on the CPU it runs once per block, its variables per thread.
    @cuda.jit
    def stencil(weights, x, out):
        tile = cuda.shared.array(33, np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        acc = 0.0
        for j, w in enumerate(weights):
            tile[t] = x[i] * w
            if t == 0:
                tile[32] = j
            cuda.syncthreads()
            acc += tile[(t + 1) % 32] + tile[32]
            cuda.syncthreads()
        out[i] = acc

    weights = rng.random(5)
    x = rng.random(64)
    out = np.full(64, POISON, np.float64)
    stencil[2, 32](weights, x, out)
    blocks = x.reshape(2, 32)
    neighbour = np.roll(blocks, -1, axis=1).ravel()
    expected = neighbour * weights.sum() + sum(range(5))
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_iteration_errors(current):
    @cuda.jit
    def nested_tuple(out):
        for a, b in zip(out, ((1, 2), (3, 4))):
            out[0] = a

    with pytest.raises(simt.TypingError, match=r"zip\(\) of a tuple with ranges or arrays needs a "
                                               r"tuple of numbers or of arrays of one type"):
        nested_tuple[1, 1](np.zeros(3))

    @cuda.jit
    def scalar(out):
        for v in out[0]:
            out[1] = v

    with pytest.raises(simt.TypingError, match=r"a for loop iterates over range\(...\), an array, "
                                               r"a tuple, .* not float64"):
        scalar[1, 1](np.zeros(3))

    @cuda.jit
    def unpack_row(m, out):
        for a, b in m:
            out[0] = a

    with pytest.raises(simt.TypingError, match="cannot unpack float64"):
        unpack_row[1, 1](np.zeros((3, 2)), np.zeros(1))

    @cuda.jit
    def zip_scalar(x, out):
        for a, b in zip(x, 3):
            out[0] = a

    with pytest.raises(simt.TypingError, match=r"zip\(\) in kernels zips ranges, arrays and "
                                               r"tuples, not int"):
        zip_scalar[1, 1](np.zeros(3), np.zeros(1))


# ------------------------------------------------------------------ atomics

@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_atomic_compare_and_swap_elects_one_thread(current, dtype):
    @cuda.jit
    def elect(lock, winner, seen):
        i = cuda.grid(1)
        if i < seen.size:
            old = cuda.atomic.compare_and_swap(lock, 0, i + 1)
            seen[i] = old
            if old == 0:
                winner[0] = i

    lock = np.zeros(3, dtype)
    winner = np.full(1, POISON, np.int64)
    seen = np.full(256, 99, dtype)
    elect[4, 64](lock, winner, seen)
    w = int(winner[0])
    assert 0 <= w < 256
    assert lock[0] == w + 1 and lock[1] == 0
    assert seen[w] == 0
    assert np.count_nonzero(seen == 0) == 1
    assert np.all(seen[np.arange(256) != w] == w + 1)


def test_atomic_compare_and_swap_needs_a_1d_array(current):
    @cuda.jit
    def two_d(a):
        cuda.atomic.compare_and_swap(a, 0, 1)

    with pytest.raises(simt.TypingError, match="1-D"):
        two_d[1, 1](np.zeros((2, 2), np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atomic_nanmin_nanmax_skip_nans(current, rng, dtype):
    @cuda.jit
    def extremes(x, lo, hi, old_lo):
        i = cuda.grid(1)
        if i < x.size:
            old_lo[i] = cuda.atomic.nanmin(lo, 0, x[i])
            cuda.atomic.nanmax(hi, (0, 1), x[i])

    x = rng.standard_normal(1000).astype(dtype)
    x[rng.choice(1000, 100, replace=False)] = np.nan
    lo = np.array([np.nan], dtype)  # a NaN start is a missing value too
    hi = np.full((2, 2), np.nan, dtype)
    old_lo = np.full(1000, POISON, dtype)
    extremes[8, 128](x, lo, hi, old_lo)
    assert lo[0] == np.nanmin(x)
    assert hi[0, 1] == np.nanmax(x)
    assert np.isnan(hi[0, 0]) and np.isnan(hi[1, 1])
    # Every old value is NaN (the start) or one of the values seen.
    seen = old_lo[~np.isnan(old_lo)]
    assert np.all(np.isin(seen, x)) and np.all(seen >= lo[0])


def test_atomic_nanmin_nanmax_on_integers_are_min_max(current, rng):
    @cuda.jit
    def extremes(x, out):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.nanmin(out, 0, x[i])
            cuda.atomic.nanmax(out, 1, x[i])

    x = rng.integers(-1000, 1000, 500).astype(np.int64)
    out = np.array([2**62, -(2**62)], np.int64)
    extremes[4, 128](x, out)
    assert out[0] == x.min() and out[1] == x.max()


# ------------------------------------------------------------------ warp functions

FULL = 0xFFFFFFFF


def launch_warp_kernel(device, kernel, grid, block, *args):
    """kernel[grid, block](*args); True when it ran. An OpenCL device without 32-lane
    sub-groups refuses warp operations with a CompileError naming the device and what it
    lacks (the test then ends); every other device runs them."""
    try:
        kernel[grid, block](*args)
    except simt.CompileError as error:
        if device.backend != "opencl" or isinstance(error, simt.BackendCompileError):
            raise
        text = str(error)
        assert device.id in text or device.name in text, text
        assert "sub-groups of 32" in text, text
        return False
    return True


def test_lanemask_lt(current):
    @cuda.jit
    def masks(out):
        i = cuda.grid(1)
        out[i] = cuda.lanemask_lt()

    out = np.full(96, 12345, np.uint32)
    if launch_warp_kernel(current, masks, 1, 96, out):
        lanes = np.arange(96) % 32
        np.testing.assert_array_equal(out, ((1 << lanes) - 1).astype(np.uint32))


def test_lanemask_lt_in_a_kernel_with_barriers(current):
    # Each thread's mask, held across a barrier (on the CPU the kernel then runs as
    # regions of thread loops, where the mask must be computed inside the loop).
    @cuda.jit
    def masks(out):
        staged = cuda.shared.array(96, np.uint32)
        mask = cuda.lanemask_lt()
        t = cuda.threadIdx.x
        staged[95 - t] = mask
        cuda.syncthreads()
        out[t] = staged[t]

    out = np.full(96, 12345, np.uint32)
    if launch_warp_kernel(current, masks, 1, 96, out):
        lanes = (95 - np.arange(96)) % 32
        np.testing.assert_array_equal(out, ((1 << lanes) - 1).astype(np.uint32))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.float32, np.float64])
def test_match_any_and_all_sync(current, rng, dtype):
    @cuda.jit
    def match(x, any_out, all_out, pred_out):
        i = cuda.grid(1)
        v = x[i]
        m = cuda.match_any_sync(FULL, v)
        any_out[i] = m
        a, p = cuda.match_all_sync(FULL, v)
        all_out[i] = a
        pred_out[i] = p

    n = 128
    # Few distinct values per warp; warp 2 all alike (match_all holds there).
    x = rng.integers(0, 4, n).astype(dtype)
    x[64:96] = 3
    any_out = np.full(n, 7, np.uint32)
    all_out = np.full(n, 7, np.uint32)
    pred_out = np.full(n, 7, np.uint8)
    if not launch_warp_kernel(current, match, 1, n, x, any_out, all_out, pred_out):
        return
    for w in range(n // 32):
        vals = x[32 * w:32 * w + 32]
        alike = bool(np.all(vals == vals[0]))
        for lane in range(32):
            expected = sum(1 << k for k in range(32) if vals[k] == vals[lane])
            assert any_out[32 * w + lane] == expected
            assert all_out[32 * w + lane] == (FULL if alike else 0)
            assert pred_out[32 * w + lane] == alike


def test_match_any_sync_with_a_partial_mask_in_a_branch(current, rng):
    @cuda.jit
    def low_half(x, out):
        i = cuda.grid(1)
        out[i] = 0
        if cuda.laneid < 16:
            m = cuda.match_any_sync(0x0000FFFF, x[i])
            out[i] = m

    x = rng.integers(0, 3, 64).astype(np.int32)
    out = np.full(64, 7, np.uint32)
    if not launch_warp_kernel(current, low_half, 1, 64, x, out):
        return
    for t in range(64):
        lane, base = t % 32, t - t % 32
        if lane >= 16:
            assert out[t] == 0
        else:
            assert out[t] == sum(1 << k for k in range(16) if x[base + k] == x[t])


def test_syncwarp_orders_shared_memory_within_a_warp(current, rng):
    @cuda.jit
    def rotate(x, out):
        buf = cuda.shared.array(64, np.float64)
        t = cuda.threadIdx.x
        buf[t] = x[t]
        cuda.syncwarp()
        v = buf[(t + 1) % 32 + (t // 32) * 32]
        cuda.syncwarp(FULL)
        buf[t] = v * 2.0
        cuda.syncwarp(0xFFFFFFFF)
        out[t] = buf[t]

    x = rng.random(64)
    out = np.full(64, POISON, np.float64)
    if launch_warp_kernel(current, rotate, 1, 64, x, out):
        t = np.arange(64)
        np.testing.assert_array_equal(out, 2.0 * x[(t + 1) % 32 + (t // 32) * 32])


def test_match_sync_rejects_complex_values(current):
    @cuda.jit
    def bad(x, out):
        out[0] = cuda.match_any_sync(FULL, x[0])

    with pytest.raises(simt.TypingError, match="match_any_sync"):
        bad[1, 32](np.zeros(1, np.complex128), np.zeros(1, np.uint32))


# ------------------------------------------------------------------ ufuncs with an output array

def test_numpy_ufunc_with_an_output_array(current, rng):
    """Numba's documented `np.sin(x, r)` in a kernel: the calling thread fills every
    element of r, as NumPy's call with out= does."""
    @cuda.jit
    def f(r, x):
        np.sin(x, r)

    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)
    f[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=1e-6)


def test_ufunc_output_layouts_numbers_and_the_value(current, rng):
    @cuda.jit
    def g(a, out, filled, roots):
        i = cuda.grid(1)
        if i == 0:
            y = np.floor(a, out)  # the value is out
            np.sqrt(y, roots)
        elif i == 1:
            np.exp(1.5, filled)

    a = rng.random((5, 7)) * 20
    out = np.asfortranarray(np.full((5, 7), POISON, np.float32))
    filled = np.full((2, 3), POISON, np.float64)
    roots = np.full((5, 7), POISON, np.float64)
    d_a = cuda.to_device(a)
    g[1, 2](d_a[:, :], out, filled, roots)
    np.testing.assert_array_equal(out, np.floor(a).astype(np.float32))
    np.testing.assert_allclose(roots, np.sqrt(np.floor(a).astype(np.float32)), rtol=1e-6)
    np.testing.assert_allclose(filled, np.full((2, 3), np.exp(1.5)))

    @cuda.jit
    def bad(x, r):
        np.sin(x, 2.0)

    with pytest.raises(simt.TypingError, match="output must be an array"):
        bad[1, 1](np.zeros(3), np.zeros(3))
