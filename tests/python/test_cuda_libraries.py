"""cuBLAS, cuFFT and cuSOLVER on cuda devices (simt._vendor_libraries, _array_api/_cublas.py,
fft/_cufft.py, linalg/_cusolver.py), tested without a GPU:

- the libraries are found where NVRTC is (here /usr/local/cuda) and `simt info` says so;
- SIMT_CUBLAS=0 / SIMT_CUFFT=0 route matmul and simt.fft to the generated kernels, as
  does a missing library; handles are per (device, thread), plans cached;
- the calls simt makes are right: NumPy stand-ins for cuBLAS's GEMM and cuFFT's plans,
  which read and write host memory through the pointers, the leading dimensions, batch
  strides and sizes exactly as the libraries document them (and reject what cuBLAS
  rejects, and scribble over a complex-to-real plan's input as cuFFT may), run the
  matmul and FFT suites on the cpu device through the cuda code paths;
- so do NumPy stand-ins for cuSOLVER's dense routines (FakeCusolver: column-major
  matrices at the pointers, LAPACK's semantics for each triangle, job and pivot, the
  workspace size asked for before each call, info written as cuSOLVER writes it), which
  run the decomposition suite of test_linalg_namespace.py.
On a GPU the same suites (test_array_linalg.py, test_fft.py, test_linalg_namespace.py)
run on cuda:0 against the real libraries."""

import ctypes
import inspect
import os
import subprocess
import sys
import threading
import types
import warnings

import numpy as np
import pytest

import simt
import simt.fft
from simt import _vendor_libraries
from simt._array_api import _cublas, _linalg
from simt.fft import _cufft
from simt.linalg import _cusolver

import test_array_linalg
import test_fft
import test_linalg_namespace

CUDA_TYPES = {0: np.float32, 1: np.float64, 2: np.float16, 4: np.complex64, 5: np.complex128}
SOLVER_TYPES = {0: np.float32, 1: np.float64, 4: np.complex64, 5: np.complex128}
LOWER, UPPER = 0, 1


def _memory(pointer, dtype, shape, strides):
    """A NumPy view of host memory at `pointer` (elements of `dtype`; strides in
    elements), as a library would address it."""
    dtype = np.dtype(dtype)
    extent = 1 + sum((e - 1) * s for e, s in zip(shape, strides))
    if min(shape) == 0:
        extent = 0
    raw = (ctypes.c_char * (max(extent, 1) * dtype.itemsize)).from_address(pointer)
    flat = np.frombuffer(raw, dtype)
    return np.lib.stride_tricks.as_strided(
        flat, shape, tuple(s * dtype.itemsize for s in strides))


class FakeCublas:
    """cublasGemmEx_64 / cublasGemmStridedBatchedEx_64 in NumPy: column-major operands
    at the pointers, cuBLAS's argument checks (ld >= rows of the stored matrix)."""

    def __init__(self):
        self.calls = []

    def gemm(self, type, m, n, k, a, a_transposed, lda, stride_a, b, b_transposed, ldb,
             stride_b, c, ldc, stride_c, batch):
        self.calls.append(dict(locals()))
        dtype = CUDA_TYPES[type]
        for name, value in (("m", m), ("n", n), ("k", k), ("batch", batch)):
            assert value >= 1, f"{name}={value}"
        a_rows, a_cols = (k, m) if a_transposed else (m, k)
        b_rows, b_cols = (n, k) if b_transposed else (k, n)
        assert lda >= max(1, a_rows) and ldb >= max(1, b_rows) and ldc >= max(1, m), \
            (lda, a_rows, ldb, b_rows, ldc, m)
        assert min(stride_a, stride_b) >= 0 and stride_c >= m * n or batch == 1
        stride = (lambda s: s if batch > 1 else 0)
        A = _memory(a, dtype, (batch, a_rows, a_cols), (stride(stride_a), 1, lda))
        B = _memory(b, dtype, (batch, b_rows, b_cols), (stride(stride_b), 1, ldb))
        C = _memory(c, dtype, (batch, m, n), (stride(stride_c), 1, ldc))
        op_a = A.transpose(0, 2, 1) if a_transposed else A
        op_b = B.transpose(0, 2, 1) if b_transposed else B
        wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
        C[...] = (op_a.astype(wide) @ op_b.astype(wide)).astype(dtype)


