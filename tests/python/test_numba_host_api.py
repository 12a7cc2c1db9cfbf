"""Numba-CUDA's host API beyond kernels (generalized ufuncs, lazy vectorize, the
dispatcher's inspection methods, compile_ptx, numpy_support, transpose, pinned and
mapped contexts), written as Numba's users write it, through `from simt import cuda`, on
every device, against NumPy."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import simt
from simt import cuda


# --- cuda.guvectorize ---------------------------------------------------------------

@cuda.guvectorize(["void(float32[:], float32[:], float32[:])",
                   "void(float64[:], float64[:], float64[:])"], "(n),(n)->(n)")
def add_rows(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]


@cuda.guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"], "(m,n),(n,p)->(m,p)")
def matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@cuda.guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)")
def scale(x, s, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * s


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(),()")
def min_max(x, lo, hi):
    lo[0] = x[0]
    hi[0] = x[0]
    for i in range(1, x.shape[0]):
        lo[0] = min(lo[0], x[i])
        hi[0] = max(hi[0], x[i])


def test_guvectorize_numpy_in_numpy_out(current, rng):
    a = rng.random((50, 7), dtype=np.float32)
    b = rng.random((50, 7), dtype=np.float32)
    result = add_rows(a, b)
    assert isinstance(result, np.ndarray) and result.dtype == np.float32
    np.testing.assert_array_equal(result, a + b)
    # The float64 loop for float64 inputs; int16 converts safely to the float32 loop.
    c = rng.random((3, 4, 5))
    np.testing.assert_array_equal(add_rows(c, c), c + c)
    i = rng.integers(-100, 100, (6, 3), dtype=np.int16)
    got = add_rows(i, i)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (i + i).astype(np.float32))


def test_guvectorize_broadcasts_loop_dimensions(current, rng):
    a = rng.random((4, 6, 8), dtype=np.float32)
    row = rng.random(8, dtype=np.float32)
    np.testing.assert_array_equal(add_rows(a, row), a + row)
    mid = rng.random((6, 8), dtype=np.float32)
    np.testing.assert_array_equal(add_rows(a, mid), a + mid)
    ones = rng.random((4, 1, 8), dtype=np.float32)
    np.testing.assert_array_equal(add_rows(ones, mid), ones + mid)
    # No loop dimension: one call on the core arrays.
    np.testing.assert_array_equal(add_rows(row, row), row + row)


def test_guvectorize_matmul_core(current, rng):
    A = rng.random((5, 3, 4))
    B = rng.random((5, 4, 2))
    np.testing.assert_allclose(matmul(A, B), A @ B, rtol=1e-12)
    np.testing.assert_allclose(matmul(A, B[0]), A @ B[0], rtol=1e-12)
    with pytest.raises(ValueError, match="n"):
        matmul(A, rng.random((5, 3, 2)))


def test_guvectorize_scalar_inputs_and_scalar_outputs(current, rng):
    x = rng.random((9, 5), dtype=np.float32)
    s = rng.random(9, dtype=np.float32)
    np.testing.assert_array_equal(scale(x, s), x * s[:, None])
    np.testing.assert_array_equal(scale(x, np.float32(3)), x * np.float32(3))
    np.testing.assert_array_equal(scale(x, 2.0), x * np.float32(2))
    y = rng.random((3, 4, 10))
    lo, hi = min_max(y)
    assert lo.shape == hi.shape == (3, 4)
    np.testing.assert_array_equal(lo, y.min(axis=-1))
    np.testing.assert_array_equal(hi, y.max(axis=-1))


def test_guvectorize_device_arrays_and_given_outputs(current, rng):
    a = rng.random((20, 16), dtype=np.float32)
    b = rng.random((20, 16), dtype=np.float32)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = cuda.device_array_like(d_a)
    result = add_rows(d_a, d_b, d_out)
    assert result is d_out
    np.testing.assert_array_equal(d_out.copy_to_host(), a + b)
    fresh = add_rows(d_a, d_b)
    assert cuda.is_cuda_array(fresh) or isinstance(fresh, simt.Array)
    np.testing.assert_array_equal(fresh.copy_to_host(), a + b)
    host_out = np.zeros_like(a)
    assert add_rows(a, b, host_out) is host_out
    np.testing.assert_array_equal(host_out, a + b)
    stream = cuda.stream()
    again = add_rows(d_a, d_a, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(again.copy_to_host(), a + a)


def test_guvectorize_errors():
    with pytest.raises(ValueError, match="->"):
        cuda.guvectorize(["void(float32[:], float32[:])"], "(n),(n)")(lambda a, b: None)
    with pytest.raises(TypeError, match="arguments"):
        @cuda.guvectorize(["void(float32[:], float32[:])"], "(n),(n)->(n)")
        def three(a, b, c):
            pass
    with pytest.raises(TypeError, match="dimensions"):
        @cuda.guvectorize(["void(float32[:,:], float32[:])"], "(n)->(n)")
        def wrong_ndim(a, b):
            pass
    with pytest.raises(TypeError, match="no signature"):
        add_rows(np.zeros((2, 2), np.complex64), np.zeros((2, 2), np.complex64))
    with pytest.raises(ValueError, match="broadcast"):
        add_rows(np.zeros((3, 2), np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(TypeError, match="takes 2 arguments"):
        add_rows(np.zeros(2, np.float32))


def test_vectorizers_read_signatures_as_cuda_jit_does(current, rng):
    """Numba's short names and type objects, through the core's one reader; its errors
    as the vectorizers' TypeError, naming the text."""
    from simt.cuda import f4, float64, void

    @cuda.vectorize(["f4(f4, i4)", float64(float64, float64)])
    def scaled(x, k):
        return x * k

    x = rng.random(50).astype(np.float32)
    np.testing.assert_allclose(scaled(x, np.int32(3)), x * 3, rtol=1e-6)

    @cuda.guvectorize([void(f4[:], f4[:])], "(n)->(n)")
    def doubled(a, out):
        for i in range(a.shape[0]):
            out[i] = 2 * a[i]

    np.testing.assert_array_equal(doubled(x.reshape(5, 10)), 2 * x.reshape(5, 10))
    with pytest.raises(TypeError, match="vectorize: .*'float33'"):
        cuda.vectorize(["float33(float32)"])(lambda a: a)
    with pytest.raises(TypeError, match="names no result type"):
        cuda.vectorize(["(float32)"])(lambda a: a)
    with pytest.raises(TypeError, match="guvectorize: .*returns a value"):
        cuda.guvectorize(["f4(f4[:], f4[:])"], "(n)->(n)")(lambda a, b: None)


