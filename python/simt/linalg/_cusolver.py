"""simt.linalg's decompositions on cuda devices through cuSOLVER's dense API (loaded at run
time, _vendor_libraries; src/backends/cuda/cusolver.h).

cuSOLVER is LAPACK: column-major. A C-contiguous (r, c) matrix X is, read column-major,
its transpose X^T (c, r) with leading dimension c. Each routine is fed whichever of the
two its algorithm needs, so that most calls need no transposing copy:

- cholesky: the memory of a Hermitian A is A^T = conj(A). potrf with the upper triangle
  of conj(A) gives U' (conj(A) = U'^H U'), and L = U'^T is A's lower factor (L L^H =
  conj(U'^H U') = A): the buffer, read row-major, is L. So the lower factor asks for
  cuSOLVER's upper one and the reverse; cuSOLVER's triangle is A's lower one for L (as
  NumPy reads it), its upper one for upper=True. The other triangle is left as it was and
  zeroed here.
- solve: getrf factors A^T (the memory), getrs with op T solves (A^T)^T X = A X = B;
  B is copied transposed (column-major B), the solution transposed back.
- inv: getrs with op N on the identity gives (A^T)^-1 = (A^-1)^T column-major, which is
  A^-1 read row-major. det and slogdet use det(A^T) = det(A): the product of U's diagonal
  and the pivots' parity.
- qr: geqrf needs A itself: a transposed copy. Q comes from orgqr/ungqr on the reflectors
  (k = min(M, N) of them; M columns for 'complete').
- svd: gesvd needs rows >= columns. A tall A is copied transposed (column-major A); the
  outputs U and VT are transposed back. A wide A is fed as it is (column-major A^T,
  N x M): A^T = U' S V'^H gives A = conj(V') S U'^T, and the buffers, read row-major, are
  already A's U (VT' is conj(V') row-major) and Vh (U' is U'^T row-major).
- eigh: syevd/heevd of conj(A) (the memory): the same eigenvalues, ascending, and the
  conjugate eigenvectors, stored transposed: V = conj(buffer^T). A's lower triangle
  (UPLO='L') is the buffer's upper one.

Each call works on fresh C-contiguous copies of the dtype NumPy's linalg returns (float64
for integers and bools; float16 is refused, as NumPy does), loops over the batch with one
workspace (sized by the routine's *_buffer_size query, asked first) and one device int
per matrix for `info`, read once after the loop. A positive info is NumPy's LinAlgError
(not positive definite, singular, no convergence), a negative one a bug in simt's call.
Zero-size inputs never reach cuSOLVER: NumPy's answer for an empty array of that shape is
returned. Workspaces come from simt's memory pool, on the default stream, as all array
operations; one may be freed as soon as its calls are queued (src/runtime/memory_pool.h).
"""

import numpy as np

from .. import _core, _vendor_libraries
from .._array import empty
from .._array_api._creation import asarray, eye, tril, triu, zeros
from .._array_api._elementwise import FUNCTIONS, assign, contiguous_copy
from .._array_api._linalg import matmul
from .._array_api._linalg_ext import diagonal as _lu_diagonal_view
from .._array_api._manipulation import broadcast_to, expand_dims, matrix_transpose, reshape
from .._array_api._reduction import count_nonzero, max as _max, prod, sum as _sum


def handle(device):
    """This thread's cuSOLVER handle on `device`, created on first use; None when
    `device` has none (not cuda, switched off, or no cuSOLVER: unusable() says why)."""
    if not _vendor_libraries.usable("cusolver", device):
        return None
    return _vendor_libraries.thread_handle("cusolver", _core.CusolverHandle, device)


def unusable():
    """Why cuda devices have no cuSOLVER handle (a phrase), or None when they have."""
    return _vendor_libraries.unusable("cusolver")

__all__ = ["solver_dtype", "cholesky", "solve", "inv", "det", "slogdet", "qr", "svd",
           "eigh", "pinv", "matrix_rank"]

LinAlgError = np.linalg.LinAlgError

# cudaDataType of each element type cuSOLVER factors (library_types.h).
CUDA_TYPES = {
    np.dtype(np.float32): 0,      # CUDA_R_32F
    np.dtype(np.float64): 1,      # CUDA_R_64F
    np.dtype(np.complex64): 4,    # CUDA_C_32F
    np.dtype(np.complex128): 5,   # CUDA_C_64F
}

