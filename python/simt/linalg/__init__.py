"""simt.linalg: the array API's linear algebra extension (and NumPy's norm).

On every device: matmul, tensordot, vecdot, matrix_transpose, outer (the namespace's
own), diagonal, trace, cross, vector_norm, matrix_norm (but for ord 2, -2 and 'nuc'),
norm, and matrix_power (n >= 0).

The decompositions and what needs one (cholesky, solve, inv, qr, svd, svdvals, eigh,
eigvalsh, det, slogdet, pinv, matrix_rank, the singular-value norms, negative powers):

- cpu: NumPy's LAPACK reading the arrays' host memory (the result is a simt array on the
  cpu device);
- cuda: cuSOLVER (loaded with dlopen at run time, found as NVRTC is; linalg/_cusolver.py),
  in device memory. Without it (not installed, or SIMT_CUSOLVER=0) they raise
  NotImplementedError naming the device and cuSOLVER;
- opencl: NumPy's LAPACK on a host copy of the arrays, the result copied back to the
  device (OpenCL has no LAPACK of its own to call).

Results follow NumPy's conventions (dtypes, shapes, ascending eigenvalues, descending
singular values); the signs or phases of Q's columns and of singular vectors and
eigenvectors may differ from NumPy's, as between LAPACK builds. A singular or
non-positive-definite input raises NumPy's LinAlgError (simt.linalg.LinAlgError).
"""

from collections import namedtuple

import numpy as np

from .._array import Array, empty, to_device
from .._device import builds_cuda, runs_on_host
from .._array_api import _linalg_ext
from .._array_api._creation import asarray
from .._array_api._linalg import matmul, outer, tensordot, vecdot
from .._array_api._linalg_ext import cross, diagonal, trace, vector_norm
from .._array_api._manipulation import matrix_transpose
from . import _cusolver

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


# --- which library computes them ---------------------------------------------------------------

def _checked(x, where, square=False, matrices=True):
    """x, checked to be a simt array of matrices (square ones when asked)."""
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")
    if matrices and x.ndim < 2:
        raise ValueError(f"{where}: x must have at least two dimensions (a stack of "
                         f"matrices), not shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{where}: the matrices must be square, not {x.shape[-2:]}")
    return x


def _solver(x, where):
    """The cuSOLVER handle computing `where` on x's device, or None where NumPy's LAPACK
    does (the cpu device in place, OpenCL devices on a host copy); NotImplementedError on
    a CUDA device without cuSOLVER."""
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__}")
    device = x.device
    handle = _cusolver.handle(device)
    if handle is not None or not builds_cuda(device):
        return handle
    raise NotImplementedError(
        f"{where}: needs cuSOLVER on {device.id}, which "
        f"{_cusolver.unusable()}; install it (pip install "
        f"'simt[cuda13-libs]', or the CUDA toolkit), or copy the array to the cpu "
        f"device (x.to_device('cpu')), where NumPy's LAPACK computes it")


def _host(x, where, square=False, matrices=True):
    """x's elements as a NumPy array for LAPACK: a view of a cpu array's memory, else a
    host copy."""
    x = _checked(x, where, square, matrices)
    return np.asarray(x) if runs_on_host(x.device) else x.get()


def _result(value, device):
    """NumPy's result as a simt array of the device (its own memory, not NumPy's)."""
    value = np.asarray(value)
    if not runs_on_host(device):
        value = value if value.flags.c_contiguous else value.copy()  # 0-d stays 0-d
        return to_device(value, device=device)
    out = empty(value.shape, value.dtype, device)
    np.asarray(out)[...] = value
    return out


def _same_device(x1, x2, where):
    if not isinstance(x2, Array):
        raise TypeError(f"{where}: x2 must be a simt array, not {type(x2).__name__}")
    if x2.device != x1.device:
        raise ValueError(f"{where}: arrays on two devices, {x1.device.id} and "
                         f"{x2.device.id}; move one with .to_device()")