# --- lazy cuda.vectorize ----------------------------------------------------------------

@cuda.vectorize
def hypot_lazy(a, b):
    return math.sqrt(a * a + b * b)


@cuda.vectorize()
def axpy_lazy(a, x):
    return a * 2 + x


def test_lazy_vectorize_compiles_per_input_dtypes(current, rng):
    a = rng.random(1000, dtype=np.float32)
    b = rng.random(1000, dtype=np.float32)
    got = hypot_lazy(a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.hypot(a, b), rtol=1e-6)
    c = rng.random((30, 3))
    np.testing.assert_allclose(hypot_lazy(c, c), np.hypot(c, c), rtol=1e-14)
    i = rng.integers(-1000, 1000, 200, dtype=np.int32)
    got = axpy_lazy(i, i)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, i * 2 + i)
    d = axpy_lazy(cuda.to_device(a), 1.5)  # a Python float is float64, as Numba types it
    assert d.dtype == np.float64
    np.testing.assert_allclose(d.copy_to_host(), a.astype(np.float64) * 2 + 1.5)
    assert "ff->f" in hypot_lazy.types


# --- the dispatcher's inspection, compile_ptx -----------------------------------------

needs_nvrtc = pytest.mark.skipif(not simt._nvrtc_ptx.available(),
                                 reason="PTX needs NVRTC, which is not installed")


