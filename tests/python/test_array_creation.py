"""The array namespace's creation functions (arange, linspace, eye, full/ones/zeros/empty
and their _like forms, asarray, meshgrid, tril, triu, asnumpy, ascontiguousarray) against
NumPy's, on every device: values exact, dtypes and shapes NumPy's."""

import numpy as np
import pytest

import simt


def check(result, expected):
    """`result` is a simt array with exactly NumPy's `expected`: dtype, shape, values."""
    assert isinstance(result, simt.Array), type(result)
    expected = np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    np.testing.assert_array_equal(result.get(), expected)


def other_device(device):
    found = [d for d in simt.devices() if d != device]
    if not found:
        pytest.skip("needs a second device")
    return found[0]


# --- empty, zeros, ones, full and the _like forms ---------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), 7, (3, 0, 2), (3, 4)])
def test_filled_arrays_match_numpy(device, shape):
    check(simt.zeros(shape, device=device), np.zeros(shape))
    check(simt.ones(shape, dtype=np.int8, device=device), np.ones(shape, np.int8))
    check(simt.ones(shape, dtype=bool, device=device), np.ones(shape, bool))
    check(simt.full(shape, 2.5, device=device), np.full(shape, 2.5))
    check(simt.full(shape, -3, device=device), np.full(shape, -3))
    check(simt.full(shape, True, device=device), np.full(shape, True))
    check(simt.full(shape, 1 - 2j, dtype=np.complex64, device=device),
          np.full(shape, 1 - 2j, np.complex64))
    empty = simt.empty(shape, device=device)
    assert empty.dtype == np.float64 and empty.shape == np.empty(shape).shape
    assert empty.device == device


def test_filled_arrays_keep_the_positional_forms_and_order(device):
    # Existing code calls simt.empty(shape, dtype, device) and simt.full(n, v, dtype).
    a = simt.empty((2, 3), np.float32, device)
    assert a.dtype == np.float32 and a.device == device
    check(simt.full(5, -7, np.int64, device), np.full(5, -7, np.int64))
    check(simt.zeros(4, np.uint16, device), np.zeros(4, np.uint16))
    f = simt.ones((3, 4), dtype=np.float32, device=device, order="F")
    assert f.strides == np.ones((3, 4), np.float32, order="F").strides
    check(f, np.ones((3, 4), np.float32))
    with pytest.raises(OverflowError):
        simt.full(3, 300, dtype=np.int8, device=device)  # as numpy.full


def test_full_takes_array_fill_values(device, rng):
    value = rng.integers(-50, 50, size=3).astype(np.int32)
    check(simt.full((2, 3), simt.asarray(value, device=device)), np.full((2, 3), value))
    zero_d = simt.asarray(np.float32(rng.standard_normal()), device=device)
    check(simt.full((4, 2), zero_d), np.full((4, 2), zero_d.get()))
    check(simt.full((2, 3), value, device=device), np.full((2, 3), value))


def test_like_forms_keep_shape_dtype_device_and_layout(device, rng):
    host = rng.standard_normal((3, 5)).astype(np.float32)
    x = simt.to_device(host, device=device)
    fortran = simt.to_device(np.asfortranarray(host), device=device)
    for make, fill in [(simt.zeros_like, 0), (simt.ones_like, 1)]:
        check(make(x), np.full_like(host, fill))
        check(make(x, dtype=np.int16), np.full_like(host, fill, dtype=np.int16))
        assert make(x).device == device
        assert make(fortran).strides == np.zeros_like(np.asfortranarray(host)).strides
        check(make(x, shape=(2,)), np.full((2,), fill, np.float32))
    check(simt.full_like(x, 2.75), np.full_like(host, 2.75))
    ints = simt.to_device(rng.integers(0, 9, (4,)), device=device)
    check(simt.full_like(ints, 2.7), np.full_like(ints.get(), 2.7))  # 2, as NumPy
    like = simt.empty_like(fortran, dtype=np.int64)
    assert like.shape == (3, 5) and like.dtype == np.int64 and like.device == device
    assert like.strides == (8, 24)
    assert simt.empty_like(host).shape == (3, 5)  # a NumPy prototype
    check(simt.zeros_like(x[:, ::2]), np.zeros((3, 3), np.float32))


# --- arange -----------------------------------------------------------------------------------

