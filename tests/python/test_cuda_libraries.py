"""cuBLAS and cuFFT on cuda devices (simt._cuda_libraries, _array_api/_cublas.py,
_fft_cufft.py), tested without a GPU:

- the libraries are found where NVRTC is (here /usr/local/cuda) and `simt info` says so;
- SIMT_CUBLAS=0 / SIMT_CUFFT=0 route matmul and simt.fft to the generated kernels, as
  does a missing library; handles are per (device, thread), plans cached;
- the calls simt makes are right: NumPy stand-ins for cuBLAS's GEMM and cuFFT's plans,
  which read and write host memory through the pointers, the leading dimensions, batch
  strides and sizes exactly as the libraries document them (and reject what cuBLAS
  rejects, and scribble over a complex-to-real plan's input as cuFFT may), run the
  matmul and FFT suites on the cpu device through the cuda code paths.
On a GPU the same suites (test_array_linalg.py, test_fft.py) run on cuda:0 against the
real libraries."""

import ctypes
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
from simt import _cuda_libraries, _fft_cufft
from simt._array_api import _linalg

import test_array_linalg
import test_fft

CUDA_TYPES = {0: np.float32, 1: np.float64, 2: np.float16, 4: np.complex64, 5: np.complex128}


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
    monkeypatch.setattr(_cuda_libraries, "cublas_handle",
                        lambda device: fake if device.backend == "cpu" else None)
    return fake


@pytest.fixture
def emulated_cufft(monkeypatch, cpu):
    """simt.fft on the cpu device through the cuFFT engine and FakePlan."""
    log = []
    engine = simt.fft._CufftEngine(_fft_cufft.CufftTransforms(
        lambda device, kind, n, batch: FakePlan(kind, n, batch, log)))
    monkeypatch.setattr(simt.fft, "_engine", lambda device: engine)
    return log


# --- finding the libraries ----------------------------------------------------------------

def _skip_unless_found(library):
    status = _cuda_libraries.status(library)
    if not status["available"]:
        pytest.skip(f"{library} not installed: {status['reason']}")
    return status


@pytest.mark.parametrize("library, soname", [("cublas", "libcublas.so"),
                                             ("cufft", "libcufft.so")])
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


def test_missing_library_reports_where_it_looked(tmp_path):
    env = dict(os.environ, SIMT_CUBLAS_PATH=str(tmp_path / "libcublas.so.13"))
    code = ("from simt import _cuda_libraries as c; s = c.status('cublas'); "
            "print(s['available'], s['reason'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.startswith("False SIMT_CUBLAS_PATH=") and "could not be loaded" in out, out


# --- routing ------------------------------------------------------------------------------

def _fake_cuda(index=0):
    return types.SimpleNamespace(backend="cuda", id=f"cuda:{index}")


def test_cublas_handles_are_per_device_and_thread(monkeypatch):
    made = []
    monkeypatch.setattr(_cuda_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_cuda_libraries._core, "CublasHandle",
                        lambda device: made.append(device.id) or object())
    monkeypatch.setattr(_cuda_libraries, "_local", threading.local())
    monkeypatch.delenv("SIMT_CUBLAS", raising=False)
    first = _cuda_libraries.cublas_handle(_fake_cuda(0))
    assert _cuda_libraries.cublas_handle(_fake_cuda(0)) is first
    assert _cuda_libraries.cublas_handle(_fake_cuda(1)) is not first
    other = []
    thread = threading.Thread(target=lambda: other.append(
        _cuda_libraries.cublas_handle(_fake_cuda(0))))
    thread.start()
    thread.join()
    assert other[0] is not first and made == ["cuda:0", "cuda:1", "cuda:0"]


@pytest.mark.parametrize("value, used", [(None, True), ("1", True), ("0", False),
                                         (" 0 ", False)])
def test_switches_route_to_the_generated_kernels(monkeypatch, value, used):
    monkeypatch.setattr(_cuda_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_cuda_libraries._core, "CublasHandle", lambda device: object())
    monkeypatch.setattr(_cuda_libraries, "_local", threading.local())
    for variable in ("SIMT_CUBLAS", "SIMT_CUFFT"):
        if value is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, value)
    cuda = _fake_cuda()
    assert (_cuda_libraries.cublas_handle(cuda) is not None) == used
    assert (simt.fft._engine(cuda) is simt.fft._CUFFT) == used
    if not used:
        assert simt.fft._engine(cuda) is simt.fft._GPU


def test_missing_libraries_route_to_the_generated_kernels(monkeypatch):
    monkeypatch.setattr(_cuda_libraries, "status", lambda library: {"available": False})
    monkeypatch.delenv("SIMT_CUBLAS", raising=False)
    monkeypatch.delenv("SIMT_CUFFT", raising=False)
    assert _cuda_libraries.cublas_handle(_fake_cuda()) is None
    assert simt.fft._engine(_fake_cuda()) is simt.fft._GPU


def test_other_devices_never_use_the_libraries(cpu):
    assert _cuda_libraries.cublas_handle(cpu) is None
    assert not _cuda_libraries.cufft_usable(cpu)


def test_plans_are_cached_and_bounded(monkeypatch):
    made = []
    monkeypatch.setattr(_cuda_libraries._core, "CufftPlan",
                        lambda device, kind, n, batch: made.append((kind, tuple(n), batch))
                        or object())
    monkeypatch.setattr(_cuda_libraries, "_plans", type(_cuda_libraries._plans)())
    cuda = _fake_cuda()
    first = _cuda_libraries.cufft_plan(cuda, "C2C", (8,), 3)
    assert _cuda_libraries.cufft_plan(cuda, "C2C", [8], 3) is first
    assert _cuda_libraries.cufft_plan(cuda, "C2C", (8,), 4) is not first
    for n in range(2, 2 + _cuda_libraries._PLANS_KEPT):
        _cuda_libraries.cufft_plan(cuda, "Z2Z", (n,), 1)
    assert len(_cuda_libraries._plans) == _cuda_libraries._PLANS_KEPT
    assert ("cuda:0", "C2C", (8,), 3) not in _cuda_libraries._plans  # the oldest went


# --- cuBLAS's arguments, emulated -----------------------------------------------------------

@pytest.mark.parametrize("shapes", test_array_linalg.SHAPES, ids=str)
def test_matmul_suite_through_emulated_cublas(emulated_cublas, cpu, rng, shapes):
    test_array_linalg.test_matmul_matches_numpy(cpu, rng, shapes)
    if 0 not in shapes[0] + shapes[1]:
        assert emulated_cublas.calls, "cuBLAS was not called"


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

    monkeypatch.setattr(_cuda_libraries, "status", lambda library: {"available": True})
    monkeypatch.setattr(_cuda_libraries._core, "CublasHandle", failing)
    monkeypatch.setattr(_cuda_libraries, "_cublas_failed", {})
    with pytest.warns(RuntimeWarning, match="cuBLAS could not start on cuda:7"):
        assert _cuda_libraries.cublas_handle(CudaLike()) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cuda_libraries.cublas_handle(CudaLike()) is None
