"""simt.linalg (the array API's linalg extension) on every device against numpy.linalg on
fresh random inputs: the array-operation functions everywhere, the decompositions where
simt computes them (cpu: NumPy's LAPACK; opencl: LAPACK on a host copy; cuda: cuSOLVER,
NotImplementedError naming the device without it), batches, errors. test_cuda_libraries.py runs the decomposition tests
on the cpu device through the cuSOLVER code path, with NumPy stand-ins for its routines."""

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


def _computes_decompositions(device):
    """Whether simt.linalg's decompositions run on `device` (cpu, opencl; cuda with
    cuSOLVER)."""
    from simt.linalg import _cusolver

    return device.backend != "cuda" or _cusolver.handle(device) is not None


def test_decompositions_without_cusolver_raise_naming_the_device(device, rng, monkeypatch):
    if device.backend != "cuda":
        pytest.skip("NumPy's LAPACK computes them on this device (tests below)")
    monkeypatch.setenv("SIMT_CUSOLVER", "0")  # cuda devices without cuSOLVER
    x = _on(device, _spd(rng, (4, 4), np.float32))
    planned = "cuSOLVER.*SIMT_CUSOLVER=0"
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


# --- the decompositions, where simt computes them ---------------------------------------------
# Each test takes the device (test_cuda_libraries.py calls them with the cpu device while
# NumPy stand-ins play cuSOLVER) and skips where the decompositions do not run.

def _solving(device):
    if not _computes_decompositions(device):
        pytest.skip(f"no decompositions on {device.id}")
    return device


def _tolerance(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def _assert_close(got, want, dtype, what):
    tol = _tolerance(dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(np.abs(want).max(
        initial=0.0), 1.0), err_msg=what)


def _orthonormal_columns(q, dtype, what):
    qh = np.conj(np.swapaxes(q, -1, -2))
    _assert_close(qh @ q, np.broadcast_to(np.eye(q.shape[-1]), qh.shape[:-1] + (q.shape[-1],)),
                  dtype, what)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1)])
def test_cholesky_eigh_inv_det(device, rng, dtype, shape):
    _solving(device)
    a = _spd(rng, shape, dtype)
    x = _on(device, a)
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
    assert vh.dtype == a.dtype
    rebuilt = vh @ (w.get()[..., None] * np.conj(np.swapaxes(vh, -1, -2)))
    _assert_close(rebuilt, a, dtype, "eigh reconstruction")
    _orthonormal_columns(vh, dtype, "eigenvectors")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_inv_det_solve_of_general_matrices(device, rng, dtype):
    # Not Hermitian: a transpose taken for a conjugate transpose (or the reverse) in the
    # row-major to column-major mapping shows here, where it cannot for Hermitian input.
    _solving(device)
    n = 6
    a = (random_numbers(rng, (3, n, n), dtype) + n * np.eye(n)).astype(dtype)
    b = random_numbers(rng, (3, n, 2), dtype)
    x = _on(device, a)
    _check(simt.linalg.inv(x), np.linalg.inv(a), "inv")
    _check(simt.linalg.det(x), np.linalg.det(a), "det")
    sign, logabsdet = simt.linalg.slogdet(x)
    want = np.linalg.slogdet(a)
    _check(sign, want.sign, "slogdet sign")
    _check(logabsdet, want.logabsdet, "slogdet logabsdet")
    _check(simt.linalg.solve(x, _on(device, b)), np.linalg.solve(a, b), "solve")


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_triangles_read_as_numpy(device, rng, dtype):
    # cholesky reads the lower triangle (the upper with upper=True), eigh the UPLO one:
    # the other holds noise here, as NumPy ignores it.
    _solving(device)
    a = _spd(rng, (2, 5, 5), dtype)
    noise = random_numbers(rng, a.shape, dtype) * 7
    lower_only = np.tril(a) + np.triu(noise, 1)
    upper_only = np.triu(a) + np.tril(noise, -1)
    _check(simt.linalg.cholesky(_on(device, lower_only)), np.linalg.cholesky(lower_only),
           "cholesky lower")
    _check(simt.linalg.cholesky(_on(device, upper_only), upper=True),
           np.linalg.cholesky(upper_only, upper=True), "cholesky upper")
    for UPLO, m in (("L", lower_only), ("U", upper_only), ("u", upper_only)):
        _check(simt.linalg.eigvalsh(_on(device, m), UPLO=UPLO), np.linalg.eigvalsh(m, UPLO=UPLO),
               f"eigvalsh {UPLO}")
        w, v = simt.linalg.eigh(_on(device, m), UPLO=UPLO)
        _check(w, np.linalg.eigvalsh(m, UPLO=UPLO), f"eigh {UPLO}")
        vh = v.get()
        rebuilt = vh @ (w.get()[..., None] * np.conj(np.swapaxes(vh, -1, -2)))
        _assert_close(rebuilt, a, dtype, f"eigh {UPLO} reconstruction")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (2, 6, 2), (2, 1, 3, 7), (1, 1)])
