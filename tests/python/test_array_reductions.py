"""Reductions and scans on every device, against NumPy on fresh random inputs."""

import numpy as np
import pytest

import simt
from simt._array_api import _host_arg

# (shape, axis): whole arrays, each axis, tuples, long rows that split into segments
# (the partial-result path), short columns.
CASES = [((37, 53), 0), ((5, 6, 7), (0, 2)), ((5, 6, 7), -1), ((70000,), None),
         ((50000, 3), 0)]


def _close(got, want, dtype):
    rtol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape,axis", CASES)
def test_float_reductions_match_numpy(device, rng, shape, axis):
    xh = rng.standard_normal(shape).astype(np.float32)
    x = simt.asarray(xh, device=device)
    # The reference is NumPy in float64: NumPy's own float32 sum of a C array's columns
    # adds row by row, whose error (~1e-3 over 50000 rows) exceeds simt's and the tolerance.
    # The tolerance adds float32's rounding over the sum of magnitudes (a pairwise bound).
    x64 = xh.astype(np.float64)
    for name in ("sum", "mean", "min", "max", "var", "std"):
        got = getattr(simt, name)(x, axis=axis)
        want = getattr(np, name)(xh, axis=axis)
        assert got.shape == np.shape(want) and got.dtype == want.dtype, name
        exact = getattr(np, name)(x64, axis=axis)
        bound = 4 * np.finfo(np.float32).eps * np.sum(np.abs(x64), axis=axis)
        if name == "mean":
            bound = bound / (xh.size // np.size(exact))
        if name in ("min", "max", "var", "std"):
            bound = 0
        np.testing.assert_allclose(got.get(), exact, rtol=1e-4, atol=1e-4 + np.max(bound))
    if not isinstance(axis, tuple):
        for name in ("argmin", "argmax"):
            got = getattr(simt, name)(x, axis=axis)
            np.testing.assert_array_equal(got.get(), getattr(np, name)(xh, axis=axis))


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.uint64, np.bool_])
@pytest.mark.parametrize("shape,axis", [((300001,), None), ((3, 50000), 1), ((77, 40), 0),
                                        ((9, 20), 1)])
def test_arg_reductions_pick_the_first_best(device, rng, dtype, shape, axis):
    """argmin/argmax: the first of equal best values wins, within a block's threads and
    across segments of a long row; a NaN is best and the first NaN wins, as NumPy's."""
    if dtype == np.bool_:
        host = rng.random(shape) < 0.5
    elif np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        host = rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    else:
        host = rng.integers(-1000, 1000, shape).astype(dtype)  # many ties
    flat = host.reshape(-1) if axis is None else np.moveaxis(host, axis, -1).reshape(
        -1, host.shape[axis])
    for value in ("low", "high"):  # the extreme value again, later in each row
        target = flat.min() if value == "low" else flat.max()
        flat[..., -1] = target
    x = simt.asarray(host, device=device)
    for name in ("argmin", "argmax"):
        np.testing.assert_array_equal(getattr(simt, name)(x, axis=axis).get(),
                                      getattr(np, name)(host, axis=axis), err_msg=name)
    if np.dtype(dtype).kind == "f":
        nan = host.copy()
        nan.reshape(-1)[[7, 11, -2]] = np.nan
        y = simt.asarray(nan, device=device)
        for name in ("argmin", "argmax"):
            np.testing.assert_array_equal(getattr(simt, name)(y, axis=axis).get(),
                                          getattr(np, name)(nan, axis=axis), err_msg=name)


@pytest.mark.parametrize("case", ["nan late", "nans", "tie across pieces", "inf", "all equal",
                                  "int8 ties"])
