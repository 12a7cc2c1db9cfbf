"""CuPy programs with `import simt as cupy`: the names and call forms CuPy's own example
programs and user guide reach for (written here, in the patterns those programs use), on
every device, against NumPy on fresh random inputs."""

import numpy as np
import pytest

import simt
import simt as cupy
from simt import cuda


# --- arrays: made on the current device, one body for NumPy and simt ----------------------

def test_host_data_goes_to_the_current_device(device, rng):
    host = rng.standard_normal((5, 3))
    with simt.use_device(device):
        for made in (cupy.asarray(host), cupy.array(host), cupy.asarray(host.tolist()),
                     cupy.array(host, dtype=np.float32)):
            assert made.device == device
            np.testing.assert_array_equal(made.get(), host.astype(made.dtype))
        if device.backend == "cpu":
            view = cupy.asarray(host)
            host[0, 0] = 42.0  # a view of the NumPy array where the current device is cpu
            assert view.get()[0, 0] == 42.0
        copy = cupy.array(host)
        host[0, 0] = -1.0  # array() copies by default, as NumPy's and CuPy's
        assert copy.get()[0, 0] != -1.0


def test_array_order_and_ndmin(device, rng):
    host = rng.integers(-9, 9, size=(3, 4))
    with simt.use_device(device):
        f = cupy.array(host, order="F")
        assert f.strides == (8, 24)
        np.testing.assert_array_equal(f.get(), host)
        assert cupy.array(3.5, ndmin=2).shape == (1, 1)
        assert cupy.array([1, 2], ndmin=3).shape == (1, 1, 2)
        assert isinstance(f, cupy.ndarray)
        with pytest.raises(ValueError, match="order"):
            cupy.array(host, order="X")


def _conjugate_gradient(A, b, tol, max_iter):
    # The body CuPy's cg example writes once for NumPy and CuPy arrays.
    xp = cupy.get_array_module(A)
    x = xp.zeros_like(b, dtype=np.float64)
    r0 = b - xp.dot(A, x)
    p = r0
    for _ in range(max_iter):
        a = xp.inner(r0, r0) / xp.inner(p, xp.dot(A, p))
        x += a * p
        r1 = r0 - a * xp.dot(A, p)
        if xp.linalg.norm(r1) < tol:
            return x
        beta = xp.inner(r1, r1) / xp.inner(r0, r0)
        p = r1 + beta * p
        r0 = r1
    return x


def test_get_array_module_runs_one_body_on_both(device, rng):
    n = 24
    m = rng.integers(-5, 5, size=(n, n)).astype(np.float64)
    A = m @ m.T + n * np.eye(n)
    x_true = rng.standard_normal(n)
    b = A @ x_true
    assert cupy.get_array_module(A, b) is np
    with simt.use_device(device):
        A_d, b_d = cupy.asarray(A), cupy.asarray(b)
        assert cupy.get_array_module(A_d) is simt and cupy.get_array_module(A, b_d) is simt
        x_d = _conjugate_gradient(A_d, b_d, 1e-9, 200)
    np.testing.assert_allclose(cupy.asnumpy(x_d), _conjugate_gradient(A, b, 1e-9, 200),
                               rtol=1e-6, atol=1e-8)


def test_functions_of_scalars_are_0d_arrays_on_the_current_device(device):
    with simt.use_device(device):
        value = cupy.log(2 * np.pi)
        assert value.shape == () and value.device == device
        assert float(value) == pytest.approx(np.log(2 * np.pi))
        assert cupy.add(1, 2.5).dtype == np.add(1, 2.5).dtype


# --- NumPy's positional call forms ----------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda xp, x: xp.sum(x, 1),
    lambda xp, x: xp.sum(x, 0, np.float32),
    lambda xp, x: xp.mean(x, 0),
    lambda xp, x: xp.prod(x, -1, None, None, True),
    lambda xp, x: xp.max(x, 1),
    lambda xp, x: xp.amin(x, 0, None, True),
    lambda xp, x: xp.var(x, 0, None, None, 1),
    lambda xp, x: xp.std(x, 1, ddof=1),
    lambda xp, x: xp.argmax(x, 1),
    lambda xp, x: xp.argmin(x, 0),
    lambda xp, x: xp.any(x > 0, 1),
    lambda xp, x: xp.all(x > -3, 0),
    lambda xp, x: xp.max(x, 1, initial=0.5),
    lambda xp, x: xp.sum(x, 1, initial=10.0),
    lambda xp, x: x.sum(1),
    lambda xp, x: x.mean(0, None, None, True),
    lambda xp, x: x.var(1, ddof=1),
    lambda xp, x: x.max(0),
    lambda xp, x: x.argmin(1),
], ids=lambda f: "")
def test_numpy_positional_forms(device, rng, call):
    host = rng.standard_normal((6, 5))
    expected = call(np, host)
    with simt.use_device(device):
        got = call(cupy, cupy.asarray(host))
    assert got.shape == np.shape(expected)
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got.get(), expected, rtol=1e-6, atol=1e-12)