def test_overloads_record_launched_and_compiled_signatures(current, rng):
    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            t = a * x[i]
            out[i] = t + y[i]

    assert axpy.overloads == {} and axpy.signatures == []
    x = cuda.to_device(rng.random(100, dtype=np.float32))
    out = cuda.device_array_like(x)
    axpy[4, 32](np.float32(2), x, x, out)
    np.testing.assert_allclose(out.copy_to_host(), 3 * x.copy_to_host(), rtol=1e-6)
    axpy.compile("void(float64, float64[:], float64[:], float64[:])")
    assert list(axpy.overloads) == axpy.signatures == [
        ("float32", "float32[::1]", "float32[::1]", "float32[::1]"),
        ("float64", "float64[:]", "float64[:]", "float64[:]")]
    assert axpy.definitions.keys() == axpy.overloads.keys()
    assert axpy.specialize(np.float32(1), x, x, out) is axpy
    assert len(axpy.signatures) == 2

    import io
    text = io.StringIO()
    assert axpy.inspect_types(file=text) is None
    lines = text.getvalue()
    assert "axpy (float64, float64[:], float64[:], float64[:])" in lines
    assert "t: float32" in lines and "t: float64" in lines
    # simt's form with argument types still returns {variable: type}
    assert axpy.inspect_types("float32", "float32[:]", "float32[:]", "float32[:]")["t"] == \
        "float32"

    sources = axpy.inspect_llvm()
    assert set(sources) == set(axpy.signatures)
    assert "__global__" in axpy.inspect_llvm(("float64", "float64[:]", "float64[:]",
                                              "float64[:]"))
    assert "__global__" in axpy.inspect_llvm("void(float64, float64[:], float64[:], "
                                             "float64[:])")


@needs_nvrtc
def test_inspect_asm_gives_ptx(current, rng):
    @cuda.jit("void(float32[:], float32)")
    def fill(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = v

    asm = fill.inspect_asm()
    assert list(asm) == [("float32[:]", "float32")]
    ptx = asm[("float32[:]", "float32")]
    assert ".entry" in ptx and "fill" in ptx and ".version" in ptx
    assert fill.inspect_asm(("float32[:]", "float32")) == ptx
    from simt.cuda import float32
    assert fill.inspect_lto_ptx((float32[:], float32)) == ptx  # one unit: already linked


@needs_nvrtc
def test_compile_ptx_kernels_and_device_functions():
    from simt.cuda import float32, float64, void

    def scale(x, factor):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= factor

    ptx, resty = cuda.compile_ptx(scale, "void(float32[:], float32)")
    assert resty == void
    assert ".visible .entry" in ptx and "scale" in ptx and ".target sm_75" in ptx
    ptx, _ = cuda.compile_ptx(scale, void(float64[:], float64), cc=(8, 0), fastmath=True)
    assert ".target sm_80" in ptx and ".f64" in ptx

    def hypot(a, b):
        return math.sqrt(a * a + b * b)

    ptx, resty = cuda.compile_ptx(hypot, "float32(float32, float32)", device=True)
    assert resty == float32 and "sqrt" in ptx
    ptx, resty = cuda.compile_ptx(hypot, (float64, float64), device=True)
    assert resty == float64 and "sqrt.rn.f64" in ptx
    ptx, resty = cuda.compile_ptx_for_current_device(hypot, (float32, float32), device=True)
    assert resty == float32 and ".target sm_" in ptx
    with pytest.raises(TypeError, match="returns nothing"):
        cuda.compile_ptx(scale, "float32(float32[:], float32)")
    with pytest.raises(NotImplementedError):
        cuda.compile_ptx(scale, "void(float32[:], float32)", output="ltoir")


def test_compile_ptx_without_nvrtc_says_so(tmp_path):
    # NVRTC is loaded once per process: a fresh one that finds none.
    script = tmp_path / "no_nvrtc.py"
    script.write_text(
        "from simt import cuda, _nvrtc_ptx\n"
        "def kern(x):\n"
        "    x[0] = 1\n"
        "try:\n"
        "    cuda.compile_ptx(kern, 'void(float32[:])')\n"
        "except _nvrtc_ptx.NvrtcUnavailable as error:\n"
        "    print('NvrtcUnavailable:', error)\n")
    env = dict(os.environ, SIMT_NVRTC_PATH="/nonexistent/libnvrtc.so")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "NvrtcUnavailable: compiling PTX needs NVRTC" in done.stdout


# --- numpy_support, carray/farray, kernels.transpose, pinned/mapped --------------------

def test_numpy_support_from_dtype_and_as_dtype():
    from simt.cuda.np import numpy_support
    from simt.cuda import float32, int64, types

    assert numpy_support.from_dtype(np.float32) == float32
    assert numpy_support.from_dtype(np.dtype("int64")) == int64
    assert numpy_support.as_dtype(float32) == np.dtype(np.float32)
    assert numpy_support.as_dtype(types.complex128) == np.dtype(np.complex128)
    for name in ("bool", "int8", "uint16", "float16", "complex64"):
        t = numpy_support.from_dtype(np.dtype(name))
        assert numpy_support.as_dtype(t) == np.dtype(name)
    assert cuda.np.numpy_support is numpy_support
    record = numpy_support.from_dtype(np.dtype([("x", np.int32)]))  # test_records.py
    assert str(record) == "record(x: int32 @ 0; size 4, align 4)"
    with pytest.raises(NotImplementedError, match="Python objects"):
        numpy_support.from_dtype(np.dtype([("x", np.int32), ("o", object)]))
    with pytest.raises(NotImplementedError):
        numpy_support.as_dtype(float32[:])
    namespace = {"np": np}
    exec("from simt.cuda import *", namespace)
    assert namespace["np"] is np  # the star import keeps NumPy's np


def test_carray_and_farray_view_host_memory(rng):
    import ctypes

    a = rng.random(12).astype(np.float32)
    view = cuda.carray(a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), (3, 4))
    np.testing.assert_array_equal(view, a.reshape(3, 4))
    view[0, 0] = -1  # a view, no copy
    assert a[0] == -1
    f = cuda.farray(a.ctypes.data, (3, 4), np.float32)
    assert f.flags.f_contiguous
    np.testing.assert_array_equal(f, a.reshape(4, 3).T)
    with pytest.raises(TypeError, match="mismatching"):
        cuda.carray(a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), 12, np.float64)
    with pytest.raises(TypeError, match="dtype"):
        cuda.carray(a.ctypes.data, 12)