def test_arange_integers_match_numpy(device, rng):
    start, stop = sorted(int(v) for v in rng.integers(-1000, 1000, size=2))
    step = int(rng.integers(1, 9))
    for args in [(stop,), (start, stop), (start, stop, step), (stop, start, -step),
                 (start, start), (stop, start), (0,), (True, 3)]:
        check(simt.arange(*args, device=device), np.arange(*args))
    check(simt.arange(start, stop, step, dtype=np.int32, device=device),
          np.arange(start, stop, step, dtype=np.int32))
    check(simt.arange(0, 300, 100, dtype=np.int8, device=device),
          np.arange(0, 300, 100, dtype=np.int8))  # wraps, as NumPy
    check(simt.arange(10, 0, -3, dtype=np.uint8, device=device),
          np.arange(10, 0, -3, dtype=np.uint8))
    big = 2 ** 63 + int(rng.integers(0, 1000))
    check(simt.arange(big, big - 9, -2, dtype=np.uint64, device=device),
          np.arange(big, big - 9, -2, dtype=np.uint64))
    check(simt.arange(0.5, 7, 1.5, dtype=np.int64, device=device),
          np.arange(0.5, 7, 1.5, dtype=np.int64))  # NumPy's: 0 + i * (int(2.0) - 0)
    check(simt.arange(0, 2, dtype=bool, device=device), np.arange(0, 2, dtype=bool))


def test_arange_floats_match_numpy_bit_for_bit(device, rng):
    start = float(rng.standard_normal() * 10)
    step = float(rng.uniform(0.01, 1)) * rng.choice([-1, 1])
    stop = start + step * float(rng.uniform(0, 5000))
    check(simt.arange(start, stop, step, device=device), np.arange(start, stop, step))
    check(simt.arange(start, stop, step, dtype=np.float32, device=device),
          np.arange(start, stop, step, dtype=np.float32))
    check(simt.arange(start, stop, step, dtype=np.float16, device=device),
          np.arange(start, stop, step, dtype=np.float16))
    check(simt.arange(0.1, 1.3, 0.2, device=device), np.arange(0.1, 1.3, 0.2))
    check(simt.arange(5.0, device=device), np.arange(5.0))
    check(simt.arange(np.float32(0), 3, device=device), np.arange(np.float32(0), 3))
    check(simt.arange(1, 2, 0.25, device=device), np.arange(1, 2, 0.25))
    check(simt.arange(stop, start, step, device=device), np.arange(stop, start, step))


def test_arange_rejects_what_numpy_rejects(device):
    with pytest.raises(ZeroDivisionError):
        simt.arange(0, 5, 0, device=device)
    with pytest.raises(TypeError, match="at most 2"):
        simt.arange(0, 5, dtype=bool, device=device)
    with pytest.raises(TypeError, match="complex"):
        simt.arange(0, 1j, device=device)
    with pytest.raises(ValueError, match="not finite"):
        simt.arange(0, float("inf"), device=device)
    with pytest.raises(TypeError, match="must be a number"):
        simt.arange([3], device=device)


# --- linspace ---------------------------------------------------------------------------------

def test_linspace_matches_numpy_bit_for_bit(device, rng):
    start, stop = (float(v) for v in rng.standard_normal(2) * 100)
    num = int(rng.integers(3, 3000))
    for kwargs in [{}, {"endpoint": False}]:
        check(simt.linspace(start, stop, num, device=device, **kwargs),
              np.linspace(start, stop, num, **kwargs))
    for n in (0, 1, 2):
        for endpoint in (True, False):
            check(simt.linspace(start, stop, n, endpoint=endpoint, device=device),
                  np.linspace(start, stop, n, endpoint=endpoint))
    check(simt.linspace(start, stop, num, dtype=np.float32, device=device),
          np.linspace(start, stop, num, dtype=np.float32))
    check(simt.linspace(np.float32(start), stop, num, device=device),
          np.linspace(np.float32(start), stop, num))  # computed in float32, as NumPy
    check(simt.linspace(-7, 5, 9, dtype=np.int32, device=device),
          np.linspace(-7, 5, 9, dtype=np.int32))  # floored, as NumPy
    check(simt.linspace(start, -2.5, 7, dtype=np.int64, device=device),
          np.linspace(start, -2.5, 7, dtype=np.int64))  # the endpoint floored too
    check(simt.linspace(0, 5e-324, 10, device=device), np.linspace(0, 5e-324, 10))
    check(simt.linspace(1 + 2j, -3 + 0.5j, 6, device=device),
          np.linspace(1 + 2j, -3 + 0.5j, 6))
    with pytest.raises(ValueError, match="non-negative"):
        simt.linspace(0, 1, -1, device=device)