def test_reductions_write_out(device, rng):
    host = rng.standard_normal((4, 7))
    with simt.use_device(device):
        x = cupy.asarray(host)
        out = cupy.full(7, np.nan)
        assert cupy.sum(x, 0, out=out) is out
        np.testing.assert_allclose(out.get(), host.sum(0), rtol=1e-12)
        index = cupy.zeros(4, dtype=np.int64)
        cupy.argmax(x, 1, index)
        np.testing.assert_array_equal(index.get(), host.argmax(1))
        with pytest.raises(ValueError, match="shape"):
            cupy.mean(x, 1, out=out)
        with pytest.raises(NotImplementedError, match="where"):
            cupy.sum(x, where=x > 0)


# --- cupy.testing ------------------------------------------------------------------------

def test_testing_assertions_compare_device_and_host_arrays(device, rng):
    host = rng.standard_normal(50)
    with simt.use_device(device):
        d = cupy.asarray(host)
        cupy.testing.assert_allclose(host, d)
        cupy.testing.assert_array_equal(d, host)
        cupy.testing.assert_array_almost_equal(d, host + 1e-9)
        cupy.testing.assert_array_less(d, d + 1)
        cupy.testing.assert_array_list_equal([d, d], [host, host])
        cupy.testing.assert_array_max_ulp(d, host)
        with pytest.raises(AssertionError):
            cupy.testing.assert_allclose(d, host + 1e-3)
        with pytest.raises(AssertionError):
            cupy.testing.assert_array_equal(d[:-1], host)
        with pytest.raises(AssertionError, match="length"):
            cupy.testing.assert_array_list_equal([d], [host, host])


# --- the legacy random functions and RandomState -----------------------------------------

def test_legacy_random_with_array_parameters(device):
    with simt.use_device(device):
        cupy.random.seed(7)
        first = cupy.random.normal(3, cupy.array([1.0, 2.0]), size=(200_000, 2))
        assert first.device == device and first.shape == (200_000, 2)
        host = first.get()
        np.testing.assert_allclose(host.mean(0), [3, 3], atol=0.03)
        np.testing.assert_allclose(host.std(0), [1, 2], rtol=0.02)
        cupy.random.seed(7)
        np.testing.assert_array_equal(
            cupy.random.normal(3, cupy.array([1.0, 2.0]), size=(200_000, 2)).get(), host)
        means = cupy.random.normal(np.array([-3.0, 3.0]), 1.0)  # shape from the parameters
        assert means.shape == (2,)
        spans = cupy.random.uniform(cupy.zeros(1000), cupy.full(1000, 4.0)).get()
        assert spans.min() >= 0 and spans.max() < 4 and abs(spans.mean() - 2) < 0.3
        with pytest.raises(ValueError):
            cupy.random.normal(np.zeros(3), 1.0, size=(2,))
        with pytest.raises(ValueError, match="size"):
            cupy.random.normal(np.zeros((2, 3)), 1.0, size=(3,))  # NumPy's: no silent growth
        with pytest.raises(ValueError, match="scale"):
            cupy.random.normal(0.0, cupy.array([1.0, -1.0]))


def test_random_state_of_cupys_generator_module(device):
    with simt.use_device(device):
        a = cupy.random.generator.RandomState(seed=1)
        b = cupy.random.RandomState(1)
        x, y = a.lognormal(size=(1, 3)), b.lognormal(size=(1, 3))
        np.testing.assert_array_equal(x.get(), y.get())
        assert (x.get() > 0).all()
        draws = a.rand(3, 4)
        assert draws.shape == (3, 4) and ((draws.get() >= 0) & (draws.get() < 1)).all()
        ints = a.randint(0, 5, size=1000).get()
        assert ints.min() >= 0 and ints.max() <= 4
        perm = np.sort(a.permutation(10).get())
        np.testing.assert_array_equal(perm, np.arange(10))
        picks = a.choice(5, 100).get()
        assert set(picks) <= set(range(5))
        x = cupy.arange(8)
        cupy.random.shuffle(x)
        np.testing.assert_array_equal(np.sort(x.get()), np.arange(8))
        assert isinstance(cupy.random.get_random_state(), cupy.random.RandomState)