@pytest.mark.parametrize("shape", [(70, 45), (1, 33), (32, 32)])
def test_transpose(current, rng, shape):
    from simt.cuda.kernels.transpose import transpose

    x = rng.random(shape)
    d_x = cuda.to_device(x)
    np.testing.assert_array_equal(transpose(d_x).copy_to_host(), x.T)
    b = cuda.device_array(shape[::-1], dtype=np.float64)
    assert transpose(d_x, b) is b
    np.testing.assert_array_equal(b.copy_to_host(), x.T)
    i = rng.integers(-5, 5, shape, dtype=np.int16)
    np.testing.assert_array_equal(cuda.kernels.transpose(cuda.to_device(i)).copy_to_host(),
                                  i.T)
    with pytest.raises(ValueError, match="shape"):
        transpose(d_x, cuda.device_array(shape, dtype=np.float32))
    # Records, with a 2-D array field, as Numba's test_transpose_record has them.
    rec = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
    r = np.zeros(shape, rec)
    r["i"] = rng.integers(-100, 100, shape)
    r["j"] = rng.standard_normal(shape + (3, 2))
    got = transpose(cuda.to_device(r)).copy_to_host()
    np.testing.assert_array_equal(got["i"], r.T["i"])
    np.testing.assert_array_equal(got["j"], r.T["j"])