class FakePlan:
    """A cuFFT plan in NumPy: `batch` C-contiguous transforms of sizes n, unnormalized
    both ways; a complex-to-real plan leaves garbage in its input."""

    KINDS = {"C2C": (np.complex64, np.complex64), "Z2Z": (np.complex128, np.complex128),
             "R2C": (np.float32, np.complex64), "D2Z": (np.float64, np.complex128),
             "C2R": (np.complex64, np.float32), "Z2D": (np.complex128, np.float64)}

    def __init__(self, kind, n, batch, log):
        assert 1 <= len(n) <= 3 and batch >= 1 and all(e >= 1 for e in n), (kind, n, batch)
        self.kind, self.n, self.batch, self.log = kind, tuple(n), batch, log

    def execute(self, input, output, forward):
        self.log.append((self.kind, self.n, self.batch, forward))
        source, target = self.KINDS[self.kind]
        # cuFFT's data is aligned to its complex type (R2C's real input too).
        align = 16 if np.dtype(target).itemsize == 16 or np.dtype(source).itemsize == 16 else 8
        assert input % align == 0 and output % align == 0, (self.kind, input, output)
        n, half = self.n, self.n[:-1] + (self.n[-1] // 2 + 1,)
        in_shape = (self.batch,) + (half if self.kind in ("C2R", "Z2D") else n)
        out_shape = (self.batch,) + (half if self.kind in ("R2C", "D2Z") else n)
        x = _memory(input, source, in_shape, _c_strides(in_shape))
        y = _memory(output, target, out_shape, _c_strides(out_shape))
        axes = tuple(range(1, len(n) + 1))
        if self.kind in ("C2C", "Z2Z"):
            assert forward in (True, False)
            value = np.fft.fftn(x, axes=axes) if forward else \
                np.fft.ifftn(x, axes=axes) * np.prod(n)
        elif self.kind in ("R2C", "D2Z"):
            assert forward
            value = np.fft.rfftn(x, axes=axes)
        else:
            assert not forward
            value = np.fft.irfftn(x, s=n, axes=axes) * np.prod(n)
            x[...] = np.nan  # cuFFT's complex-to-real plans overwrite their input
        y[...] = value.astype(target)


class FakeCusolver:
    """cuSOLVER's dense routines (the methods of _core.CusolverHandle) in NumPy, on host
    memory at the pointers: column-major matrices with the leading dimensions given,
    checked as cuSOLVER checks them (sizes >= 0, ld >= max(1, rows), gesvd's m >= n);
    each call must follow its buffer-size query for the same type and sizes and get at
    least the lwork that answered (the answers are odd sizes, so a workspace sized any
    other way shows). Results follow LAPACK: only the `uplo` triangle is read (the other
    left as it was), pivots 1-based, U and V with random signs (phases), gesvd and syevd
    without vectors destroy their input, and info is written: 0, the LAPACK index of
    failure (> 0), or -i for a bad argument i (`bad_argument` forces one)."""

    def __init__(self, rng):
        self.rng = rng
        self.calls = []
        self.queried = {}
        self.bad_argument = None

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _dtype(type):
        assert type in SOLVER_TYPES, type
        return np.dtype(SOLVER_TYPES[type])

    @staticmethod
    def _matrix(pointer, dtype, rows, cols, ld):
        assert rows >= 0 and cols >= 0 and ld >= max(1, rows), (rows, cols, ld)
        assert pointer, "null matrix"
        return _memory(pointer, dtype, (rows, cols), (1, ld))

    @staticmethod
    def _vector(pointer, dtype, length):
        assert pointer, "null vector"
        return _memory(pointer, dtype, (length,), (1,))

    def _answer(self, routine, key, lwork):
        self.calls.append((routine + "_buffer_size", key))
        self.queried[routine] = (key, lwork)
        return lwork

    def _called(self, routine, key, lwork, work, info):
        self.calls.append((routine, key))
        asked = self.queried.get(routine)
        assert asked is not None and asked[0] == key, (routine, key, asked)
        assert work, f"{routine}: no workspace"
        assert lwork is None or lwork >= asked[1], (routine, lwork, asked)
        if self.bad_argument is not None:
            self._info(info, -self.bad_argument)
            return False
        return True

    @staticmethod
    def _info(pointer, value):
        _memory(pointer, np.int32, (1,), (1,))[0] = value

    @staticmethod
    def _hermitian(a, uplo):
        """The Hermitian matrix LAPACK sees in a's `uplo` triangle (real diagonal)."""
        t = np.tril(a, -1) if uplo == LOWER else np.triu(a, 1)
        return t + np.conj(t.T) + np.diag(np.diag(a).real)

    def _phases(self, count, dtype):
        if np.dtype(dtype).kind == "c":
            return np.exp(2j * np.pi * self.rng.random(count))
        return self.rng.choice([-1.0, 1.0], count)

    # -- Cholesky -------------------------------------------------------------------------

    def potrf_buffer_size(self, type, uplo, n, a, lda):
        assert uplo in (LOWER, UPPER)
        return self._answer("potrf", (type, uplo, n, lda), 3 * n + 5)

    def potrf(self, type, uplo, n, a, lda, work, lwork, info):
        if not self._called("potrf", (type, uplo, n, lda), lwork, work, info):
            return
        dtype = self._dtype(type)
        A = self._matrix(a, dtype, n, n, lda)
        h = self._hermitian(A.astype(np.complex128), uplo)
        for k in range(1, n + 1):  # LAPACK's info: the first minor not positive definite
            if np.linalg.eigvalsh(h[:k, :k])[0] <= 0:
                return self._info(info, k)
        L = np.linalg.cholesky(h)
        if uplo == LOWER:
            mask = np.tril(np.ones((n, n), bool))
            A[mask] = L[mask].astype(dtype) if dtype.kind == "c" else L.real[mask]
        else:
            mask = np.triu(np.ones((n, n), bool))
            U = np.conj(L.T)
            A[mask] = U[mask].astype(dtype) if dtype.kind == "c" else U.real[mask]
        if dtype.kind == "f" or dtype.kind == "c":
            A[~mask] = np.nan  # the other triangle is not the caller's to read
        self._info(info, 0)

    # -- LU -------------------------------------------------------------------------------

    def getrf_buffer_size(self, type, m, n, a, lda):
        return self._answer("getrf", (type, m, n, lda), m * n + 7)

    def getrf(self, type, m, n, a, lda, work, ipiv, info):
        if not self._called("getrf", (type, m, n, lda), None, work, info):  # no lwork
            return
        dtype = self._dtype(type)
        A = self._matrix(a, dtype, m, n, lda)
        pivots = self._vector(ipiv, np.int32, min(m, n))
        lu = A.astype(np.complex128)
        first_zero = 0
        for j in range(min(m, n)):  # getf2: partial pivoting, row swaps
            p = j + int(np.argmax(np.abs(lu[j:, j])))
            pivots[j] = p + 1
            lu[[j, p]] = lu[[p, j]]
            if lu[j, j] != 0:
                lu[j + 1:, j] /= lu[j, j]
            elif not first_zero:
                first_zero = j + 1
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
        A[...] = lu if dtype.kind == "c" else lu.real
        self._info(info, first_zero)

    def getrs(self, type, trans, n, nrhs, a, lda, ipiv, b, ldb, info):
        self.calls.append(("getrs", (type, trans, n, nrhs, lda, ldb)))
        assert trans in (0, 1, 2) and nrhs >= 0
        dtype = self._dtype(type)
        lu = self._matrix(a, dtype, n, n, lda).astype(np.complex128)
        B = self._matrix(b, dtype, n, nrhs, ldb)
        pivots = self._vector(ipiv, np.int32, n).copy()
        L = np.tril(lu, -1) + np.eye(n)
        U = np.triu(lu)
        P = np.eye(n)
        for j in range(n):  # A = P L U, P the swaps applied in order
            P[:, [j, pivots[j] - 1]] = P[:, [pivots[j] - 1, j]]
        A = P @ L @ U
        op = {0: A, 1: A.T, 2: np.conj(A.T)}[trans]
        x = np.linalg.solve(op, B.astype(np.complex128))
        B[...] = x if dtype.kind == "c" else x.real
        self._info(info, 0)

    # -- QR -------------------------------------------------------------------------------

    def geqrf_buffer_size(self, type, m, n, a, lda):
        return self._answer("geqrf", (type, m, n, lda), n + 11)

    def geqrf(self, type, m, n, a, lda, tau, work, lwork, info):
        if not self._called("geqrf", (type, m, n, lda), lwork, work, info):
            return
        dtype = self._dtype(type)
        A = self._matrix(a, dtype, m, n, lda)
        h, t = np.linalg.qr(np.array(A), mode="raw")  # LAPACK's geqrf, h transposed
        A[...] = h.T
        self._vector(tau, dtype, min(m, n))[...] = t
        self._info(info, 0)

    def orgqr_buffer_size(self, type, m, n, k, a, lda, tau):
        return self._answer("orgqr", (type, m, n, k, lda), m + n + 13)

    def orgqr(self, type, m, n, k, a, lda, tau, work, lwork, info):
        if not self._called("orgqr", (type, m, n, k, lda), lwork, work, info):
            return
        assert m >= n >= k >= 0, (m, n, k)
        dtype = self._dtype(type)
        A = self._matrix(a, dtype, m, n, lda)
        t = self._vector(tau, dtype, k)
        q = np.eye(m, n, dtype=np.complex128)
        for i in reversed(range(k)):  # Q = H(1) ... H(k), H(i) = I - tau v v^H
            v = np.concatenate([np.zeros(i), [1.0], A[i + 1:, i]])
            q -= t[i] * np.outer(v, np.conj(v) @ q)
        A[...] = q if dtype.kind == "c" else q.real
        self._info(info, 0)

    # -- SVD ------------------------------------------------------------------------------

    def gesvd_buffer_size(self, type, m, n):
        return self._answer("gesvd", (type, m, n), 5 * m + 17)

    def gesvd(self, type, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork,
              info):
        if not self._called("gesvd", (type, m, n), lwork, work, info):
            return
        assert m >= n, f"cuSOLVER's gesvd needs m >= n, not {m} x {n}"
        assert jobu in "ASN" and jobvt in "ASN", (jobu, jobvt)
        dtype = self._dtype(type)
        real = np.finfo(dtype).dtype
        k = min(m, n)
        A = self._matrix(a, dtype, m, n, lda)
        U, S, Vh = np.linalg.svd(A.astype(np.complex128 if dtype.kind == "c" else np.float64))
        phases = self._phases(k, dtype)
        U[:, :k] *= phases
        Vh[:k] *= np.conj(phases)[:, None]
        self._vector(s, real, k)[...] = S
        if jobu != "N":
            cols = m if jobu == "A" else k
            self._matrix(u, dtype, m, cols, ldu)[...] = U[:, :cols]
        if jobvt != "N":
            rows = n if jobvt == "A" else k
            self._matrix(vt, dtype, rows, n, ldvt)[...] = Vh[:rows]
        A[...] = np.nan  # gesvd destroys A
        self._info(info, 0)

    # -- Hermitian eigenproblems --------------------------------------------------------

    def syevd_buffer_size(self, type, vectors, uplo, n, a, lda, w):
        assert uplo in (LOWER, UPPER)
        return self._answer("syevd", (type, bool(vectors), uplo, n, lda), 2 * n + 19)

    def syevd(self, type, vectors, uplo, n, a, lda, w, work, lwork, info):
        if not self._called("syevd", (type, bool(vectors), uplo, n, lda), lwork, work, info):
            return
        dtype = self._dtype(type)
        A = self._matrix(a, dtype, n, n, lda)
        values, V = np.linalg.eigh(self._hermitian(A.astype(np.complex128), uplo))
        self._vector(w, np.finfo(dtype).dtype, n)[...] = values
        if vectors:
            V = V * self._phases(n, dtype)
            A[...] = V if dtype.kind == "c" else V.real
        else:
            A[...] = np.nan  # the triangle is destroyed
        self._info(info, 0)


def _c_strides(shape):
    strides, step = [], 1
    for e in reversed(shape):
        strides.append(step)
        step *= e
    return tuple(reversed(strides))


@pytest.fixture
def cpu():
    try:
        return simt.get_device("cpu")
    except Exception as error:  # noqa: BLE001 (a build without the CPU backend)
        pytest.skip(f"no cpu device: {error}")


@pytest.fixture
def emulated_cublas(monkeypatch, cpu):
    """matmul on the cpu device through _cublas (the cuda path) and FakeCublas."""
    fake = FakeCublas()
    monkeypatch.setattr(_linalg, "_host_blas", lambda device: False)
    monkeypatch.setattr(_cublas, "cublas_handle",
                        lambda device: fake if device.backend == "cpu" else None)
    return fake


@pytest.fixture
def emulated_cufft(monkeypatch, cpu):
    """simt.fft on the cpu device through the cuFFT engine and FakePlan."""
    log = []
    engine = simt.fft._CufftEngine(_cufft.CufftTransforms(
        lambda device, kind, n, batch: FakePlan(kind, n, batch, log)))
    monkeypatch.setattr(simt.fft, "_engine", lambda device: engine)
    return log


@pytest.fixture
def emulated_cusolver(monkeypatch, cpu, rng):
    """simt.linalg's decompositions on the cpu device through _cusolver (the cuda path)
    and FakeCusolver."""
    fake = FakeCusolver(rng)
    monkeypatch.setattr(_cusolver, "handle",
                        lambda device: fake if device.backend == "cpu" else None)
    return fake


# --- finding the libraries ----------------------------------------------------------------

def _skip_unless_found(library):
    status = _vendor_libraries.status(library)
    if not status["available"]:
        pytest.skip(f"{library} not installed: {status['reason']}")
    return status


@pytest.mark.parametrize("library, soname", [("cublas", "libcublas.so"),
                                             ("cufft", "libcufft.so"),
                                             ("cusolver", "libcusolver.so")])
def test_libraries_are_found_without_a_gpu(library, soname):
    status = _skip_unless_found(library)
    assert soname in status["path"] and os.path.isabs(status["path"]), status
    assert status["version"][0].isdigit(), status


def test_info_reports_the_libraries():
    _skip_unless_found("cublas")
    out = subprocess.run([sys.executable, "-m", "simt", "info"], capture_output=True,
                         text=True, check=True).stdout
    assert "cuBLAS " in out and "libcublas.so" in out, out
    assert "cuFFT " in out and "libcufft.so" in out, out
    if _vendor_libraries.status("cusolver")["available"]:
        assert "cuSOLVER " in out and "libcusolver.so" in out, out


def test_missing_library_reports_where_it_looked(tmp_path):
    env = dict(os.environ, SIMT_CUBLAS_PATH=str(tmp_path / "libcublas.so.13"))
    code = ("from simt import _vendor_libraries as c; s = c.status('cublas'); "
            "print(s['available'], s['reason'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.startswith("False SIMT_CUBLAS_PATH=") and "could not be loaded" in out, out


# --- routing ------------------------------------------------------------------------------

def _fake_cuda(index=0):
    return types.SimpleNamespace(backend="cuda", id=f"cuda:{index}")


def test_cublas_handles_are_per_device_and_thread(monkeypatch):
    made = []
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_vendor_libraries._core, "CublasHandle",
                        lambda device: made.append(device.id) or object())
    monkeypatch.setattr(_vendor_libraries, "_local", threading.local())
    monkeypatch.delenv("SIMT_CUBLAS", raising=False)
    first = _cublas.cublas_handle(_fake_cuda(0))
    assert _cublas.cublas_handle(_fake_cuda(0)) is first
    assert _cublas.cublas_handle(_fake_cuda(1)) is not first
    other = []
    thread = threading.Thread(target=lambda: other.append(
        _cublas.cublas_handle(_fake_cuda(0))))
    thread.start()
    thread.join()
    assert other[0] is not first and made == ["cuda:0", "cuda:1", "cuda:0"]


@pytest.mark.parametrize("value, used", [(None, True), ("1", True), ("0", False),
                                         (" 0 ", False)])
def test_switches_route_to_the_generated_kernels(monkeypatch, value, used):
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_vendor_libraries._core, "CublasHandle", lambda device: object())
    monkeypatch.setattr(_vendor_libraries, "_local", threading.local())
    for variable in ("SIMT_CUBLAS", "SIMT_CUFFT"):
        if value is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, value)
    cuda = _fake_cuda()
    assert (_cublas.cublas_handle(cuda) is not None) == used
    assert (simt.fft._engine(cuda) is simt.fft._CUFFT) == used
    if not used:
        assert simt.fft._engine(cuda) is simt.fft._GPU


