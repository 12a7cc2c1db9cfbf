"""Devices, arrays and kernel launches, on every available device, against NumPy."""

import math
import threading

import warnings

import numpy as np
import pytest

import simt
from simt import cuda

POISON = {np.dtype(np.float32): np.float32(np.nan), np.dtype(np.float64): np.nan}


def poisoned(shape, dtype, device):
    dtype = np.dtype(dtype)
    value = POISON.get(dtype, np.iinfo(dtype).min if dtype.kind in "iu" else 0)
    return simt.full(shape, value, dtype, device=device)


@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@simt.kernel
def add2d(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] + b[i, j]


@simt.kernel
def index_objects(out):
    i = simt.grid(1)
    if i < out.shape[0]:
        out[i, 0] = cuda.threadIdx.x
        out[i, 1] = cuda.blockIdx.x
        out[i, 2] = cuda.blockDim.x
        out[i, 3] = cuda.gridDim.x
        out[i, 4] = simt.gridsize(1)


@simt.kernel
def scale_annotated(x: np.float32, out):
    i = cuda.grid(1)
    if i < len(out):
        out[i] = out[i] * x


# ---- devices ----------------------------------------------------------------

def requires_cpu():
    if "cpu" not in [d.id for d in simt.devices()]:
        pytest.skip("this build of simt has no CPU backend")


def test_devices_list_has_cpu_last():
    requires_cpu()
    ids = [d.id for d in simt.devices()]
    assert ids[-1] == "cpu"
    assert simt.get_device("cpu").backend == "cpu"


def test_devices_are_ordered_and_numbered():
    ids = [d.id for d in simt.devices()]
    backends = [d.backend for d in simt.devices()]
    order = {"cuda": 0, "opencl": 1, "cpu": 2}
    assert backends == sorted(backends, key=order.get)
    for backend in ("cuda", "opencl"):
        numbered = [i for i in ids if i.startswith(backend + ":")]
        assert numbered == [f"{backend}:{k}" for k in range(len(numbered))]
        if numbered:
            assert simt.get_device(backend) == simt.get_device(numbered[0])


def test_default_device_is_a_gpu_else_the_native_cpu(monkeypatch):
    monkeypatch.delenv("SIMT_DEVICE", raising=False)
    found = simt.devices()
    gpus = [d for d in found if d.is_gpu]
    native = [d for d in found if d.backend == "cpu"]
    expected = (gpus or native or found)[0]
    assert simt._core.default_device() == expected
    monkeypatch.setenv("SIMT_DEVICE", found[-1].id)
    assert simt._core.default_device() == found[-1]


def test_unknown_device_is_a_clear_error():
    with pytest.raises(ValueError, match="no device 'cuda:7'"):
        simt.get_device("cuda:7")
    with pytest.raises(TypeError):
        simt.get_device(3.5)


def test_use_device_nests_and_restores():
    first, last = simt.devices()[0], simt.devices()[-1]
    before = simt.current_device()
    with simt.use_device(last.id) as d:
        assert d == last and simt.current_device() == last
        with simt.use_device(first):
            assert simt.current_device() == first
        assert simt.current_device() == last
    assert simt.current_device() == before


def test_use_device_as_a_statement_stays_current():
    # As CuPy's Device.use(): not only a `with` block (a generator-based context
    # manager called as a statement would silently do nothing).
    before = simt.current_device()
    try:
        for d in simt.devices():
            simt.use_device(d.id)
            assert simt.current_device() == d
            assert simt.empty(3).device == d
    finally:
        simt.use_device(before)
    assert simt.current_device() == before


def test_info_lists_backends(capsys):
    from simt.__main__ import main

    assert main(["simt", "info"]) == 0
    text = capsys.readouterr().out
    for backend in ("cpu", "cuda", "opencl"):
        assert backend in text
    assert "cache folder" in text


# ---- arrays -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.int64,
                                   np.complex64, np.bool_])
