"""Several devices in one process: copies between any two devices, kernels and array
functions on the device of their arrays, cross-device events, and one Python thread per
device working at once (no lock held across launches or copies).

Runs wherever two devices exist: here ``cpu`` and ``opencl:0`` (PoCL); on a machine with
several GPUs every ordered pair of them as well.
"""

import itertools
import threading
import time

import numpy as np
import pytest

import simt

_IDS = [d.id for d in simt.devices()]
_PAIRS = list(itertools.permutations(_IDS, 2))

needs_two = pytest.mark.skipif(len(_IDS) < 2, reason=f"one device only ({_IDS})")


@pytest.fixture(params=_PAIRS or [None], ids=[f"{a}->{b}" for a, b in _PAIRS] or ["none"])
def pair(request):
    """(source, destination): every ordered pair of two different devices."""
    if request.param is None:
        pytest.skip(f"one device only ({_IDS})")
    return tuple(simt.get_device(d) for d in request.param)


def _values(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-1000, 1000, shape).astype(dtype)


@simt.kernel
def _axpy(a, x, y, out):
    i = simt.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float64])
def test_to_device_copies_between_any_two_devices(pair, rng, dtype):
    source, destination = pair
    host = _values(rng, (37, 21), dtype)
    x = simt.asarray(host, device=source)
    for y in (simt.to_device(x, device=destination), x.to_device(destination),
              simt.asarray(x, device=destination)):
        assert y.device == destination
        np.testing.assert_array_equal(y.get(), host)
    np.testing.assert_array_equal(x.get(), host)  # the source is left as it was


def test_to_device_copies_strided_views_and_fortran_arrays(pair, rng):
    source, destination = pair
    host = _values(rng, (12, 10), np.float32)
    x = simt.asarray(host, device=source)
    for view, expected in ((x[2:11:3, ::-2], host[2:11:3, ::-2]), (x.T, host.T),
                           (x[5], host[5]), (x[:0], host[:0])):
        y = view.to_device(destination)
        assert y.device == destination and y.shape == expected.shape
        np.testing.assert_array_equal(y.get(), expected)
    fortran = simt.asarray(np.asfortranarray(host), device=source)
    np.testing.assert_array_equal(simt.to_device(fortran, device=destination).get(), host)


def test_to_device_on_a_stream_of_the_destination(pair, rng):
    source, destination = pair
    host = _values(rng, (1000,), np.float64)
    x = simt.asarray(host, device=source)
    stream = simt.Stream(destination)
    y = simt.to_device(x, stream=stream)  # the stream names the device
    stream.synchronize()
    assert y.device == destination
    np.testing.assert_array_equal(y.get(), host)


def test_to_device_of_the_same_device_is_the_array_itself(device, rng):
    x = simt.asarray(_values(rng, (5,), np.float32), device=device)
    assert x.to_device(device) is x
    y = simt.to_device(x, device=device)  # simt.to_device always copies
    assert y is not x and y.device == device
    np.testing.assert_array_equal(y.get(), x.get())


def test_kernels_run_on_the_device_of_their_arrays(pair, rng):
    home, elsewhere = pair
    x, y = _values(rng, (2, 300), np.float32)
    dx, dy = simt.asarray(x, device=home), simt.asarray(y, device=home)
    out = simt.full(300, np.nan, np.float32, device=home)
    with simt.use_device(elsewhere):  # the current device does not matter
        _axpy[3, 128](np.float32(2), dx, dy, out)
        total = simt.sum(dx * 2 + dy)
    assert total.device == home
    np.testing.assert_allclose(out.get(), 2 * x + y, rtol=1e-6)
    np.testing.assert_allclose(float(total), float(np.sum(2 * x + y, dtype=np.float64)),
                               rtol=1e-4)


def test_arrays_on_two_devices_are_an_error_never_a_copy(pair):
    a, b = pair
    x, y = simt.ones(8, device=a), simt.ones(8, device=b)
    out = simt.zeros(8, device=a)
    with pytest.raises(ValueError, match="two devices"):
        x + y
    with pytest.raises((TypeError, ValueError), match=f"on {b.id} but the kernel runs on {a.id}"):
        _axpy[1, 8](1.0, x, y, out)
    np.testing.assert_array_equal(out.get(), 0)


def test_a_stream_waits_for_an_event_of_another_device(pair, rng):
    first, second = pair
    host = _values(rng, (4096,), np.float32)
    x = simt.asarray(host, device=first)
    produced = simt.empty_like(x)
    producer = simt.Stream(first)
    _axpy[32, 128, producer](np.float32(3), x, x, produced)  # 4 * x, queued
    done = producer.record()
    consumer = simt.Stream(second)
    consumer.wait_event(done)
    assert done.query()  # another device's event is waited for on the host
    moved = simt.to_device(produced, stream=consumer)
    consumer.synchronize()
    np.testing.assert_allclose(moved.get(), 4 * host, rtol=1e-6)