def test_qr_svd_pinv_rank(device, rng, shape, dtype):
    _solving(device)
    a = random_numbers(rng, shape, dtype)
    x = _on(device, a)
    for mode in ("reduced", "complete"):
        q, r = simt.linalg.qr(x, mode=mode)
        want = np.linalg.qr(a, mode=mode)
        assert q.shape == want.Q.shape and r.shape == want.R.shape, mode
        assert q.dtype == a.dtype and r.dtype == a.dtype
        qh, rh = q.get(), r.get()
        _assert_close(qh @ rh, a, dtype, f"QR {mode}")
        _orthonormal_columns(qh, dtype, f"Q {mode}")
        assert np.array_equal(rh, np.triu(rh)), f"R {mode} is not upper triangular"
    r_only = simt.linalg.qr(x, mode="r")
    assert isinstance(r_only, simt.Array) and r_only.shape == np.linalg.qr(a, mode="r").shape
    _assert_close(np.abs(r_only.get()), np.abs(np.linalg.qr(a, mode="r")), dtype, "mode r")
    for full in (True, False):
        u, s, vh = simt.linalg.svd(x, full_matrices=full)
        want = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (want.U.shape, want.S.shape, want.Vh.shape)
        _check(s, want.S, f"singular values full={full}")
        k = s.shape[-1]
        uh, sh, vhh = u.get(), s.get(), vh.get()
        _assert_close((uh[..., :k] * sh[..., None, :]) @ vhh[..., :k, :], a, dtype,
                      f"SVD reconstruction full={full}")
        _orthonormal_columns(uh, dtype, f"U full={full}")
        _orthonormal_columns(np.conj(np.swapaxes(vhh, -1, -2)), dtype, f"Vh full={full}")
    _check(simt.linalg.svdvals(x), np.linalg.svd(a, compute_uv=False), "svdvals")
    _assert_close(simt.linalg.pinv(x).get(), np.linalg.pinv(a), dtype, "pinv")
    _check(simt.linalg.matrix_rank(x), np.linalg.matrix_rank(a), "matrix_rank")
    for ord in (2, -2, "nuc"):
        _check(simt.linalg.matrix_norm(x, ord=ord), np.linalg.matrix_norm(a, ord=ord), ord)
    assert isinstance(simt.linalg.svd(x), simt.linalg.SVDResult)
    assert isinstance(simt.linalg.qr(x), simt.linalg.QRResult)


def test_rank_deficient_and_rtol(device, rng):
    _solving(device)
    b = random_numbers(rng, (3, 6, 2), np.float64)
    a = b @ np.swapaxes(b, -1, -2)  # rank 2
    x = _on(device, a)
    # The zero singular values come out as rounding noise near the default rtol's cutoff
    # (max(M, N) eps), differently in each LAPACK: an rtol well above the noise.
    _check(simt.linalg.matrix_rank(x, rtol=1e-9), np.full(3, 2), "rank 2")
    _assert_close(simt.linalg.pinv(x, rtol=1e-9).get(), np.linalg.pinv(a, rtol=1e-9),
                  np.float64, "pinv of a rank-2 matrix")
    rtol = np.array([1e-12, 0.5, 0.99])
    _check(simt.linalg.matrix_rank(x, rtol=_on(device, rtol)),
           np.linalg.matrix_rank(a, rtol=rtol), "array rtol")
    _assert_close(simt.linalg.pinv(x, rtol=0.3).get(), np.linalg.pinv(a, rtol=0.3),
                  np.float64, "pinv rtol=0.3")


def test_solve_broadcasts(device, rng):
    _solving(device)
    a = _spd(rng, (3, 4, 4), np.float64) + random_numbers(rng, (3, 4, 4), np.float64)
    b = random_numbers(rng, (4,), np.float64)
    B = random_numbers(rng, (1, 4, 2), np.float64)
    x = _on(device, a)
    _check(simt.linalg.solve(x, _on(device, b)), np.linalg.solve(a, b), "vector")
    _check(simt.linalg.solve(x, _on(device, B)), np.linalg.solve(a, B), "matrices")
    _check(simt.linalg.solve(x[0], _on(device, B)), np.linalg.solve(a[0], B), "one matrix")
    c = random_numbers(rng, (4, 4), np.complex64) + 4 * np.eye(4, dtype=np.complex64)
    d = random_numbers(rng, (4, 3), np.complex64)
    _check(simt.linalg.solve(_on(device, c), _on(device, d)), np.linalg.solve(c, d),
           "complex64")
    _check(simt.linalg.matrix_power(x, -2), np.linalg.matrix_power(a, -2), "negative power")


