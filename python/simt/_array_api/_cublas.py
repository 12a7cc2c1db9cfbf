"""matmul on cuda devices through cuBLAS (loaded at run time, _vendor_libraries).

cuBLAS is column-major and simt's arrays row-major: a row-major (m, n) result is the
column-major (n, m) matrix out^T, and out^T = b^T a^T, so cuBLAS is asked for b^T a^T
with the operands swapped. A row-major operand x (r, c) with unit stride along its rows
is the column-major x^T with leading dimension its row stride (op N); one with unit stride
down its columns (a transposed view) is x itself, column-major, its transpose asked for
(op T). Any other layout (both strides above one, negative or unaligned strides) is
copied to C order first. Batches are one strided-batched call, the broadcast batch
stride 0 allowed (cuBLAS reads the same matrix again).

Float32, float64, complex64 and complex128 are cuBLAS's GEMMs; float16 goes to tensor
cores, accumulating in float32 (cublasGemmEx, compute type 32F), as NumPy's own float16
matmul accumulates in float32. Float32 is computed in float32, without TF32 (as NumPy,
and CuPy by default). Integer and bool products stay on simt's generated kernel (cuBLAS
has no integer GEMM for these types).
"""

import warnings

import numpy as np

from .. import _core, _vendor_libraries
from ..errors import DeviceError
from ._elementwise import contiguous_copy

__all__ = ["product", "gemm_arguments"]

# cudaDataType of each element type cuBLAS multiplies (library_types.h).
CUDA_TYPES = {
    np.dtype(np.float32): 0,      # CUDA_R_32F
    np.dtype(np.float64): 1,      # CUDA_R_64F
    np.dtype(np.float16): 2,      # CUDA_R_16F
    np.dtype(np.complex64): 4,    # CUDA_C_32F
    np.dtype(np.complex128): 5,   # CUDA_C_64F
}


def product(a3, b3, out3):
    """out3[i] = a3[i] @ b3[i] through cuBLAS when it can (a cuda device, cuBLAS found and
    not switched off, a floating or complex result); False when simt's kernel should."""
    if out3.dtype not in CUDA_TYPES or not out3._contiguous():
        return False  # no handle made (nor its failure raised) for what cuBLAS cannot do
    handle = cublas_handle(out3.device)
    if handle is None:
        return False
    arguments, operands = gemm_arguments(a3, b3, out3)
    handle.gemm(**arguments)
    del operands  # copies made for cuBLAS: freed only now that the GEMM is queued
    return True


def gemm_arguments(a3, b3, out3):
    """(the arguments of CublasHandle.gemm computing out3 = a3 @ b3 batch by batch, the
    operands they point into): a3 (count, m, k), b3 (count, k, n), out3 (count, m, n)
    C-contiguous; the operands are converted to out3's dtype (and copied where cuBLAS
    cannot read their layout). The caller keeps the operands until the call is queued:
    the pool then hands a copy's memory out again only to work ordered after the default
    stream's (src/runtime/memory_pool.h), but before, another thread could take it."""
    count, m, n = out3._impl.shape
    k = a3._impl.shape[-1]
    dtype = out3.dtype
    a3 = _as_dtype(a3, dtype)
    b3 = _as_dtype(b3, dtype)
    # cuBLAS's A is b (its (n, k) transpose), its B is a.
    b_array, b_transposed, ldb, stride_b = _operand(b3)
    a_array, a_transposed, lda, stride_a = _operand(a3)
    return ({
        "type": CUDA_TYPES[dtype], "m": n, "n": m, "k": k,
        "a": b_array._impl.data_ptr, "a_transposed": b_transposed, "lda": ldb,
        "stride_a": stride_b,
        "b": a_array._impl.data_ptr, "b_transposed": a_transposed, "ldb": lda,
        "stride_b": stride_a,
        "c": out3._impl.data_ptr, "ldc": max(1, n), "stride_c": m * n,
        "batch": count,
    }, (a_array, b_array))


def _as_dtype(x, dtype):
    return x if x.dtype == dtype else contiguous_copy(x, dtype)


def _operand(x):
    """(array, transposed, ld, batch stride) of x (count, r, c), row-major, as cuBLAS's
    column-major operand for x^T (c, r): `array` is x or its C-order copy."""
    impl = x._impl  # each Array property is a call: read the C++ side once
    count, r, c = impl.shape
    item = impl.itemsize
    strides = impl.strides
    if all(s % item == 0 for s in strides):
        sb, sr, sc = (s // item for s in strides)
        sb = sb if count > 1 else 0
        if sb >= 0:
            # op N: x^T is stored column-major, columns sr apart (a single row: any).
            if (c == 1 or sc == 1) and (r == 1 or sr >= max(1, c)):
                return x, False, (sr if r > 1 else max(1, c)), sb
            # op T: x itself is stored column-major, columns sc apart.
            if (r == 1 or sr == 1) and (c == 1 or sc >= max(1, r)):
                return x, True, (sc if c > 1 else max(1, r)), sb
    copy = contiguous_copy(x)
    return copy, False, max(1, c), (r * c if count > 1 else 0)


_cublas_failed = {}  # device id -> why cuBLAS could not start there


def cublas_handle(device):
    """This thread's cuBLAS handle on `device`, created on first use; None when matmul on
    `device` should use simt's kernels (not cuda, switched off, or no cuBLAS)."""
    if not _vendor_libraries.usable("cublas", device) or device.id in _cublas_failed:
        return None
    try:
        return _vendor_libraries.thread_handle("cublas", _core.CublasHandle, device)
    except DeviceError as error:
        # A library newer than the driver (cublasCreate's NOT_INITIALIZED), or no memory
        # for its workspace: matmul still works, on simt's kernel; said once.
        _cublas_failed[device.id] = str(error)
        warnings.warn(f"cuBLAS could not start on {device.id} ({error}); matmul there "
                      f"uses simt's own kernel", RuntimeWarning, stacklevel=4)
        return None
