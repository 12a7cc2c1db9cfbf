"""repr, str and iteration of simt arrays, against NumPy's on every device.

repr(a) is NumPy's repr of a's values with ``device='...'`` as one more keyword after
NumPy's (shape=, dtype=), on the last line or, past the linewidth, on a line of its own;
str(a) is NumPy's str. Inputs are fresh random values each run (the `rng` fixture).
"""

import re

import numpy as np
import pytest

import simt
from simt._array_api import _printing

DTYPES = [np.bool_, np.int8, np.float32, np.float64, np.complex64]
SHAPES = [(), (5,), (3, 4), (0,), (0, 3), (2, 3, 2)]


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)
    values = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return np.asarray(values).astype(dtype)


_KEYWORDS = re.compile(r",\s+((?:shape=\([0-9, ]*\)(?:, )?)?(?:dtype=\w+)?)\)\Z")


def expected_repr(host, device_id):
    """NumPy's repr of `host` with the device after NumPy's keywords: on the last line if
    it fits the linewidth, else on a line of its own indented under 'array('."""
    text = np.array_repr(host)
    found = _KEYWORDS.search(text)
    values = text[:found.start()] if found else text[:-1]
    keywords = (found.group(1) + ", " if found else "") + f"device='{device_id}')"
    last_line = values.rsplit("\n", 1)[-1] + ","
    if len(last_line) + 1 + len(keywords) > np.get_printoptions()["linewidth"]:
        return values + ",\n      " + keywords
    return values + ", " + keywords


def test_repr_literal(device):
    a = simt.to_device(np.array([1.0, 2.0]), device=device)
    assert repr(a) == f"array([1., 2.], device='{device.id}')"
    b = simt.to_device(np.array([1, 2], np.int8), device=device)
    assert repr(b) == f"array([1, 2], dtype=int8, device='{device.id}')"
    c = simt.to_device(np.zeros((0, 3), np.float32), device=device)
    assert repr(c) == f"array([], shape=(0, 3), dtype=float32, device='{device.id}')"
    d = simt.to_device(np.array(True), device=device)
    assert repr(d) == f"array(True, device='{device.id}')"
    assert str(d) == "True" and str(a) == "[1. 2.]"
    e = simt.to_device(np.array([[1, 2], [3, 4]], np.int8), device=device)
    assert repr(e) == (f"array([[1, 2],\n"
                       f"       [3, 4]], dtype=int8, device='{device.id}')")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_repr_and_str_as_numpy(device, rng, dtype):
    for shape in SHAPES:
        host = random_array(rng, shape, dtype)
        a = simt.to_device(host, device=device)
        assert repr(a) == expected_repr(host, device.id), (shape, host)
        assert str(a) == str(host), (shape, host)


def test_device_keyword_wraps_as_numpy_keywords(device):
    # The last line has room for NumPy's dtype= but not for the device as well.
    host = np.full(8, 1.25, np.float32)
    text = np.array_repr(host)
    assert "\n" not in text and len(text) + len(f", device='{device.id}'") > 75
    a = simt.to_device(host, device=device)
    assert repr(a) == text[:text.index(", dtype")] + (
        f",\n      dtype=float32, device='{device.id}')")
    assert repr(a) == expected_repr(host, device.id)


@pytest.mark.parametrize("shape", [(2000,), (40, 50), (3, 400, 5), (7, 2, 90)])
def test_summarized_as_numpy(device, rng, shape):
    host = random_array(rng, shape, np.float32)
    a = simt.to_device(host, device=device)
    assert repr(a) == expected_repr(host, device.id)
    assert str(a) == str(host)


def test_summarized_views_in_small_pieces(device, rng, monkeypatch):
    # Corners copied in many small get()s: strided, reversed and long-strided views.
    monkeypatch.setattr(_printing, "_PIECE_BYTES", 48)
    host = random_array(rng, (30, 70), np.int8)
    a = simt.to_device(host, device=device)
    for key in [(slice(None), slice(None)), (slice(None, None, -1), slice(1, None, 2)),
                (slice(None, None, 2), slice(None, None, -3)), (5, slice(None))]:
        with np.printoptions(threshold=20):
            assert repr(a[key]) == expected_repr(host[key], device.id), key
            assert str(a[key]) == str(host[key]), key


def test_print_options_apply(device, rng):
    host = random_array(rng, (6, 9), np.float64)
    a = simt.to_device(host, device=device)
    options = [dict(precision=3, linewidth=40), dict(threshold=10, edgeitems=2),
               dict(threshold=5, edgeitems=0), dict(suppress=True, floatmode="fixed"),
               dict(threshold=100000)]
    for option in options:
        with np.printoptions(**option):
            assert repr(a) == expected_repr(host, device.id), option
            assert str(a) == str(host), option


def test_iteration_over_first_axis_gives_views(device, rng):
    host = random_array(rng, (4, 3), np.float32)
    a = simt.to_device(host, device=device)
    rows = list(a)
    assert len(rows) == len(a) == 4
    for row, expected in zip(rows, host):
        assert isinstance(row, simt.Array) and row.shape == (3,) and row.device == a.device
        np.testing.assert_array_equal(row.get(), expected)
    rows[2][1] = 7.5  # a view: the write is a's
    assert a.get()[2, 1] == 7.5
    items = list(simt.to_device(host[:, 1], device=device))
    assert [item.shape for item in items] == [()] * 4
    np.testing.assert_array_equal([item.get() for item in items], host[:, 1])
    backwards = list(a[::-2])
    np.testing.assert_array_equal(np.stack([r.get() for r in backwards]), a.get()[::-2])
    assert list(simt.to_device(np.zeros((0, 3)), device=device)) == []


def test_iteration_over_a_0d_array_raises(device):
    a = simt.to_device(np.array(1.5), device=device)
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(a)
