"""Assertions the array tests share."""

import numpy as np

import simt


def assert_exact(got, expected, what=""):
    """got (a simt array) is NumPy's `expected`: dtype, shape, and every bit (NaN payloads
    aside; the sign of zero counted)."""
    assert isinstance(got, simt.Array), f"{what}: got {type(got).__name__}, not simt.Array"
    host = got.get()
    expected = np.asarray(expected)
    assert host.dtype == expected.dtype, f"{what}: dtype {host.dtype}, NumPy's {expected.dtype}"
    assert host.shape == expected.shape, f"{what}: shape {host.shape}, NumPy's {expected.shape}"
    parts = [(host.real, expected.real), (host.imag, expected.imag)] \
        if host.dtype.kind == "c" else [(host, expected)]
    for g, e in parts:
        if g.dtype.kind == "f":
            bits = np.dtype(f"u{g.dtype.itemsize}")
            both_nan = np.isnan(g) & np.isnan(e)
            bad = ~both_nan & (g.view(bits) != e.view(bits))
        else:
            bad = g != e
        if np.any(bad):
            i = np.argwhere(np.atleast_1d(bad))[:5]
            raise AssertionError(f"{what}: not NumPy's result at {i.tolist()}: simt "
                                 f"{np.atleast_1d(host)[tuple(i.T)]!r}, NumPy "
                                 f"{np.atleast_1d(expected)[tuple(i.T)]!r}")


def random_numbers(rng, shape, dtype, bound=100, scale=1.0):
    """Random values of `dtype`: integers in [-bound, bound] (within the dtype), bools,
    normal floats (and complex parts) times `scale`."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -bound), min(info.max, bound), shape,
                            endpoint=True).astype(dtype)
    values = rng.standard_normal(shape) * scale
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape) * scale
    return values.astype(dtype)


def standard_floor_divide(x, y):
    """What simt's floor_divide (and //) gives: NumPy's, except where an infinity meets a
    finite number, where the array API standard's floor(x / y) replaces NumPy's NaN
    (inf // 2) and -1.0 (1 // -inf)."""
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(all="ignore"):
        out = np.asarray(np.floor_divide(x, y))
        if out.dtype.kind != "f":
            return out
        quotient = np.true_divide(x, y).astype(out.dtype)
        out = np.where(np.isinf(x) & np.isfinite(y), quotient, out)
        out = np.where(np.isfinite(x) & np.isinf(y), np.floor(quotient), out)
    return out.astype(np.result_type(out), copy=False)