def test_missing_libraries_route_to_the_generated_kernels(monkeypatch):
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": False})
    monkeypatch.delenv("SIMT_CUBLAS", raising=False)
    monkeypatch.delenv("SIMT_CUFFT", raising=False)
    assert _cublas.cublas_handle(_fake_cuda()) is None
    assert simt.fft._engine(_fake_cuda()) is simt.fft._GPU


def test_other_devices_never_use_the_libraries(cpu):
    assert _cublas.cublas_handle(cpu) is None
    assert not _cufft.usable(cpu)
    assert _cusolver.handle(cpu) is None


def test_cusolver_handles_are_per_device_and_thread(monkeypatch):
    made = []
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_vendor_libraries._core, "CusolverHandle",
                        lambda device: made.append(device.id) or object())
    monkeypatch.setattr(_vendor_libraries, "_local", threading.local())
    monkeypatch.delenv("SIMT_CUSOLVER", raising=False)
    first = _cusolver.handle(_fake_cuda(0))
    assert _cusolver.handle(_fake_cuda(0)) is first
    assert _cusolver.handle(_fake_cuda(1)) is not first
    other = []
    thread = threading.Thread(target=lambda: other.append(
        _cusolver.handle(_fake_cuda(0))))
    thread.start()
    thread.join()
    assert other[0] is not first and made == ["cuda:0", "cuda:1", "cuda:0"]
    assert _cusolver.unusable() is None