def _uplo(UPLO, where):
    upper = UPLO.upper() if isinstance(UPLO, str) else UPLO
    if upper not in ("L", "U"):
        raise ValueError(f"{where}: UPLO must be 'L' or 'U', not {UPLO!r}")
    return upper


# --- the decompositions -------------------------------------------------------------------------

def cholesky(x, /, *, upper=False):
    """The Cholesky factors of x's Hermitian positive-definite matrices: L (lower) with
    x = L L^H, or U = L^H with upper=True."""
    where = "simt.linalg.cholesky"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    if handle is not None:
        return _cusolver.cholesky(handle, x, bool(upper), where)
    return _result(np.linalg.cholesky(_host(x, where), upper=upper), x.device)


def solve(x1, x2, /):
    """The solutions y of x1 y = x2 (x2 a vector when 1-D, else a stack of matrices;
    the batches broadcast)."""
    where = "simt.linalg.solve"
    handle = _solver(x1, where)
    _checked(x1, where, square=True)
    _same_device(x1, x2, where)
    _checked(x2, where, matrices=False)
    if handle is not None:
        return _cusolver.solve(handle, x1, x2, where)
    return _result(np.linalg.solve(_host(x1, where), _host(x2, where, matrices=False)),
                   x1.device)


def inv(x, /):
    """The inverses of x's square matrices."""
    where = "simt.linalg.inv"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    if handle is not None:
        return _cusolver.inv(handle, x, where)
    return _result(np.linalg.inv(_host(x, where)), x.device)


def qr(x, /, *, mode="reduced"):
    """The QR factorizations of x's matrices: QRResult(Q, R) ('reduced': Q M x K, R K x N
    with K = min(M, N); 'complete': Q M x M, R M x N), or R alone (mode 'r', as NumPy)."""
    where = "simt.linalg.qr"
    handle = _solver(x, where)
    _checked(x, where)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"{where}: mode must be 'reduced', 'complete' or 'r', not {mode!r}")
    if handle is not None:
        result = _cusolver.qr(handle, x, mode, where)
    else:
        result = np.linalg.qr(_host(x, where), mode=mode)
        result = _result(result, x.device) if mode == "r" else \
            tuple(_result(part, x.device) for part in result)
    return result if mode == "r" else QRResult(*result)


def svd(x, /, *, full_matrices=True):
    """The singular value decompositions of x's matrices: SVDResult(U, S, Vh), x = U
    diag(S) Vh, S descending."""
    where = "simt.linalg.svd"
    handle = _solver(x, where)
    _checked(x, where)
    if handle is not None:
        return SVDResult(*_cusolver.svd(handle, x, bool(full_matrices), True, where))
    u, s, vh = np.linalg.svd(_host(x, where), full_matrices=full_matrices)
    return SVDResult(_result(u, x.device), _result(s, x.device), _result(vh, x.device))


def svdvals(x, /):
    """The singular values of x's matrices, descending."""
    return _svdvals(x, "simt.linalg.svdvals")


def _svdvals(x, where):
    handle = _solver(x, where)
    _checked(x, where)
    if handle is not None:
        return _cusolver.svd(handle, x, False, False, where)
    return _result(np.linalg.svd(_host(x, where), compute_uv=False), x.device)


def eigh(x, /, UPLO="L"):
    """The eigenvalues (ascending) and eigenvectors (columns) of x's Hermitian matrices,
    from their lower (UPLO='L') or upper triangle: EighResult(eigenvalues, eigenvectors)."""
    where = "simt.linalg.eigh"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    UPLO = _uplo(UPLO, where)
    if handle is not None:
        return EighResult(*_cusolver.eigh(handle, x, UPLO, True, where))
    w, v = np.linalg.eigh(_host(x, where), UPLO=UPLO)
    return EighResult(_result(w, x.device), _result(v, x.device))


