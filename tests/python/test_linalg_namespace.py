"""simt.linalg (the array API's linalg extension) on every device against numpy.linalg on
fresh random inputs: the array-operation functions everywhere, the decompositions on the
cpu device (NotImplementedError naming the device elsewhere), batches, errors."""

import numpy as np
import pytest

import simt
from array_helpers import random_numbers

DECOMPOSITIONS = ["cholesky", "inv", "qr", "svd", "svdvals", "eigh", "eigvalsh", "det",
                  "slogdet", "pinv", "matrix_rank"]


def _on(device, array):
    return simt.asarray(array, device=device)


def _check(got, want, what=""):
    assert isinstance(got, simt.Array), f"{what}: {type(got).__name__}"
    host = got.get()
    want = np.asarray(want)
    assert host.dtype == want.dtype, f"{what}: dtype {host.dtype}, NumPy's {want.dtype}"
    assert host.shape == want.shape, f"{what}: shape {host.shape}, NumPy's {want.shape}"
    real = np.finfo(want.dtype).dtype if want.dtype.kind in "fc" else None
    tol = 0 if real is None else (2e-5 if real == np.float32 else 1e-11)
    scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(host, want, rtol=tol, atol=tol * scale, err_msg=what)


def _spd(rng, shape, dtype):
    """Random Hermitian positive-definite matrices (well conditioned)."""
    a = random_numbers(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


# --- on every device --------------------------------------------------------------------------

def test_products_are_the_namespace_s():
    for name in ("matmul", "tensordot", "vecdot", "matrix_transpose", "outer"):
        assert getattr(simt.linalg, name) is getattr(simt, name)


@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, 3, 0.5])
@pytest.mark.parametrize("axis", [None, -1, 0, (0, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_vector_norm(device, rng, ord, axis, dtype):
    a = random_numbers(rng, (3, 4, 5), dtype)
    a[0, 0, 0] = 0  # ord 0 counts the nonzeros
    x = _on(device, a)
    for keepdims in (False, True):
        _check(simt.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord),
               np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord),
               f"ord={ord} axis={axis} keepdims={keepdims}")


def test_vector_norm_of_integers_and_views(device, rng):
    a = random_numbers(rng, (6, 7), np.int32)
    x = _on(device, a)
    _check(simt.linalg.vector_norm(x), np.linalg.vector_norm(a), "int32")
    f = random_numbers(rng, (6, 7), np.float64)
    y = _on(device, f)
    _check(simt.linalg.vector_norm(y[::2, ::-3], axis=0, ord=1),
           np.linalg.vector_norm(f[::2, ::-3], axis=0, ord=1), "strided view")


@pytest.mark.parametrize("ord", ["fro", 1, -1, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_matrix_norm(device, rng, ord, dtype):
    a = random_numbers(rng, (2, 3, 5, 4), dtype)
    x = _on(device, a)
    for keepdims in (False, True):
        _check(simt.linalg.matrix_norm(x, ord=ord, keepdims=keepdims),
               np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims), f"ord={ord}")


@pytest.mark.parametrize("ord, axis", [(None, None), (None, 1), (1, None), (np.inf, None),
                                       ("fro", (0, 1)), (1, (1, 0)), (-np.inf, (2, 0)),
                                       (3, -1), (None, (0, 2))])
def test_norm_as_numpy(device, rng, ord, axis):
    shape = (5, 4) if axis is None and ord is not None else (5, 4, 3)
    a = random_numbers(rng, shape, np.float64)
    x = _on(device, a)
    for keepdims in (False, True):
        _check(simt.linalg.norm(x, ord, axis, keepdims),
               np.linalg.norm(a, ord, axis, keepdims), f"ord={ord} axis={axis}")


@pytest.mark.parametrize("offset", [0, 1, 2, -1, -3, 7])
def test_diagonal_and_trace(device, rng, offset):
    a = random_numbers(rng, (2, 4, 5), np.float64)
    x = _on(device, a)
    _check(simt.linalg.diagonal(x, offset=offset), np.linalg.diagonal(a, offset=offset),
           "diagonal")
    _check(simt.linalg.trace(x, offset=offset), np.linalg.trace(a, offset=offset), "trace")
    i = random_numbers(rng, (4, 4), np.int16)
    _check(simt.linalg.trace(_on(device, i), offset=offset),
           np.linalg.trace(i, offset=offset), "int16 trace (int64)")
    _check(simt.linalg.trace(_on(device, i), dtype=np.float32),
           np.linalg.trace(i, dtype=np.float32), "trace dtype=")
    _check(simt.linalg.diagonal(x.mT), np.linalg.diagonal(np.swapaxes(a, -1, -2)),
           "diagonal of a transposed view")


def test_cross(device, rng):
    a = random_numbers(rng, (4, 3), np.float64)
    b = random_numbers(rng, (2, 1, 3), np.float64)
    _check(simt.linalg.cross(_on(device, a), _on(device, b)), np.linalg.cross(a, b), "cross")
    c = random_numbers(rng, (3, 5), np.float32)
    d = random_numbers(rng, (3, 5), np.float32)
    _check(simt.linalg.cross(_on(device, c), _on(device, d), axis=0),
           np.linalg.cross(c, d, axis=0), "axis 0")
    with pytest.raises(ValueError, match="simt.linalg.cross: the vectors along axis"):
        simt.linalg.cross(_on(device, a[:, :2]), _on(device, a[:, :2]))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_matrix_power(device, rng, n):
    a = random_numbers(rng, (3, 5, 5), np.float64) / 3
    _check(simt.linalg.matrix_power(_on(device, a), n), np.linalg.matrix_power(a, n), f"n={n}")
    i = random_numbers(rng, (4, 4), np.int32, bound=3)
    _check(simt.linalg.matrix_power(_on(device, i), n), np.linalg.matrix_power(i, n), "int32")


def test_decompositions_off_the_cpu_raise_naming_the_device(device, rng):
    if device.backend == "cpu":
        pytest.skip("the cpu device computes them (tests below)")
    x = _on(device, _spd(rng, (4, 4), np.float32))
    planned = "cuSOLVER" if device.backend == "cuda" else "not implemented"
    for name in DECOMPOSITIONS:
        with pytest.raises(NotImplementedError, match=f"simt.linalg.{name}: .*{device.id}"):
            getattr(simt.linalg, name)(x)
    with pytest.raises(NotImplementedError, match=planned):
        simt.linalg.solve(x, x)
    for ord in (2, -2, "nuc"):
        with pytest.raises(NotImplementedError, match=f"simt.linalg.matrix_norm: .*{device.id}"):
            simt.linalg.matrix_norm(x, ord=ord)
    with pytest.raises(NotImplementedError, match=f"simt.linalg.matrix_power: .*{device.id}"):
        simt.linalg.matrix_power(x, -2)


def test_errors(device, rng):
    x = _on(device, random_numbers(rng, (3, 4), np.float64))
    with pytest.raises(ValueError, match="simt.linalg.vector_norm: ord must be a number"):
        simt.linalg.vector_norm(x, ord="fro")
    with pytest.raises(ValueError, match="simt.linalg.matrix_norm: ord must be"):
        simt.linalg.matrix_norm(x, ord=3)
    with pytest.raises(ValueError, match="simt.linalg.matrix_norm: x must have at least two"):
        simt.linalg.matrix_norm(x[0])
    with pytest.raises(ValueError, match="simt.linalg.matrix_power: the matrices must be square"):
        simt.linalg.matrix_power(x, 2)
    with pytest.raises(ValueError, match="simt.linalg.norm: ord=1 needs axis"):
        simt.linalg.norm(_on(device, np.ones((2, 2, 2))), 1)
    with pytest.raises(np.exceptions.AxisError):
        simt.linalg.vector_norm(x, axis=2)
    with pytest.raises(TypeError, match="simt.linalg.vector_norm: x must be a simt array"):
        simt.linalg.vector_norm(np.ones(3))


# --- the decompositions, on the cpu device ----------------------------------------------------

@pytest.fixture
def cpu():
    if "cpu" not in [d.id for d in simt.devices()]:
        pytest.skip("no cpu device in this simt build")
    return simt.get_device("cpu")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5)])