LOWER, UPPER = 0, 1   # cublasFillMode_t
OP_N, OP_T = 0, 1     # cublasOperation_t

_abs, _log, _conj = FUNCTIONS["abs"], FUNCTIONS["log"], FUNCTIONS["conj"]
_where, _equal, _not_equal = FUNCTIONS["where"], FUNCTIONS["equal"], FUNCTIONS["not_equal"]
_divide, _multiply, _greater = FUNCTIONS["divide"], FUNCTIONS["multiply"], FUNCTIONS["greater"]
_subtract = FUNCTIONS["subtract"]


def solver_dtype(dtype, where):
    """The element type NumPy's linalg computes `dtype` in (and returns)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype not in CUDA_TYPES:
        raise TypeError(f"{where}: array type {dtype} is unsupported in linalg (float32, "
                        f"float64, complex64, complex128 and integers are, as in NumPy)")
    return dtype


def _real(dtype):
    """The real type of dtype's precision (singular values, eigenvalues)."""
    return np.finfo(dtype).dtype


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def _pointers(a, matrices):
    """The device addresses of the `matrices` consecutive items (matrices, vectors) of the
    C-contiguous a."""
    base = a._impl.data_ptr
    step = (a.size // matrices if matrices else 0) * a.itemsize
    return [base + i * step for i in range(matrices)]


def _workspace(lwork, dtype, device):
    """lwork elements of dtype (at least one, for a valid address)."""
    return empty((max(1, int(lwork)),), dtype, device)


def _info(count, device):
    return zeros((max(1, count),), np.int32, device)


def _check_info(info, routine, where, positive=None):
    """Reads the infos (waiting for the queued calls): a negative one names the argument
    cuSOLVER rejected; a positive one raises LinAlgError(positive) when given."""
    values = info.get()
    if (values < 0).any():
        bad = int(values[values < 0][0])
        raise RuntimeError(f"{where}: cuSOLVER's {routine} rejected its argument {-bad} "
                           f"(info {bad}): a bug in simt's call, please report it")
    if positive is not None and (values > 0).any():
        raise LinAlgError(positive)


def _empty_case(function, shape, dtype, device, **kwargs):
    """NumPy's answer for a zero-size input of `shape`, as simt arrays of `device`."""
    value = function(np.zeros(shape, dtype), **kwargs)
    if isinstance(value, tuple):
        return tuple(asarray(np.asarray(v), device=device) for v in value)
    return asarray(np.asarray(value), device=device)


# --- Cholesky -----------------------------------------------------------------------------

def cholesky(handle, x, upper, where):
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.cholesky, x.shape, dtype, x.device, upper=upper)
    n = x.shape[-1]
    count = _count(x.shape[:-2])
    a = contiguous_copy(x, dtype)
    type_, lda = CUDA_TYPES[dtype], n
    uplo = LOWER if upper else UPPER  # the transposed triangle (module docstring)
    pointers = _pointers(a, count)
    lwork = handle.potrf_buffer_size(type=type_, uplo=uplo, n=n, a=pointers[0], lda=lda)
    work = _workspace(lwork, dtype, x.device)
    info = _info(count, x.device)
    for i, pointer in enumerate(pointers):
        handle.potrf(type=type_, uplo=uplo, n=n, a=pointer, lda=lda, work=work._impl.data_ptr,
                     lwork=lwork, info=info._impl.data_ptr + 4 * i)
    _check_info(info, "potrf", where, "Matrix is not positive definite")
    return triu(a) if upper else tril(a)


# --- LU: solve, inv, det, slogdet -----------------------------------------------------------

def _lu(handle, a, count, where):
    """Factors the count C-contiguous n x n matrices of a in place (each A^T, column-major):
    (pivots, info of getrf), queued."""
    n = a.shape[-1]
    type_ = CUDA_TYPES[a.dtype]
    pointers = _pointers(a, count)
    lwork = handle.getrf_buffer_size(type=type_, m=n, n=n, a=pointers[0], lda=n)
    work = _workspace(lwork, a.dtype, a.device)
    ipiv = empty((count, n), np.int32, a.device)
    info = _info(count, a.device)
    for i, (pointer, pivots) in enumerate(zip(pointers, _pointers(ipiv, count))):
        handle.getrf(type=type_, m=n, n=n, a=pointer, lda=n, work=work._impl.data_ptr,
                     ipiv=pivots, info=info._impl.data_ptr + 4 * i)
    return ipiv, info


