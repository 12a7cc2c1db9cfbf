"""`raise` in kernels, on every device: with debug=True the first raising thread's
exception is raised on the host after the launch (its class, its message, where);
without it the raising thread stops there and nothing is reported, as in Numba."""

import math

import numpy as np
import pytest

import simt
from simt import cuda

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


class ShapeError(Exception):
    pass


def raising_kernel(debug):
    @cuda.jit(debug=debug)
    def k(a, bad):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = 1.0
        if i == bad:
            raise ValueError("bad thread")
        if i < a.size:
            a[i] = 2.0
    return k


def test_debug_raise_reaches_the_host(current):
    k = raising_kernel(True)
    a = np.zeros(64)
    with pytest.raises(ValueError, match=r"^bad thread \(raised in kernel 'k', thread \(5, 0, 0\)"
                                         r" of block \(1, 0, 0\), at .*test_kernel_raise.py:\d+"):
        k[2, 32](a, 37)
    want = np.full(64, 2.0)
    want[37] = 1.0            # the raising thread stopped at the raise
    np.testing.assert_array_equal(a, want)
    k[2, 32](a, -1)           # no thread raises: nothing reported


def test_without_debug_the_thread_stops_silently(current):
    k = raising_kernel(False)
    a = np.zeros(64)
    k[2, 32](a, 10)
    want = np.full(64, 2.0)
    want[10] = 1.0
    np.testing.assert_array_equal(a, want)


@cuda.jit(debug=True)
def k_user_class(a):
    i = cuda.grid(1)
    if a[i] < 0:
        raise ShapeError("negative", 3, 2.5)
    if a[i] > 100:
        raise IndexError
    a[i] *= 2


