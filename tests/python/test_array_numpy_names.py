"""NumPy's convenience names that CuPy programs call (isclose, diag, split, median,
histogram, convolve, ...), against NumPy's own on fresh random inputs on every device:
dtypes and shapes NumPy's, values NumPy's (exactly, or within rounding where the sums
are formed in another order), and NumPy's errors for bad inputs."""

import warnings

import numpy as np
import pytest

import simt


def on(device, host):
    return simt.to_device(np.asarray(host), device=device)


def check(result, expected, exact=True):
    assert isinstance(result, simt.Array), type(result)
    expected = np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    if exact:
        np.testing.assert_array_equal(result.get(), expected)
    else:
        np.testing.assert_allclose(result.get(), expected, rtol=1e-10, atol=1e-12)


def floats_with_specials(rng, n):
    x = rng.standard_normal(n)
    x[rng.integers(0, n, 4)] = np.nan
    x[rng.integers(0, n, 2)] = np.inf
    x[rng.integers(0, n, 2)] = -np.inf
    return x


# --- comparisons -----------------------------------------------------------------------------

def test_isclose_allclose(device, rng):
    a = floats_with_specials(rng, 64)
    b = a + rng.choice([0, 1e-9, 1e-3], 64)
    b[rng.integers(0, 64, 3)] = np.nan
    for equal_nan in (False, True):
        check(simt.isclose(on(device, a), on(device, b), equal_nan=equal_nan),
              np.isclose(a, b, equal_nan=equal_nan))
        assert bool(simt.allclose(on(device, a), on(device, a), equal_nan=equal_nan)) == \
            np.allclose(a, a, equal_nan=equal_nan)
    check(simt.isclose(on(device, a), 0.5, rtol=0.1, atol=0.2), np.isclose(a, 0.5, 0.1, 0.2))
    ints = rng.integers(-5, 5, 20)
    check(simt.isclose(on(device, ints), on(device, ints + 1), atol=1),
          np.isclose(ints, ints + 1, atol=1))
    f32 = rng.standard_normal(16).astype(np.float32)
    check(simt.isclose(on(device, f32), on(device, f32)), np.isclose(f32, f32))
    assert isinstance(simt.allclose(on(device, a), on(device, b)), simt.Array)
    for dtype in (np.complex128, np.float16, np.int8, np.bool_, np.uint64):
        x = rng.uniform(0, 5, 30).astype(dtype)
        y = (rng.uniform(0, 5, 30) * 1e-3).astype(dtype) + x
        check(simt.isclose(on(device, x), on(device, y)), np.isclose(x, y))


def test_array_equal_and_equiv(device, rng):
    a = floats_with_specials(rng, 12).reshape(3, 4)
    for equal_nan in (False, True):
        assert bool(simt.array_equal(on(device, a), on(device, a.copy()), equal_nan=equal_nan)) \
            == np.array_equal(a, a, equal_nan=equal_nan)
    assert not bool(simt.array_equal(on(device, a), on(device, a[:2])))
    row = rng.integers(0, 3, 4)
    tiled = np.tile(row, (3, 1))
    assert bool(simt.array_equiv(on(device, row), on(device, tiled)))
    assert not bool(simt.array_equiv(on(device, row), on(device, tiled + 1)))
    assert not bool(simt.array_equiv(on(device, row), on(device, np.ones((3, 5)))))


# --- element-wise forms ----------------------------------------------------------------------

def test_copy_and_nan_to_num(device, rng):
    a = floats_with_specials(rng, 40)
    x = on(device, a)
    c = simt.copy(x)
    c.fill(0)
    check(x, a)
    check(simt.nan_to_num(x), np.nan_to_num(a))
    check(simt.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
          np.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0))
    f32 = a.astype(np.float32)
    check(simt.nan_to_num(on(device, f32)), np.nan_to_num(f32))
    z = np.empty(20, np.complex128)
    z.real, z.imag = a[:20], a[20:]
    check(simt.nan_to_num(on(device, z)), np.nan_to_num(z))
    ints = rng.integers(0, 9, 5)
    check(simt.nan_to_num(on(device, ints)), ints)
    simt.nan_to_num(x, copy=False)
    check(x, np.nan_to_num(a))