def test_to_device_round_trip(device, rng, dtype):
    host = (rng.random((7, 5)) * 100).astype(dtype)
    array = simt.to_device(host, device=device)
    assert array.shape == (7, 5) and array.dtype == np.dtype(dtype) and array.device == device
    assert array.size == 35 and array.ndim == 2 and array.nbytes == host.nbytes
    np.testing.assert_array_equal(array.get(), host)
    np.testing.assert_array_equal(array.copy_to_host(), host)


def test_fortran_order_is_kept(device, rng):
    host = np.asfortranarray(rng.random((4, 6)))
    array = simt.to_device(host, device=device)
    assert array.strides == host.strides
    np.testing.assert_array_equal(array.get(), host)


def test_creation_functions(device):
    np.testing.assert_array_equal(simt.zeros((3, 2), np.int32, device=device).get(),
                                  np.zeros((3, 2), np.int32))
    np.testing.assert_array_equal(simt.full(4, 2.5, device=device).get(), np.full(4, 2.5))
    like = simt.empty_like(np.zeros((2, 3), np.float32), device=device)
    assert like.shape == (2, 3) and like.dtype == np.float32
    assert simt.empty(5, device=device).dtype == np.float64
    assert simt.empty(0, device=device).size == 0


def test_bad_shapes_and_dtypes(device):
    with pytest.raises(ValueError, match="negative"):
        simt.empty((-1, 3), device=device)
    with pytest.raises(TypeError, match="not supported"):
        simt.empty(3, dtype=np.dtype("U3"), device=device)
    with pytest.raises(TypeError):
        simt.empty("ten", device=device)


def test_slicing_views_share_memory(device, rng):
    host = rng.random((6, 8))
    array = simt.to_device(host, device=device)
    np.testing.assert_array_equal(array[1:5, ::2].get(), host[1:5, ::2])
    np.testing.assert_array_equal(array[-1].get(), host[-1])
    np.testing.assert_array_equal(array[..., 3].get(), host[..., 3])
    assert array[2, 3] == host[2, 3]
    with pytest.raises(IndexError):
        array[6]
    with pytest.raises(IndexError):
        array[1, 2, 3]


def test_kernels_read_and_write_views_at_offsets(device, rng):
    # Views that start inside their buffers, at offsets that are not multiples
    # of anything an allocator aligns to (OpenCL passes them as buffer + offset).
    x = simt.to_device(rng.random(101).astype(np.float32), device=device)
    y = simt.to_device(rng.random(101).astype(np.float32), device=device)
    out = simt.full(101, -1.0, dtype=np.float32, device=device)
    with simt.use_device(device):
        saxpy[4, 32](np.float32(3), x[7:90], y[11:94], out[5:88])
    expected = np.full(101, -1.0, np.float32)
    expected[5:88] = np.float32(3) * x.get()[7:90] + y.get()[11:94]
    np.testing.assert_array_equal(out.get(), expected)

    a = simt.to_device(rng.random((9, 12)), device=device)
    b = simt.to_device(rng.random((9, 12)), device=device)
    c = simt.zeros((9, 12), device=device)
    with simt.use_device(device):
        add2d[(1, 1), (8, 8)](a[1:, 3:], b[:-1, 1:10], c[2:8, 1:10:2])
    expected = np.zeros((9, 12))
    expected[2:8, 1:10:2] = a.get()[1:, 3:][:6, :5] + b.get()[:-1, 1:10][:6, :5]
    np.testing.assert_array_equal(c.get(), expected)


def test_numpy_asarray_on_cpu_is_a_view():
    requires_cpu()
    array = simt.zeros(4, device="cpu")
    view = np.asarray(array)
    view[2] = 7.0
    assert array.get()[2] == 7.0