def test_pinned_and_mapped_contexts(current, rng):
    @cuda.jit
    def add_index(v):
        i = cuda.grid(1)
        if i < v.size:
            v[i] += i

    a = rng.integers(0, 100, 300).astype(np.int64)
    expected = a + np.arange(a.size)
    with cuda.pinned(a):
        d_a = cuda.to_device(a)
        add_index[10, 32](d_a)
        np.testing.assert_array_equal(d_a.copy_to_host(), expected)
    b = a.copy()
    c = rng.random(64)
    c_before = c.copy()
    with cuda.mapped(b, c) as (d_b, d_c):
        add_index[10, 32](d_b)
        add_index[2, 32](d_c)
    np.testing.assert_array_equal(b, expected)
    np.testing.assert_array_equal(c, c_before + np.arange(c.size))
    with cuda.mapped(a) as d_one:
        add_index[10, 32](d_one)
    np.testing.assert_array_equal(a, expected)


def test_mapped_arrays_are_the_host_memory(current, rng):
    """Where the device maps host memory (CUDA, the CPU), a kernel's writes reach the
    host array during the block, not only when it ends; layouts and read-only arrays
    that cannot be mapped are copied and behave the same after the block."""
    @cuda.jit
    def scale_2d(m, f):
        i, j = cuda.grid(2)
        if i < m.shape[0] and j < m.shape[1]:
            m[i, j] = m[i, j] * f + i

    m = rng.random((5, 7))
    fortran = np.asfortranarray(rng.random((6, 3)))
    expected_m, expected_f = m * 3 + np.arange(5)[:, None], fortran * 3 + np.arange(6)[:, None]
    with cuda.mapped(m, fortran) as (d_m, d_f):
        assert d_m.shape == m.shape and d_f.shape == fortran.shape
        scale_2d[(1, 1), (8, 8)](d_m, 3.0)
        scale_2d[(1, 1), (8, 8)](d_f, 3.0)
        cuda.synchronize()
        if current.backend != "opencl":
            np.testing.assert_allclose(m, expected_m)  # in place: before the block ends
    np.testing.assert_allclose(m, expected_m)
    np.testing.assert_allclose(fortran, expected_f)

    strided = rng.random(20)[::2]
    frozen = rng.random(8)
    frozen.flags.writeable = False
    with cuda.mapped(strided, frozen) as (d_s, d_r):
        np.testing.assert_array_equal(d_s.copy_to_host(), strided)
        np.testing.assert_array_equal(d_r.copy_to_host(), frozen)
    with pytest.raises(TypeError, match="host \\(NumPy\\) arrays"):
        with cuda.mapped(d_s):
            pass


def _shares_host_memory(device):
    """CUDA and the CPU give mapped and managed arrays; OpenCL devices where they have
    fine-grained shared virtual memory (OpenCL 2.0), and a ValueError saying so where
    not."""
    if device.backend != "opencl":
        return True
    try:
        cuda.mapped_array(1)
    except ValueError as error:
        assert "fine-grained shared virtual memory" in str(error)
        return False
    return True