def test_around_fix_ptp(device, rng):
    a = rng.standard_normal((4, 6)) * 100
    x = on(device, a)
    for decimals in (0, 1, 2, -1):
        check(simt.around(x, decimals), np.around(a, decimals), exact=False)
        check(simt.round_(x, decimals=decimals), np.round(a, decimals), exact=False)
    ints = rng.integers(-1000, 1000, 10)
    check(simt.around(on(device, ints), -2), np.around(ints, -2))
    check(simt.around(on(device, ints), 2), np.around(ints, 2))
    check(simt.fix(x), np.fix(a))
    for axis in (None, 0, 1):
        check(simt.ptp(x, axis=axis), np.ptp(a, axis=axis))
    check(simt.ptp(x, axis=1, keepdims=True), np.ptp(a, axis=1, keepdims=True))


# --- diagonals -------------------------------------------------------------------------------

def test_diag_diagonal_trace(device, rng):
    a = rng.standard_normal((4, 6))
    x = on(device, a)
    for k in (-5, -2, 0, 1, 5, 7):
        check(simt.diag(x, k), np.diag(a, k))
        check(simt.trace(x, k), np.trace(a, k), exact=False)
    v = rng.integers(-9, 9, 5)
    for k in (-2, 0, 3):
        check(simt.diag(on(device, v), k), np.diag(v, k))
    b = rng.standard_normal((3, 4, 5))
    y = on(device, b)
    for offset, axis1, axis2 in ((0, 0, 1), (1, 2, 0), (-1, 1, 2), (2, -1, -2)):
        check(simt.diagonal(y, offset, axis1, axis2), np.diagonal(b, offset, axis1, axis2))
        check(simt.trace(y, offset, axis1, axis2), np.trace(b, offset, axis1, axis2),
              exact=False)
    check(simt.trace(on(device, v.reshape(1, 5)), dtype=np.float32),
          np.trace(v.reshape(1, 5), dtype=np.float32))
    view = simt.diagonal(x)
    x.fill(0)
    check(view, np.zeros(4))
    with pytest.raises(ValueError, match="diag"):
        simt.diag(y)
    with pytest.raises(ValueError, match="diagonal"):
        simt.diagonal(y, 0, 1, 1)
    with pytest.raises(ValueError, match="diagonal"):
        simt.diagonal(on(device, v))


# --- splitting -------------------------------------------------------------------------------

def test_splits(device, rng):
    a = rng.standard_normal((6, 4, 2))
    x = on(device, a)

    def same(got, want):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)

    for sections in (1, 4, 5, 7):
        same(simt.array_split(x, sections), np.array_split(a, sections))
    same(simt.array_split(x, [1, 3, 10], axis=1), np.array_split(a, [1, 3, 10], axis=1))
    same(simt.split(x, 3), np.split(a, 3))
    same(simt.split(x, [2, 5], axis=-1), np.split(a, [2, 5], axis=-1))
    same(simt.hsplit(x, 2), np.hsplit(a, 2))
    same(simt.vsplit(x, [1]), np.vsplit(a, [1]))
    same(simt.dsplit(x, 2), np.dsplit(a, 2))
    same(simt.hsplit(on(device, a[:, 0, 0]), 3), np.hsplit(a[:, 0, 0], 3))
    with pytest.raises(ValueError, match="equal division"):
        simt.split(x, 4)
    with pytest.raises(ValueError, match="larger than 0"):
        simt.array_split(x, 0)
    with pytest.raises(ValueError, match="dsplit"):
        simt.dsplit(on(device, a[0]), 2)
    with pytest.raises(ValueError, match="vsplit"):
        simt.vsplit(on(device, a[0, 0]), 2)