def test_user_exception_classes_and_arguments(current):
    a = np.array([1.0, -1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=r"^\('negative', 3, 2.5\) \(raised in kernel"):
        k_user_class[1, 4](a)
    a = np.array([1.0, 1000.0])
    with pytest.raises(IndexError, match=r"^\(raised in kernel 'k_user_class'"):
        k_user_class[1, 2](a)
    a = np.array([1.0, 2.0])
    k_user_class[1, 2](a)
    np.testing.assert_array_equal(a, [2.0, 4.0])


def test_raise_errors(current):
    @cuda.jit
    def not_a_class(a):
        raise a

    with pytest.raises(simt.TypingError, match="raise needs an exception class"):
        not_a_class[1, 1](np.zeros(1))

    @cuda.jit
    def runtime_argument(a):
        raise ValueError(a[0])

    with pytest.raises(simt.TypingError, match="must be constants"):
        runtime_argument[1, 1](np.zeros(1))

    @cuda.jit
    def constructed(a):
        e = ValueError("x")

    with pytest.raises(simt.TypingError, match="can only be raised"):
        constructed[1, 1](np.zeros(1))

    @cuda.jit(device=True)
    def keywords(x):
        raise ValueError(msg="x")

    @cuda.jit
    def calls_keywords(a):
        keywords(a[0])

    with pytest.raises(simt.TypingError, match="take no keyword arguments"):
        calls_keywords[1, 1](np.zeros(1))

    @cuda.jit(device=True)
    def runtime_message(x):
        raise ValueError(x)

    @cuda.jit
    def calls_runtime_message(a):
        runtime_message(a[0])

    with pytest.raises(simt.TypingError, match=r"test_kernel_raise.py:\d+:.*must be constants"):
        calls_runtime_message[1, 1](np.zeros(1))


# ---- raise inside device functions ------------------------------------------------------------

@cuda.jit(device=True)
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


@cuda.jit(device=True)
def scaled_root(x, scale):
    # A device function calling one that raises: the raise ends its caller too.
    r = checked_sqrt(x)
    return r * scale


@cuda.jit(device=True)
def must_be_small(x):
    # Only raises (no value), called as a statement of its own.
    if x > 1000:
        raise OverflowError("too large", 1000)


@cuda.jit(device=True)
def root_pair(x):
    # Reaches its end only through the raise: a value on every path that returns.
    if x >= 0:
        return math.sqrt(x), x
    raise ValueError


def device_raise_kernel(debug):
    @cuda.jit(debug=debug)
    def k(a, out, count):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = -1.0
            must_be_small(a[i])
            out[i] = scaled_root(a[i], 2.0)
            r, x = root_pair(a[i])
            cuda.atomic.add(count, 0, 1)
            out[i] += r - x * 0
    return k


def expected_roots(a):
    with np.errstate(invalid="ignore"):
        want = np.sqrt(a) * 3.0
    want[a < 0] = -1.0
    want[a > 1000] = -1.0
    return want


def test_device_function_raise_stops_the_thread(current, rng):
    k = device_raise_kernel(False)
    n = 200
    a = rng.uniform(0, 50, n)
    bad = rng.choice(n, 7, replace=False)
    a[bad[:4]] = -rng.uniform(1, 5, 4)
    a[bad[4:]] = 5000.0
    out = np.full(n, np.nan)
    count = np.zeros(1, np.int64)
    k[4, 64](a, out, count)
    np.testing.assert_allclose(out, expected_roots(a), rtol=1e-12)
    assert count[0] == n - 7            # the raising threads stopped before the atomic


def test_device_function_raise_reaches_the_host_in_debug_mode(current):
    k = device_raise_kernel(True)
    a = np.arange(64, dtype=np.float64)
    a[37] = -4.0
    out = np.zeros(64)
    count = np.zeros(1, np.int64)
    # Reported at the device function's raise, with the kernel's name and the thread.
    with pytest.raises(ValueError, match=r"^negative input \(raised in kernel 'k', thread "
                                         r"\(5, 0, 0\) of block \(1, 0, 0\), at .*"
                                         r"test_kernel_raise.py:\d+: raise ValueError"):
        k[2, 32](a, out, count)
    assert out[37] == -1.0
    a[37] = 2000.0
    with pytest.raises(OverflowError, match=r"^\('too large', 1000\) \(raised in kernel 'k'"):
        k[2, 32](a, out, count)
    a[37] = 4.0
    count[0] = 0
    k[2, 32](a, out, count)             # no thread raises: nothing reported
    np.testing.assert_allclose(out, np.sqrt(a) * 3.0)
    assert count[0] == 64


@cuda.jit(device=True)
def positive(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    return x > 0


def conditions(v, positive):
    # Calls evaluated only when Python would evaluate them (and, or, if-else, while):
    # each can raise there.
    first = 1 if v < -100 or positive(v) else 0
    second = 2 if (v > -100 and positive(v + 50)) else 0
    third = 4 if positive(v) else 8
    steps = 0
    while steps < 3 and positive(v - steps):
        steps += 1
    return first + second + third + 16 * steps


@cuda.jit
def raise_in_conditions(a, out):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        first = 1 if v < -100 or positive(v) else 0
        second = 2 if (v > -100 and positive(v + 50)) else 0
        third = 4 if positive(v) else 8
        steps = 0
        while steps < 3 and positive(v - steps):
            steps += 1
        out[i] = first + second + third + 16 * steps


def test_raise_inside_conditions(current, rng):
    n = 128
    a = rng.integers(-120, 120, n).astype(np.int64)
    a[::17] = 0                      # positive(v) raises in the `or`
    a[5] = -50                       # v + 50 == 0: raises in the `and`
    a[9] = 2                         # v - 2 == 0: raises in the while test on its 3rd pass
    a[10] = -110                     # the `or` decided before positive(v)
    out = np.full(n, -1, np.int64)
    raise_in_conditions[2, 64](a, out)

    def positive_on_host(x):
        if x == 0:
            raise ZeroDivisionError("zero")
        return x > 0

    want = np.full(n, -1, np.int64)
    for i, v in enumerate(a):
        try:
            want[i] = conditions(int(v), positive_on_host)
        except ZeroDivisionError:
            pass
    np.testing.assert_array_equal(out, want)


@cuda.jit(device=True)
def checked_index(n, j):
    if j >= n:
        raise IndexError("past the tile")
    return j


@cuda.jit
def tile_sums(a, out):
    # Shared memory and a barrier (the CPU runs the block as loops over its threads): a
    # thread stopping after the barrier leaves the others running.
    tile = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = a[i] if i < a.size else 0.0
    cuda.syncthreads()
    j = checked_index(a.size - cuda.blockIdx.x * 64, t + 1)
    out[i] = tile[t] + tile[j % 64]


def test_raise_after_a_barrier(current, rng):
    n = 64 * 3 - 5
    a = rng.standard_normal(n)
    out = np.full(64 * 3, np.nan)
    tile_sums[3, 64](a, out)
    padded = np.concatenate([a, np.zeros(5)])
    want = padded + np.roll(padded.reshape(3, 64), -1, axis=1).ravel()
    want[n - 1:] = np.nan            # threads whose j reached past the data raised
    np.testing.assert_allclose(out, want)


def test_only_functions_that_raise_take_a_status(current):
    @cuda.jit(device=True)
    def plain(x):
        return x + 1

    @cuda.jit
    def k(a):
        a[0] = plain(a[0]) + checked_sqrt(a[1])

    source = k.inspect_source("float64[::1]")
    assert "simt_func_plain_0(v_" in source or "simt_func_plain_0(simt_ctx" in source
    assert "simt_raised" in source.split("simt_func_checked_sqrt_0(")[1]


@cuda.jit(device=True)
def synced_value(tile, t, limit):
    # A barrier inside a device function (the CPU runs each thread as a fiber): the
    # raising thread stops after it.
    cuda.syncthreads()
    if tile[t] > limit:
        raise ValueError("over the limit")
    return tile[t] * 2.0


@cuda.jit
def doubled_below(a, out, limit):
    tile = cuda.shared.array(32, np.float64)
    t = cuda.threadIdx.x
    tile[t] = a[cuda.grid(1)]
    out[cuda.grid(1)] = synced_value(tile, t, limit)


def test_raise_in_a_device_function_with_a_barrier(current, rng):
    a = rng.uniform(0, 1, 64)
    out = np.full(64, np.nan)
    doubled_below[2, 32](a, out, 0.7)
    want = np.where(a > 0.7, np.nan, a * 2.0)
    np.testing.assert_array_equal(out, want)


# Division by zero with debug=True: Python's ZeroDivisionError, raised on the host, with the
# dividing thread stopped before its statement completes (numba-cuda's
# test_zero_division_error_in_debug); without debug, or with fastmath, IEEE's inf, as Numba's.

def dividing_kernel(**options):
    @cuda.jit(**options)
    def k(r, x, y):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = y[i] / x[i]
            r[i + x.size] = y[i]
    return k


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_debug_division_by_zero_raises_zero_division_error(current, rng, dtype):
    n = 64
    x = rng.integers(1, 9, n).astype(dtype)
    y = rng.integers(-9, 9, n).astype(dtype)
    x[37] = 0
    r = np.zeros(2 * n)
    k = dividing_kernel(debug=True)
    with pytest.raises(ZeroDivisionError, match=r"^division by zero \(in kernel 'k', thread "
                                                r"\(5, 0, 0\) of block \(1, 0, 0\), at "
                                                r".*test_kernel_raise.py:\d+: r\[i\] = y\[i\] / x\[i\]"):
        k[2, 32](r, x, y)
    want = np.concatenate([y / np.where(x == 0, 1, x), y]).astype(np.float64)
    want[37] = want[37 + n] = 0.0       # that thread stopped before its store
    np.testing.assert_array_equal(r, want)
    x[37] = 3
    k[2, 32](r, x, y)                    # no zero divisor: nothing reported
    np.testing.assert_array_equal(r[:n], y / x)


def test_division_by_zero_without_debug_or_with_fastmath_gives_inf(current):
    x = np.zeros(4)
    y = np.ones(4)
    for options in ({}, {"debug": True, "fastmath": True}):
        r = np.zeros(8)
        dividing_kernel(**options)[1, 4](r, x, y)
        assert np.isinf(r[:4]).all() and (r[4:] == 1).all()


@cuda.jit(debug=True)
def floor_and_mod(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        q = a[i] // b[i] if a[i] > 0 else 0
        out[i] = q + a[i] % (b[i] + 1)


@pytest.mark.parametrize("dtype, message", [(np.int64, "integer division or modulo by zero"),
                                            (np.float64, "float floor division by zero")])
def test_debug_floor_division_and_modulo(current, rng, dtype, message):
    n = 64
    a = rng.integers(-50, 50, n).astype(dtype)
    b = rng.integers(1, 7, n).astype(dtype)
    b[::7] = -1                               # % (b + 1) by zero
    a[::7] = -abs(a[::7]) - 1                 # ... but those threads' `//` is never evaluated
    out = np.zeros(n, dtype)
    with pytest.raises(ZeroDivisionError, match=r"modulo by zero" if dtype == np.int64
                       else r"float modulo by zero"):
        floor_and_mod[2, 32](out, a, b)
    b[::7] = 2
    floor_and_mod[2, 32](out, a, b)
    want = np.where(a > 0, a // b, 0) + a % (b + 1)
    np.testing.assert_array_equal(out, want)
    a[3], b[3] = 5, 0                          # `//` by zero, taken by the `if`
    with pytest.raises(ZeroDivisionError, match=message):
        floor_and_mod[2, 32](out, a, b)