def test_managed_and_mapped_arrays_are_shared_with_kernels(current, rng):
    """Numba's managed_array and mapped_array: the host writes, a kernel reads and
    writes the same memory, the host reads the result after cuda.synchronize(), with no
    copy in between; *_like keeps the layout; host arithmetic on them as on NumPy's."""
    if not _shares_host_memory(current):
        with pytest.raises(ValueError, match="fine-grained shared virtual memory"):
            cuda.managed_array(100)
        return

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = a * x[i] + y[i]

    x = rng.random(1000)
    y0 = rng.random(1000)
    managed = cuda.managed_array(1000, dtype=np.float64)
    mapped = cuda.mapped_array(1000, dtype=np.float64)
    np.asarray(managed)[:] = x  # host writes straight into the shared memory
    mapped[:] = y0
    axpy[8, 128](2.0, managed, mapped)
    cuda.synchronize()
    np.testing.assert_allclose(np.asarray(mapped), 2.0 * x + y0)
    np.testing.assert_array_equal(np.asarray(managed), x)
    tail = mapped[500:]  # a view at an offset, used in place
    axpy[4, 128](-1.0, managed[500:], tail)
    cuda.synchronize()
    np.testing.assert_allclose(np.asarray(mapped)[500:], x[500:] + y0[500:])

    d = cuda.device_array((10, 12), order="F")
    like = cuda.mapped_array_like(d)
    assert like.shape == d.shape and like.strides == d.strides and like.dtype == d.dtype
    m = rng.random((10, 12))
    np.asarray(like)[...] = m

    @cuda.jit
    def double(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= 2

    double[(2, 2), (8, 8)](like)
    cuda.synchronize()
    np.testing.assert_allclose(np.asarray(like), 2 * m)

    counts = cuda.mapped_array(10, dtype=np.uint32)
    counts[:] = range(10)
    assert sum(counts + 1) == 55 and sum(counts ** 2) == 285 and sum(counts < 5) == 5


def test_pinned_arrays_copy_on_streams(current, rng):
    """Copies between page-locked host arrays and device arrays on a stream, nested
    and repeated registrations of the same memory, and a pinned_array inside the block."""
    host = rng.random(4096)
    back = np.full_like(host, np.nan)
    already = cuda.pinned_array(16)
    already[:] = 7
    stream = cuda.stream()
    with cuda.pinned(host, back, already):
        with cuda.pinned(host):  # registered already: used as it is
            d = cuda.to_device(host, stream=stream)
            d.copy_to_host(back, stream=stream)
            d_small = cuda.to_device(already, stream=stream)
        stream.synchronize()
    np.testing.assert_array_equal(back, host)
    np.testing.assert_array_equal(d_small.copy_to_host(), np.full(16, 7.0))
    with cuda.pinned(host):  # registered again after the first block ended
        np.testing.assert_array_equal(cuda.to_device(host).copy_to_host(), host)
    with pytest.raises(TypeError, match="cuda.pinned"):
        with cuda.pinned([1, 2, 3]):
            pass


# --- cuda.cudadrv: devicearray, driver, runtime, error -------------------------------

def test_cudadrv_devicearray(current, rng):
    from simt.cuda.cudadrv import devicearray
    from simt.cuda.cudadrv.devicearray import DeviceNDArray, from_array_like

    x = rng.random((5, 3)).astype(np.float32)
    d = from_array_like(x)
    assert isinstance(d, DeviceNDArray) and devicearray.is_cuda_ndarray(d)
    assert (d.shape, d.dtype, d.device) == (x.shape, x.dtype, current)
    f = from_array_like(np.asfortranarray(x))
    assert f.strides == np.asfortranarray(x).strides
    copied, made = devicearray.auto_device(x)
    assert made and copied.device == current
    np.testing.assert_array_equal(copied.copy_to_host(), x)
    assert devicearray.auto_device(copied) == (copied, False)
    assert not devicearray.is_cuda_ndarray(x)
    assert cuda.cudadrv.devicearray is devicearray and cuda.devicearray is devicearray
    scalar, _ = cuda.devicearray.auto_device(2)  # Numba's spelling, a 0-d array
    assert scalar.shape == () and scalar.copy_to_host() == 2


def test_cudadrv_driver_copies_and_memset(current, rng):
    from simt.cuda.cudadrv import driver
    from simt.cuda.cudadrv.driver import device_memset

    x = rng.integers(-2**31, 2**31 - 1, 16, dtype=np.int32)
    d = cuda.to_device(x)
    assert driver.device_memory_size(d) == x.nbytes
    assert driver.device_memory_size(d[::2]) == x[::2].nbytes * 2 - 4
    expected = x.copy()
    expected.view(np.uint8)[:10] = 0x7F
    device_memset(d, 0x7F, 10)
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    device_memset(d, 0, x.nbytes)
    np.testing.assert_array_equal(d.copy_to_host(), np.zeros_like(x))
    driver.host_to_device(d, x, 24)
    np.testing.assert_array_equal(d.copy_to_host()[:6], x[:6])
    assert not d.copy_to_host()[6:].any()
    out = np.full(16, -1, np.int32)
    driver.device_to_host(out, d, 20)
    np.testing.assert_array_equal(out[:5], x[:5])
    assert (out[5:] == -1).all()
    other = cuda.device_array(16, np.int32)
    device_memset(other, 0, other.nbytes)
    driver.device_to_device(other, d, 8)
    np.testing.assert_array_equal(other.copy_to_host()[:2], x[:2])
    with pytest.raises(ValueError, match="size 100 for an array of 64 bytes"):
        device_memset(d, 0, 100)
    with pytest.raises(TypeError, match="device array"):
        device_memset(x, 0, 4)
    assert driver.Stream is simt.Stream and driver.CudaAPIError is simt.DeviceError
    assert driver.driver.get_device_count() == len(cuda.gpus)


def test_cudadrv_runtime_version():
    from simt.cuda.cudadrv import runtime

    version = runtime.get_version()
    status = simt._core.nvrtc_status()
    if status["available"]:
        assert version[0] >= 11 and str(status["version"]).startswith(f"{version[0]}.")
    else:
        assert version == (0, 0)


def test_vectorize_takes_what_numbas_takes(current, rng):
    """Numba's vectorized functions take host data of any kind beside device arrays: it is
    copied to their device; with no device array the result comes back to the host (a
    scalar for scalars alone)."""
    @cuda.vectorize(["float64(float64, float64)"])
    def combine(a, b):
        return a * 2 + b

    assert combine(1.5, 2.0) == 5.0 and isinstance(combine(1.5, 2.0), np.float64)
    np.testing.assert_array_equal(combine([1.0, 2.0], (3.0, 4.0)), [5.0, 8.0])
    x, y = rng.random(20), rng.random(20)
    on_device = combine(cuda.to_device(x), y)  # host y copied to x's device
    assert isinstance(on_device, simt.Array) and on_device.device == current
    np.testing.assert_array_equal(on_device.copy_to_host(), x * 2 + y)
    np.testing.assert_array_equal(combine(x, 1.0), x * 2 + 1)


def test_vectorize_options_as_numba_answers_them(current):
    def add(a, b):
        return a + b

    with pytest.raises(KeyError, match="Unrecognized options: nonexistent"):
        cuda.vectorize(["float32(float32, float32)"], target="cuda", nonexistent=2)(add)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        f = cuda.vectorize(["float32(float32, float32)"], target="cuda", nopython=True)(add)
    a = np.array([2.0, 5.5], np.float32)
    np.testing.assert_array_equal(f(a, a), a + a)


@pytest.mark.parametrize("like", ["device_array_like", "pinned_array_like"])
def test_array_likes_keep_the_order_of_a_view_as_numpy_zeros_like(current, like):
    for host in (np.zeros((10, 12), order="F")[::2, ::2], np.zeros((10, 12))[::2, ::3],
                 np.zeros((4, 6, 8), order="F")[:, ::2], np.zeros((10, 12), order="F")):
        got = getattr(cuda, like)(host)
        want = np.zeros_like(host)
        assert (got.shape, got.strides) == (want.shape, want.strides), host.strides


def test_vectorize_into_a_numpy_out_and_from_foreign_device_arrays(current, rng):
    @cuda.vectorize(["float64(float64, float64)"])
    def hypot2(a, b):
        return a * a + b * b

    a, b = rng.standard_normal(50), rng.standard_normal(50)
    out = np.full(50, np.nan)
    assert hypot2(a, b, out=out) is out  # Numba's: the host out= is filled and returned
    np.testing.assert_allclose(out, a * a + b * b, rtol=1e-15)
    if current.backend == "cuda":  # an object exporting CUDA memory, as Numba takes it
        class Foreign:
            def __init__(self, d):
                self.__cuda_array_interface__ = d.__cuda_array_interface__
                self._keep = d

        got = hypot2(Foreign(cuda.to_device(a)), Foreign(cuda.to_device(b)))
        np.testing.assert_allclose(got.copy_to_host(), a * a + b * b, rtol=1e-15)


def test_to_device_without_copying_and_a_negative_forall(current):
    host = np.arange(12.0).reshape(3, 4)
    d = cuda.to_device(host, copy=False)  # made, not filled (Numba's copy=False)
    assert (d.shape, d.dtype) == (host.shape, host.dtype)
    d.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)

    @cuda.jit
    def k(a):
        pass

    with pytest.raises(ValueError, match="Can't create ForAll with negative task count"):
        k.forall(-1)