def test_cholesky_eigh_inv_det(cpu, rng, dtype, shape):
    a = _spd(rng, shape, dtype)
    x = _on(cpu, a)
    _check(simt.linalg.cholesky(x), np.linalg.cholesky(a), "cholesky")
    _check(simt.linalg.cholesky(x, upper=True), np.linalg.cholesky(a, upper=True), "upper")
    _check(simt.linalg.inv(x), np.linalg.inv(a), "inv")
    _check(simt.linalg.det(x), np.linalg.det(a), "det")
    sign, logabsdet = simt.linalg.slogdet(x)
    want = np.linalg.slogdet(a)
    _check(sign, want.sign, "slogdet sign")
    _check(logabsdet, want.logabsdet, "slogdet logabsdet")
    _check(simt.linalg.eigvalsh(x), np.linalg.eigvalsh(a), "eigvalsh")
    w, v = simt.linalg.eigh(x)
    _check(w, np.linalg.eigh(a).eigenvalues, "eigh values")
    # Eigenvectors are unique up to a phase: compare what they reconstruct.
    vh = v.get()
    rebuilt = vh @ (w.get()[..., None] * np.conj(np.swapaxes(vh, -1, -2)))
    np.testing.assert_allclose(rebuilt, a, rtol=1e-3 if dtype == np.float32 else 1e-10,
                               atol=1e-3 * np.abs(a).max() if dtype == np.float32 else 1e-9)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_qr_svd_pinv_rank(cpu, rng, shape):
    a = random_numbers(rng, shape, np.float64)
    x = _on(cpu, a)
    for mode in ("reduced", "complete"):
        q, r = simt.linalg.qr(x, mode=mode)
        np.testing.assert_allclose(q.get() @ r.get(), a, atol=1e-10)
        assert q.shape == np.linalg.qr(a, mode=mode).Q.shape
    for full in (True, False):
        u, s, vh = simt.linalg.svd(x, full_matrices=full)
        k = s.shape[-1]
        np.testing.assert_allclose((u.get()[..., :k] * s.get()[..., None, :]) @ vh.get()[..., :k, :],
                                   a, atol=1e-10)
    _check(simt.linalg.svdvals(x), np.linalg.svd(a, compute_uv=False), "svdvals")
    _check(simt.linalg.pinv(x), np.linalg.pinv(a), "pinv")
    _check(simt.linalg.matrix_rank(x), np.linalg.matrix_rank(a), "matrix_rank")
    for ord in (2, -2, "nuc"):
        _check(simt.linalg.matrix_norm(x, ord=ord), np.linalg.matrix_norm(a, ord=ord), ord)
    assert isinstance(simt.linalg.svd(x), simt.linalg.SVDResult)