# --- cupy.cuda: devices, streams, events, pools ---------------------------------------------

def test_device_forms(device):
    assert (device == device.id) is False and device != 3  # other types: not equal, no error
    assert (cuda.Stream.null == "default") is False
    with simt.use_device(device):
        assert cuda.Device().simt_device == device
        cuda.Device().synchronize()
    listed = list(cuda.gpus)
    first = cuda.Device(0)
    assert first == listed[0] and first.id == 0
    with cuda.Device(0):
        assert simt.current_device() == listed[0].simt_device
    with pytest.raises(ValueError, match="lists"):
        cuda.Device(len(listed))
    free, total = cuda.Device(device).mem_info
    assert 0 <= free <= total


def test_current_stream_takes_unnamed_work(device, rng):
    host = rng.standard_normal(10_000)
    with simt.use_device(device):
        x = cupy.asarray(host)
        assert cuda.get_current_stream().is_default
        assert cuda.Stream.null.is_default and cuda.Stream.null.device == device
        stream = cuda.stream.Stream()
        with stream as entered:
            assert entered is stream and cuda.get_current_stream() == stream
            start, end = cuda.Event(), cuda.Event()
            start.record()
            y = cupy.sqrt(x * x) + 1
            end.record()
            with cuda.Stream() as inner:  # nested: the outer stream is current again after
                assert cuda.get_current_stream() == inner
            assert cuda.get_current_stream() == stream
        assert cuda.get_current_stream().is_default
        stream.synchronize()
        assert stream.done and end.done
        assert cuda.get_elapsed_time(start, end) >= 0
        np.testing.assert_allclose(y.get(), np.abs(host) + 1, rtol=1e-15)
        other = cuda.Stream()
        other.use()
        try:
            assert cuda.get_current_stream() == other
            z = cupy.sort(x)
            other.synchronize()
            np.testing.assert_array_equal(z.get(), np.sort(host))
        finally:
            cuda.Stream.null.use()
        assert cuda.get_current_stream().is_default
        with pytest.raises(NotImplementedError, match="non_blocking"):
            cuda.Stream(non_blocking=True)


def test_memory_pools(device, rng):
    with simt.use_device(device):
        pool = cuda.MemoryPool()
        cuda.set_allocator(pool.malloc)
        try:
            kept = cupy.ones(1 << 16)
            assert pool.total_bytes() >= pool.used_bytes() >= kept.nbytes
            block = cuda.alloc(1024)
            assert block.size == 1024
            del block
            pool.free_all_blocks()
            assert pool.total_bytes() >= kept.nbytes
        finally:
            cuda.set_allocator(None)
        with pytest.raises(NotImplementedError, match="MemoryPool"):
            cuda.set_allocator(lambda size: None)
        pinned_pool = cuda.PinnedMemoryPool()
        cuda.set_pinned_memory_allocator(pinned_pool.malloc)
        try:
            host = rng.standard_normal(1000).astype(np.float32)
            memory = cuda.alloc_pinned_memory(host.nbytes)
            pinned = np.frombuffer(memory, host.dtype, host.size)
            pinned[...] = host
            assert memory.ptr == pinned.ctypes.data
            d = cupy.empty(host.shape, host.dtype)
            d.set(pinned)
            back = np.frombuffer(cuda.alloc_pinned_memory(host.nbytes), host.dtype, host.size)
            d.get(out=back)
            np.testing.assert_array_equal(back, host)
        finally:
            cuda.set_pinned_memory_allocator(None)


def test_runtime_basics(device):
    from simt.cuda import runtime

    assert runtime.getDeviceCount() == len(cuda.gpus) >= 1
    props = runtime.getDeviceProperties(0)
    assert isinstance(props["name"], bytes) and props["totalGlobalMem"] > 0
    with simt.use_device(device):
        runtime.deviceSynchronize()
        free, total = runtime.memGetInfo()
        assert 0 <= free <= total
    assert runtime.runtimeGetVersion() >= 0 and runtime.is_hip is False