def eigvalsh(x, /, UPLO="L"):
    """The eigenvalues of x's Hermitian matrices, ascending."""
    where = "simt.linalg.eigvalsh"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    UPLO = _uplo(UPLO, where)
    if handle is not None:
        return _cusolver.eigh(handle, x, UPLO, False, where)
    return _result(np.linalg.eigvalsh(_host(x, where), UPLO=UPLO), x.device)


def det(x, /):
    """The determinants of x's square matrices."""
    where = "simt.linalg.det"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    if handle is not None:
        return _cusolver.det(handle, x, where)
    return _result(np.linalg.det(_host(x, where)), x.device)


def slogdet(x, /):
    """The signs and logs of the absolute determinants: SlogdetResult(sign, logabsdet)."""
    where = "simt.linalg.slogdet"
    handle = _solver(x, where)
    _checked(x, where, square=True)
    if handle is not None:
        return SlogdetResult(*_cusolver.slogdet(handle, x, where))
    sign, logabsdet = np.linalg.slogdet(_host(x, where))
    return SlogdetResult(_result(sign, x.device), _result(logabsdet, x.device))


def _rtol(rtol, x, where):
    """rtol for the cuSOLVER path: None, a number, or a simt array on x's device (a NumPy
    array or a list, as the cpu path takes them, is copied there)."""
    if isinstance(rtol, Array):
        _same_device(x, rtol, where)
        return rtol
    if rtol is None or np.ndim(rtol) == 0:
        return rtol if rtol is None else float(np.asarray(rtol).real)
    return asarray(np.asarray(rtol), device=x.device)


def pinv(x, /, *, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverses of x's matrices (singular values below rtol
    times the largest dropped; rtol defaults to max(M, N) * eps)."""
    where = "simt.linalg.pinv"
    handle = _solver(x, where)
    _checked(x, where)
    if handle is not None:
        return _cusolver.pinv(handle, x, _rtol(rtol, x, where), where)
    host = _host(x, where)
    rtol = _host(rtol, where, matrices=False) if isinstance(rtol, Array) else rtol
    return _result(np.linalg.pinv(host, rtol=rtol, hermitian=hermitian), x.device)


def matrix_rank(x, /, *, rtol=None, hermitian=False):
    """The ranks of x's matrices: their singular values above rtol times the largest
    (rtol defaults to max(M, N) * eps)."""
    where = "simt.linalg.matrix_rank"
    handle = _solver(x, where)
    _checked(x, where)
    if handle is not None:
        return _cusolver.matrix_rank(handle, x, _rtol(rtol, x, where), where)
    host = _host(x, where)
    rtol = _host(rtol, where, matrices=False) if isinstance(rtol, Array) else rtol
    return _result(np.linalg.matrix_rank(host, rtol=rtol, hermitian=hermitian), x.device)


# --- what the array operations compute, the decompositions helping ----------------------------

def _svdvals_for(x, where):
    return _svdvals(x, where)  # errors name the norm that needed singular values


def _inv_for(x, where):
    handle = _solver(x, where)
    _checked(x, where, square=True)
    return inv(x) if handle is None else _cusolver.inv(handle, x, where)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The ord-norm of x's matrices (last two axes): 'fro', 1, -1, inf, -inf on every
    device; 2, -2, 'nuc' (from the singular values) where the decompositions run (cpu,
    cuda with cuSOLVER)."""
    return _linalg_ext.matrix_norm(x, keepdims=keepdims, ord=ord, svdvals=_svdvals_for)


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's norm: the flattened x's 2-norm (axis and ord None), vector norms (axis an
    int, or x 1-D), matrix norms (axis a pair, or x 2-D)."""
    return _linalg_ext.norm(x, ord=ord, axis=axis, keepdims=keepdims, svdvals=_svdvals_for)


def matrix_power(x, n, /):
    """x's square matrices to the integer power n: n >= 0 on every device (repeated
    squaring by matmul), n < 0 (the inverse's powers) where the decompositions run."""
    return _linalg_ext.matrix_power(x, n, inv=_inv_for)