def _lu_solve(handle, a, ipiv, b, count, trans, where):
    """Overwrites the count column-major n x nrhs right-hand sides in b (C-contiguous
    (count, nrhs, n)) with op(A^T)^-1 B, A^T the factored memory of a."""
    n = a.shape[-1]
    nrhs = b.shape[-2]
    type_ = CUDA_TYPES[a.dtype]
    info = _info(count, a.device)
    for i, (pa, pp, pb) in enumerate(zip(_pointers(a, count), _pointers(ipiv, count),
                                         _pointers(b, count))):
        handle.getrs(type=type_, trans=trans, n=n, nrhs=nrhs, a=pa, lda=n, ipiv=pp, b=pb,
                     ldb=n, info=info._impl.data_ptr + 4 * i)
    _check_info(info, "getrs", where)


def solve(handle, x1, x2, where):
    """x1 (..., n, n), x2 (..., n, k) or (n,) (NumPy 2's rule: a vector only when 1-D)."""
    n = x1.shape[-1]
    vector = x2.ndim == 1
    rows = x2.shape[0] if vector else x2.shape[-2]
    if rows != n:
        raise ValueError(f"{where}: x2 has {rows} rows, the {n} x {n} matrices of x1 need "
                         f"{n} (shapes {x1.shape} and {x2.shape})")
    b = reshape(x2, (n, 1)) if vector else x2
    try:
        batch = np.broadcast_shapes(x1.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"{where}: the batch shapes of x1 {x1.shape[:-2]} and x2 "
                         f"{x2.shape[:-2]} do not broadcast") from None
    dtype = np.result_type(solver_dtype(x1.dtype, where), solver_dtype(x2.dtype, where))
    k = b.shape[-1]
    shape = batch + ((n,) if vector else (n, k))
    count = _count(batch)
    if count == 0 or n == 0 or k == 0:
        return empty(shape, dtype, x1.device)
    a = contiguous_copy(broadcast_to(x1, batch + (n, n)), dtype)
    # Column-major B: the C-order copy of B^T.
    bt = contiguous_copy(broadcast_to(matrix_transpose(b), batch + (k, n)), dtype)
    ipiv, info = _lu(handle, a, count, where)
    _lu_solve(handle, a, ipiv, bt, count, OP_T, where)
    _check_info(info, "getrf", where, "Singular matrix")
    out = contiguous_copy(matrix_transpose(bt))
    return reshape(out, shape) if vector else out


def inv(handle, x, where):
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.inv, x.shape, dtype, x.device)
    n = x.shape[-1]
    count = _count(x.shape[:-2])
    a = contiguous_copy(x, dtype)
    out = contiguous_copy(broadcast_to(eye(n, dtype=dtype, device=x.device), x.shape))
    ipiv, info = _lu(handle, a, count, where)
    _lu_solve(handle, a, ipiv, out, count, OP_N, where)
    _check_info(info, "getrf", where, "Singular matrix")
    return out


def _lu_diagonal(handle, x, where):
    """(U's diagonals (..., n), the pivots' signs (..., 1 or -1, dtype)) of x's LU
    factorizations. A singular matrix is no error: its U has a zero on the diagonal."""
    dtype = solver_dtype(x.dtype, where)
    n = x.shape[-1]
    count = _count(x.shape[:-2])
    a = contiguous_copy(x, dtype)
    ipiv, info = _lu(handle, a, count, where)
    _check_info(info, "getrf", where)
    diagonal = contiguous_copy(_lu_diagonal_view(a))
    rows = asarray(np.arange(1, n + 1, dtype=np.int32), device=x.device)
    swaps = count_nonzero(_not_equal(reshape(ipiv, x.shape[:-1]), rows), axis=-1)
    # (-1) ** swaps
    odd = _subtract(swaps, _multiply(2, FUNCTIONS["floor_divide"](swaps, 2)))
    sign = contiguous_copy(_subtract(1, _multiply(2, odd)), dtype)
    return diagonal, sign


def det(handle, x, where):
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.det, x.shape, dtype, x.device)
    diagonal, sign = _lu_diagonal(handle, x, where)
    return contiguous_copy(_multiply(prod(diagonal, axis=-1), sign), dtype)