def test_asarray_of_lists_of_device_scalars(device, rng):
    # asarray([[x1[i] * x2[j] ...]]): 0-d results of the device, in nested lists.
    h1, h2 = rng.standard_normal(3), rng.standard_normal(4)
    x1, x2 = simt.asarray(h1, device=device), simt.asarray(h2, device=device)
    got = cupy.asarray([[x1[i] * x2[j] for j in range(4)] for i in range(3)])
    assert got.device == device and got.shape == (3, 4)
    np.testing.assert_array_equal(got.get(), np.outer(h1, h2))
    mixed = cupy.asarray([x1[0], 2.0, (x1[1],)[0]], dtype=np.float32)
    np.testing.assert_array_equal(mixed.get(), np.array([h1[0], 2.0, h1[1]], np.float32))


def test_dlpack_to_the_host_without_a_cpu_device(device, rng, monkeypatch):
    # A GPU build has no cpu device: a consumer asking for host memory gets a NumPy copy.
    from simt import _array

    def no_cpu(name=None):
        if isinstance(name, str) and name == "cpu":
            raise ValueError("no device 'cpu'")
        return simt.get_device(name)

    monkeypatch.setattr(_array, "get_device", no_cpu)
    host = rng.standard_normal((3, 5))
    x = simt.asarray(host, device=device)
    back = np.from_dlpack(x, device="cpu")  # asks for dl_device (kDLCPU, 0)
    np.testing.assert_array_equal(back, host)


_SCALE_CUDA = r"""
extern "C" __global__ void scale_add(const float* x, float* y, float a, unsigned int n,
                                     short bias) {
    unsigned int k = blockDim.x * blockIdx.x + threadIdx.x;
    if (k < n) y[k] = a * x[k] + bias;
}
"""
_SCALE_OPENCL = r"""
__kernel void scale_add(__global const float* x, __global float* y, float a, uint n,
                        short bias) {
    uint k = get_global_id(0);
    if (k < n) y[k] = a * x[k] + bias;
}
"""