def test_cusolver_switched_off_or_missing_says_why(monkeypatch):
    monkeypatch.setattr(_vendor_libraries, "_local", threading.local())
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": True})
    monkeypatch.setenv("SIMT_CUSOLVER", "0")
    assert _cusolver.handle(_fake_cuda()) is None
    assert "SIMT_CUSOLVER=0" in _cusolver.unusable()
    monkeypatch.delenv("SIMT_CUSOLVER")
    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {
        "available": False, "reason": "cuSOLVER not found (pip install ...)\n  no libcusolver"})
    assert _cusolver.handle(_fake_cuda()) is None
    assert _cusolver.unusable() == \
        "was not found (cuSOLVER not found (pip install ...))"


def test_cusolver_handle_needs_a_cuda_device(cpu):
    if not _vendor_libraries.status("cusolver")["available"]:
        pytest.skip("cuSOLVER not installed")
    with pytest.raises(ValueError, match="cuSOLVER: needs a cuda device, not cpu"):
        _vendor_libraries._core.CusolverHandle(cpu)


def test_plans_are_cached_and_bounded(monkeypatch):
    made = []
    monkeypatch.setattr(_vendor_libraries._core, "CufftPlan",
                        lambda device, kind, n, batch: made.append((kind, tuple(n), batch))
                        or object())
    monkeypatch.setattr(_cufft, "_plans", type(_cufft._plans)())
    cuda = _fake_cuda()
    first = _cufft.plan(cuda, "C2C", (8,), 3)
    assert _cufft.plan(cuda, "C2C", [8], 3) is first
    assert _cufft.plan(cuda, "C2C", (8,), 4) is not first
    for n in range(2, 2 + _cufft._PLANS_KEPT):
        _cufft.plan(cuda, "Z2Z", (n,), 1)
    assert len(_cufft._plans) == _cufft._PLANS_KEPT
    assert ("cuda:0", "C2C", (8,), 3) not in _cufft._plans  # the oldest went