def test_solve_broadcasts(cpu, rng):
    a = _spd(rng, (3, 4, 4), np.float64)
    b = random_numbers(rng, (4,), np.float64)
    B = random_numbers(rng, (1, 4, 2), np.float64)
    x = _on(cpu, a)
    _check(simt.linalg.solve(x, _on(cpu, b)), np.linalg.solve(a, b), "vector")
    _check(simt.linalg.solve(x, _on(cpu, B)), np.linalg.solve(a, B), "matrices")
    _check(simt.linalg.matrix_power(x, -2), np.linalg.matrix_power(a, -2), "negative power")


def test_decomposition_errors(cpu, rng):
    x = _on(cpu, random_numbers(rng, (3, 4), np.float64))
    with pytest.raises(ValueError, match="simt.linalg.inv: the matrices must be square"):
        simt.linalg.inv(x)
    with pytest.raises(ValueError, match="simt.linalg.det: x must have at least two"):
        simt.linalg.det(x[0])
    with pytest.raises(simt.linalg.LinAlgError):
        simt.linalg.cholesky(_on(cpu, -np.eye(3)))
    with pytest.raises(simt.linalg.LinAlgError):
        simt.linalg.inv(_on(cpu, np.zeros((3, 3))))
    with pytest.raises(ValueError, match="simt.linalg.qr: mode must be"):
        simt.linalg.qr(x, mode="r")
    with pytest.raises(TypeError, match="simt.linalg.svd: x must be a simt array"):
        simt.linalg.svd(np.eye(2))