def test_arg_reductions_of_long_runs(device, rng, case, monkeypatch):
    """argmax/argmin of a run the cpu device splits over threads (_host_arg; from 64 MiB,
    here from any size): a NaN in a later piece, several NaN, the best value in two pieces
    (the first wins), infinities, every element equal, integers with many ties."""
    monkeypatch.setattr(_host_arg, "MIN_BYTES", 0)
    n = 100003
    host = rng.standard_normal(n).astype(np.float32)
    if case == "nan late":
        host[n - 5] = np.nan
    elif case == "nans":
        host[[n // 3, n // 2, 17]] = np.nan
    elif case == "tie across pieces":
        host[[n // 5, n - 2]] = 99.0
        host[[n // 7, n - 3]] = -99.0
    elif case == "inf":
        host[[n // 2, n - 1]] = np.inf
        host[[3, n // 4]] = -np.inf
    elif case == "all equal":
        host[:] = 0.5
    else:
        host = rng.integers(-3, 4, n).astype(np.int8)
    x = simt.asarray(host, device=device)
    for name in ("argmin", "argmax"):
        got = getattr(simt, name)(x)
        assert got.shape == () and got.dtype == np.int64
        assert int(got.get()) == int(getattr(np, name)(host)), name
        kept = getattr(simt, name)(simt.reshape(x, (1, n)), keepdims=True)
        assert kept.shape == (1, 1) and int(kept.get()[0, 0]) == int(getattr(np, name)(host))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_array_sums_through_the_snippet_path(device, rng, dtype):
    """The whole-array sum and product CUDA devices take through ReductionKernel's
    machinery (_whole_by_snippet), run here on every GPU device: lengths around the
    vector width, views that start one element in, a 0-d array, requested dtypes."""
    from simt._array_api import _reduction
    if device.backend not in ("cuda", "opencl"):
        pytest.skip("snippet kernels run on GPU devices")
    for n in (1, 3, 1000, 70001):
        xh = rng.standard_normal(n + 1).astype(dtype)
        for view, want in ((slice(None), xh), (slice(1, None), xh[1:])):
            x = simt.asarray(xh, device=device)[view]
            for name in ("sum", "prod"):
                part = want if name == "sum" else 1 + want[:50] * 1e-3
                src = x if name == "sum" else simt.asarray(part, device=device)
                for requested in (None, np.float64):
                    acc, res = _reduction._accumulator(name, src.dtype, requested)
                    out = simt.full((), np.nan, dtype=res, device=device)
                    assert _reduction._whole_by_snippet(name, src, acc, out)
                    expected = getattr(np, name)(part, dtype=requested)
                    _close(out.get(), expected, res)
    zero_d = simt.asarray(np.asarray(2.5, dtype), device=device)
    out = simt.full((), np.nan, dtype=dtype, device=device)
    assert _reduction._whole_by_snippet("sum", zero_d, np.dtype(dtype), out)
    assert float(out.get()) == 2.5
    ints = simt.asarray(np.arange(10, dtype=np.int32), device=device)
    assert not _reduction._whole_by_snippet("sum", ints, np.dtype(np.int64),
                                            simt.empty((), np.int64, device=device))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "uint64"])
def test_integer_reductions_accumulate_as_numpy(device, rng, dtype):
    xh = rng.integers(0 if dtype in ("bool", "uint8", "uint64") else -100, 100, (7, 9))
    xh = xh.astype(dtype)
    x = simt.asarray(xh, device=device)
    for name in ("sum", "prod", "min", "max", "count_nonzero", "all", "any", "mean"):
        for axis in (None, 0, 1):
            got = getattr(simt, name)(x, axis=axis)
            want = getattr(np, name)(xh, axis=axis)
            assert got.dtype == np.asarray(want).dtype, (name, axis)
            np.testing.assert_allclose(got.get(), want, rtol=1e-12)


def test_keepdims_dtype_and_strided_layouts(device, rng):
    xh = rng.standard_normal((6, 8, 5))
    x = simt.asarray(xh, device=device)
    views = [(x[::2, ::-1], xh[::2, ::-1]),
             (simt.asarray(np.asfortranarray(xh), device=device), xh),
             (x[:, 3], xh[:, 3])]
    for view, ref in views:
        for axis in (None, 0, (0, 1), -1):
            got = simt.sum(view, axis=axis, keepdims=True)
            np.testing.assert_allclose(got.get(), np.sum(ref, axis=axis, keepdims=True))
    got = simt.sum(simt.asarray(xh.astype(np.int8), device=device), dtype=np.int8)
    assert got.dtype == np.int8
    assert int(got) == int(np.sum(xh.astype(np.int8), dtype=np.int8))


def test_nan_and_empty_follow_numpy(device):
    xh = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]])
    x = simt.asarray(xh, device=device)
    for name in ("max", "min", "argmax", "argmin", "sum"):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(getattr(simt, name)(x, axis=axis).get(),
                                          getattr(np, name)(xh, axis=axis))
    empty = simt.asarray(np.zeros((0, 3)), device=device)
    np.testing.assert_array_equal(simt.sum(empty, axis=0).get(), np.zeros(3))
    np.testing.assert_array_equal(simt.prod(empty, axis=0).get(), np.ones(3))
    assert simt.sum(empty, axis=1).shape == (0,)
    with pytest.raises(ValueError):
        simt.max(empty, axis=0)
    with pytest.raises(ValueError):
        simt.argmax(empty, axis=0)


def test_bad_axes_are_clear_errors(device):
    x = simt.zeros((2, 3), device=device)
    with pytest.raises(np.exceptions.AxisError):
        simt.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeats"):
        simt.sum(x, axis=(0, 0))
    with pytest.raises(TypeError):
        simt.sum(x, axis=1.5)
    with pytest.raises(TypeError):
        simt.sum(np.zeros(3))


def test_methods_and_numpy_dispatch(device, rng):
    xh = rng.standard_normal((4, 5)).astype(np.float32)
    x = simt.asarray(xh, device=device)
    _close(x.sum(axis=1).get(), xh.sum(axis=1), np.float32)
    _close(x.mean().get(), xh.mean(), np.float32)
    _close(x.var(ddof=1).get(), xh.var(ddof=1), np.float32)
    _close(np.sum(x, axis=0).get(), np.sum(xh, axis=0), np.float32)
    assert isinstance(np.max(x), simt.Array)


@pytest.mark.parametrize("axis", [0, 1])
def test_scans_match_numpy(device, rng, axis):
    xh = rng.integers(-9, 9, (6, 7)).astype(np.int32)
    x = simt.asarray(xh, device=device)
    got = simt.cumulative_sum(x, axis=axis)
    np.testing.assert_array_equal(got.get(), np.cumsum(xh, axis=axis))
    assert got.dtype == np.cumsum(xh, axis=axis).dtype
    np.testing.assert_array_equal(simt.cumulative_prod(x, axis=axis).get(),
                                  np.cumprod(xh, axis=axis))
    with_initial = simt.cumulative_sum(x, axis=axis, include_initial=True).get()
    want = np.concatenate([np.zeros_like(np.take(xh, [0], axis=axis)),
                           np.cumsum(xh, axis=axis)], axis=axis)
    np.testing.assert_array_equal(with_initial, want)
    np.testing.assert_array_equal(x.cumsum().get(), np.cumsum(xh))
    np.testing.assert_array_equal(simt.diff(x, axis=axis).get(), np.diff(xh, axis=axis))


@pytest.mark.parametrize("shape, axis", [((70_001,), 0), ((3, 40_000), 1), ((50_000, 2), 0),
                                         ((1 << 20,), 0)], ids=str)
def test_long_scans_in_segments_match_numpy(device, rng, shape, axis):
    # Rows too few to fill the device are scanned in segments (totals, their scan, then each
    # segment from its offset): exact for integers, wrapping as NumPy's.
    xh = rng.integers(-2 ** 31, 2 ** 31 - 1, shape, dtype=np.int64).astype(np.int32)
    x = simt.asarray(xh, device=device)
    np.testing.assert_array_equal(simt.cumulative_sum(x, axis=axis).get(),
                                  np.cumsum(xh, axis=axis))
    initial = simt.cumulative_sum(x, axis=axis, include_initial=True, dtype=np.int32).get()
    np.testing.assert_array_equal(np.take(initial, 0, axis=axis), 0)
    np.testing.assert_array_equal(np.delete(initial, 0, axis=axis),
                                  np.cumsum(xh, axis=axis, dtype=np.int32))
    signs = np.where(rng.random(shape) < 0.5, -1, 1).astype(np.int8)
    np.testing.assert_array_equal(simt.cumulative_prod(simt.asarray(signs, device=device),
                                                       axis=axis).get(),
                                  np.cumprod(signs, axis=axis))
    fh = rng.random(shape).astype(np.float32)
    want = np.cumsum(fh.astype(np.float64), axis=axis)
    np.testing.assert_allclose(simt.cumulative_sum(simt.asarray(fh, device=device),
                                                   axis=axis).get(), want, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((5000,), None), ((300, 7), 0), ((7, 3000), 1),
                                        ((4, 5, 600), (0, 2)), ((64, 64), (0, 1))])
def test_var_reads_each_element_once_and_stays_two_pass_accurate(device, rng, dtype, shape,
                                                                 axis):
    """var/std sum the squared deviations in one reduction (each result's own mean read
    by the reduction): data far from zero keep two-pass accuracy, NaNs propagate to
    their results only, and ddof/correction, keepdims and out= hold."""
    xh = (1e4 + rng.standard_normal(shape)).astype(dtype)
    xh.reshape(-1)[3] = np.nan
    x = simt.asarray(xh, device=device)
    x64 = xh.astype(np.float64)
    rtol = 1e-3 if dtype == np.float32 else 1e-9
    for ddof in (0, 1):
        for keepdims in (False, True):
            got = simt.var(x, axis=axis, ddof=ddof, keepdims=keepdims)
            want = np.var(x64, axis=axis, ddof=ddof, keepdims=keepdims)
            assert got.dtype == dtype and got.shape == np.shape(want)
            np.testing.assert_allclose(got.get(), want, rtol=rtol)
    got = simt.std(x, axis=axis, correction=1)
    np.testing.assert_allclose(got.get(), np.std(x64, axis=axis, ddof=1), rtol=rtol)
    out = simt.empty(np.shape(np.var(xh, axis=axis)), dtype, device)
    assert simt.var(x, axis=axis, out=out) is out
    np.testing.assert_allclose(out.get(), np.var(x64, axis=axis), rtol=rtol)


@pytest.mark.parametrize("axis", [0, 1])
def test_arg_reductions_of_large_matrices_over_threads(device, rng, axis):
    """argmin/argmax along one axis of a matrix of 4 MiB and more (the cpu device splits
    the other axis between its threads): NumPy's indices, the first of ties and the
    first NaN winning."""
    xh = rng.integers(-20, 20, (1100, 1001)).astype(np.float32)  # many ties
    xh.reshape(-1)[::1013] = np.nan
    x = simt.asarray(xh, device=device)
    for name in ("argmin", "argmax"):
        np.testing.assert_array_equal(getattr(simt, name)(x, axis=axis).get(),
                                      getattr(np, name)(xh, axis=axis))
