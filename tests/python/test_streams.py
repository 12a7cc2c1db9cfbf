"""Streams, events, callbacks, pinned memory and launches from several threads,
on every device: ordering is verified by the results, never by timing."""

import threading

import numpy as np
import pytest

import simt


@simt.kernel
def scale_add(x, factor, offset):
    i = simt.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * factor + offset


def launch(kernel, n, stream, *args):
    kernel[(n + 127) // 128, 128, stream](*args)


def expected(x, steps):
    out = x.copy()
    for factor, offset in steps:
        out = out * np.float32(factor) + np.float32(offset)
    return out


def test_work_on_one_stream_runs_in_order(device, rng):
    x = rng.standard_normal(50_000).astype(np.float32)
    stream = simt.Stream(device)
    a = simt.to_device(x, stream=stream)
    steps = [(2, 1), (0.5, -3), (3, 0.25), (-1, 2)]
    for factor, offset in steps:
        launch(scale_add, x.size, stream, a, np.float32(factor), np.float32(offset))
    out = a.get(stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(out, expected(x, steps), rtol=1e-6)
    assert stream.query()


def test_pinned_copies_overlap_and_keep_order(device, rng):
    x = rng.standard_normal(1 << 18).astype(np.float32)
    host = simt.pinned_empty(x.shape, np.float32, device=device)
    assert isinstance(host, np.ndarray) and host.shape == x.shape
    host[:] = x
    stream = simt.Stream(device)
    a = simt.empty(x.shape, np.float32, device=device)
    a.set(host, stream=stream)
    launch(scale_add, x.size, stream, a, np.float32(3), np.float32(1))
    out = simt.pinned_empty(x.shape, np.float32, device=device)
    a.get(stream=stream, out=out)
    stream.synchronize()
    np.testing.assert_allclose(out, x * 3 + 1, rtol=1e-6)


def test_the_default_stream_waits_for_other_streams(device, rng):
    x = rng.standard_normal(100_000).astype(np.float32)
    a = simt.to_device(x, device=device)
    stream = simt.Stream(device)
    for _ in range(3):
        launch(scale_add, x.size, stream, a, np.float32(2), np.float32(0))
    # No synchronize: the default stream's copy comes after the stream's work.
    np.testing.assert_allclose(a.get(), x * 8, rtol=1e-6)


def test_wait_event_orders_two_streams(device, rng):
    x = rng.standard_normal(200_000).astype(np.float32)
    a = simt.to_device(x, device=device)
    first, second = simt.Stream(device), simt.Stream(device)
    for _ in range(4):
        launch(scale_add, x.size, first, a, np.float32(1.5), np.float32(1))
    event = first.record()
    second.wait_event(event)
    launch(scale_add, x.size, second, a, np.float32(-1), np.float32(0))
    out = a.get(stream=second)
    second.synchronize()
    np.testing.assert_allclose(out, -expected(x, [(1.5, 1)] * 4), rtol=1e-5)
    assert event.query()


def test_events_time_work(device):
    stream = simt.Stream(device)
    a = simt.zeros(1 << 16, np.float32, device=device)
    start, end = simt.Event(device), simt.Event(device)
    start.record(stream)
    launch(scale_add, a.size, stream, a, np.float32(1), np.float32(1))
    end.record(stream)
    end.synchronize()
    assert end.query()
    ms = simt.Event.elapsed_time(start, end)
    assert 0 <= ms < 60_000
    assert start.elapsed_time(end) == pytest.approx(ms)


def test_callbacks_run_after_the_work_before_them(device, rng):
    x = rng.standard_normal(10_000).astype(np.float32)
    stream = simt.Stream(device)
    a = simt.to_device(x, device=device)
    launch(scale_add, x.size, stream, a, np.float32(2), np.float32(0))
    seen = []
    done = threading.Event()
    # A callback may use the device: it runs on a host thread, not in the driver.
    stream.add_callback(lambda: (seen.append(a.get()), done.set()))
    assert done.wait(60)
    stream.synchronize()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], x * 2, rtol=1e-6)


def test_a_callback_may_hold_the_last_reference_to_its_stream(device):
    import gc
    done = threading.Event()
    stream = simt.Stream(device)
    a = simt.zeros(1000, np.float32, device=device)
    launch(scale_add, a.size, stream, a, np.float32(1), np.float32(3))
    stream.add_callback(lambda held=stream: done.set())  # the callback holds the stream
    del stream
    gc.collect()
    assert done.wait(60)
    np.testing.assert_array_equal(a.get(), np.full(1000, 3, np.float32))


def test_await_a_stream(device):
    import asyncio

    stream = simt.Stream(device)
    a = simt.zeros(1000, np.float32, device=device)
    launch(scale_add, a.size, stream, a, np.float32(1), np.float32(5))

    async def main():
        await stream
        return a.get()

    np.testing.assert_array_equal(asyncio.run(main()), np.full(1000, 5, np.float32))


def test_launches_and_copies_from_many_threads(device, rng):
    inputs = [rng.standard_normal(20_000).astype(np.float32) for _ in range(8)]
    results = [None] * len(inputs)
    errors = []

    def work(k):
        try:
            stream = simt.Stream(device)
            a = simt.to_device(inputs[k], stream=stream)
            for _ in range(10):
                launch(scale_add, a.size, stream, a, np.float32(1), np.float32(k))
            results[k] = a.get(stream=stream)
            stream.synchronize()
        except Exception as error:  # reported below, with the thread's index
            errors.append((k, error))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k, x in enumerate(inputs):
        np.testing.assert_allclose(results[k], x + 10 * k, rtol=1e-5)