# --- cuBLAS's arguments, emulated -----------------------------------------------------------

@pytest.mark.parametrize("shapes", test_array_linalg.SHAPES, ids=str)
def test_matmul_suite_through_emulated_cublas(emulated_cublas, cpu, rng, shapes):
    test_array_linalg.test_matmul_matches_numpy(cpu, rng, shapes)
    if 0 not in shapes[0] + shapes[1]:
        # Products of one output column (matrix times vector) take simt's row kernel.
        one_column = len(shapes[1]) == 1 or shapes[1][-1] == 1
        assert bool(emulated_cublas.calls) != one_column, emulated_cublas.calls


def test_matmul_views_through_emulated_cublas(emulated_cublas, cpu, rng):
    test_array_linalg.test_matmul_of_views_and_in_place(cpu, rng)
    test_array_linalg.test_matmul_layouts_and_shapes(cpu, rng)
    ops = {(call["a_transposed"], call["b_transposed"]) for call in emulated_cublas.calls}
    assert {(False, False), (True, True)} <= ops, ops  # transposed views read as they are


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("int32", "int8"),
                                    ("complex64", "complex64"), ("float16", "float16"),
                                    ("uint8", "float32"), ("complex128", "float16")], ids=str)
def test_matmul_dtypes_through_emulated_cublas(emulated_cublas, cpu, rng, dtypes):
    test_array_linalg.test_matmul_dtypes_promote_as_numpy(cpu, rng, dtypes)
    integer = all(np.dtype(d).kind in "biu" for d in dtypes)
    assert bool(emulated_cublas.calls) != integer  # integers stay on simt's kernel