# ---- launches ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_saxpy_device_arrays(device, rng, dtype):
    n = 1000 + int(rng.integers(0, 1000))
    x, y = rng.random(n).astype(dtype), rng.random(n).astype(dtype)
    a = dtype(rng.random())
    out = poisoned(n, dtype, device)
    with simt.use_device(device):
        saxpy[(n + 127) // 128, 128](a, simt.to_device(x), simt.to_device(y), out)
    np.testing.assert_allclose(out.get(), a * x + y, rtol=1e-6)


def test_saxpy_numpy_arguments_on_every_device(device, rng):
    # Host-memory devices use NumPy arrays in place; the others copy them there and back
    # around the launch (Numba's behaviour), with a PerformanceWarning.
    n = 513
    x, y = rng.random(n), rng.random(n)
    out = np.full(n, np.nan)
    with simt.use_device(device), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        saxpy[5, 128](2.0, x, y, out)
    np.testing.assert_allclose(out, 2.0 * x + y)
    staged = [w for w in caught if issubclass(w.category, simt.PerformanceWarning)]
    assert bool(staged) == (not device.host_accessible)
    readonly = np.full(n, 7.0)
    readonly.flags.writeable = False
    with simt.use_device(device), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(simt.TypingError, match="read-only"):  # staged or not
            saxpy[5, 128](2.0, x, y, readonly)
        saxpy[5, 128](2.0, readonly, y, out)  # read-only inputs are fine
    np.testing.assert_allclose(out, 2.0 * readonly + y)


@cuda.jit
def _tuple_saxpy(a, xs, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * xs[0][i] + xs[1].y[i] + xs[2][0]
        xs[1].x[i] = -i


def test_numpy_arrays_inside_tuple_arguments(device, rng):
    """NumPy arrays in tuples and named tuples are staged as top-level ones are, the
    kernel's writes copied back into them."""
    import collections

    pair = collections.namedtuple("pair", "x y")
    n = 300
    x, y, z = rng.random(n), rng.random(n), np.full(n, np.nan)
    out = np.full(n, np.nan)
    with simt.use_device(device), warnings.catch_warnings():
        warnings.simplefilter("ignore", simt.PerformanceWarning)
        _tuple_saxpy[3, 128](2.0, (x, pair(z, y), (0.5,)), out)
    np.testing.assert_allclose(out, 2.0 * x + y + 0.5)
    np.testing.assert_array_equal(z, -np.arange(n))


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_2d_layouts(device, rng, order):
    a, b = rng.random((37, 45)), rng.random((37, 45))
    if order == "F":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    da, db = simt.to_device(a, device=device), simt.to_device(b, device=device)
    if order == "strided":
        big = simt.to_device(rng.random((74, 90)), device=device)
        da, a = big[::2, ::2], big.get()[::2, ::2]
    out = poisoned((37, 45), np.float64, device)
    with simt.use_device(device):
        add2d[(3, 3), (16, 16)](da, db, out)
    np.testing.assert_array_equal(out.get(), a + b)


def test_index_objects(device):
    out = poisoned((100, 5), np.int64, device)
    with simt.use_device(device):
        index_objects[4, 32](out)
    i = np.arange(100)
    expected = np.stack([i % 32, i // 32, np.full(100, 32), np.full(100, 4), np.full(100, 128)], 1)
    np.testing.assert_array_equal(out.get(), expected)


def test_annotated_scalar_parameter_is_converted(device, rng):
    host = rng.random(64).astype(np.float32)
    out = simt.to_device(host, device=device)
    with simt.use_device(device):
        scale_annotated[1, 64](0.5, out)  # a Python float passed as float32
    np.testing.assert_array_equal(out.get(), host * np.float32(0.5))


def test_specializations_are_cached(device):
    @simt.kernel
    def fill(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v

    a32 = simt.empty(10, np.float32, device=device)
    with simt.use_device(device):
        fill[1, 32](a32, 1.5)
        fill[1, 32](a32, 2.5)
        assert fill._dispatcher.specialization_count == 1
        fill[1, 32](simt.empty(10, np.int32, device=device), 3)
        assert fill._dispatcher.specialization_count == 2
    np.testing.assert_array_equal(a32.get(), np.full(10, 2.5, np.float32))


def test_explicit_signature_compiles_eagerly():
    @simt.kernel("void(float32[::1], float32)")
    def fill(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v

    assert fill._dispatcher.specialization_count == 1


def test_explicit_signature_with_a_type_error_fails_at_decoration():
    with pytest.raises(simt.TypingError):
        @simt.kernel("(float32[::1],)")
        def bad(out):
            out[0] = out


def test_launch_from_several_threads(device):
    out = [simt.zeros(256, np.float64, device=device) for _ in range(4)]

    def work(k):
        with simt.use_device(device):
            for _ in range(20):
                saxpy[2, 128](float(k), out[k], out[k], out[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        np.testing.assert_array_equal(out[k].get(), np.zeros(256))


# ---- launch errors ------------------------------------------------------------

def test_launch_needs_a_configuration():
    with pytest.raises(TypeError, match=r"saxpy\[grid, block\]"):
        saxpy(1.0, None, None, None)


@pytest.mark.parametrize("config, error, message", [
    ((0, 32), ValueError, "grid must be positive"),
    ((1, 0), ValueError, "block must be positive"),
    ("too wide", ValueError, "block dimension x is {wide}, more than {id} allows"),
    ("too many", ValueError, "a block of {many} threads is more than {id} allows"),
    ((1, (1, 1, 1, 1)), ValueError, "1 to 3 dimensions"),
    ((1.5, 32), TypeError, "grid must be an int"),
    ((1,), TypeError, "launch configuration"),
    ((1, 32, None, -1), ValueError, "dynamic shared memory"),
    ((1, 32, None, 2 ** 40), ValueError, "dynamic shared memory"),
])
def test_bad_configurations(device, config, error, message):
    x = simt.zeros(4, device=device)
    # Limits are the device's own (PoCL allows 4096 threads per block).
    wide = device.max_block_dim[0] * 2
    side = int(device.max_threads_per_block ** 0.5) + 1
    many = side * side
    config = {"too wide": (1, wide), "too many": (1, (side, side))}.get(config, config)
    message = message.format(wide=wide, many=many, id=device.id)
    with pytest.raises(error, match=message):
        with simt.use_device(device):
            saxpy[config](1.0, x, x, x)


def test_device_limits_are_reported(device):
    assert device.max_threads_per_block >= 1
    assert len(device.max_block_dim) == 3 and len(device.max_grid_dim) == 3
    assert all(d >= 1 for d in device.max_block_dim + device.max_grid_dim)
    if device.backend == "cuda":
        assert device.is_gpu
    if device.backend == "cpu":
        assert not device.is_gpu
    assert device.total_memory > 0 or device.backend == "cpu"


def test_argument_errors_name_the_argument(device):
    x = simt.zeros(4, device=device)
    with simt.use_device(device):
        with pytest.raises(TypeError, match="takes 4 arguments but 3"):
            saxpy[1, 4](1.0, x, x)
        with pytest.raises(TypeError, match="argument 'y'.*list"):
            saxpy[1, 4](1.0, x, [1, 2], x)
        with pytest.raises(TypeError, match="argument 'a'.*does not fit in int64"):
            saxpy[1, 4](2 ** 70, x, x, x)
        with pytest.raises(simt.TypingError, match="'float64' is not subscriptable"):
            saxpy[1, 4](1.0, np.array(1.0), x, x)  # a 0-d array is a scalar argument


def test_typing_error_at_launch_points_into_this_file(device):
    @simt.kernel
    def bad(out):
        out[0] = out & 1

    with simt.use_device(device), pytest.raises(simt.TypingError) as info:
        bad[1, 1](simt.zeros(3, device=device))
    assert info.value.filename == __file__


def test_read_only_arrays_cannot_be_written():
    requires_cpu()
    x = np.zeros(8)
    x.flags.writeable = False
    with simt.use_device("cpu"), pytest.raises(simt.TypingError, match="read-only"):
        saxpy[1, 8](1.0, x, x, x)


def test_kernel_math_matches_numpy(device, rng):
    @simt.kernel
    def f(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i])

    x = rng.random(300)
    out = poisoned(300, np.float64, device)
    with simt.use_device(device):
        f[3, 128](simt.to_device(x), out)
    np.testing.assert_allclose(out.get(), np.sin(x) * np.exp(-x) + np.sqrt(x), rtol=1e-14)


def test_explicit_signature_serves_later_launches(device):
    @simt.kernel
    def fill(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v

    fill.compile("(float32[::1], float64)", device=device)
    assert fill._dispatcher.specialization_count == 1
    out = simt.zeros(8, np.float32, device=device)
    with simt.use_device(device):
        fill[1, 8](out, 2.5)
    assert fill._dispatcher.specialization_count == 1
    np.testing.assert_array_equal(out.get(), np.full(8, 2.5, np.float32))


# ---- memory pool ------------------------------------------------------------

def test_arrays_come_from_a_caching_pool(device, rng):
    simt.free_cached_memory(device)
    before = simt.memory_stats(device)
    a = simt.to_device(rng.random(10000), device=device)
    during = simt.memory_stats(device)
    assert during["in_use"] >= before["in_use"] + a.nbytes
    assert during["held"] >= during["in_use"]
    assert during["peak_in_use"] >= during["in_use"]
    del a
    after = simt.memory_stats(device)
    assert after["in_use"] == before["in_use"]
    assert after["held"] == during["held"]  # kept for reuse
    # A new array reuses the memory; its values are its own.
    b = simt.full(10000, 7.0, device=device)
    assert simt.memory_stats(device)["held"] == during["held"]
    np.testing.assert_array_equal(b.get(), np.full(10000, 7.0))
    del b
    given_back = simt.free_cached_memory(device)
    # Segments other tests' live arrays share stay held (the C++ tests check release
    # exactly); what was given back is no longer held.
    assert simt.memory_stats(device)["held"] == after["held"] - given_back
    if simt.memory_stats(device)["in_use"] == 0:
        assert simt.memory_stats(device)["held"] == 0


def test_pool_keeps_live_arrays_intact_under_churn(device, rng):
    """Many arrays of mixed sizes allocated and freed: each keeps its own values."""
    live = {}
    for step in range(200):
        if live and rng.random() < 0.4:
            key = list(live)[rng.integers(len(live))]
            array, expected = live.pop(key)
            np.testing.assert_array_equal(array.get(), expected)
        else:
            n = int(rng.integers(0, 5000)) if rng.random() < 0.9 else int(rng.integers(0, 300000))
            expected = rng.random(n).astype(np.float32)
            live[step] = (simt.to_device(expected, device=device), expected)
    for array, expected in live.values():
        np.testing.assert_array_equal(array.get(), expected)


def test_exiting_with_queued_work_is_clean(tmp_path, device):
    """A program that launches and exits without synchronizing ends cleanly: queued work
    finishes first (PoCL crashed when its compile thread outlived the program objects)."""
    import os
    import subprocess
    import sys
    script = tmp_path / "launch_and_exit.py"
    script.write_text(
        "import numpy as np\n"
        "import simt\n"
        "from simt import cuda\n\n"
        "@simt.kernel\n"
        "def k(out):\n"
        "    i = cuda.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = i * 2\n\n"
        f"out = simt.zeros(100000, device='{device.id}')\n"
        f"with simt.use_device('{device.id}'):\n"
        "    k[400, 256](out)\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ, SIMT_CACHE_DIR="off"))
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])


def test_a_launch_runs_on_the_device_of_its_arrays_without_use_device(rng, device):
    # Arrays made on a device that need not be the current one: the launch
    # follows them, as CuPy's and Numba's do.
    others = [d for d in simt.devices() if d.id != device.id]
    x_host, y_host = rng.standard_normal((2, 300)).astype(np.float32)
    x, y = simt.to_device(x_host, device=device), simt.to_device(y_host, device=device)
    out = poisoned(300, np.float32, device)
    with simt.use_device(others[0] if others else device):
        saxpy[3, 128](np.float32(2.5), x, y, out)
    np.testing.assert_allclose(out.get(), np.float32(2.5) * x_host + y_host, rtol=1e-6)
    if others:
        elsewhere = simt.to_device(y_host, device=others[0])
        with pytest.raises(TypeError, match="'y'.*is on " + others[0].id):
            saxpy[3, 128](np.float32(2.5), x, elsewhere, out)
