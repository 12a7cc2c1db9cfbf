"""NumPy's protocols on simt arrays, on every device, against NumPy's values: ufuncs and
NumPy functions run on the array's device and give simt arrays (as CuPy's do);
numpy.asarray views host-visible memory without copying and refuses device memory.
Inputs are fresh random values each run (the `rng` fixture)."""

import numpy as np
import pytest

import simt


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def on(device, host):
    return simt.to_device(host, device=device)


def check(result, expected, device, rtol=1e-6):
    assert isinstance(result, simt.Array), type(result)
    assert result.device == device
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_allclose(result.get(), expected, rtol=rtol)


def test_ufunc_call_runs_on_the_device(device, rng):
    x = random_array(rng, (5, 7), np.float32)
    y = random_array(rng, (7,), np.float32)
    a, b = on(device, x), on(device, y)
    check(np.sin(a), np.sin(x), device)
    check(np.maximum(a, b), np.maximum(x, y), device)
    check(np.float32(2) * a, np.float32(2) * x, device)  # a NumPy scalar's operator
    i = random_array(rng, (6,), np.int8)
    check(np.maximum(on(device, i), 3), np.maximum(i, 3), device)


def test_ufunc_out(device, rng):
    x = random_array(rng, (4, 6), np.float32)
    a, out = on(device, x), simt.zeros((4, 6), np.float32, device=device)
    result = np.add(a, 1, out=out)
    assert result is out
    check(out, x + 1, device)
    np.add(a, a, out=(a,))  # the protocol's tuple form, in place
    check(a, x + x, device)
    with pytest.raises(TypeError, match="NumPy array"):
        np.add(a, 1, out=np.empty((4, 6), np.float32))


def test_reductions(device, rng):
    if not all(hasattr(simt, name) for name in ("sum", "max", "any")):
        pytest.skip("simt's reductions are not there yet")
    x = random_array(rng, (5, 3), np.float64)
    a = on(device, x)
    check(np.add.reduce(a), np.add.reduce(x), device)  # ufunc.reduce's axis: 0
    check(np.maximum.reduce(a, axis=None), np.maximum.reduce(x, axis=None), device)
    check(np.logical_or.reduce(a > 0, axis=1, keepdims=True),
          np.logical_or.reduce(x > 0, axis=1, keepdims=True), device)
    out = simt.zeros(3, device=device)
    assert np.add.reduce(a, out=out) is out
    check(out, x.sum(axis=0), device)
    check(np.sum(a, axis=0), np.sum(x, axis=0), device)  # __array_function__


def test_numpy_functions_call_simt(device, rng):
    x = random_array(rng, (3, 4), np.float32)
    a = on(device, x)
    assert (np.shape(a), np.ndim(a), np.size(a), np.size(a, 1)) == ((3, 4), 2, 12, 4)
    check(np.where(a > 0, a, -a), np.where(x > 0, x, -x), device)
    if hasattr(simt, "concatenate"):
        check(np.concatenate([a, a]), np.concatenate([x, x]), device)
    assert not hasattr(simt, "piecewise")
    with pytest.raises(TypeError, match="piecewise"):
        np.piecewise(a, [a > 0], [1, 0])


def test_unsupported_and_numpy_inputs_raise(device, rng):
    x = random_array(rng, (4,), np.float64)
    a = on(device, x)
    for call in (lambda: np.divmod(a, 2), lambda: np.add.accumulate(a),
                 lambda: np.multiply.outer(a, a), lambda: np.matmul(a, a, axes=[0, 0, ()])):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError, match="copy it to the device"):
        np.matmul(a, x)
    with pytest.raises(TypeError, match="casting="):
        np.add(a, 1, casting="unsafe")
    with pytest.raises(TypeError, match="copy it to the device"):
        np.add(a, x)
    with pytest.raises(TypeError, match="copy it to the device"):
        np.sin(x, out=(a,))
    with pytest.raises(TypeError, match="NumPy array"):
        x + a  # NumPy's operator calls np.add


def test_ufunc_dtype_converts_the_arrays_first(device, rng):
    # As NumPy: the loop of that dtype, so int8 + int8 does not wrap in int16.
    x, y = random_array(rng, (2, 50), np.int8) * np.int8(2)
    a, b = on(device, x), on(device, y)
    check(np.add(a, b, dtype=np.int16), np.add(x, y, dtype=np.int16), device)
    check(np.multiply(a, 3, dtype=np.float32), np.multiply(x, 3, dtype=np.float32), device)


def test_generalized_ufuncs_run_on_the_device(device, rng):
    # numpy.matmul (what Dask's `@` calls on each block) and numpy.vecdot.
    x, y = random_array(rng, (4, 6), np.float64), random_array(rng, (6, 3), np.float64)
    a, b = on(device, x), on(device, y)
    check(np.matmul(a, b), x @ y, device, rtol=1e-12)
    check(np.vecdot(a, a), np.vecdot(x, x), device, rtol=1e-12)
    out = simt.full((4, 3), np.nan, device=device)
    assert np.matmul(a, b, out=out) is out
    np.testing.assert_allclose(out.get(), x @ y, rtol=1e-12)
    with pytest.raises(ValueError, match="out has shape"):
        np.matmul(a, b, out=simt.empty((3, 4), device=device))


def test_asarray(device, rng):
    x = random_array(rng, (3, 5), np.float32)
    a = on(device, x)
    if not a._impl.host_visible:
        for convert in (np.asarray, np.array, lambda v: np.asarray([v, v])):
            with pytest.raises(TypeError, match=r"\.get\(\)"):
                convert(a)
        with pytest.raises(TypeError, match=r"\.get\(\)"):
            a.__array__()
        return
    view = np.asarray(a)
    assert view.ctypes.data == a._impl.data_ptr  # no copy
    view[1, 2] = 42
    assert a.get()[1, 2] == 42
    assert np.asarray(a[:, 1:]).ctypes.data == a[:, 1:]._impl.data_ptr
    copy = np.array(a)
    copy[0, 0] = -1
    assert a.get()[0, 0] == x[0, 0]
    np.testing.assert_array_equal(np.asarray(a, dtype=np.float64), a.get().astype(np.float64))
    assert a.__array__().ctypes.data == a._impl.data_ptr
    with pytest.raises(ValueError, match="copy=False"):
        a.__array__(np.float64, copy=False)