def test_batched_broadcast_is_one_strided_call(emulated_cublas, cpu, rng):
    a = rng.standard_normal((5, 1, 6, 7)).astype(np.float32)
    b = rng.standard_normal((3, 7, 4)).astype(np.float32)
    got = simt.asarray(a, device=cpu) @ simt.asarray(b, device=cpu)
    np.testing.assert_allclose(got.get(), a @ b, rtol=1e-5, atol=1e-5)
    call = emulated_cublas.calls[-1]
    assert len(emulated_cublas.calls) == 1 and call["batch"] == 15, emulated_cublas.calls


def test_single_batch_broadcast_stride_zero(emulated_cublas, cpu, rng):
    a = rng.standard_normal((6, 7)).astype(np.float64)
    b = rng.standard_normal((4, 7, 3)).astype(np.float64)
    got = simt.asarray(a, device=cpu) @ simt.asarray(b, device=cpu)
    np.testing.assert_allclose(got.get(), a @ b, rtol=1e-12)
    call = emulated_cublas.calls[-1]
    assert call["batch"] == 4 and call["stride_b"] == 0, call  # a, cuBLAS's B, reused


# --- cuFFT's plans, emulated ----------------------------------------------------------------

FFT_CASES = [
    ("test_fft_and_ifft_of_each_length", dict(n=n, dtype=d))
    for n in (1, 2, 16, 3, 17, 100) for d in (np.complex64, np.complex128)
] + [("test_norms", dict(norm=norm)) for norm in test_fft.NORMS] + [
    ("test_result_dtypes_keep_single_precision", dict(dtype=d, result=r))
    for d, r in [(np.float32, np.complex64), (np.float16, np.complex64),
                 (np.int32, np.complex128), (np.complex128, np.complex128)]
] + [("test_rfft_and_irfft", dict(n=n, dtype=d)) for n in (1, 2, 5, 16, 33)
     for d in (np.float32, np.float64)] + [
    ("test_n_pads_or_truncates_along_axis", dict(function=f, n=n, axis=axis))
    for f in ("fft", "ifft", "rfft", "irfft", "hfft") for n in (5, 8) for axis in (0, -1, 1)
] + [("test_n_dimensional", dict(shape=shape, s=s, axes=axes)) for shape, s, axes in [
    ((8, 16), None, None), ((4, 8, 16), None, None), ((4, 8, 16), (5, 32), None),
    ((4, 8, 16), None, (0, 2)), ((4, 8, 16), (16, 3), (2, 0)), ((3, 5, 7), (4, -1, 2), None),
    ((2, 3, 4, 5), None, None)]
] + [(name, {}) for name in ("test_two_dimensional_defaults", "test_non_contiguous_views",
                             "test_round_trips", "test_fft_layouts_and_shapes")]


@pytest.mark.parametrize("name, params", FFT_CASES, ids=lambda v: str(v))
def test_fft_suite_through_emulated_cufft(emulated_cufft, cpu, rng, name, params):
    getattr(test_fft, name)(cpu, rng, **params)


def test_fft_plans_as_expected(emulated_cufft, cpu, rng):
    a = rng.standard_normal((4, 1024)).astype(np.complex64)
    simt.fft.fft(simt.asarray(a, device=cpu))
    assert emulated_cufft == [("C2C", (1024,), 4, True)]  # one batched plan, no copies
    emulated_cufft.clear()
    simt.fft.ifftn(simt.asarray(a.reshape(4, 32, 32), device=cpu))
    assert emulated_cufft == [("C2C", (4, 32, 32), 1, False)]  # the three axes at once
    emulated_cufft.clear()
    r = rng.standard_normal((6, 10, 9))
    simt.fft.irfft2(simt.asarray(r.astype(np.complex128), device=cpu), s=(10, 15))
    assert emulated_cufft == [("Z2Z", (10,), 6 * 8, False), ("Z2D", (15,), 60, False)]