def test_raw_kernels_take_python_numbers_for_narrower_parameters(device, rng):
    # CuPy's documentation passes Python ints to `unsigned int N`: converted to the
    # parameter's type (floats too), or an OverflowError where they do not fit.
    source = _SCALE_OPENCL if device.backend == "opencl" else _SCALE_CUDA
    kernel = cupy.RawModule(code=source, device=device).get_function("scale_add")
    n = 1000
    host = rng.standard_normal(n).astype(np.float32)
    x, y = simt.asarray(host, device=device), simt.full(n, np.nan, np.float32, device=device)
    kernel(((n + 127) // 128,), (128,), (x, y, 2.5, n, -3))
    # (allclose: CUDA C++ contracts a * x + b into one fused multiply-add, as nvcc does)
    np.testing.assert_allclose(y.get(), np.float32(2.5) * host + np.float32(-3), rtol=1e-6,
                               atol=1e-6)
    if device.backend != "cuda":  # CUDA's driver reports sizes only: -1 fits an int32
        with pytest.raises(OverflowError, match="does not fit"):
            kernel((1,), (1,), (x, y, 2.5, -1, 0))
    with pytest.raises(OverflowError, match="does not fit"):
        kernel((1,), (1,), (x, y, 2.5, n, 1 << 16))
    with pytest.raises(TypeError, match="argument 2"):
        kernel((1,), (1,), (x, y, 1 + 2j, n, 0))


_CUDA_PREAMBLE = r"""
typedef unsigned long long bits_t;

__device__ inline T folded(T x) {
    // CUDA C++ as CuPy's examples write it: functional casts, abs of a float, erfcinv
    const T mid = T(0.5);
    bits_t scaled = (bits_t)(abs(x) * T(1000));
    return T(scaled % 7) + erfcinv(mid + abs(x) / T(4)) - mid;
}
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elementwise_preambles_in_cuda_cpp_run_on_every_device(device, rng, dtype):
    # A preamble of CUDA C++ (`long long`, `T(x)`, float `abs`, `erfcinv`) builds on every
    # device: OpenCL C gets it spelled as C, with CUDA's math it lacks.
    import statistics

    kernel = cupy.ElementwiseKernel("T x", "T y", "y = folded(x)", "fold_kernel",
                                    preamble=_CUDA_PREAMBLE)
    host = rng.uniform(-3.9, 3.9, 2000).astype(dtype)
    got = kernel(simt.asarray(host, device=device)).get()
    normal = statistics.NormalDist()
    z = np.float64(dtype(0.5)) + np.abs(host.astype(np.float64)) / 4
    erfcinv = np.array([-normal.inv_cdf(v / 2) / np.sqrt(2) for v in z])
    scaled = np.floor(np.abs(host) * dtype(1000)).astype(np.uint64)
    expected = (scaled % 7) + erfcinv - 0.5
    tolerance = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


def test_snippet_kernels_named_as_opencl_keywords(device, rng):
    # CuPy's default name is "kernel", a reserved word of OpenCL C.
    host = rng.standard_normal(100)
    double = cupy.ElementwiseKernel("T x", "T y", "y = 2 * x")  # name="kernel"
    np.testing.assert_array_equal(double(simt.asarray(host, device=device)).get(), 2 * host)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_group_sums_by_atomics_at_multi_indices(current, rng, dtype):
    # k-means' center update: each element adds itself at (its label, its column) of a raw
    # 2-D array through an int index array, and counts its label (an int into a double).
    rows, cols, groups = 300, 7, 4
    host = rng.integers(-50, 50, (rows, cols)).astype(dtype)
    labels = rng.integers(0, groups, rows)
    sums = cupy.zeros((groups, cols), dtype=dtype)
    counts = cupy.zeros(groups, dtype=np.float64)
    group_sums = cupy.ElementwiseKernel(
        "S data, T label", "raw U sums, raw float64 counts",
        """
        int at[] = {label, i % sums.shape()[1]};
        atomicAdd(&sums[at], data);
        if (i % cols == 0) atomicAdd(&counts[label], 1);
        """, "group_sums", preamble=f"#define cols {cols}")
    group_sums(cupy.asarray(host), cupy.expand_dims(cupy.asarray(labels), axis=1), sums, counts)
    want = np.stack([host[labels == g].sum(axis=0) for g in range(groups)])
    np.testing.assert_allclose(sums.get(), want, rtol=1e-6)
    np.testing.assert_array_equal(counts.get(), np.bincount(labels, minlength=groups))


def test_raw_views_read_through_their_strides(current, rng):
    # A raw parameter indexed by its C-order position (`x[j]`) or by an index array
    # (`x[idx]`) reads the view's own elements where it is not contiguous: transposed,
    # stepped, reversed; `x.size()` counts them.
    host = rng.standard_normal((6, 10))
    base = cupy.asarray(host)
    kernel = cupy.ElementwiseKernel(
        "raw float64 src, int64 j", "float64 flat, float64 picked, int64 size",
        """
        flat = src[j];
        long long at[] = {j % 5, j / 5};
        picked = src[at];
        size = src.size();
        """, "gather_raw")
    for view, hv in [(base.T[::2], host.T[::2]), (base[::-1, 1:6], host[::-1, 1:6]),
                     (base[:5, :6], host[:5, :6])]:
        n = min(view.size, 25)
        j = cupy.arange(n)
        flat, picked, size = kernel(view, j)
        np.testing.assert_array_equal(flat.get(), hv.ravel()[:n])
        np.testing.assert_array_equal(picked.get(), [hv[k % 5, k // 5] for k in range(n)])
        np.testing.assert_array_equal(size.get(), np.full(n, hv.size))
    # A reduction's raw input, read through the strides.
    total = cupy.ReductionKernel("raw T x, int64 j", "T y", "x[j] * x[j]", "a + b", "y = a",
                                 "0", "raw_squares")
    view, hv = base[::2, ::-3], host[::2, ::-3]
    np.testing.assert_allclose(total(view, cupy.arange(view.size)).get(), (hv ** 2).sum(),
                               rtol=1e-12)


def test_cuda_atomics_on_integers(current, rng):
    # atomicMax, atomicMin, atomicCAS, atomicInc (CUDA's wrapping count) and atomicExch.
    values = rng.integers(-1000, 1000, 513).astype(np.int32)
    out = cupy.asarray(np.array([-2**31, 2**31 - 1, 0, 0, 0], np.int32))
    wraps = cupy.zeros(1, dtype=np.uint32)
    kernel = cupy.ElementwiseKernel(
        "int32 v", "raw int32 out, raw uint32 wraps",
        """
        atomicMax(&out[0], v);
        atomicMin(&out[1], v);
        atomicCAS(&out[2], 0, 7);
        atomicAdd(&out[3], 1);
        atomicInc(&wraps[0], 99u);
        if (i == 0) atomicExch(&out[4], 42);
        """, "int_atomics")
    kernel(cupy.asarray(values), out, wraps)
    np.testing.assert_array_equal(out.get(), [values.max(), values.min(), 7, values.size, 42])
    assert int(wraps.get()[0]) == values.size % 100
