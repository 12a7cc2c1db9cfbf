"""Constants that flow into compile-time positions: integers (and tuples of them)
passed to device functions, locals assigned once and closure constants, used as the
shape of local and shared arrays and as grid's ndim, on every device."""

import numpy as np
import pytest

import simt
from simt import cuda

POISON = -7777
ROWS = 24  # a global constant passed as a size

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


@cuda.jit(device=True)
def window_sum(a, i, n, dt):
    # A local array of n items of dtype dt: n and dt come from the caller.
    buf = cuda.local.array(n, dt)
    for k in range(n):
        buf[k] = dt(a[(i + k) % a.size])
    s = dt(0)
    for k in range(n):
        s += buf[k]
    return s


def window_reference(a, n, dt):
    idx = (np.arange(a.size)[:, None] + np.arange(n)[None, :]) % a.size
    return a.astype(dt)[idx].sum(axis=1, dtype=dt)


def test_local_array_sized_by_literal_argument(current, rng):
    a = rng.integers(-50, 50, 300).astype(np.int64)
    out = np.full(a.size, POISON, np.int64)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = window_sum(a, i, 5, np.int64)

    k[3, 128](a, out)
    np.testing.assert_array_equal(out, window_reference(a, 5, np.int64))


def test_global_constant_and_dtype_together(current, rng):
    a = rng.uniform(-1, 1, 200).astype(np.float32)
    out = np.full(a.size, POISON, np.float32)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = window_sum(a, i, ROWS, np.float32)

    k[2, 128](a, out)
    np.testing.assert_allclose(out, window_reference(a, ROWS, np.float32), rtol=1e-5, atol=1e-5)


def test_two_sizes_make_two_specializations(current, rng):
    a = rng.integers(0, 1000, 257).astype(np.int64)
    three = np.full(a.size, POISON, np.int64)
    seven = np.full(a.size, POISON, np.int64)

    @cuda.jit
    def k(a, three, seven):
        i = cuda.grid(1)
        if i < a.size:
            three[i] = window_sum(a, i, 3, np.int64)
            seven[i] = window_sum(a, i, 7, np.int64)

    k[3, 128](a, three, seven)
    np.testing.assert_array_equal(three, window_reference(a, 3, np.int64))
    np.testing.assert_array_equal(seven, window_reference(a, 7, np.int64))
    src = k.inspect_source(*[simt.typeof(x) for x in (a, three, seven)], dialect="cpp")
    assert src.count("Device function 'window_sum'") == 2


@cuda.jit(device=True)
def scale(x, factor):
    return x * factor


def test_ordinary_int_arguments_are_not_specialized(current, rng):
    # A parameter no compile-time position reads: one function for every value.
    a = rng.integers(-100, 100, 130).astype(np.int64)
    out = np.full((3, a.size), POISON, np.int64)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = scale(a[i], 2)
            out[1, i] = scale(a[i], 3)
            out[2, i] = scale(a[i], -5)

    k[2, 128](a, out)
    np.testing.assert_array_equal(out, a[None, :] * np.array([2, 3, -5])[:, None])
    src = k.inspect_source(simt.typeof(a), simt.typeof(out), dialect="cpp")
    assert src.count("Device function 'scale'") == 1


@cuda.jit(device=True)
def tile_total(a, i, shape, dt):
    # A 2-d local array whose shape is a tuple argument, indexed by its items.
    t = cuda.local.array(shape, dt)
    for r in range(shape[0]):
        for c in range(shape[1]):
            t[r, c] = a[(i + r * shape[1] + c) % a.size]
    s = dt(0)
    for r in range(shape[0]):
        for c in range(shape[1]):
            s += t[r, c] * dt(r + 1)
    return s


@cuda.jit(device=True)
def tile_total_via(a, i, shape):
    # Nested: the shape passes through a parameter of this function.
    return tile_total(a, i, shape, np.float64)