def test_irfft_leaves_its_input_alone(emulated_cufft, cpu, rng):
    spectrum = (rng.standard_normal((3, 9)) + 1j * rng.standard_normal((3, 9)))
    x = simt.asarray(spectrum, device=cpu)
    got = simt.fft.irfft(x, n=16)
    np.testing.assert_allclose(got.get(), np.fft.irfft(spectrum, n=16), atol=1e-12)
    assert np.array_equal(x.get(), spectrum)  # the plan scribbled over a copy


def test_cufft_inputs_are_aligned_and_results_new(emulated_cufft, cpu, rng):
    # x[1:] of a real array starts half a complex in: cuFFT needs a copy (FakePlan checks
    # the alignment). A transform over axes of length 1 is still a new array.
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        x = rng.standard_normal(33).astype(dtype)
        d = simt.asarray(x, device=cpu)[1:]
        np.testing.assert_allclose(simt.fft.fft(d).get(), np.fft.fft(x[1:]), rtol=1e-4,
                                   atol=1e-4)
        if dtype in (np.float32, np.float64):
            np.testing.assert_allclose(simt.fft.rfft(d).get(), np.fft.rfft(x[1:]), rtol=1e-4,
                                       atol=1e-4)
    c = simt.asarray(rng.standard_normal((3, 1)).astype(np.complex64), device=cpu)
    f = simt.fft.fft(c)
    assert f is not c and f._impl.data_ptr != c._impl.data_ptr
    np.testing.assert_array_equal(f.get(), c.get())


def test_cublas_that_cannot_start_falls_back_with_one_warning(monkeypatch):
    # cublasCreate fails where the library is newer than the driver: matmul must go on
    # with simt's kernel, said once per device.
    class CudaLike:
        backend, id = "cuda", "cuda:7"

    def failing(device):
        raise simt.DeviceError("cublasCreate_v2 failed on cuda:7: CUBLAS_STATUS_NOT_INITIALIZED")

    monkeypatch.setattr(_vendor_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_vendor_libraries._core, "CublasHandle", failing)
    monkeypatch.setattr(_cublas, "_cublas_failed", {})
    with pytest.warns(RuntimeWarning, match="cuBLAS could not start on cuda:7"):
        assert _cublas.cublas_handle(CudaLike()) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cublas.cublas_handle(CudaLike()) is None


# --- cuSOLVER's arguments, emulated ---------------------------------------------------------

SOLVER_SUITE = [
    ("test_cholesky_eigh_inv_det", dict(dtype=d, shape=shape))
    for d in (np.float32, np.float64, np.complex64, np.complex128)
    for shape in ((4, 4), (3, 5, 5), (1, 1))
] + [("test_triangles_read_as_numpy", dict(dtype=d)) for d in (np.float64, np.complex64)] + [
    ("test_inv_det_solve_of_general_matrices", dict(dtype=d))
    for d in (np.float32, np.float64, np.complex64, np.complex128)
] + [
    ("test_qr_svd_pinv_rank", dict(shape=shape, dtype=d))
    for shape in ((5, 3), (3, 5), (2, 4, 4), (2, 6, 2), (2, 1, 3, 7), (1, 1))
    for d in (np.float64, np.float32, np.complex128)
] + [("test_empty_inputs_as_numpy", dict(shape=shape))
     for shape in ((0, 0), (3, 0, 0), (0, 4, 4))] + [
    (name, {}) for name in ("test_rank_deficient_and_rtol", "test_solve_broadcasts",
                            "test_views_and_integers", "test_decomposition_errors")]


@pytest.mark.parametrize("name, params", SOLVER_SUITE, ids=lambda v: str(v))
def test_linalg_suite_through_emulated_cusolver(emulated_cusolver, cpu, rng, name, params):
    test = getattr(test_linalg_namespace, name)
    if "rng" in inspect.signature(test).parameters:
        params = dict(params, rng=rng)
    test(cpu, **params)
    if name != "test_empty_inputs_as_numpy":
        assert emulated_cusolver.calls, "cuSOLVER was not called"


def _routines(fake):
    return [routine for routine, _ in fake.calls]


def test_cholesky_asks_for_the_transposed_triangle(emulated_cusolver, cpu, rng):
    a = test_linalg_namespace._spd(rng, (3, 4, 4), np.float64)
    x = simt.asarray(a, device=cpu)
    simt.linalg.cholesky(x)
    assert _routines(emulated_cusolver) == ["potrf_buffer_size"] + ["potrf"] * 3
    assert {key[1] for _, key in emulated_cusolver.calls} == {UPPER}  # L: cuSOLVER's U
    emulated_cusolver.calls.clear()
    simt.linalg.cholesky(x, upper=True)
    assert {key[1] for _, key in emulated_cusolver.calls} == {LOWER}
    assert all(key[2:] == (4, 4) for _, key in emulated_cusolver.calls)  # n, lda


