"""simt.linalg: the array API's linear algebra extension (and NumPy's norm).

On every device: matmul, tensordot, vecdot, matrix_transpose, outer (the namespace's
own), diagonal, trace, cross, vector_norm, matrix_norm (but for ord 2, -2 and 'nuc'),
norm, and matrix_power (n >= 0).

The decompositions and what needs one (cholesky, solve, inv, qr, svd, svdvals, eigh,
eigvalsh, det, slogdet, pinv, matrix_rank, the singular-value norms, negative powers) run
on the cpu device, through NumPy's LAPACK reading the arrays' host memory (the result is
a simt array on the cpu device). Elsewhere they raise NotImplementedError naming the
function and the device: on opencl there is no LAPACK to call; on cuda, cuSOLVER (loaded
with dlopen, as NVRTC is) is planned. A singular or non-positive-definite input raises
NumPy's LinAlgError (simt.linalg.LinAlgError).
"""

from collections import namedtuple

import numpy as np

from ._array import Array, empty
from ._array_api import _linalg_ext
from ._array_api._linalg import matmul, outer, tensordot, vecdot
from ._array_api._linalg_ext import cross, diagonal, trace, vector_norm
from ._array_api._manipulation import matrix_transpose

__all__ = ["matmul", "tensordot", "vecdot", "matrix_transpose", "outer", "diagonal",
           "trace", "cross", "vector_norm", "matrix_norm", "norm", "matrix_power",
           "cholesky", "solve", "inv", "qr", "svd", "svdvals", "eigh", "eigvalsh", "det",
           "slogdet", "pinv", "matrix_rank", "LinAlgError", "QRResult", "SVDResult",
           "EighResult", "SlogdetResult"]

LinAlgError = np.linalg.LinAlgError

QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])


# --- the LAPACK path --------------------------------------------------------------------------

def _host(x, where, square=False, matrices=True):
    """x's memory as a NumPy array, for LAPACK: on the cpu device a view; elsewhere
    NotImplementedError naming the device."""
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")
    device = x.device
    if device.backend == "cuda":
        raise NotImplementedError(
            f"{where}: not yet available on {device.id}: cuSOLVER (loaded at run time) is "
            f"planned for cuda devices; until then copy the array to the cpu device "
            f"(x.to_device('cpu')), where NumPy's LAPACK computes it")
    if device.backend != "cpu":
        raise NotImplementedError(
            f"{where}: not implemented on {device.id} ({device.name}): simt's "
            f"decompositions run on the cpu device (NumPy's LAPACK); copy the array there "
            f"with x.to_device('cpu')")
    if matrices and x.ndim < 2:
        raise ValueError(f"{where}: x must have at least two dimensions (a stack of "
                         f"matrices), not shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{where}: the matrices must be square, not {x.shape[-2:]}")
    return np.asarray(x)


def _result(value, device):
    """NumPy's result as a simt array of the device (its own memory, not NumPy's)."""
    value = np.asarray(value)
    out = empty(value.shape, value.dtype, device)
    np.asarray(out)[...] = value
    return out


def cholesky(x, /, *, upper=False):
    """The Cholesky factors of x's Hermitian positive-definite matrices: L (lower) with
    x = L L^H, or U = L^H with upper=True."""
    where = "simt.linalg.cholesky"
    return _result(np.linalg.cholesky(_host(x, where, square=True), upper=upper), x.device)


def solve(x1, x2, /):
    """The solutions y of x1 y = x2 (x2 a vector when 1-D, else a stack of matrices;
    the batches broadcast)."""
    where = "simt.linalg.solve"
    a = _host(x1, where, square=True)
    if not isinstance(x2, Array):
        raise TypeError(f"{where}: x2 must be a simt array, not {type(x2).__name__}")
    if x2.device != x1.device:
        raise ValueError(f"{where}: arrays on two devices, {x1.device.id} and "
                         f"{x2.device.id}; move one with .to_device()")
    b = _host(x2, where, matrices=False)
    return _result(np.linalg.solve(a, b), x1.device)


def inv(x, /):
    """The inverses of x's square matrices."""
    return _result(np.linalg.inv(_host(x, "simt.linalg.inv", square=True)), x.device)