def test_tuple_shape_nested_two_levels(current, rng):
    a = rng.uniform(-1, 1, 150)
    out = np.full(a.size, POISON, np.float64)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = tile_total_via(a, i, (3, 4))

    k[2, 128](a, out)
    idx = (np.arange(a.size)[:, None] + np.arange(12)[None, :]) % a.size
    weights = np.repeat(np.arange(1, 4), 4).astype(np.float64)
    np.testing.assert_allclose(out, (a[idx] * weights).sum(axis=1), rtol=1e-12, atol=1e-12)


@cuda.jit(device=True)
def position(ndim):
    return cuda.grid(ndim)


def test_grid_ndim_from_an_argument(current):
    out = np.full((20, 12), POISON, np.int64)
    flat = np.full(out.size, POISON, np.int64)

    @cuda.jit
    def k(out, flat):
        i, j = position(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = i * 100 + j

    @cuda.jit
    def k1(flat):
        i = position(1)
        if i < flat.size:
            flat[i] = 3 * i

    k[(3, 2), (8, 8)](out, flat)
    k1[2, 128](flat)
    np.testing.assert_array_equal(out, np.arange(20)[:, None] * 100 + np.arange(12)[None, :])
    np.testing.assert_array_equal(flat, 3 * np.arange(flat.size))


def test_kernel_local_and_closure_constants_as_shapes(current, rng):
    a = rng.integers(0, 1000, 64).astype(np.int32)
    out = np.full(a.size, POISON, np.int32)
    width = 8  # a closure constant

    @cuda.jit
    def k(a, out):
        n = 64  # a local assigned once
        sm = cuda.shared.array(n, np.int32)
        buf = cuda.local.array(width, np.int32)
        i = cuda.threadIdx.x
        sm[i] = a[i]
        cuda.syncthreads()
        for w in range(width):
            buf[w] = sm[(i + w) % n]
        s = 0
        for w in range(width):
            s += buf[w]
        out[i] = s

    k[1, 64](a, out)
    idx = (np.arange(64)[:, None] + np.arange(8)[None, :]) % 64
    np.testing.assert_array_equal(out, a[idx].sum(axis=1))


@cuda.jit(device=True)
def block_reverse(a, out, n, dt):
    # A shared array of the caller's size and dtype inside a device function.
    sm = cuda.shared.array(n, dt)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * n
    sm[t] = a[base + t]
    cuda.syncthreads()
    out[base + t] = sm[n - 1 - t]


def test_shared_array_in_device_function(current, rng):
    a = rng.uniform(-5, 5, 4 * 32).astype(np.float32)
    out = np.full(a.size, POISON, np.float32)

    @cuda.jit
    def k(a, out):
        block_reverse(a, out, 32, np.float32)

    k[4, 32](a, out)
    np.testing.assert_array_equal(out, a.reshape(4, 32)[:, ::-1].ravel())


@cuda.jit(device=True)
def mirrored(v, n, dt):
    # The block's values reversed, through a shared array of this function.
    sm = cuda.shared.array(n, dt)
    t = cuda.threadIdx.x
    cuda.syncthreads()
    sm[t] = v
    cuda.syncthreads()
    return sm[n - 1 - t]


@cuda.jit(device=True)
def mirrored_sum(v, w, n):
    # Two calls of one specialization (one array per block), one level down.
    return mirrored(v, n, np.int64) + 1000 * mirrored(w, n, np.int64)


def test_shared_array_in_nested_device_functions(current, rng):
    a = rng.integers(0, 1000, 3 * 64).astype(np.int64)
    b = rng.integers(0, 1000, a.size).astype(np.int64)
    out = np.full(a.size, POISON, np.int64)

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        out[i] = mirrored_sum(a[i], b[i], 64) + mirrored(a[i], 64, np.int64)

    k[3, 64](a, b, out)
    ra = a.reshape(3, 64)[:, ::-1].ravel()
    rb = b.reshape(3, 64)[:, ::-1].ravel()
    np.testing.assert_array_equal(out, ra + 1000 * rb + ra)
    src = k.inspect_source(*[simt.typeof(x) for x in (a, b, out)], dialect="opencl")
    assert src.count("Device function 'mirrored'") == 1


@cuda.jit(device=True)
def bumped(x, n):
    # A reassigned parameter is a variable, whatever its argument was.
    n = n + 1
    return x * n


@cuda.jit(device=True)
def sized_by(a, n):
    buf = cuda.local.array(n, np.float64)
    for k in range(n):
        buf[k] = a[k]
    return buf[n - 1]


@cuda.jit(device=True)
def sized_by_via(a, m):
    return sized_by(a, m)


def test_reassigned_parameter_keeps_working(current, rng):
    a = rng.integers(-9, 9, 100).astype(np.int64)
    out = np.full(a.size, POISON, np.int64)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = bumped(a[i], 4)

    k[1, 128](a, out)
    np.testing.assert_array_equal(out, a * 5)


def test_runtime_value_as_shape_is_an_error(current):
    a = np.zeros(10)

    @cuda.jit
    def k(a):
        a[0] = sized_by(a, a.size)

    with pytest.raises(simt.TypingError,
                       match=r"argument 'n' of sized_by\(\) must be known at compile time.*"
                             r"the shape of simt.local.array\(\) at .*test_constant_arguments.py"):
        k[1, 1](a)

    @cuda.jit
    def k2(a, m):
        a[0] = sized_by_via(a, m)

    # Through a parameter of the caller: the kernel's argument is named.
    with pytest.raises(simt.TypingError, match=r"argument 'm' of sized_by_via\(\) must be known "
                                               r"at compile time.*'m' is an argument of the "
                                               r"kernel"):
        k2[1, 1](a, 3)

    @cuda.jit(device=True)
    def reassigned_shape(a, n):
        n = n * 2
        buf = cuda.local.array(n, np.float64)
        buf[0] = a[0]
        return buf[0]

    @cuda.jit
    def k3(a):
        a[0] = reassigned_shape(a, 2)

    with pytest.raises(simt.TypingError, match="parameter 'n' is assigned in 'reassigned_shape'"):
        k3[1, 1](a)


@cuda.jit(device=True)
def count_at(a, i, j, wrap):
    # With wrap a constant False the branch never runs: it must not turn the
    # (int64, uint64) index into (int64, float64) (uint64 % int64 is float64).
    idx = (i, np.uint64(j))
    if wrap:
        idx = (idx[0] % a.shape[0], idx[1] % a.shape[1])
    cuda.atomic.add(a, idx, 1)


def test_constant_condition_prunes_a_branch(current, rng):
    i = rng.integers(0, 4, 200)
    j = rng.integers(0, 5, 200)
    counts = np.zeros((4, 5), np.int32)

    @cuda.jit
    def k(i, j, counts):
        t = cuda.grid(1)
        if t < i.size:
            count_at(counts, i[t], j[t], False)

    k[2, 128](i, j, counts)
    expected = np.zeros((4, 5), np.int32)
    np.add.at(expected, (i, j), 1)
    np.testing.assert_array_equal(counts, expected)

    @cuda.jit
    def k2(i, j, counts, wrap):
        t = cuda.grid(1)
        if t < i.size:
            count_at(counts, i[t], j[t], wrap)

    # Known only at launch: both branches are typed, and the index is float64.
    with pytest.raises(simt.TypingError, match="needs a tuple of 2 integer indices"):
        k2[2, 128](i, j, counts, False)


@cuda.jit(device=True)
def doubled_if(x, flag):
    if flag:
        return x * 2
    return x


def test_flags_typing_does_not_need_are_not_specialized(current, rng):
    a = rng.integers(-100, 100, 100).astype(np.int64)
    out = np.full((2, a.size), POISON, np.int64)

    @cuda.jit
    def k(a, out):
        t = cuda.grid(1)
        if t < a.size:
            out[0, t] = doubled_if(a[t], True)
            out[1, t] = doubled_if(a[t], False)

    k[1, 128](a, out)
    np.testing.assert_array_equal(out, np.stack([2 * a, a]))
    src = k.inspect_source(simt.typeof(a), simt.typeof(out), dialect="cpp")
    assert src.count("Device function 'doubled_if'") == 1