def test_solve_factors_once_and_solves_transposed(emulated_cusolver, cpu, rng):
    a = test_linalg_namespace._spd(rng, (2, 3, 3), np.float64)
    b = rng.standard_normal((2, 3, 5))
    got = simt.linalg.solve(simt.asarray(a, device=cpu), simt.asarray(b, device=cpu))
    np.testing.assert_allclose(got.get(), np.linalg.solve(a, b), rtol=1e-10)
    assert _routines(emulated_cusolver) == ["getrf_buffer_size", "getrf", "getrf", "getrs",
                                            "getrs"]
    getrs = [key for routine, key in emulated_cusolver.calls if routine == "getrs"]
    assert getrs[0] == (1, 1, 3, 5, 3, 3)  # D, op T, n, nrhs, lda, ldb
    emulated_cusolver.calls.clear()
    simt.linalg.inv(simt.asarray(a[0], device=cpu))
    assert [key for routine, key in emulated_cusolver.calls if routine == "getrs"] == \
        [(1, 0, 3, 3, 3, 3)]  # op N on the identity


@pytest.mark.parametrize("shape, rows, cols", [((6, 4), 6, 4), ((4, 6), 6, 4), ((5, 5), 5, 5),
                                               ((2, 1, 9), 9, 1)])
def test_gesvd_gets_rows_at_least_columns(emulated_cusolver, cpu, rng, shape, rows, cols):
    a = rng.standard_normal(shape).astype(np.complex64)
    x = simt.asarray(a, device=cpu)
    for full in (True, False):
        emulated_cusolver.calls.clear()
        u, s, vh = simt.linalg.svd(x, full_matrices=full)
        k = min(shape[-2:])
        rebuilt = (u.get()[..., :k] * s.get()[..., None, :]) @ vh.get()[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, rtol=1e-4, atol=1e-4)
        sizes = {key for routine, key in emulated_cusolver.calls}
        assert sizes == {(4, rows, cols)}, sizes
    emulated_cusolver.calls.clear()
    simt.linalg.svdvals(x)
    assert _routines(emulated_cusolver) == ["gesvd_buffer_size"] + \
        ["gesvd"] * int(np.prod(shape[:-2]))


def test_eigh_uplo_and_jobz(emulated_cusolver, cpu, rng):
    a = test_linalg_namespace._spd(rng, (5, 5), np.complex128)
    x = simt.asarray(a, device=cpu)
    simt.linalg.eigh(x)
    simt.linalg.eigvalsh(x, UPLO="U")
    keys = [key for routine, key in emulated_cusolver.calls if routine == "syevd"]
    assert keys == [(5, True, UPPER, 5, 5), (5, False, LOWER, 5, 5)]  # A's L: conj(A)'s U


def test_qr_generates_q_from_the_reflectors(emulated_cusolver, cpu, rng):
    a = rng.standard_normal((7, 3))
    x = simt.asarray(a, device=cpu)
    simt.linalg.qr(x, mode="complete")
    keys = {routine: key for routine, key in emulated_cusolver.calls}
    assert keys["geqrf"] == (1, 7, 3, 7) and keys["orgqr"] == (1, 7, 7, 3, 7)
    emulated_cusolver.calls.clear()
    simt.linalg.qr(x, mode="r")
    assert "orgqr" not in _routines(emulated_cusolver)


def test_negative_info_names_the_routine(emulated_cusolver, cpu):
    emulated_cusolver.bad_argument = 4
    with pytest.raises(RuntimeError, match="cuSOLVER's potrf rejected its argument 4"):
        simt.linalg.cholesky(simt.asarray(np.eye(3), device=cpu))
    with pytest.raises(RuntimeError, match="cuSOLVER's gesvd rejected its argument 4"):
        simt.linalg.svdvals(simt.asarray(np.eye(3), device=cpu))


def test_empty_inputs_never_reach_cusolver(emulated_cusolver, cpu):
    x = simt.asarray(np.zeros((3, 0, 0)), device=cpu)
    simt.linalg.det(x)
    simt.linalg.svd(x)
    simt.linalg.solve(simt.asarray(np.eye(2), device=cpu),
                      simt.asarray(np.zeros((2, 0)), device=cpu))
    assert emulated_cusolver.calls == []


def test_pinv_and_rank_take_numpy_tolerances(emulated_cusolver, cpu, rng):
    # rtol as NumPy arrays or lists, as the cpu path takes them, on the cuSOLVER path.
    a = rng.standard_normal((3, 5, 4))
    a[1, :, 3] = a[1, :, 0]  # rank 3
    x = simt.asarray(a, device=cpu)
    rtol = np.array([1e-12, 1e-3, 0.5])
    np.testing.assert_allclose(simt.linalg.pinv(x, rtol=rtol).get(),
                               np.linalg.pinv(a, rtol=rtol), atol=1e-10)
    np.testing.assert_array_equal(simt.linalg.matrix_rank(x, rtol=list(rtol)).get(),
                                  np.linalg.matrix_rank(a, rtol=list(rtol)))