def qr(x, /, *, mode="reduced"):
    """The QR factorizations of x's matrices: QRResult(Q, R) ('reduced' or 'complete')."""
    where = "simt.linalg.qr"
    if mode not in ("reduced", "complete"):
        raise ValueError(f"{where}: mode must be 'reduced' or 'complete', not {mode!r}")
    q, r = np.linalg.qr(_host(x, where), mode=mode)
    return QRResult(_result(q, x.device), _result(r, x.device))


def svd(x, /, *, full_matrices=True):
    """The singular value decompositions of x's matrices: SVDResult(U, S, Vh), x = U
    diag(S) Vh, S descending."""
    u, s, vh = np.linalg.svd(_host(x, "simt.linalg.svd"), full_matrices=full_matrices)
    return SVDResult(_result(u, x.device), _result(s, x.device), _result(vh, x.device))


def svdvals(x, /):
    """The singular values of x's matrices, descending."""
    return _result(np.linalg.svd(_host(x, "simt.linalg.svdvals"), compute_uv=False),
                   x.device)


def eigh(x, /, UPLO="L"):
    """The eigenvalues (ascending) and eigenvectors (columns) of x's Hermitian matrices,
    from their lower (UPLO='L') or upper triangle: EighResult(eigenvalues, eigenvectors)."""
    w, v = np.linalg.eigh(_host(x, "simt.linalg.eigh", square=True), UPLO=UPLO)
    return EighResult(_result(w, x.device), _result(v, x.device))


def eigvalsh(x, /, UPLO="L"):
    """The eigenvalues of x's Hermitian matrices, ascending."""
    return _result(np.linalg.eigvalsh(_host(x, "simt.linalg.eigvalsh", square=True),
                                      UPLO=UPLO), x.device)


def det(x, /):
    """The determinants of x's square matrices."""
    return _result(np.linalg.det(_host(x, "simt.linalg.det", square=True)), x.device)


def slogdet(x, /):
    """The signs and logs of the absolute determinants: SlogdetResult(sign, logabsdet)."""
    sign, logabsdet = np.linalg.slogdet(_host(x, "simt.linalg.slogdet", square=True))
    return SlogdetResult(_result(sign, x.device), _result(logabsdet, x.device))


def pinv(x, /, *, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverses of x's matrices (singular values below rtol
    times the largest dropped; rtol defaults to max(M, N) * eps)."""
    where = "simt.linalg.pinv"
    host = _host(x, where)
    rtol = _host(rtol, where, matrices=False) if isinstance(rtol, Array) else rtol
    return _result(np.linalg.pinv(host, rtol=rtol, hermitian=hermitian), x.device)


def matrix_rank(x, /, *, rtol=None, hermitian=False):
    """The ranks of x's matrices: their singular values above rtol times the largest
    (rtol defaults to max(M, N) * eps)."""
    where = "simt.linalg.matrix_rank"
    host = _host(x, where)
    rtol = _host(rtol, where, matrices=False) if isinstance(rtol, Array) else rtol
    return _result(np.linalg.matrix_rank(host, rtol=rtol, hermitian=hermitian), x.device)


# --- what the array operations compute, the decompositions helping ----------------------------

def _svdvals_for(x, where):
    _host(x, where)  # the device check, naming the norm that needed singular values
    return svdvals(x)


def _inv_for(x, where):
    _host(x, where, square=True)
    return inv(x)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The ord-norm of x's matrices (last two axes): 'fro', 1, -1, inf, -inf on every
    device; 2, -2, 'nuc' (from the singular values) on the cpu device."""
    return _linalg_ext.matrix_norm(x, keepdims=keepdims, ord=ord, svdvals=_svdvals_for)


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's norm: the flattened x's 2-norm (axis and ord None), vector norms (axis an
    int, or x 1-D), matrix norms (axis a pair, or x 2-D)."""
    return _linalg_ext.norm(x, ord=ord, axis=axis, keepdims=keepdims, svdvals=_svdvals_for)


def matrix_power(x, n, /):
    """x's square matrices to the integer power n: n >= 0 on every device (repeated
    squaring by matmul), n < 0 (the inverse's powers) on the cpu device."""
    return _linalg_ext.matrix_power(x, n, inv=_inv_for)
