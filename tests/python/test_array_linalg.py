"""Matrix products (matmul and @, tensordot, vecdot, dot, inner, outer) on every device,
against NumPy on fresh random inputs."""

import numpy as np
import pytest

import simt
from array_helpers import random_numbers

# (x1 shape, x2 shape): matrices of sizes that are not multiples of the GPU tile, vectors
# on either side, broadcast batches (a batch axis of 1 against 3), an empty product axis.
SHAPES = [((5, 7), (7, 3)), ((70, 33), (33, 130)), ((7,), (7,)), ((4, 7), (7,)),
          ((7,), (3, 7, 2)), ((2, 1, 9, 6), (3, 6, 5)), ((3, 0), (0, 4))]


def _random(rng, shape, dtype):
    return random_numbers(rng, shape, dtype, bound=9)


def _check(got, want, dtype):
    assert isinstance(got, simt.Array)
    host = got.get()
    assert host.shape == want.shape and host.dtype == want.dtype, (host.shape, host.dtype)
    dtype = np.dtype(dtype)
    real_size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    tol = {2: 2e-2, 4: 1e-4, 8: 1e-10}[real_size] if dtype.kind in "fc" else 0
    np.testing.assert_allclose(host, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_matches_numpy(device, rng, shapes):
    a, b = _random(rng, shapes[0], np.float32), _random(rng, shapes[1], np.float32)
    x1, x2 = simt.asarray(a, device=device), simt.asarray(b, device=device)
    _check(x1 @ x2, a @ b, np.float32)
    _check(simt.matmul(x1, x2), np.matmul(a, b), np.float32)


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("int32", "int8"), ("bool", "bool"),
                                    ("complex64", "complex64"), ("float16", "float16"),
                                    ("uint8", "float32")], ids=str)
def test_matmul_dtypes_promote_as_numpy(device, rng, dtypes):
    a, b = _random(rng, (19, 23), dtypes[0]), _random(rng, (23, 66), dtypes[1])
    x1, x2 = simt.asarray(a, device=device), simt.asarray(b, device=device)
    want = a @ b
    _check(x1 @ x2, want, want.dtype)


def test_matmul_of_views_and_in_place(device, rng):
    a = _random(rng, (40, 30), np.float64)
    b = _random(rng, (30, 40), np.float64)
    x1, x2 = simt.asarray(a, device=device), simt.asarray(b, device=device)
    # Transposed, reversed and strided operands are read through their strides.
    _check(x1.T @ x2.T, a.T @ b.T, np.float64)
    _check(x1[::-2, ::3] @ x2[::3, 5:9], a[::-2, ::3] @ b[::3, 5:9], np.float64)
    _check(x1.mT.mT @ x2, a @ b, np.float64)
    square = simt.asarray(a[:30].copy(), device=device)  # cpu arrays may share memory
    square @= x2[:, :30]
    _check(square, a[:30] @ b[:, :30], np.float64)