def test_default_stream_objects(device):
    s = simt.default_stream(device)
    assert s.is_default and s == simt.default_stream(device)
    assert not simt.Stream(device).is_default
    s.synchronize()
    assert s.query()


def test_stream_errors(device):
    a = simt.zeros(10, np.float32, device=device)
    with pytest.raises(TypeError, match="simt.Stream, None or 0"):
        scale_add[1, 32, "stream"](a, np.float32(1), np.float32(1))
    with pytest.raises(TypeError, match="simt.Event"):
        simt.Stream(device).wait_event(42)
    with pytest.raises(ValueError, match="two recorded events"):
        simt.Event.elapsed_time(simt.Event(device), simt.Event(device))
    with pytest.raises(TypeError, match="callable"):
        simt.Stream(device).add_callback(3)
    others = [d for d in simt.devices() if d != device]
    if others:
        with pytest.raises(ValueError, match="the stream is on"):
            a.set(np.zeros(10, np.float32), stream=simt.Stream(others[0]))


SVM_MISSING = "needs fine-grained shared virtual memory"


def host_kind_available(device, kind):
    """CUDA and the CPU have every kind; OpenCL devices have mapped and managed memory
    where they have fine-grained SVM (OpenCL 2.0), and say so clearly where not."""
    if device.backend != "opencl" or kind == "pinned":
        return True
    try:
        getattr(simt, f"{kind}_empty")(1, np.float32, device=device)
    except ValueError as error:
        assert SVM_MISSING in str(error)
        return False
    return True


@pytest.mark.parametrize("kind", ["mapped", "managed"])
def test_mapped_and_managed_arrays_are_used_in_place(device, rng, kind):
    make = getattr(simt, f"{kind}_empty")
    if not host_kind_available(device, kind):
        with pytest.raises(ValueError, match=SVM_MISSING):
            make(10, np.float32, device=device)
        return
    x = rng.standard_normal((64, 50)).astype(np.float32)
    a = make(x.shape, np.float32, device=device)
    assert isinstance(a, simt.Array) and a.device == device and a.shape == x.shape
    host = np.asarray(a)  # the same memory, on the host
    host[...] = x
    flat = a[3]  # a view of one row, still in place
    launch(scale_add, flat.size, None, flat, np.float32(2), np.float32(1))
    device.synchronize()
    expected_rows = x.copy()
    expected_rows[3] = x[3] * 2 + 1
    np.testing.assert_allclose(host, expected_rows, rtol=1e-6)
    np.testing.assert_allclose(a.get(), expected_rows, rtol=1e-6)
    del a, flat
    np.testing.assert_allclose(host, expected_rows, rtol=1e-6)  # the view keeps it alive


def test_item_and_slice_assignment_on_every_device(device, rng):
    x = rng.standard_normal((6, 8)).astype(np.float32)
    a = simt.to_device(x, device=device)
    rows = rng.standard_normal((2, 8)).astype(np.float32)
    a[2] = 5
    a[4, 3] = -1
    a[0:2] = rows
    x[2] = 5
    x[4, 3] = -1
    x[0:2] = rows
    np.testing.assert_array_equal(a.get(), x)


def test_pageable_memory_is_done_with_when_a_queued_copy_returns(device, rng):
    x = rng.standard_normal(1 << 16).astype(np.float32)
    stream = simt.Stream(device)
    a = simt.empty(x.shape, np.float32, device=device)
    for busy in (False, True):
        if busy:  # work queued before the copy
            launch(scale_add, a.size, stream, a, np.float32(1), np.float32(0))
        host = x.copy()
        a.set(host, stream=stream)
        host[:] = 7  # the caller may reuse pageable memory at once
        out = a.get(stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(out, x)


def test_an_event_recorded_again_does_not_hold_up_an_earlier_wait(device):
    first, second = simt.Stream(device), simt.Stream(device)
    event = simt.Event(device)
    event.record(first)
    second.wait_event(event)  # waits for that recording only
    event.record(second)      # recorded again, behind the wait
    second.synchronize()
    assert event.query()


def test_queued_device_copies_keep_their_arrays(device, rng):
    x = rng.standard_normal(1 << 20).astype(np.float32)
    stream = simt.Stream(device)
    source = simt.to_device(x, device=device)
    launch(scale_add, source.size, stream, source, np.float32(2), np.float32(0))
    copy = source.copy(stream=stream)
    del source  # still used by the queued copy
    out = copy.get(stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(out, x * 2, rtol=1e-6)


def test_scalar_reads_wait_for_queued_work(device):
    stream = simt.Stream(device)
    a = simt.zeros(1 << 16, np.float32, device=device)
    for _ in range(20):
        launch(scale_add, a.size, stream, a, np.float32(1), np.float32(1))
    assert a[5] == 20


def test_streams_dropped_with_work_and_callbacks_pending(device):
    a = simt.zeros(1 << 16, np.float32, device=device)
    ran = threading.Event()
    stream = simt.Stream(device)
    for _ in range(5):
        launch(scale_add, a.size, stream, a, np.float32(1), np.float32(1))
    stream.add_callback(ran.set)
    event = stream.record()
    simt.default_stream(device).wait_event(event)
    del stream  # its work still runs; the default stream already waits for it
    np.testing.assert_array_equal(a.get(), np.full(a.size, 5, np.float32))
    assert ran.wait(60)
