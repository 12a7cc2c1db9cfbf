"""simt.unique_all/unique_counts/unique_inverse/unique_values (the array API: NaNs
distinct) and NumPy's simt.unique against np.unique, on every device."""

import numpy as np
import pytest

import simt

from array_helpers import assert_exact, random_numbers


def expected_unique_all(x, equal_nan=False):
    values, indices, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    return values, indices, inverse.reshape(x.shape), counts


def assert_values(got, expected, what):
    """Sorted unique values: -0.0 and 0.0 are one value, whose sign is that of the
    group's first element in x (NumPy's unique_values may return either)."""
    host = got.get()
    assert host.dtype == expected.dtype and host.shape == expected.shape, what
    assert np.array_equal(host, expected, equal_nan=host.dtype.kind in "fc"), \
        f"{what}: {host!r} is not {expected!r}"


def check_unique_all(device, x):
    a = simt.asarray(x, device=device)
    got = simt.unique_all(a)
    assert type(got).__name__ == "UniqueAllResult"
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    values, indices, inverse, counts = expected_unique_all(x)
    assert_values(got.values, values, f"values of {x.dtype} {x.shape}")
    assert_exact(got.indices, indices, "indices")
    assert_exact(got.inverse_indices, inverse, "inverse_indices")
    assert_exact(got.counts, counts, "counts")
    # The group's value is its first element in x: bit for bit, -0.0 included.
    assert_exact(got.values, x.reshape(-1)[indices], "values are first occurrences")


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.uint64,
                                   np.float16, np.float32, np.float64])
def test_unique_all_matches_numpy(device, rng, dtype):
    if dtype == np.float64 and not device.supports_float64:
        pytest.skip(f"{device.id} has no float64")
    for shape in [(1,), (257,), (40, 53), (3, 4, 5)]:
        x = random_numbers(rng, shape, dtype, bound=12, scale=3).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x = np.round(x)
            x.flat[::7] = np.nan  # distinct values, each its own group
            x.flat[::5] = -0.0
        check_unique_all(device, x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unique_of_complex_values_is_numpys(device, rng, dtype):
    # NumPy's lexicographic order (real, then imaginary parts; a NaN part last), which
    # the array API leaves open; a value with a NaN part is distinct (a NaN), or one
    # value with NumPy's equal_nan; -0.0 parts equal 0.0
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip(f"{device.id} has no float64")
    parts = np.array([0.0, -0.0, 1.0, -2.0, 3.0, np.nan])
    x = (rng.choice(parts, 300) + 1j * rng.choice(parts, 300)).astype(dtype)
    x[:4] = [complex(np.nan, 1.0), complex(1.0, np.nan), complex(np.nan, np.nan), 0j]
    check_unique_all(device, x.reshape(20, 15))
    a = simt.asarray(x, device=device)
    for equal_nan in (True, False):
        got = simt.unique(a, return_index=True, return_inverse=True, return_counts=True,
                          equal_nan=equal_nan)
        expected = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                             equal_nan=equal_nan)
        assert_values(got[0], expected[0], f"unique values, equal_nan={equal_nan}")
        for g, e, what in zip(got[1:], expected[1:], ("index", "inverse", "counts")):
            assert_exact(g, e, f"{what}, equal_nan={equal_nan}")


def test_unique_of_large_arrays(device, rng):
    x = rng.integers(0, 1000, 100_000).astype(np.int32)
    check_unique_all(device, x)
    floats = rng.standard_normal(70_001).astype(np.float32)
    check_unique_all(device, floats)


def test_unique_all_of_a_view(device, rng):
    x = rng.integers(0, 9, (30, 40)).astype(np.int16)
    a = simt.asarray(x, device=device)
    for view, host in ((a[::2, 1::3], x[::2, 1::3]), (a.T, x.T)):
        got = simt.unique_all(view)
        for g, e in zip(got, expected_unique_all(host)):
            assert_exact(g, e, "view")


