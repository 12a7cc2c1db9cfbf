"""simt arrays as Dask chunks (simt.dask): Dask arrays of simt chunks on every device,
computed by Dask's threaded scheduler and by a local dask.distributed cluster, against
NumPy on fresh random inputs; and examples/dask_montecarlo.py on worker processes."""

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install "
                         "'dask[array]' distributed; scripts/setup.sh installs it)")
import dask  # noqa: E402

import simt  # noqa: E402
import simt.dask  # noqa: E402,F401

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def threaded_scheduler():
    with dask.config.set(scheduler="threads"):
        yield


def _float(device):
    return np.float64 if device.supports_float64 else np.float32


def _check(result, expected, device, rtol=1e-6):
    assert isinstance(result, simt.Array), type(result)
    assert result.device == device
    np.testing.assert_allclose(result.get(), expected, rtol=rtol, atol=rtol)


def _chunked(rng, device, shape=(30, 20), chunks=(7, 6), dtype=None):
    host = rng.standard_normal(shape).astype(dtype or _float(device))
    return host, da.from_array(simt.asarray(host, device=device), chunks=chunks)


def test_import_simt_registers_with_dask_only_where_dask_came_first():
    check = ("import sys; {first}; import simt; "
             "print('simt.dask' in sys.modules, 'dask' in sys.modules)")
    for first, expected in (("import dask", "True True"), ("pass", "False False")):
        run = subprocess.run([sys.executable, "-c", check.format(first=first)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == expected.split(), (first, run.stdout)


def test_from_array_keeps_simt_chunks_and_computes_to_a_simt_array(device, rng):
    host, x = _chunked(rng, device)
    assert isinstance(x._meta, simt.Array) and x._meta.device == device
    assert x.numblocks == (5, 4)
    _check(x.compute(), host, device)
    blocks = x.blocks[1, 2].compute()
    _check(blocks, host[7:14, 12:18], device)


def test_elementwise_and_reductions(device, rng):
    # Blocks of whole rows: each chunk is contiguous, as most data sets' are.
    host, x = _chunked(rng, device, chunks=(7, 20))
    y_host, y = _chunked(rng, device, chunks=(7, 20))
    rtol = 1e-12 if _float(device) == np.float64 else 2e-5
    _check((x + 1).compute(), host + 1, device, rtol)
    _check((2 * x - y).compute(), 2 * host - y_host, device, rtol)
    _check(np.sin(x).compute(), np.sin(host), device, rtol)
    _check(x.sum().compute(), host.sum(), device, rtol)
    _check(x.mean().compute(), host.mean(), device, rtol)
    _check(x.mean(axis=1).compute(), host.mean(axis=1), device, rtol)
    _check(x.std(axis=0).compute(), host.std(axis=0), device, rtol)
    _check(x.max(axis=1).compute(), host.max(axis=1), device, rtol)
    _check((x > 0).any(axis=0).compute(), (host > 0).any(axis=0), device)


def test_slicing_astype_reshape_concatenate_stack_and_rechunk(device, rng):
    host, x = _chunked(rng, device)
    _check(x[3:17, ::3].compute(), host[3:17, ::3], device)
    _check(x[5].compute(), host[5], device)
    _check(x[[0, 9, 4]].compute(), host[[0, 9, 4]], device)
    _check(x.astype(np.float32).compute(), host.astype(np.float32), device, 1e-6)
    _check(x.reshape(600).compute(), host.reshape(600), device)
    _check(x.T.compute(), host.T, device)
    _check(da.concatenate([x, x[:, :5]], axis=1).compute(),
           np.concatenate([host, host[:, :5]], axis=1), device)
    _check(da.stack([x, 2 * x]).compute(), np.stack([host, 2 * host]), device)
    _check(x.rechunk((15, 20)).compute(), host, device)
    _check(da.where(x > 0, x, 0).compute(), np.where(host > 0, host, 0), device)


def test_matmul_and_tensordot(device, rng):
    host, x = _chunked(rng, device, shape=(12, 10), chunks=(5, 4))
    rtol = 1e-12 if _float(device) == np.float64 else 1e-4
    _check((x @ x.T).compute(), host @ host.T, device, rtol)
    _check(da.tensordot(x, x, axes=([0], [0])).compute(), host.T @ host, device, rtol)


def test_the_meta_functions_dask_calls(device):
    # Dask keeps an empty chunk as the type to build (meta): these make and combine them.
    meta = simt.empty((3, 4), device=device)[:0, :0]
    assert meta.shape == (0, 0) and isinstance(meta, simt.Array)
    for made in (meta.astype(np.float32), meta.reshape((0,)), np.empty_like(meta),
                 np.empty_like(meta, shape=(2,), dtype=np.int8), np.zeros_like(meta),
                 np.concatenate([meta, meta]), np.stack([meta, meta]), np.sum(meta, axis=0),
                 np.full_like(meta, 2, shape=(1, 1))):
        assert isinstance(made, simt.Array) and made.device == device, made


def test_the_lookups_dask_makes_by_chunk_type(device, rng):
    from dask.array import dispatch

    host = rng.standard_normal((4, 5, 3))
    host[1, 2, 0] = host[3, 0, 2] = np.nan
    x = simt.asarray(host, device=device)
    numel = dispatch.numel_lookup.dispatch(simt.Array)
    nannumel = dispatch.nannumel_lookup.dispatch(simt.Array)
    for axis, keepdims in ((None, False), (None, True), (1, False), ((0, 2), True)):
        counts = numel(x, axis=axis, keepdims=keepdims)
        expected = np.sum(np.ones_like(host), axis=axis, keepdims=keepdims)
        np.testing.assert_array_equal(np.asarray(counts.get() if isinstance(
            counts, simt.Array) else counts), expected)
        present = nannumel(x, axis=axis, keepdims=keepdims)
        assert isinstance(present, simt.Array) and present.device == device
        np.testing.assert_array_equal(present.get(), np.sum(~np.isnan(host), axis=axis,
                                                            keepdims=keepdims))
    take = dispatch.take_lookup.dispatch(simt.Array)
    _check(take(x, np.array([3, 0, 3]), axis=0), host[[3, 0, 3]], device)
    concatenate = dispatch.concatenate_lookup.dispatch(simt.Array)
    _check(concatenate([x, x], axis=2), np.concatenate([host, host], axis=2), device)


def test_map_blocks_asarray_kernels_and_get(device, rng):
    host = rng.standard_normal((40, 6)).astype(np.float32)
    x = da.from_array(host, chunks=(10, 6)).map_blocks(simt.asarray, device=device,
                                                       meta=simt.empty((0, 0), np.float32))
    assert isinstance(x._meta, simt.Array)

    @simt.kernel
    def square_rows(a, out):
        i, j = simt.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] * a[i, j]

    def squared(block):
        out = simt.empty_like(block)
        square_rows[(1, 1), (16, 16)](block, out)
        return out

    y = x.map_blocks(squared, meta=simt.empty((0, 0), np.float32, device=device))
    _check(y.compute(), host * host, device)
    as_numpy = y.map_blocks(lambda b: b.get(), meta=np.empty((0, 0), np.float32))
    assert isinstance(as_numpy._meta, np.ndarray)
    result = as_numpy.compute()
    assert isinstance(result, np.ndarray)
    np.testing.assert_allclose(result, host * host, rtol=1e-6)
    np.testing.assert_allclose(y.sum(axis=1).compute().get(), (host * host).sum(axis=1),
                               rtol=1e-5)


def test_dask_and_simt_arrays_mix_into_dask_arrays(device, rng):
    host, x = _chunked(rng, device, shape=(12,), chunks=(5,))
    other = rng.standard_normal(12).astype(host.dtype)
    s = simt.asarray(other, device=device)
    for mixed in (x + s, s + x):
        assert isinstance(mixed, da.Array)
        _check(mixed.compute(), host + other, device)


def test_the_simt_array_backend(device, rng):
    with simt.use_device(device), dask.config.set({"array.backend": "simt"}):
        made = [da.ones((9, 4), chunks=(4, 2)), da.zeros(7, chunks=3, dtype=np.int32),
                da.full((5,), 2.5, chunks=2, dtype=np.float32), da.arange(11, chunks=4)]
    expected = [np.ones((9, 4)), np.zeros(7, np.int32), np.full(5, 2.5, np.float32),
                np.arange(11)]
    for x, values in zip(made, expected):
        assert isinstance(x._meta, simt.Array)
        result = x.compute()
        _check(result, values, device)
        assert result.dtype == values.dtype
    with simt.use_device(device), dask.config.set({"array.backend": "simt"}):
        # Dask passes name= itself (zeros_like) and users may too.
        named = [da.ones((4, 4), chunks=2, name="ones4"), da.zeros_like(made[0])]
    _check(named[0].compute(), np.ones((4, 4)), device)
    _check(named[1].compute(), np.zeros((9, 4)), device)
    host = rng.standard_normal(10)
    moved = da.from_array(host, chunks=4).to_backend("simt", device=device)
    _check(moved.sum().compute(), host.sum(), device, 1e-6)
    back = moved.to_backend("numpy")
    assert isinstance(back._meta, np.ndarray) and isinstance(back.compute(), np.ndarray)


# --- dask.distributed ---------------------------------------------------------------------------

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")


@pytest.fixture(scope="module")
def client():
    """One in-process cluster (threads) for the module: quick to start. Worker processes
    are the example's (test_the_example_on_worker_processes)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_distributed_computes_simt_chunks(client, device, rng):
    host, x = _chunked(rng, device)
    rtol = 1e-12 if _float(device) == np.float64 else 2e-5
    with dask.config.set(scheduler=client):
        _check((x * 2 + 1).mean(axis=0).compute(), (host * 2 + 1).mean(axis=0), device, rtol)
        _check(x.std().compute(), host.std(), device, rtol)
    future = client.scatter(simt.asarray(host, device=device))
    _check(client.submit(lambda a: a * 3, future).result(), host * 3, device, rtol)


def test_cuda_serializers_leave_other_devices_to_pickle(device, rng):
    from distributed.protocol import deserialize, serialize
    from distributed.protocol.cuda import cuda_serialize

    simt.dask.register_serializers()
    assert cuda_serialize.dispatch(simt.Array) is not None
    host = rng.standard_normal(17)
    x = simt.asarray(host, device=device)
    header, frames = serialize(x, serializers=("cuda", "dask", "pickle"))
    expected = "cuda" if device.backend == "cuda" else "pickle"
    assert header["serializer"] == expected
    y = deserialize(header, frames)
    assert isinstance(y, simt.Array) and y.device == device
    np.testing.assert_array_equal(y.get(), host)


def _load_example():
    # Imported as a module (by name), so its functions pickle by reference in-process.
    if "dask_montecarlo" not in sys.modules:
        spec = importlib.util.spec_from_file_location("dask_montecarlo",
                                                      REPO / "examples" / "dask_montecarlo.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["dask_montecarlo"]


def test_the_examples_counts_equal_numpys(client, rng):
    example = _load_example()
    seed = int(rng.integers(0, 2**62))
    with dask.config.set(scheduler=client):
        count, pi = example.estimate(300_000, 70_000, seed, ["cpu"])
    expected = int(example.numpy_hits(seed, 0, 300_000).sum())
    assert count == expected and abs(pi - np.pi) < 0.02


def test_the_example_on_worker_processes(rng):
    # Two worker processes, one device each where there are two: simt registers itself
    # with Dask in each worker, kernels and arrays travel by pickle.
    devices = ",".join(d.id for d in simt.devices()[-2:][::-1])
    seed = str(int(rng.integers(0, 2**62)))
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "dask_montecarlo.py"), "--samples",
         "1000000", "--chunk", "200000", "--workers", "2", "--devices", devices, "--seed",
         seed], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "NumPy's count equal" in run.stdout