def test_matmul_layouts_and_shapes(device, rng):
    """The layouts a BLAS reads without a copy (transposed views, padded rows, broadcast
    batches) and those it cannot, vectors and unit extents, empty batches, complex128 and
    float16 (looser: float16 results round at 2**-11)."""
    a = _random(rng, (6, 10), np.float32)
    b = _random(rng, (7, 5), np.float32)
    x1, x2 = simt.asarray(a, device=device), simt.asarray(b, device=device)
    col_a = simt.asarray(a[:, :7].T.copy(), device=device).T  # column-major (6, 7)
    col_b = simt.asarray(b.T.copy(), device=device).T
    _check(col_a @ col_b, a[:, :7] @ b, np.float32)
    _check(col_a @ x2, a[:, :7] @ b, np.float32)
    _check(x1[:, :7] @ col_b, a[:, :7] @ b, np.float32)  # rows 10 apart, 7 used
    _check(x1[:, 1:8] @ x2[:, ::2], a[:, 1:8] @ b[:, ::2], np.float32)
    for left, right in [((1, 7), (7, 5)), ((6, 7), (7, 1)), ((6, 1), (1, 5)), ((1, 1), (1, 1))]:
        p, q = _random(rng, left, np.float64), _random(rng, right, np.float64)
        _check(simt.asarray(p, device=device) @ simt.asarray(q, device=device), p @ q,
               np.float64)
    batch = _random(rng, (3, 7, 6), np.float64)
    stack = _random(rng, (3, 7, 5), np.float64)
    xb, xs = simt.asarray(batch, device=device), simt.asarray(stack, device=device)
    _check(xb.mT @ xs, batch.transpose(0, 2, 1) @ stack, np.float64)
    _check(xb.mT @ xs[1], batch.transpose(0, 2, 1) @ stack[1], np.float64)
    _check(xb[:1].mT @ xs, batch[:1].transpose(0, 2, 1) @ stack, np.float64)
    _check(xb[::2].mT @ xs[::-2], batch[::2].transpose(0, 2, 1) @ stack[::-2], np.float64)
    # A matrix over a batch as long as its rows (not a stack of rows), and two batch axes.
    square = _random(rng, (3, 3), np.float64)
    _check(simt.asarray(square, device=device) @ xb[:, :3], square @ batch[:, :3], np.float64)
    deep = _random(rng, (2, 3, 7, 6), np.float64)
    _check(simt.asarray(deep, device=device) @ simt.asarray(b[:6], device=device),
           deep @ b[:6], np.float64)
    empty = simt.asarray(np.zeros((0, 6, 7), np.float32), device=device)
    _check(empty @ x2, np.zeros((0, 6, 5), np.float32), np.float32)
    c = _random(rng, (9, 4), np.complex128)
    d = _random(rng, (9, 5), np.complex128)
    xc, xd = simt.asarray(c, device=device), simt.asarray(d, device=device)
    _check(xc.T @ xd, c.T @ d, np.complex128)
    h = (rng.standard_normal((33, 64)) / 8).astype(np.float16)
    g = (rng.standard_normal((64, 17)) / 8).astype(np.float16)
    got = (simt.asarray(h, device=device) @ simt.asarray(g, device=device)).get()
    want = h.astype(np.float32) @ g.astype(np.float32)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=4e-3, atol=4e-3)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool", "complex64",
                                   "float16"])
@pytest.mark.parametrize("k", [1, 31, 33, 300, 1029])
def test_matrix_vector_products(device, rng, dtype, k):
    """Matrix times vector (a block of threads per output element on GPUs), vector times
    matrix (a thread per column), vector dot vector, batched and through strided views,
    with row lengths below, at and past a block's threads."""
    a = _random(rng, (37, k), dtype)
    v = _random(rng, (k,), dtype)
    w = _random(rng, (2 * k,), dtype)[::2]  # a strided vector
    batch = _random(rng, (3, 5, k), dtype)
    xa, xv = simt.asarray(a, device=device), simt.asarray(v, device=device)
    xw = simt.asarray(np.concatenate([w[:, None], w[:, None]], axis=1), device=device)[:, 0]
    xb = simt.asarray(batch, device=device)
    for got, want in [(xa @ xv, a @ v), (xv @ xa.T, v @ a.T), (xv @ xv, v @ v),
                      (xa @ xw, a @ w), (xa[::-2] @ xv, a[::-2] @ v), (xb @ xv, batch @ v),
                      (xv @ xb.mT, v @ batch.transpose(0, 2, 1)),
                      (simt.inner(xa, xv), np.inner(a, v)), (simt.dot(xv, xw), np.dot(v, w))]:
        if np.dtype(dtype) == np.float16:
            np.testing.assert_allclose(got.get().astype(np.float32), want.astype(np.float32),
                                       rtol=5e-3, atol=5e-2)
            assert got.dtype == want.dtype
        else:
            _check(got, want, want.dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(1, 16), (3, 47), (1000, 129), (2, 4099)], ids=str)
