"""simt.fuse: functions of arrays and scalars compiled into one kernel, on every device,
against NumPy evaluating the same function."""

import math

import numpy as np
import pytest

import simt


def test_fused_expression_matches_numpy(device, rng):
    xh = rng.standard_normal((300, 7)).astype(np.float32)
    yh = rng.standard_normal(7).astype(np.float32)
    x, y = simt.asarray(xh, device=device), simt.asarray(yh, device=device)
    hypot = simt.fuse(lambda x, y: simt.sqrt(x * x + y * y))
    got = hypot(x, y)
    assert got.dtype == np.float32 and got.shape == (300, 7)
    np.testing.assert_allclose(got.get(), np.sqrt(xh * xh + yh * yh), rtol=1e-6)
    # Strided and reversed inputs: the same plans as eager element-wise calls.
    np.testing.assert_allclose(hypot(x[::-3], y[::-1]).get(),
                               np.sqrt(xh[::-3] ** 2 + yh[::-1] ** 2), rtol=1e-6)


def test_fused_function_with_where_scalars_and_casts(device, rng):
    xh = rng.standard_normal(1000).astype(np.float32)
    yh = rng.standard_normal(1000).astype(np.float32)
    x, y = simt.asarray(xh, device=device), simt.asarray(yh, device=device)

    @simt.fuse
    def f(a, b, s):
        t = simt.where(a > 0, a * s, b - 1)
        return simt.exp(-abs(t)).astype(np.float64) + 2.5

    want = np.exp(-np.abs(np.where(xh > 0, xh * np.float32(3.0), yh - 1))).astype(
        np.float64) + 2.5
    got = f(x, y, 3.0)
    assert got.dtype == np.float64  # the Python float stays weak: a * s is float32
    np.testing.assert_allclose(got.get(), want, rtol=1e-6)
    clipped = simt.fuse(lambda a: simt.clip(a, -0.5, 0.5) * math.inf)
    np.testing.assert_array_equal(clipped(x).get(),
                                  np.clip(xh, -0.5, 0.5) * np.float32(np.inf))


def test_fused_integers_keep_numpy_overflow_rules(device):
    xh = np.arange(-50, 50, dtype=np.int8)
    x = simt.asarray(xh, device=device)
    add = simt.fuse(lambda a, s: a + s * 2)
    got = add(x, 3)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got.get(), xh + 3 * 2)
    with pytest.raises(OverflowError, match="1000 out of bounds for int8"):
        simt.fuse(lambda a, s: a + s)(x, 1000)
    # A Python-scalar sub-expression is checked by its value, as NumPy computes it first.
    with pytest.raises(OverflowError, match="200 out of bounds for int8"):
        add(x, 100)


def test_fused_function_ending_in_a_reduction(device, rng):
    xh = rng.standard_normal((64, 33))
    yh = rng.standard_normal(33)
    x, y = simt.asarray(xh, device=device), simt.asarray(yh, device=device)
    dot_rows = simt.fuse(kernel_name="dot_rows")(lambda a, b: (a * b).sum(axis=1))
    np.testing.assert_allclose(dot_rows(x, y).get(), (xh * yh).sum(axis=1), rtol=1e-10)
    largest = simt.fuse(lambda a: simt.max(a * a))
    np.testing.assert_allclose(largest(x).get(), (xh * xh).max(), rtol=1e-12)


def test_fused_function_errors_say_what(device):
    x = simt.zeros(4, device=device)
    with pytest.raises(TypeError, match="use simt.where"):
        simt.fuse(lambda a: a if a > 0 else -a)(x)
    with pytest.raises(TypeError, match="not given as an argument"):
        simt.fuse(lambda a: a + x)(x)
    with pytest.raises(TypeError, match="returns a tuple"):
        simt.fuse(lambda a: (a, a))(x)
    with pytest.raises(TypeError, match="NumPy array"):
        simt.fuse(lambda a, b: a + b)(x, np.zeros(4))


def test_fused_function_without_device_arrays_runs_as_written(rng):
    # CuPy's rule: NumPy arrays and scalars alone run the Python function itself.
    host = rng.standard_normal(7)
    squared = simt.fuse(lambda a, b: (a - b) * (a - b))
    got = squared(host, host[::-1])
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, (host - host[::-1]) ** 2)
    assert squared(2.0, 0.5) == 2.25


def test_fused_scalars_behave_as_in_eager_calls(device, rng):
    u = simt.asarray(np.array([0, 2 ** 64 - 1, 2 ** 63], np.uint64), device=device)
    # A constant beyond every integer dtype compares exactly, as eager simt and NumPy do.
    np.testing.assert_array_equal(simt.fuse(lambda x: x < 2 ** 64)(u).get(), [True] * 3)
    # A Python int argument beyond int64 still fits a uint64 operation.
    add = simt.fuse(lambda x, s: x + s)
    np.testing.assert_array_equal(add(u[:1], 2 ** 63).get(),
                                  np.array([0], np.uint64) + np.uint64(2 ** 63))
    # A Python int argument compared with uint8 values: exact, not an OverflowError.
    small = simt.asarray(np.array([0, 255], np.uint8), device=device)
    less = simt.fuse(lambda x, s: x < s)
    np.testing.assert_array_equal(less(small, 300).get(), [True, True])
    np.testing.assert_array_equal(less(small, -1).get(), [False, False])
    # A Python bool is a bool operand.
    xh = rng.standard_normal(5).astype(np.float32)
    got = simt.fuse(lambda x, f: x * f)(simt.asarray(xh, device=device), True)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.get(), xh * True)


def test_the_same_fused_body_compiles_once(device):
    from simt._array_api import _generated

    x = simt.zeros(8, device=device)
    simt.fuse(lambda a: a * 2 + 1)(x)
    before = len(_generated._kernels)
    for _ in range(3):  # a lambda made again each time, as users write it in loops
        simt.fuse(lambda a: a * 2 + 1)(x)
    assert len(_generated._kernels) == before


def test_a_reduction_must_come_last(device):
    x = simt.zeros(8, device=device)
    with pytest.raises(TypeError, match="reduction can only be the function's last"):
        simt.fuse(lambda a: simt.sqrt((a * a).sum()))(x)
    with pytest.raises(TypeError, match="reduction can only be the function's last"):
        simt.fuse(lambda a: a.sum() + 1)(x)