def test_unique_counts_inverse_values(device, rng):
    x = rng.integers(-3, 4, (25, 9)).astype(np.float32)
    x[3, :4] = np.nan
    a = simt.asarray(x, device=device)
    values, _, inverse, counts = expected_unique_all(x)
    found = simt.unique_counts(a)
    assert found._fields == ("values", "counts")
    assert_values(found.values, values, "unique_counts values")
    assert_exact(found.counts, counts, "unique_counts counts")
    found = simt.unique_inverse(a)
    assert found._fields == ("values", "inverse_indices")
    assert_exact(found.inverse_indices, inverse, "unique_inverse")
    # values[inverse] rebuilds x.
    rebuilt = found.values.get()[found.inverse_indices.get()]
    assert np.array_equal(rebuilt, x, equal_nan=True)
    assert_values(simt.unique_values(a), values, "unique_values")
    assert np.isnan(values).sum() == 4  # NaNs distinct: the reference is the right one


def test_unique_of_empty_and_0d(device):
    a = simt.asarray(np.zeros((0, 3), np.float32), device=device)
    got = simt.unique_all(a)
    assert_exact(got.values, np.zeros(0, np.float32), "values")
    assert_exact(got.indices, np.zeros(0, np.int64), "indices")
    assert_exact(got.inverse_indices, np.zeros((0, 3), np.int64), "inverse")
    assert_exact(got.counts, np.zeros(0, np.int64), "counts")
    got = simt.unique_all(simt.asarray(np.int8(5), device=device))
    assert_exact(got.values, np.array([5], np.int8), "0-d values")
    assert_exact(got.inverse_indices, np.array(0), "0-d inverse")


@pytest.mark.parametrize("equal_nan", [True, False])
def test_numpy_unique(device, rng, equal_nan):
    x = rng.integers(0, 6, (20, 11)).astype(np.float32)
    x.flat[::13] = np.nan
    a = simt.asarray(x, device=device)
    assert_values(simt.unique(a, equal_nan=equal_nan), np.unique(x, equal_nan=equal_nan),
                  "unique")
    got = simt.unique(a, return_index=True, return_inverse=True, return_counts=True,
                      equal_nan=equal_nan)
    expected = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                         equal_nan=equal_nan)
    assert len(got) == 4
    assert_values(got[0], expected[0], "unique values")
    for g, e, what in zip(got[1:], expected[1:], ("index", "inverse", "counts")):
        assert_exact(g, e, what)
    values, counts = simt.unique(a, return_counts=True, equal_nan=equal_nan)
    assert_exact(counts, np.unique(x, return_counts=True, equal_nan=equal_nan)[1], "counts")


def test_unique_errors(device):
    with pytest.raises(TypeError, match="simt.unique_all: x must be a simt array"):
        simt.unique_all([1, 2])
    with pytest.raises(TypeError, match="simt.unique: complex arrays"):  # no row order
        simt.unique(simt.asarray(np.ones((3, 2), np.complex64), device=device), axis=0)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        simt.unique(simt.asarray(np.ones((2, 2)), device=device), axis=2)
    with pytest.raises(TypeError, match="simt.unique: axis must be an int"):
        simt.unique(simt.asarray(np.ones((2, 2)), device=device), axis=1.0)


@pytest.mark.parametrize("shape, axis", [((40, 3), 0), ((40, 3), 1), ((4, 30, 2), 1),
                                         ((5, 4, 6), -1), ((9,), 0), ((3, 0), 0), ((0, 3), 0),
                                         ((2, 0, 3), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_])
def test_unique_sub_arrays_along_an_axis(device, rng, shape, axis, dtype):
    # Few distinct values, so rows repeat; NaN rows are each distinct (NumPy's rule), and
    # -0.0 equals 0.0.
    x = rng.integers(-1, 2, shape).astype(dtype)
    if dtype == np.float32 and x.size:
        x.flat[::7] = np.nan
        x.flat[1::5] = -0.0
    a = simt.asarray(x, device=device)
    got = simt.unique(a, axis=axis, return_index=True, return_inverse=True,
                      return_counts=True)
    expected = np.unique(x, axis=axis, return_index=True, return_inverse=True,
                         return_counts=True)
    assert_values(got[0], expected[0], "unique values")
    for g, e, what in zip(got[1:], expected[1:], ("index", "inverse", "counts")):
        assert_exact(g, e, what)
    assert_values(simt.unique(a, axis=axis), np.unique(x, axis=axis), "unique values")