def slogdet(handle, x, where):
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.slogdet, x.shape, dtype, x.device)
    diagonal, sign = _lu_diagonal(handle, x, where)
    magnitude = _abs(diagonal)
    # Each diagonal entry's phase (its sign when real); a zero makes the determinant's 0.
    phase = _where(_equal(magnitude, 0), dtype.type(0), _divide(diagonal, magnitude))
    phase = contiguous_copy(phase, dtype)
    sign = contiguous_copy(_multiply(prod(phase, axis=-1), sign), dtype)
    logabsdet = contiguous_copy(_sum(_log(magnitude), axis=-1), _real(dtype))
    return sign, logabsdet


# --- QR -----------------------------------------------------------------------------------

def qr(handle, x, mode, where):
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.qr, x.shape, dtype, x.device, mode=mode)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    count = _count(batch)
    type_ = CUDA_TYPES[dtype]
    # Column-major A (M x N, lda M): the C-order copy of A^T.
    f = contiguous_copy(matrix_transpose(x), dtype)
    tau = empty(batch + (k,), dtype, x.device)
    pointers, taus = _pointers(f, count), _pointers(tau, count)
    lwork = handle.geqrf_buffer_size(type=type_, m=m, n=n, a=pointers[0], lda=m)
    work = _workspace(lwork, dtype, x.device)
    info = _info(count, x.device)
    for i, (pointer, t) in enumerate(zip(pointers, taus)):
        handle.geqrf(type=type_, m=m, n=n, a=pointer, lda=m, tau=t, work=work._impl.data_ptr,
                     lwork=lwork, info=info._impl.data_ptr + 4 * i)
    _check_info(info, "geqrf", where)
    r_rows = m if mode == "complete" else k
    r = triu(matrix_transpose(f)[..., :r_rows, :])
    if mode == "r":
        return r
    q_cols = m if mode == "complete" else k
    # Q's columns, column-major M x q_cols: the first k hold the reflectors.
    q = zeros(batch + (q_cols, m), dtype, x.device)
    assign(q[..., :k, :], f[..., :k, :])
    q_pointers = _pointers(q, count)
    lwork = handle.orgqr_buffer_size(type=type_, m=m, n=q_cols, k=k, a=q_pointers[0], lda=m,
                                     tau=taus[0])
    work = _workspace(lwork, dtype, x.device)
    info = _info(count, x.device)
    for i, (pointer, t) in enumerate(zip(q_pointers, taus)):
        handle.orgqr(type=type_, m=m, n=q_cols, k=k, a=pointer, lda=m, tau=t,
                     work=work._impl.data_ptr, lwork=lwork, info=info._impl.data_ptr + 4 * i)
    _check_info(info, "orgqr", where)
    return contiguous_copy(matrix_transpose(q)), r


# --- SVD ----------------------------------------------------------------------------------

def svd(handle, x, full_matrices, compute_uv, where):
    """(U, S, Vh) as NumPy's svd, or S alone without compute_uv."""
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        return _empty_case(np.linalg.svd, x.shape, dtype, x.device,
                           full_matrices=full_matrices, compute_uv=compute_uv)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    count = _count(batch)
    real = _real(dtype)
    type_ = CUDA_TYPES[dtype]
    tall = m >= n
    # gesvd's rows >= cols: column-major A when tall, A^T (x's own layout) when wide.
    rows, cols = (m, n) if tall else (n, m)
    a = contiguous_copy(matrix_transpose(x) if tall else x, dtype)
    s = empty(batch + (k,), real, x.device)
    if compute_uv:
        u_cols = rows if full_matrices else cols
        u = empty(batch + (u_cols, rows), dtype, x.device)     # column-major rows x u_cols
        vt = empty(batch + (cols, cols), dtype, x.device)      # column-major cols x cols
        jobu, jobvt = ("A" if full_matrices else "S"), "A"
        u_pointers, vt_pointers = _pointers(u, count), _pointers(vt, count)
    else:
        jobu = jobvt = "N"
        u_pointers = vt_pointers = [0] * count
    lwork = handle.gesvd_buffer_size(type=type_, m=rows, n=cols)
    work = _workspace(lwork, dtype, x.device)
    rwork = _workspace(k, real, x.device)  # the unconverged superdiagonal, if any
    info = _info(count, x.device)
    for i, (pa, ps, pu, pvt) in enumerate(zip(_pointers(a, count), _pointers(s, count),
                                              u_pointers, vt_pointers)):
        handle.gesvd(type=type_, jobu=jobu, jobvt=jobvt, m=rows, n=cols, a=pa, lda=rows,
                     s=ps, u=pu, ldu=rows, vt=pvt, ldvt=cols, work=work._impl.data_ptr,
                     lwork=lwork, rwork=rwork._impl.data_ptr,
                     info=info._impl.data_ptr + 4 * i)
    _check_info(info, "gesvd", where, "SVD did not converge")
    if not compute_uv:
        return s
    if tall:
        return (contiguous_copy(matrix_transpose(u)), s,
                contiguous_copy(matrix_transpose(vt)))
    return vt, s, u  # read row-major, already A's U and Vh (module docstring)