def _device_worker(device, seed, rounds, results, index):
    """One thread's work on its own device: copies in, kernels, array functions, copies
    out and a copy to the next device, each checked against NumPy."""
    rng = np.random.default_rng(seed)
    try:
        with simt.use_device(device):
            for _ in range(rounds):
                assert simt.current_device() == device  # the thread's own, not another's
                a = np.float32(rng.standard_normal())
                x, y = rng.standard_normal((2, 5000)).astype(np.float32)
                dx, dy = simt.to_device(x), simt.to_device(y)
                out = simt.empty_like(dx)
                _axpy[40, 128](a, dx, dy, out)
                np.testing.assert_allclose(out.get(), a * x + y, rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(float(simt.max(out)), np.max(a * x + y), rtol=1e-6)
                assert out.device == device
        results[index] = "ok"
    except BaseException as e:  # reported by the main thread
        results[index] = e


@needs_two
def test_one_thread_per_device(seed):
    devices = [simt.get_device(d) for d in _IDS]
    results = [None] * len(devices)
    threads = [threading.Thread(target=_device_worker, args=(d, seed + k, 6, results, k))
               for k, d in enumerate(devices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for device, result in zip(devices, results):
        if isinstance(result, BaseException):
            raise AssertionError(f"the thread on {device.id} failed") from result
        assert result == "ok", f"the thread on {device.id} did not finish"


@simt.kernel
def _wait_for_host(flag, seen, limit):
    # One thread marks that it started (flag[1]) and spins until the host sets flag[0]
    # (an atomic read each turn), or gives up after `limit` turns.
    if simt.grid(1) == 0:
        simt.atomic.exch(flag, 1, 1)
        turns = 0
        while simt.atomic.add(flag, 0, 0) == 0 and turns < limit:
            turns += 1
        seen[0] = simt.atomic.add(flag, 0, 0)


def _other_device():
    others = [d for d in _IDS if d != "cpu"]
    if "cpu" not in _IDS or not others:
        pytest.skip(f"needs the cpu device and another one ({_IDS})")
    return simt.get_device(others[0])


def test_a_launch_in_flight_lets_other_threads_launch_and_copy(rng):
    # The cpu kernel spins until a Python thread sets a flag in host memory. That thread
    # first launches and copies on another device: had the launch kept the GIL, or a lock
    # any launch or copy takes, the flag would come only after the kernel gave up.
    other = _other_device()
    seen = np.zeros(1, np.int32)
    _wait_for_host[1, 1](np.array([1, 0], np.int32), seen, 1)  # compiled before timing
    flag = np.zeros(2, np.int32)
    limit = 2_000_000_000  # tens of seconds at least: only reached when blocked
    launch = threading.Thread(target=lambda: _wait_for_host[1, 1](flag, seen, limit))
    launch.start()
    try:
        deadline = time.monotonic() + 60
        while flag[1] == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert flag[1] == 1, "the cpu kernel did not start"
        x = rng.standard_normal(3000).astype(np.float32)
        dx = simt.to_device(x, device=other)
        out = simt.empty_like(dx)
        _axpy[30, 128](np.float32(-1.5), dx, dx, out)
        back = out.to_device("cpu")
        np.testing.assert_allclose(back.get(), -0.5 * x, rtol=1e-6)
        assert launch.is_alive(), "the cpu kernel ended before the flag was set"
    finally:
        flag[0] = 1
        launch.join(timeout=120)
    assert seen[0] == 1


def test_a_launch_keeps_no_array_alive_once_it_returned(device):
    # A thread's launch scratch let go of its arrays only at the thread's next launch (a
    # Dask worker thread then released them at exit, without the GIL it needed).
    before = simt.memory_stats(device)["in_use"]
    x = simt.zeros(1 << 18, np.float32, device=device)
    _axpy[8, 128](np.float32(1), x, x, x)
    del x
    assert simt.memory_stats(device)["in_use"] == before


class _NotHostVisible:
    """A DeviceArray that says the host cannot address it: the path two GPUs take."""

    def __init__(self, storage):
        self._storage = storage

    host_visible = False

    def __getattr__(self, name):
        return getattr(self._storage, name)


def test_copies_between_two_gpu_like_memories_stage_through_pinned_memory(pair, rng):
    # Two GPUs are not here: the same path runs with both sides said to be device memory.
    from simt import _transfer

    source, destination = pair
    host = _values(rng, (3, 333), np.int32)
    x = simt.asarray(host, device=source)
    y = simt.full(host.shape, -1, np.int32, device=destination)
    _transfer.copy_contiguous(_NotHostVisible(x._impl), _NotHostVisible(y._impl))
    np.testing.assert_array_equal(y.get(), host)
    with pytest.raises(ValueError, match="a copy of 3996 bytes into an array of 16"):
        _transfer.copy_contiguous(x._impl, simt.empty(4, np.int32, device=destination)._impl)
