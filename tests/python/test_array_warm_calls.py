"""Repeated array operations of one layout (the warm paths: element-wise calls answered in
C++, reductions replaying their planned launches) and the CPU's vectorized loops (lanes of
accumulators, vector math), on every device, against NumPy on fresh random inputs with
NaN and signed zeros."""

import numpy as np
import pytest

import simt


def _floats(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=min(6, flat.size), replace=False)
    flat[picks[:2]] = np.nan
    flat[picks[2:4]] = 0.0
    flat[picks[4:]] = -0.0
    return x


def _same(got, want):
    """Equal values, NaN where NumPy has NaN, and the sign of every zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        zeros = want == 0
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_warm_elementwise_calls_match_numpy(device, rng, dtype):
    # The first call plans; the next ones, with fresh values of the same layout, take the
    # kept plan (and Python scalars are converted as the first call converted them).
    for _ in range(4):
        xh = _floats(rng, 33, dtype) if dtype != np.int32 else rng.integers(-50, 50, 33,
                                                                           dtype=dtype)
        yh = _floats(rng, 33, dtype) if dtype != np.int32 else rng.integers(-50, 50, 33,
                                                                           dtype=dtype)
        x, y = simt.asarray(xh, device=device), simt.asarray(yh, device=device)
        _same((x + y).get(), xh + yh)
        _same((x * 3).get(), xh * 3)
        _same((2.5 - x).get(), 2.5 - xh)
        _same((x < y).get(), xh < yh)
        _same(simt.maximum(x, y).get(), np.maximum(xh, yh))
        # Each result is a new array, not the previous call's memory.
        first, second = x + y, x + y
        assert first._impl.data_ptr != second._impl.data_ptr


def test_warm_calls_keep_numpys_rules_for_new_values(device):
    x = simt.asarray(np.arange(5, dtype=np.int8), device=device)
    for _ in range(3):
        np.testing.assert_array_equal((x + 1).get(), np.arange(5, dtype=np.int8) + 1)
    # A Python int the dtype cannot hold is still NumPy's OverflowError after warm calls.
    with pytest.raises(OverflowError):
        x + 1000
    # pow checks its integer exponents on every call, warm or not (NumPy's ValueError).
    p = simt.asarray(np.array([1, 2, 1, 0, 1], np.int8), device=device)
    for _ in range(3):
        np.testing.assert_array_equal((x ** p).get(), np.arange(5, dtype=np.int8) ** p.get())
    with pytest.raises(ValueError):
        x ** simt.asarray(np.array([1, -1, 1, 0, 1], np.int8), device=device)
    # A layout not kept before (a view with a step) takes the full path, and is right.
    v = x[::2]
    for _ in range(2):
        np.testing.assert_array_equal((v + v).get(), np.arange(5, dtype=np.int8)[::2] * 2)


@pytest.mark.parametrize("shape, axis, keepdims", [((33,), None, False), ((6, 40), 1, False),
                                                   ((6, 40), 0, True), ((3, 70000), 1, False),
                                                   ((70001,), 0, True), ((2000, 30), 0, False),
                                                   ((5, 4, 3), (0, 2), False)])
def test_warm_reductions_match_numpy(device, rng, shape, axis, keepdims):
    # Long rows split into segments (two launches and partial results), and columns whose
    # rows the CPU splits into a segment per thread: replayed as well.
    for _ in range(3):
        xh = _floats(rng, shape, np.float32)
        x = simt.asarray(xh, device=device)
        for name in ("sum", "max", "min", "mean"):
            got = getattr(simt, name)(x, axis=axis, keepdims=keepdims)
            want = getattr(np, name)(xh, axis=axis, keepdims=keepdims)
            assert got.shape == want.shape and got.dtype == want.dtype, name
            np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)
        ih = rng.integers(-9, 9, shape).astype(np.int16)
        i = simt.asarray(ih, device=device)
        _same(simt.sum(i, axis=axis, keepdims=keepdims).get(),
              np.sum(ih, axis=axis, keepdims=keepdims))


def test_max_and_min_propagate_nan_and_keep_signed_zeros(device, rng):
    # The CPU's vectorized lanes: a NaN anywhere in a row, in any lane or in the last,
    # partial round of the lanes (rows of 1003), is the row's max and min.
    xh = np.abs(rng.standard_normal((8, 1003)).astype(np.float32))
    for row in range(8):
        xh[row, rng.integers(0, 1003)] = np.nan if row % 2 else xh[row, 0]
    xh[2, -1], xh[4, -3] = np.nan, np.nan
    x = simt.asarray(xh, device=device)
    _same(simt.max(x, axis=1).get(), np.max(xh, axis=1))
    _same(simt.min(x, axis=1).get(), np.min(xh, axis=1))
    for name in ("sum", "prod", "count_nonzero", "all", "any"):
        np.testing.assert_allclose(getattr(simt, name)(x, axis=1).get(),
                                   getattr(np, name)(xh, axis=1), rtol=1e-5)
    zeros = np.full(1000, -0.0, np.float32)
    _same(simt.max(simt.asarray(zeros, device=device)).get(), np.max(zeros))


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "exp", "log", "power"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_math_matches_numpy(device, rng, name, dtype):
    # Long enough that the CPU's loop runs vector calls (libmvec where the JIT found it),
    # with the special values each function treats apart.
    xh = (rng.random(4099) * 20 - 10).astype(dtype)
    if name == "log":
        xh = np.abs(xh)
    xh[:8] = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -1e-30, 88.0], dtype)
    x = simt.asarray(xh, device=device)
    with np.errstate(all="ignore"):
        if name == "power":
            want, got = np.power(np.abs(xh), 1.7), simt.pow(simt.abs(x), 1.7).get()
        else:
            want, got = getattr(np, name)(xh), getattr(simt, name)(x).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    exact = ~np.isnan(want) & (np.isinf(want) | (want == 0))
    _same(got[exact], want[exact])
    rest = ~np.isnan(want) & ~exact
    np.testing.assert_allclose(got[rest], want[rest], rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_long_float_scans_carry_nan_and_signed_zeros(device, rng):
    # The segments' totals are summed in lanes: a NaN in one segment is NaN in every later
    # segment's offset; a row of -0.0 scans to -0.0.
    xh = rng.random(1 << 18).astype(np.float32)
    xh[100_000] = np.nan
    x = simt.asarray(xh, device=device)
    got = simt.cumulative_sum(x).get()
    want = np.cumsum(xh.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[:100_000], want[:100_000], rtol=1e-4)
    for n in (1 << 16, 7):  # in segments, and one short row
        zeros = simt.asarray(np.full(n, -0.0, np.float32), device=device)
        _same(simt.cumulative_sum(zeros).get(), np.cumsum(np.full(n, -0.0, np.float32)))
        _same(simt.sum(zeros).get(), np.sum(np.full(n, -0.0, np.float32)))
        # include_initial's first value is NumPy's +0.0, whatever the accumulators start at.
        _same(simt.cumulative_sum(zeros, include_initial=True).get(),
              np.cumulative_sum(np.full(n, -0.0, np.float32), include_initial=True))


def test_basic_views_match_numpy(device):
    # Ints, slices, None and Ellipsis make the view in C++; anything else, and keys in
    # error, take the Python indexing, whose messages are NumPy's.
    h = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = simt.asarray(h, device=device)
    for key in [(slice(2, 9),), 1, -1, (1, 2), (1, 2, 3), (Ellipsis, 1), (None, 1, Ellipsis, None),
                (slice(None, None, -1),), (slice(5, 1, -2), slice(None), 0), (Ellipsis,), (),
                (slice(10, 20),), (0, slice(1, 3), None), (-3,), (slice(0, 3, 2), -1, slice(4, 0, -3)),
                None]:
        got = x[key]
        assert got.shape == h[key].shape, key
        np.testing.assert_array_equal(got.get(), h[key])
        assert got.strides == h[key].strides, key
    for key, error in [((3,), IndexError), ((0, 0, 0, 0), IndexError),
                       ((Ellipsis, Ellipsis), IndexError), (1.5, IndexError), (2 ** 70, IndexError)]:
        with pytest.raises(error):
            x[key]
    np.testing.assert_array_equal(x[(True,)].get(), h[(True,)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.complex64])
def test_square_power_is_numpys(device, rng, dtype):
    # x ** 2 is square(x), as NumPy's operator makes it: the same values and dtypes; 2.0
    # for an integer array stays a float power (float64, as NumPy's).
    xh = (rng.standard_normal(101) * 10).astype(dtype)
    if dtype == np.complex64:
        xh = xh + 1j * (rng.standard_normal(101) * 10).astype(np.float32)
    xh[:3] = np.array([0, -0.0, 3], dtype=np.float64).astype(dtype)
    x = simt.asarray(xh, device=device)
    for exponent in (2, 2.0) if np.dtype(dtype).kind in "fc" else (2,):
        got, want = (x ** exponent).get(), xh ** exponent
        assert got.dtype == want.dtype
        if dtype == np.complex64:  # re*re - im*im rounds as simt.square does
            np.testing.assert_allclose(got, want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)
    if np.dtype(dtype).kind in "iu":
        assert (x ** 2.0).dtype == (xh ** 2.0).dtype


@pytest.mark.parametrize("a_shape, b_shape", [((5, 1, 3), (4, 3)), ((1, 7), (6, 1)),
                                              ((3, 4, 5, 6), (6,)), ((9, 1), (1, 5)),
                                              ((7, 3, 1, 5), (3, 4, 1)), ((2, 2, 2, 2, 2), (2, 1, 2)),
                                              ((3000, 4, 2), (1, 4, 2))])
def test_broadcast_results_walk_rows(device, rng, a_shape, b_shape):
    # N-d results (broadcasting, transposed views): the CPU's threads take chunks that
    # start and end inside rows, and step the other indices as an odometer.
    ah, bh = _floats(rng, a_shape, np.float32), _floats(rng, b_shape, np.float32)
    a, b = simt.asarray(ah, device=device), simt.asarray(bh, device=device)
    _same((a - b).get(), ah - bh)
    _same(simt.maximum(a, b).get(), np.maximum(ah, bh))
    _same((a.T * 2).get(), ah.T * 2)
