"""simt.isin (the array API's, 2025.12, and NumPy's) against np.isin, on every device."""

import numpy as np
import pytest

import simt

from array_helpers import assert_exact, random_numbers


@pytest.mark.parametrize("dtype1, dtype2", [(np.int8, np.int8), (np.int16, np.uint32),
                                            (np.uint64, np.int64), (np.float32, np.float32),
                                            (np.int32, np.float64), (np.bool_, np.bool_)])
def test_isin_is_numpys(dtype1, dtype2, device, rng):
    if np.float64 in (dtype1, dtype2, np.result_type(dtype1, dtype2)) and \
            not device.supports_float64:
        pytest.skip(f"{device.id} has no float64")
    x1 = random_numbers(rng, (7, 9), dtype1, bound=15)
    x2 = random_numbers(rng, (13,), dtype2, bound=15)
    if np.dtype(dtype1).kind == "f":
        x1 = np.round(x1)
        x2 = np.round(x2)
    a1, a2 = simt.asarray(x1, device=device), simt.asarray(x2, device=device)
    assert_exact(simt.isin(a1, a2), np.isin(x1, x2), "isin")
    assert_exact(simt.isin(a1, a2, invert=True), np.isin(x1, x2, invert=True), "invert")
    assert_exact(simt.isin(a1[:, ::2], a2.reshape(1, 13)),  # a strided view, a 2-D x2
                 np.isin(x1[:, ::2], x2), "view")


def test_isin_of_nan_zeros_and_scalars(device):
    f = np.array([np.nan, -0.0, 1.5, 2.0, np.inf], np.float32)
    g = np.array([0.0, np.nan, 2.0, np.inf], np.float32)
    a, b = simt.asarray(f, device=device), simt.asarray(g, device=device)
    assert_exact(simt.isin(a, b), np.isin(f, g), "NaN in nothing, -0.0 == 0.0")
    assert_exact(simt.isin(a, 2.0), np.isin(f, 2.0), "scalar x2")
    assert_exact(simt.isin(2, b), np.isin(2, g), "scalar x1")
    empty = simt.asarray(np.array([], np.float32), device=device)
    assert_exact(simt.isin(a, empty), np.isin(f, []), "empty x2")
    assert_exact(simt.isin(a, empty, invert=True), np.isin(f, [], invert=True), "invert")
    assert_exact(simt.isin(empty, a), np.isin(np.array([], np.float32), f), "empty x1")


def test_isin_of_complex_values(device, rng):
    z = (rng.integers(-2, 3, 40) + 1j * rng.integers(-2, 3, 40)).astype(np.complex64)
    w = np.array([1 + 1j, -2, 0, complex(np.nan, 1)], np.complex64)
    a, b = simt.asarray(z, device=device), simt.asarray(w, device=device)
    assert_exact(simt.isin(a, b), np.isin(z, w), "complex")


def test_isin_numpys_keywords_and_errors(device):
    a = simt.asarray(np.arange(6), device=device)
    b = simt.asarray(np.array([1, 4]), device=device)
    want = np.isin(np.arange(6), [1, 4], invert=True)
    assert_exact(simt.isin(a, b, False, True), want, "positional invert")
    assert_exact(simt.isin(a, b, assume_unique=True, invert=True, kind="table"), want, "kind")
    with pytest.raises(ValueError, match="simt.isin: kind must be"):
        simt.isin(a, b, kind="hash")
    with pytest.raises(TypeError, match="simt.isin: x1 or x2 must be a simt array"):
        simt.isin([1], [2])
    with pytest.raises(TypeError, match="simt.isin: x2 must be a simt array"):
        simt.isin(a, [1, 4])
    other = [d for d in simt.devices() if d != device]
    if other:
        with pytest.raises(ValueError, match="simt.isin: x1 is on"):
            simt.isin(a, simt.asarray(np.array([1]), device=other[0]))