# --- layout and inspection -------------------------------------------------------------------

def test_layout_and_inspection(device, rng):
    a = rng.standard_normal((3, 5))
    x = on(device, a)
    f = simt.asfortranarray(x)
    assert f.strides == np.asfortranarray(a).strides
    check(f, a)
    assert simt.asfortranarray(f) is f
    check(simt.asfortranarray(x, dtype=np.float32), a.astype(np.float32))
    assert simt.ndim(x) == 2 and simt.ndim([[1, 2]]) == 2
    assert simt.shape(x) == (3, 5) and simt.shape(3.0) == ()
    assert simt.size(x) == 15 and simt.size(x, 1) == 5 and simt.size(x, -2) == 3
    assert simt.iscomplexobj(on(device, a + 1j)) and not simt.iscomplexobj(x)
    assert simt.isrealobj(x) and not simt.isrealobj(1j)
    assert simt.isscalar(3.0) and simt.isscalar(np.float32(1)) and not simt.isscalar(x)
    assert not simt.isscalar([1])


# --- creation and products -------------------------------------------------------------------

def test_flatnonzero_logspace_indices(device, rng):
    a = rng.integers(0, 3, (4, 5))
    check(simt.flatnonzero(on(device, a)), np.flatnonzero(a))
    check(simt.logspace(0, 3, 7), np.logspace(0, 3, 7), exact=False)
    check(simt.logspace(1, 2, 4, endpoint=False, base=2.0, dtype=np.float32),
          np.logspace(1, 2, 4, endpoint=False, base=2.0, dtype=np.float32))
    check(simt.indices((2, 3, 4)), np.indices((2, 3, 4)))
    check(simt.indices((3, 2), dtype=np.int32), np.indices((3, 2), dtype=np.int32))
    for got, want in zip(simt.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        check(got, want)


def test_vdot_kron(device, rng):
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal(12)
    check(simt.vdot(on(device, a), on(device, b)), np.vdot(a, b), exact=False)
    z = a + 1j * a[::-1]
    check(simt.vdot(on(device, z), on(device, z)), np.vdot(z, z), exact=False)
    with pytest.raises(ValueError, match="vdot"):
        simt.vdot(on(device, a), on(device, b[:5]))
    c = rng.integers(-3, 3, (2, 3))
    d = rng.integers(-3, 3, 4)
    check(simt.kron(on(device, c), on(device, d)), np.kron(c, d))
    check(simt.kron(on(device, a), on(device, c)), np.kron(a, c))
    e = rng.standard_normal((2, 1, 3))
    check(simt.kron(on(device, e), on(device, a)), np.kron(e, a))


# --- statistics ------------------------------------------------------------------------------

def test_average(device, rng):
    a = rng.standard_normal((3, 4, 5))
    w = rng.random((3, 4, 5))
    x, y = on(device, a), on(device, w)
    check(simt.average(x), np.average(a), exact=False)
    check(simt.average(x, axis=1, weights=y), np.average(a, axis=1, weights=w), exact=False)
    w1 = rng.random(5)
    check(simt.average(x, axis=-1, weights=on(device, w1)), np.average(a, axis=-1, weights=w1),
          exact=False)
    w2 = rng.random((5, 3))
    check(simt.average(x, axis=(2, 0), weights=on(device, w2)),
          np.average(a, axis=(2, 0), weights=w2), exact=False)
    avg, total = simt.average(x, axis=0, weights=y, returned=True, keepdims=True)
    want_avg, want_total = np.average(a, axis=0, weights=w, returned=True, keepdims=True)
    check(avg, want_avg, exact=False)
    check(total, want_total, exact=False)
    ints = rng.integers(0, 9, (4, 3))
    avg, count = simt.average(on(device, ints), axis=0, returned=True)
    want_avg, want_count = np.average(ints, axis=0, returned=True)
    check(avg, want_avg, exact=False)
    check(count, want_count)
    with pytest.raises(TypeError, match="axis must be specified"):
        simt.average(x, weights=on(device, w1))
    with pytest.raises(ValueError, match="consistent"):
        simt.average(x, axis=0, weights=on(device, w1))
    with pytest.raises(ZeroDivisionError):
        simt.average(x, axis=0, weights=on(device, np.zeros_like(w)))


def test_median_quantile_percentile(device, rng):
    a = rng.standard_normal((4, 7, 6))
    x = on(device, a)
    for axis in (None, 0, 1, -1, (0, 2)):
        for keepdims in (False, True):
            check(simt.median(x, axis=axis, keepdims=keepdims),
                  np.median(a, axis=axis, keepdims=keepdims), exact=False)
    q = rng.random(3)
    for axis in (None, 1, (0, 1)):
        check(simt.quantile(x, q, axis=axis), np.quantile(a, q, axis=axis), exact=False)
        check(simt.percentile(x, 100 * q[0], axis=axis, keepdims=True),
              np.percentile(a, 100 * q[0], axis=axis, keepdims=True), exact=False)
    check(simt.quantile(x, on(device, q), axis=2), np.quantile(a, q, axis=2), exact=False)
    check(simt.quantile(x, [0.0, 1.0]), np.quantile(a, [0.0, 1.0]))
    ints = rng.integers(-50, 50, (5, 8))
    check(simt.median(on(device, ints), axis=1), np.median(ints, axis=1), exact=False)
    check(simt.percentile(on(device, ints), [25, 50], axis=0),
          np.percentile(ints, [25, 50], axis=0), exact=False)
    f32 = a.astype(np.float32)
    got = simt.median(on(device, f32), axis=0)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.get(), np.median(f32, axis=0), rtol=1e-6)
    nan = a.copy()
    nan[1, 2, 3] = np.nan
    check(simt.median(on(device, nan), axis=1), np.median(nan, axis=1), exact=False)
    check(simt.quantile(on(device, nan), 0.3, axis=2), np.quantile(nan, 0.3, axis=2),
          exact=False)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        simt.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        simt.percentile(x, -1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        simt.quantile(x, on(device, np.array([0.5, 2.0])))
    with pytest.raises(NotImplementedError, match="linear"):
        simt.quantile(x, 0.5, method="nearest")
    with pytest.raises(TypeError, match="real"):
        simt.median(on(device, a + 1j))


def test_nan_reductions(device, rng):
    a = rng.standard_normal((5, 6))
    a[rng.random((5, 6)) < 0.3] = np.nan
    a[:, 4] = np.nan  # an all-NaN column
    a[:, 0] = rng.standard_normal(5)  # and no all-NaN row (nanargmax(axis=1) raises there)
    x = on(device, a)
    for axis in (None, 0, 1):
        check(simt.nansum(x, axis=axis), np.nansum(a, axis=axis), exact=False)
        check(simt.nanprod(x, axis=axis), np.nanprod(a, axis=axis), exact=False)
        with warnings.catch_warnings():  # NumPy warns of the all-NaN column
            warnings.simplefilter("ignore", RuntimeWarning)
            check(simt.nanmax(x, axis=axis), np.nanmax(a, axis=axis))
            check(simt.nanmin(x, axis=axis), np.nanmin(a, axis=axis))
            check(simt.nanmean(x, axis=axis), np.nanmean(a, axis=axis), exact=False)
    check(simt.nansum(x, axis=1, keepdims=True), np.nansum(a, axis=1, keepdims=True),
          exact=False)
    check(simt.nanargmax(x, axis=1), np.nanargmax(a, axis=1))
    check(simt.nanargmin(x, axis=1), np.nanargmin(a, axis=1))
    check(simt.nanargmax(x), np.nanargmax(a))
    with pytest.raises(ValueError, match="All-NaN"):
        simt.nanargmax(x, axis=0)
    ints = rng.integers(-9, 9, (3, 4))
    check(simt.nansum(on(device, ints), axis=0), np.nansum(ints, axis=0))
    check(simt.nanmax(on(device, ints)), np.nanmax(ints))
    check(simt.nanmean(on(device, ints), axis=1), np.nanmean(ints, axis=1), exact=False)


def test_bincount(device, rng):
    x = rng.integers(0, 20, 200)
    check(simt.bincount(on(device, x)), np.bincount(x))
    check(simt.bincount(on(device, x), minlength=30), np.bincount(x, minlength=30))
    w = rng.standard_normal(200)
    check(simt.bincount(on(device, x), weights=on(device, w)), np.bincount(x, weights=w),
          exact=False)
    check(simt.bincount(on(device, x.astype(np.uint8))), np.bincount(x.astype(np.uint8)))
    check(simt.bincount(on(device, np.zeros(0, np.int64)), minlength=3),
          np.bincount(np.zeros(0, np.int64), minlength=3))
    with pytest.raises(ValueError, match="negative"):
        simt.bincount(on(device, x - 5))
    with pytest.raises(TypeError, match="safe"):
        simt.bincount(on(device, w))
    with pytest.raises(ValueError, match="minlength"):
        simt.bincount(on(device, x), minlength=-1)
    with pytest.raises(ValueError, match="same length"):
        simt.bincount(on(device, x), weights=on(device, w[:5]))


def test_histogram(device, rng):
    a = rng.standard_normal(300)
    x = on(device, a)
    for bins, range_ in ((10, None), (7, (-1.0, 2.0)), (1, None)):
        counts, edges = simt.histogram(x, bins=bins, range=range_)
        want_counts, want_edges = np.histogram(a, bins=bins, range=range_)
        check(counts, want_counts)
        check(edges, want_edges, exact=False)
    given = np.sort(rng.standard_normal(6))
    counts, edges = simt.histogram(x, bins=on(device, given))
    check(counts, np.histogram(a, bins=given)[0])
    w = rng.random(300)
    counts, _ = simt.histogram(x, bins=5, weights=on(device, w))
    check(counts, np.histogram(a, bins=5, weights=w)[0], exact=False)
    counts, _ = simt.histogram(x, bins=5, density=True)
    check(counts, np.histogram(a, bins=5, density=True)[0], exact=False)
    ints = rng.integers(0, 10, 50)
    counts, edges = simt.histogram(on(device, ints), bins=4)
    want_counts, want_edges = np.histogram(ints, bins=4)
    check(counts, want_counts)
    check(edges, want_edges, exact=False)
    with pytest.raises(ValueError, match="positive"):
        simt.histogram(x, bins=0)
    with pytest.raises(ValueError, match="monotonically"):
        simt.histogram(x, bins=on(device, given[::-1].copy()))
    with pytest.raises(ValueError, match="larger than min"):
        simt.histogram(x, range=(1, 0))


def test_interp(device, rng):
    xp = np.sort(rng.standard_normal(8))
    fp = rng.standard_normal(8)
    x = np.concatenate([rng.uniform(xp[0] - 1, xp[-1] + 1, 40), xp, [np.nan]])
    check(simt.interp(on(device, x), on(device, xp), on(device, fp)), np.interp(x, xp, fp),
          exact=False)
    check(simt.interp(on(device, x), on(device, xp), on(device, fp), left=-7.0, right=7.0),
          np.interp(x, xp, fp, left=-7.0, right=7.0), exact=False)
    zp = fp + 1j * fp[::-1]
    check(simt.interp(on(device, x[:-1]), on(device, xp), on(device, zp)),
          np.interp(x[:-1], xp, zp), exact=False)
    angles = rng.uniform(-400, 400, 20)
    xp_p = rng.uniform(0, 360, 5)
    check(simt.interp(on(device, angles), on(device, xp_p), on(device, fp[:5]), period=360),
          np.interp(angles, xp_p, fp[:5], period=360), exact=False)
    ints = rng.integers(0, 5, 6)
    check(simt.interp(on(device, ints), on(device, xp), on(device, fp)),
          np.interp(ints, xp, fp), exact=False)
    with pytest.raises(ValueError, match="same length"):
        simt.interp(on(device, x), on(device, xp), on(device, fp[:3]))
    with pytest.raises(ValueError, match="period"):
        simt.interp(on(device, x), on(device, xp), on(device, fp), period=0)


def test_convolve_correlate(device, rng):
    for n, m in ((9, 4), (4, 9), (5, 5), (6, 1), (1, 3)):
        a, v = rng.standard_normal(n), rng.standard_normal(m)
        for mode in ("full", "same", "valid"):
            check(simt.convolve(on(device, a), on(device, v), mode),
                  np.convolve(a, v, mode), exact=False)
            check(simt.correlate(on(device, a), on(device, v), mode),
                  np.correlate(a, v, mode), exact=False)
    a, v = rng.integers(-5, 5, 7), rng.integers(-5, 5, 3)
    check(simt.convolve(on(device, a), on(device, v)), np.convolve(a, v))
    z = rng.standard_normal(6) + 1j * rng.standard_normal(6)
    check(simt.correlate(on(device, z), on(device, z[:3]), "full"),
          np.correlate(z, z[:3], "full"), exact=False)
    with pytest.raises(ValueError, match="mode"):
        simt.convolve(on(device, a), on(device, v), "middle")
    with pytest.raises(ValueError, match="empty"):
        simt.correlate(on(device, a), on(device, a[:0]))


def test_pad(device, rng):
    a = rng.integers(-9, 9, (3, 4))
    x = on(device, a)
    for width in (1, (2, 1), ((1, 0), (0, 3)), ((2, 2), (3, 1))):
        check(simt.pad(x, width), np.pad(a, width))
        check(simt.pad(x, width, constant_values=((5, 6), (7, 8))),
              np.pad(a, width, constant_values=((5, 6), (7, 8))))
        check(simt.pad(x, width, mode="edge"), np.pad(a, width, mode="edge"))
        check(simt.pad(x, width, mode="reflect"), np.pad(a, width, mode="reflect"))
    b = rng.standard_normal((2, 1, 5))
    check(simt.pad(on(device, b), 1, mode="reflect"), np.pad(b, 1, mode="reflect"))
    check(simt.pad(on(device, b), ((0, 1), (2, 0), (1, 1)), constant_values=1.5),
          np.pad(b, ((0, 1), (2, 0), (1, 1)), constant_values=1.5))
    with pytest.raises(ValueError, match="negative"):
        simt.pad(x, -1)
    with pytest.raises(ValueError, match="unsupported keyword"):
        simt.pad(x, 1, mode="edge", constant_values=3)
    for width in (5, ((7, 2), (9, 4))):  # wider than the data: filled in rounds
        for mode, extra in (("reflect", {}), ("symmetric", {}), ("wrap", {}),
                            ("reflect", {"reflect_type": "odd"}),
                            ("symmetric", {"reflect_type": "odd"})):
            check(simt.pad(x, width, mode=mode, **extra), np.pad(a, width, mode=mode, **extra))
    check(simt.pad(on(device, b), 2, mode="symmetric"), np.pad(b, 2, mode="symmetric"))
    with pytest.raises(NotImplementedError, match="linear_ramp"):
        simt.pad(x, 1, mode="linear_ramp")
    with pytest.raises(ValueError, match="empty axis"):
        simt.pad(on(device, np.zeros((0, 3))), 1, mode="edge")


def test_methods(device, rng):
    a = rng.standard_normal((3, 4)) * 10
    x = on(device, a)
    check(x.round(1), a.round(1), exact=False)
    check(x.round(), a.round())
    check(x.diagonal(1), a.diagonal(1))
    check(x.trace(-1), a.trace(-1), exact=False)
    check(x.ptp(axis=0), np.ptp(a, axis=0))
    check(x.clip(-1, 2), a.clip(-1, 2))
    check(x.clip(max=0.5), a.clip(max=0.5))