def test_views_and_integers(device, rng):
    _solving(device)
    a = _spd(rng, (6, 6), np.float64)
    x = _on(device, a)
    # A transposed and a strided view: copied as they are read.
    _check(simt.linalg.inv(x.mT), np.linalg.inv(a.T), "inv of a transposed view")
    _check(simt.linalg.det(x[::2, ::2]), np.linalg.det(a[::2, ::2]), "det of a strided view")
    i = random_numbers(rng, (3, 3), np.int32, bound=9) + 30 * np.eye(3, dtype=np.int32)
    _check(simt.linalg.inv(_on(device, i)), np.linalg.inv(i), "int32 (float64)")
    _check(simt.linalg.det(_on(device, i)), np.linalg.det(i), "int32 det")
    # Singular with an exact zero pivot in any elimination order (its multipliers are
    # powers of 2, in A and in A^T): LU of [[1, 2, 3], [2, 4, 6], [0, 1, 5]]^T leaves
    # 2 - 6 * (1/3), 1e-16 with a fused multiply-add (cuSOLVER), 0 without (LAPACK).
    singular = np.array([[1.0, 2.0, 4.0], [2.0, 4.0, 8.0], [1.0, 1.0, 1.0]])
    _check(simt.linalg.det(_on(device, singular)), np.linalg.det(singular), "singular det")
    sign, logabsdet = simt.linalg.slogdet(_on(device, singular))
    assert sign.get() == 0 and logabsdet.get() == -np.inf
    permuted = np.eye(4)[[2, 0, 3, 1]] * np.array([1.0, -2.0, 3.0, 0.5])
    _check(simt.linalg.det(_on(device, permuted)), np.linalg.det(permuted), "pivots' parity")


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 4, 4)])
def test_empty_inputs_as_numpy(device, shape):
    _solving(device)
    a = np.zeros(shape)
    x = _on(device, a)
    for name in ("cholesky", "inv", "det", "eigvalsh", "svdvals", "matrix_rank", "pinv"):
        _check(getattr(simt.linalg, name)(x), getattr(np.linalg, name)(a), name)
    for got, want in zip(simt.linalg.slogdet(x), np.linalg.slogdet(a)):
        _check(got, want, "slogdet")
    for got, want in zip(simt.linalg.eigh(x), np.linalg.eigh(a)):
        assert got.shape == want.shape
    for got, want in zip(simt.linalg.qr(x), np.linalg.qr(a)):
        assert got.shape == want.shape
    for got, want in zip(simt.linalg.svd(x), np.linalg.svd(a)):
        assert got.shape == want.shape
    wide = np.zeros(shape[:-2] + (0, 3))
    for got, want in zip(simt.linalg.svd(_on(device, wide)), np.linalg.svd(wide)):
        _check(got, want, "svd of an empty wide matrix")


def test_decomposition_errors(device, rng):
    _solving(device)
    x = _on(device, random_numbers(rng, (3, 4), np.float64))
    with pytest.raises(ValueError, match="simt.linalg.inv: the matrices must be square"):
        simt.linalg.inv(x)
    with pytest.raises(ValueError, match="simt.linalg.det: x must have at least two"):
        simt.linalg.det(x[0])
    with pytest.raises(simt.linalg.LinAlgError, match="not positive definite"):
        simt.linalg.cholesky(_on(device, -np.eye(3)))
    batch = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0])])
    with pytest.raises(simt.linalg.LinAlgError, match="not positive definite"):
        simt.linalg.cholesky(_on(device, batch))  # one bad matrix in the batch
    with pytest.raises(simt.linalg.LinAlgError, match="Singular matrix"):
        simt.linalg.inv(_on(device, np.zeros((3, 3))))
    with pytest.raises(simt.linalg.LinAlgError, match="Singular matrix"):
        simt.linalg.solve(_on(device, np.ones((2, 2))), _on(device, np.ones(2)))
    with pytest.raises(ValueError, match="simt.linalg.qr: mode must be"):
        simt.linalg.qr(x, mode="raw")
    with pytest.raises(ValueError, match="simt.linalg.eigh: UPLO must be"):
        simt.linalg.eigh(_on(device, np.eye(2)), UPLO="X")
    with pytest.raises(TypeError, match="simt.linalg.svd: x must be a simt array"):
        simt.linalg.svd(np.eye(2))
    with pytest.raises(TypeError, match="float16"):
        simt.linalg.inv(_on(device, np.eye(2, dtype=np.float16)))
    with pytest.raises(ValueError):
        simt.linalg.solve(_on(device, np.eye(3)), _on(device, np.ones(4)))