# --- Hermitian eigenproblems --------------------------------------------------------------

def eigh(handle, x, uplo, vectors, where):
    """(eigenvalues, eigenvectors) as NumPy's eigh, or the eigenvalues alone."""
    dtype = solver_dtype(x.dtype, where)
    if x.size == 0:
        if vectors:
            return _empty_case(np.linalg.eigh, x.shape, dtype, x.device, UPLO=uplo)
        return _empty_case(np.linalg.eigvalsh, x.shape, dtype, x.device, UPLO=uplo)
    n = x.shape[-1]
    batch = x.shape[:-2]
    count = _count(batch)
    type_ = CUDA_TYPES[dtype]
    fill = UPPER if uplo == "L" else LOWER  # A's lower triangle is conj(A)'s upper one
    a = contiguous_copy(x, dtype)
    w = empty(batch + (n,), _real(dtype), x.device)
    pointers, w_pointers = _pointers(a, count), _pointers(w, count)
    lwork = handle.syevd_buffer_size(type=type_, vectors=vectors, uplo=fill, n=n,
                                     a=pointers[0], lda=n, w=w_pointers[0])
    work = _workspace(lwork, dtype, x.device)
    info = _info(count, x.device)
    for i, (pa, pw) in enumerate(zip(pointers, w_pointers)):
        handle.syevd(type=type_, vectors=vectors, uplo=fill, n=n, a=pa, lda=n, w=pw,
                     work=work._impl.data_ptr, lwork=lwork, info=info._impl.data_ptr + 4 * i)
    _check_info(info, "syevd", where, "Eigenvalues did not converge")
    if not vectors:
        return w
    v = matrix_transpose(a)
    return w, contiguous_copy(_conj(v) if dtype.kind == "c" else v)


# --- built from the SVD ---------------------------------------------------------------------

def _rtol(rtol, s, m, n):
    """rtol (None: max(M, N) eps of the singular values' type) shaped to divide s's last
    axis: a scalar, or an array of the batch's shape with a unit axis appended."""
    if rtol is None:
        return max(m, n) * float(np.finfo(s.dtype).eps)
    if hasattr(rtol, "_impl"):
        return expand_dims(rtol, axis=-1)
    return rtol


def pinv(handle, x, rtol, where):
    """V S^+ U^H, singular values at or below rtol times the largest dropped (NumPy's
    rule). Hermitian input needs nothing special: its SVD is the same."""
    dtype = solver_dtype(x.dtype, where)
    m, n = x.shape[-2:]
    if x.size == 0:
        return _empty_case(np.linalg.pinv, x.shape, dtype, x.device)
    u, s, vh = svd(handle, x, False, True, where)
    cutoff = _multiply(_rtol(rtol, s, m, n), _max(s, axis=-1, keepdims=True))
    large = _greater(s, cutoff)
    inverse = _where(large, _divide(1, _where(large, s, 1)), 0)
    inverse = contiguous_copy(inverse, s.dtype)
    v = _conj(matrix_transpose(vh)) if dtype.kind == "c" else matrix_transpose(vh)
    uh = _conj(matrix_transpose(u)) if dtype.kind == "c" else matrix_transpose(u)
    return matmul(_multiply(v, expand_dims(inverse, axis=-2)), uh)


def matrix_rank(handle, x, rtol, where):
    """The count of singular values above rtol times the largest (NumPy's rule)."""
    m, n = x.shape[-2:]
    if x.size == 0:
        return _empty_case(np.linalg.matrix_rank, x.shape, solver_dtype(x.dtype, where),
                           x.device)
    s = svd(handle, x, False, False, where)
    tolerance = _multiply(_max(s, axis=-1, keepdims=True), _rtol(rtol, s, m, n))
    return count_nonzero(_greater(s, tolerance), axis=-1)