# --- eye, tril, triu, meshgrid ----------------------------------------------------------------

def test_eye_matches_numpy(device):
    for n_rows, n_cols, k in [(0, None, 0), (1, None, 0), (4, None, 0), (3, 5, 1),
                              (5, 3, -2), (3, 4, 4), (3, 4, -3), (4, 4, -100)]:
        check(simt.eye(n_rows, n_cols, k=k, device=device), np.eye(n_rows, n_cols, k=k))
    check(simt.eye(3, 4, k=1, dtype=np.int32, device=device),
          np.eye(3, 4, k=1, dtype=np.int32))
    check(simt.eye(3, dtype=bool, device=device), np.eye(3, dtype=bool))
    fortran = simt.eye(4, 3, k=-1, device=device, order="F")
    assert fortran.strides == (8, 32)
    check(fortran, np.eye(4, 3, k=-1))


def test_tril_and_triu_match_numpy(device, rng):
    host = rng.integers(-99, 99, size=(2, 4, 6)).astype(np.int32)
    x = simt.to_device(host, device=device)
    inputs = {
        "contiguous": (x, host),
        "reversed": (x[:, ::-1], host[:, ::-1]),
        "fortran": (simt.to_device(np.asfortranarray(host[0]), device=device), host[0]),
    }
    for a, h in inputs.values():
        for k in (-10, -2, 0, 1, 5, 10, 2 ** 40):
            check(simt.tril(a, k=k), np.tril(h, k=k))
            check(simt.triu(a, k=k), np.triu(h, k=k))
    # Beyond int64 (which NumPy's tril does not take): all of x, or none of it.
    check(simt.tril(x, k=2 ** 70), host)
    check(simt.triu(x, k=2 ** 70), np.zeros_like(host))
    flags = simt.to_device(host > 0, device=device)
    check(simt.tril(flags), np.tril(host > 0))
    check(simt.triu(simt.zeros((0, 3), device=device)), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        simt.tril(x[0, 0])


def test_meshgrid_matches_numpy(device, rng):
    hosts = [rng.standard_normal(3), rng.standard_normal(4), rng.standard_normal(2)]
    arrays = [simt.to_device(h, device=device) for h in hosts]
    for indexing in ("xy", "ij"):
        for count in (1, 2, 3):
            found = simt.meshgrid(*arrays[:count], indexing=indexing)
            expected = np.meshgrid(*hosts[:count], indexing=indexing)
            assert isinstance(found, list) and len(found) == count
            for f, e in zip(found, expected):
                check(f, e)
    sparse = simt.meshgrid(*arrays, sparse=True)
    for f, e in zip(sparse, np.meshgrid(*hosts, sparse=True)):
        check(f, e)
    strided = simt.to_device(rng.standard_normal(8), device=device)
    for f, e in zip(simt.meshgrid(strided[::-2], arrays[1]),
                    np.meshgrid(strided.get()[::-2], hosts[1])):
        check(f, e)
    assert simt.meshgrid() == []
    with pytest.raises(ValueError, match="indexing"):
        simt.meshgrid(*arrays, indexing="yx")


# --- asarray, asnumpy, ascontiguousarray ------------------------------------------------------

def test_asarray_converts_numbers_and_lists(device, rng):
    values = rng.integers(-100, 100, size=5).tolist()
    check(simt.asarray(values, device=device), np.asarray(values))
    check(simt.asarray([1.5, -2.5], dtype=np.int32, device=device),
          np.asarray([1.5, -2.5], dtype=np.int32))
    check(simt.asarray(3.25, device=device), np.asarray(3.25))
    check(simt.asarray(True, device=device), np.asarray(True))
    assert simt.asarray(values, device=device).device == device
    with pytest.raises(ValueError, match="copy=False"):
        simt.asarray(values, device=device, copy=False)
    with pytest.raises(TypeError, match="copy"):
        simt.asarray(values, copy="yes")


def test_asarray_of_a_simt_array_copies_only_when_asked(device, rng):
    host = rng.standard_normal((3, 4))
    x = simt.to_device(host, device=device)
    assert simt.asarray(x) is x
    assert simt.asarray(x, dtype=np.float64, device=device, copy=False) is x
    copied = simt.asarray(x, copy=True)
    x.fill(0)
    check(copied, host)
    y = simt.to_device(host, device=device)
    check(simt.asarray(y, dtype=np.float32), host.astype(np.float32))
    check(simt.asarray(y[:, ::-1], dtype=np.int16), host[:, ::-1].astype(np.int16))
    with pytest.raises(ValueError, match="copy=False"):
        simt.asarray(y, dtype=np.float32, copy=False)
    other = other_device(device)
    moved = simt.asarray(y, device=other)
    assert moved.device == other
    check(moved, host)
    with pytest.raises(ValueError, match="copy=False"):
        simt.asarray(y, device=other, copy=False)


def test_asarray_views_numpy_memory_on_the_cpu(rng):
    if "cpu" not in [d.id for d in simt.devices()]:
        pytest.skip("this build has no cpu device (built without the CPU backend)")
    host = rng.standard_normal(6)
    view = simt.asarray(host)
    assert view.device == simt.get_device("cpu")
    host[0] = 42.0
    assert view.get()[0] == 42.0
    assert simt.asarray(host, copy=False).get()[0] == 42.0
    copied = simt.asarray(host, copy=True)
    host[1] = -1.0
    assert copied.get()[1] != -1.0
    check(simt.asarray(host, dtype=np.float32), host.astype(np.float32))


def test_asarray_to_a_device_without_host_memory_copies(device, rng):
    if device.host_accessible:
        pytest.skip("the device reads host memory")
    host = rng.standard_normal(6)
    check(simt.asarray(host, device=device), host)
    with pytest.raises(ValueError):
        simt.asarray(host, device=device, copy=False)


def test_asnumpy_and_ascontiguousarray(device, rng):
    host = rng.standard_normal((4, 6))
    x = simt.to_device(host, device=device)
    got = simt.asnumpy(x[::-1, ::2])
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, host[::-1, ::2])
    assert simt.asnumpy(host) is host
    np.testing.assert_array_equal(simt.asnumpy([1, 2]), [1, 2])
    out = np.full((4, 6), np.nan)
    assert simt.asnumpy(x, out=out) is out
    np.testing.assert_array_equal(out, host)

    assert simt.ascontiguousarray(x) is x
    strided = simt.ascontiguousarray(x[::-1, ::2])
    assert strided.strides == (24, 8)
    check(strided, np.ascontiguousarray(host[::-1, ::2]))
    fortran = simt.to_device(np.asfortranarray(host), device=device)
    check(simt.ascontiguousarray(fortran), host)
    assert simt.ascontiguousarray(fortran).strides == (48, 8)
    check(simt.ascontiguousarray(x, dtype=np.float32), host.astype(np.float32))
    check(simt.ascontiguousarray(simt.asarray(2.5, device=device)),
          np.ascontiguousarray(np.float64(2.5)))  # 1-D, as NumPy