def test_matrix_vector_rows_with_special_values(device, rng, dtype, shape):
    """Matrix times vector of floats (on the cpu device simt's own kernel: rows per
    thread, lanes of accumulators, a last partial round): rows longer and shorter than
    the lanes, more and fewer rows than threads, and infinities, NaN and signed zeros
    where a lane past a row's end must not pick them up."""
    a = _random(rng, shape, dtype)
    v = _random(rng, shape[1:], dtype)
    m, k = shape
    a[m // 2, k - 1] = np.inf  # the last element: in the partial round
    a[0, 0] = -0.0
    a[m - 1, :] = -0.0  # a row of -0.0 * v: +0.0, as BLAS' sums start from +0.0
    v[k // 2] = np.nan if k > 40 else v[k // 2]
    xa, xv = simt.asarray(a, device=device), simt.asarray(v, device=device)
    want = a @ v
    got = (xa @ xv).get()
    np.testing.assert_allclose(got, want, rtol={"float64": 1e-10, "float32": 1e-4}[dtype],
                               atol=1e-4)
    numbers = ~np.isnan(want)  # a NaN's sign is not NumPy's to promise
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))
    # A row-major view of a bigger matrix, and a non-contiguous vector.
    wide = _random(rng, (m, k + 5), dtype)
    strided = _random(rng, (2 * k,), dtype)
    xw, xs = simt.asarray(wide, device=device), simt.asarray(strided, device=device)
    _check(xw[:, 3:k + 3] @ xs[::2], wide[:, 3:k + 3] @ strided[::2], dtype)


def test_tensordot_vecdot_dot_inner_outer(device, rng):
    a, b = _random(rng, (3, 4, 5), np.float64), _random(rng, (4, 5, 2), np.float64)
    x1, x2 = simt.asarray(a, device=device), simt.asarray(b, device=device)
    _check(simt.tensordot(x1, x2, axes=([1, 2], [0, 1])),
           np.tensordot(a, b, axes=([1, 2], [0, 1])), np.float64)
    _check(simt.tensordot(x1, x2, axes=0), np.tensordot(a, b, axes=0), np.float64)
    _check(simt.tensordot(x1[..., :4], x2[:, :4], axes=2),
           np.tensordot(a[..., :4], b[:, :4], axes=2), np.float64)
    _check(simt.vecdot(x1, x1), np.vecdot(a, a), np.float64)
    _check(simt.vecdot(x1, x1[0], axis=-2), np.vecdot(a, a[0], axis=-2), np.float64)
    c = _random(rng, (6, 3), np.complex128)
    z = simt.asarray(c, device=device)
    _check(simt.vecdot(z, z, axis=0), np.vecdot(c, c, axis=0), np.complex128)
    _check(simt.dot(x1, x2), np.dot(a, b), np.float64)
    _check(x1.dot(x2[0]), a.dot(b[0]), np.float64)
    _check(simt.dot(x1[0, 0], x1[1, 1]), np.dot(a[0, 0], a[1, 1]), np.float64)
    _check(simt.inner(x1, x1), np.inner(a, a), np.float64)
    _check(simt.outer(x1[0, 0], x2[0, 0]), np.outer(a[0, 0], b[0, 0]), np.float64)


def test_product_errors_say_what(device):
    x = simt.zeros((3, 4), device=device)
    with pytest.raises(ValueError, match=r"inner dimensions differ.*\(3, 4\).*\(3, 4\)"):
        x @ x
    with pytest.raises(ValueError, match="at least one dimension"):
        simt.matmul(x, simt.zeros((), device=device))
    with pytest.raises(TypeError, match="NumPy array"):
        x @ np.zeros((4, 2))
    with pytest.raises(TypeError, match="x2 must be a simt array"):
        simt.matmul(x, [[1.0]])
    with pytest.raises(ValueError, match="differ in length"):
        simt.vecdot(x, simt.zeros((3, 5), device=device))
    with pytest.raises(ValueError, match="shape mismatch"):
        simt.tensordot(x, x, axes=([1], [1, 0])[:1] + ([0],))
    with pytest.raises(ValueError, match="keeps a's shape"):
        x @= simt.zeros((4, 5), device=device)
    with pytest.raises(TypeError, match="same_kind"):
        i = simt.zeros((2, 2), dtype=np.int32, device=device)
        i @= simt.zeros((2, 2), device=device)


def test_products_across_devices_are_refused(device):
    others = [d for d in simt.devices() if d != device]
    if not others:
        pytest.skip("one device only")
    x = simt.zeros((2, 2), device=device)
    with pytest.raises(ValueError, match="two devices"):
        x @ simt.zeros((2, 2), device=others[0])