def test_get_keeps_a_views_layout(device, rng):
    """get()/copy_to_host() of an F-ordered view (Numba's reshape(order="F")) is
    F-ordered, as NumPy's copy of it, on every device."""
    host = rng.random(30)
    d = simt.to_device(host, device=device).reshape(5, 6, order="F")
    got = d.copy_to_host()
    want = host.reshape(5, 6, order="F")
    assert got.flags.f_contiguous and got.strides == want.strides
    np.testing.assert_array_equal(got, want)
    rows = simt.to_device(rng.random((6, 8)), device=device)[::2, ::-1]
    np.testing.assert_array_equal(rows.get(), rows.get().copy())


def test_like_forms_keep_a_views_memory_order_as_numpy(device):
    """order 'K' of a strided view: NumPy keeps its axes' memory order (F for a strided
    view of an F array or a transposed view), in the two orders simt's arrays have."""
    cases = [(np.zeros((10, 12), order="F"), (slice(None, None, 2), slice(None, None, 2))),
             (np.zeros((10, 12)), (slice(None, None, 2), slice(None, None, 3))),
             (np.zeros((4, 6, 8), order="F"), (slice(None), slice(None, None, 2)))]
    for base, key in cases:
        view = simt.to_device(base, device=device)[key]
        for x, host in ((view, base[key]), (view.T, base[key].T)):
            assert simt.empty_like(x).strides == np.empty_like(host).strides, host.strides
