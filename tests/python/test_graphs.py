"""Graphs (simt.graph(), Stream.begin_capture()) on every device: a capture records and runs
nothing, a replay equals the eager run of the same work, scalars change by capturing
again, and what a capture cannot record is refused with a message naming it."""

import numpy as np
import pytest

import simt
from kernel_helpers import SAXPY


@simt.kernel
def axpy(a, x, y):
    i = simt.grid(1)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


@simt.kernel
def scale(y, s):
    i = simt.grid(1)
    if i < y.shape[0]:
        y[i] = y[i] * s


def config(n):
    return (n + 63) // 64, 64


def step(x, y, a, s):
    """The captured sequence: launches, an array operation, a copy on the device."""
    grid, block = config(x.shape[0])
    axpy[grid, block](a, x, y)
    scale[grid, block](y, s)
    z = y + x  # an array made while capturing: allocated once, rewritten by each replay
    y[...] = z
    return z.copy()  # a copy on the device


def step_numpy(x, y, a, s):
    y = (a * x + y) * s
    return y + x


def test_a_capture_runs_nothing_and_a_replay_equals_eager_runs(device, rng):
    n = int(rng.integers(1, 3000))
    hx = rng.standard_normal(n).astype(np.float32)
    hy = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    y = simt.to_device(hy, device=device)
    with simt.use_device(device), simt.graph() as g:
        z = step(x, y, np.float32(2), np.float32(0.5))
    assert g.device == device and len(g) == len(g.commands) >= 4
    assert "copy" in g.commands
    np.testing.assert_array_equal(y.get(), hy)  # nothing ran
    expected = hy
    for _ in range(3):
        g.launch()
        expected = step_numpy(hx, expected, np.float32(2), np.float32(0.5))
        np.testing.assert_allclose(y.get(), expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(z.get(), expected, rtol=1e-5, atol=1e-5)

    # The same work run eagerly from the same inputs gives the same arrays.
    ey = simt.to_device(hy, device=device)
    with simt.use_device(device):
        for _ in range(3):
            step(x, ey, np.float32(2), np.float32(0.5))
    np.testing.assert_array_equal(ey.get(), y.get())


def test_capturing_again_changes_scalars(device, rng):
    n = 1000
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    y = simt.to_device(np.zeros(n, np.float32), device=device)
    g = simt.graph(device)
    for a in (1.0, 3.0, -0.5):
        with g:
            axpy[config(n)](np.float32(a), x, y)
        y[...] = simt.to_device(np.zeros(n, np.float32), device=device)
        g.launch()
        g.launch()
        np.testing.assert_allclose(y.get(), 2 * np.float32(a) * hx, rtol=1e-6)
    assert len(g) == 1


def test_a_replay_holds_its_arrays(device, rng):
    n = 257
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    with simt.use_device(device), simt.graph() as g:
        out = x * 2  # the graph's own array, kept by the graph
        axpy[config(n)](np.float32(1), x, out)
    result = out
    del out, x  # the graph holds both arrays
    g.launch()
    np.testing.assert_allclose(result.get(), 3 * hx, rtol=1e-6)


def test_a_long_sequence_replays_in_order(device):
    n = 64
    y = simt.to_device(np.ones(n, np.float32), device=device)
    with simt.graph(device) as g:
        for k in range(100):
            scale[config(n)](y, np.float32(1.01 if k % 2 else 1 / 1.01))
    assert len(g) == 100
    g.launch()
    np.testing.assert_allclose(y.get(), np.ones(n, np.float32), rtol=1e-4)


def test_streams_capture_with_cupys_spelling(device, rng):
    n = 500
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    y = simt.to_device(np.zeros(n, np.float32), device=device)
    s = simt.Stream(device)
    s.begin_capture()
    assert s.is_capturing()
    axpy[config(n) + (s,)](np.float32(2), x, y)
    g = s.end_capture()
    assert not s.is_capturing()
    np.testing.assert_array_equal(y.get(), 0)
    g.launch(s)
    s.synchronize()
    np.testing.assert_allclose(y.get(), 2 * hx, rtol=1e-6)
    # Work on another stream of the device is not captured: it runs.
    with simt.graph(device, stream=s):
        axpy[config(n)](np.float32(1), x, y)
    np.testing.assert_allclose(y.get(), 3 * hx, rtol=1e-6)


def test_raw_kernels_are_captured(device, rng):
    language = "opencl" if device.backend == "opencl" else "cuda"
    k = simt.RawKernel(SAXPY[language], "saxpy", device=device)
    n = 300
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    y = simt.to_device(np.zeros(n, np.float32), device=device)
    with simt.graph(device) as g:
        k[(n + 63) // 64, 64](np.float32(2), x, y, np.uint32(n))
    np.testing.assert_array_equal(y.get(), 0)
    g.launch()
    g.launch()
    np.testing.assert_allclose(y.get(), 4 * hx, rtol=1e-6)


def test_a_graph_launched_inside_a_capture_is_recorded(device):
    y = simt.to_device(np.ones(8, np.float32), device=device)
    with simt.graph(device) as inner:
        scale[1, 8](y, np.float32(2))
    with simt.graph(device) as outer:
        inner.launch()
        inner.launch()
    assert len(outer) == 2
    np.testing.assert_array_equal(y.get(), 1)
    outer.launch()
    np.testing.assert_array_equal(y.get(), 4)


@pytest.mark.parametrize("what, action, message", [
    ("get", lambda y: y.get(), "copy to host memory"),
    ("float", lambda y: float(y.sum()), "host memory|reading arrays on the host"),
    ("to_device", lambda y: simt.to_device(np.ones(4, np.float32), device=y.device),
     "copy from host memory"),
    ("synchronize", lambda y: y.device.synchronize(), "synchronize"),
    ("stream synchronize", lambda y: simt.default_stream(y.device).synchronize(),
     "synchronize"),
    ("zeros", lambda y: simt.zeros(4, np.float32, device=y.device), "filling memory"),
    ("numpy argument", lambda y: axpy[1, 4](np.float32(1), np.ones(4, np.float32), y),
     "NumPy array"),
])
def test_what_cannot_be_captured_is_refused(device, what, action, message):
    y = simt.to_device(np.ones(4, np.float32), device=device)
    g = simt.graph(device)
    with pytest.raises(RuntimeError, match=message) as error:
        with g:
            scale[1, 4](y, np.float32(2))
            action(y)
    assert "graph" in str(error.value)
    # The failed capture recorded nothing, ran nothing, and the stream is free again.
    assert len(g) == 0 and not g.capturing
    np.testing.assert_array_equal(y.get(), 1)
    y.device.synchronize()


def test_checked_kernels_are_refused(device):
    @simt.kernel(boundscheck=True)
    def checked(y):
        i = simt.grid(1)
        if i < y.shape[0]:
            y[i] += 1

    y = simt.to_device(np.ones(4, np.float32), device=device)
    with pytest.raises(RuntimeError, match="checks"):
        with simt.graph(device):
            checked[1, 4](y)


def test_misuse_is_refused(device):
    y = simt.to_device(np.ones(4, np.float32), device=device)
    g = simt.graph(device)
    with g:
        with pytest.raises(RuntimeError, match="capturing"):
            g.launch()
        with pytest.raises(RuntimeError, match="capturing already"):
            g.begin_capture()
        with pytest.raises(RuntimeError, match="another graph"):
            simt.graph(device).begin_capture()
    with pytest.raises(RuntimeError, match="not capturing"):
        g.end_capture()
    s = simt.Stream(device)
    with pytest.raises(RuntimeError, match="not capturing"):
        s.end_capture()
    g.launch()  # an empty graph replays nothing
    np.testing.assert_array_equal(y.get(), 1)


@pytest.mark.parametrize("operation", ["matmul", "sum", "cumsum", "sort"])
def test_array_operations_are_recorded_or_refused_never_run_at_once(device, rng, operation):
    """Operations the array library runs through its own kernels are recorded; those it
    runs elsewhere (NumPy on the cpu device's host memory, cuBLAS, cuFFT) are refused."""
    h = rng.standard_normal((24, 24)).astype(np.float32)
    a = simt.to_device(h, device=device)
    run = {"matmul": lambda x: x @ x, "sum": lambda x: simt.sum(x, axis=0),
           "cumsum": lambda x: simt.cumulative_sum(x, axis=1),
           "sort": lambda x: simt.sort(x, axis=1)}[operation]
    expected = {"matmul": lambda x: x @ x, "sum": lambda x: x.sum(axis=0),
                "cumsum": lambda x: np.cumsum(x, axis=1),
                "sort": lambda x: np.sort(x, axis=1)}[operation]
    try:
        with simt.use_device(device), simt.graph() as g:
            out = run(a)
    except RuntimeError as error:
        assert "graph" in str(error)
        return
    a.set(2 * h)  # the replay reads the arrays as they are then
    g.launch()
    np.testing.assert_allclose(out.get(), expected(2 * h), rtol=1e-4, atol=1e-4)


def test_update_replaces_one_launch(device, rng):
    n = 200
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx, device=device)
    y = simt.to_device(np.zeros(n, np.float32), device=device)
    with simt.graph(device) as g:
        axpy[config(n)](np.float32(1), x, y)
        scale[config(n)](y, np.float32(2))
    g.launch()
    np.testing.assert_allclose(y.get(), 2 * hx, rtol=1e-6)
    g.update(0, lambda: axpy[config(n)](np.float32(3), x, y))
    assert len(g) == 2
    np.testing.assert_allclose(y.get(), 2 * hx, rtol=1e-6)  # the update ran nothing
    g.launch()  # y = (2x + 3x) * 2
    np.testing.assert_allclose(y.get(), 10 * hx, rtol=1e-5)
    with pytest.raises(IndexError, match="no command 2"):
        g.update(2, lambda: scale[config(n)](y, np.float32(1)))
    with pytest.raises(RuntimeError, match="exactly one command"):
        g.update(0, lambda: (scale[config(n)](y, np.float32(1)),
                             scale[config(n)](y, np.float32(1))))
    g.launch()  # unchanged by the refused updates
    np.testing.assert_allclose(y.get(), 26 * hx, rtol=1e-5)  # (10x + 3x) * 2


def test_cupys_capture_on_the_current_stream(current, rng):
    from simt import cuda  # CuPy's cupy.cuda names: `with stream:` makes it current

    n = 100
    hx = rng.standard_normal(n).astype(np.float32)
    x = simt.to_device(hx)
    y = simt.to_device(np.zeros(n, np.float32))
    s = cuda.Stream()
    with s:
        s.begin_capture()
        axpy[config(n)](np.float32(2), x, y)  # no stream named: the current one, s
        z = x * 3
        g = s.end_capture()
    assert isinstance(g, cuda.Graph) and len(g) == 2
    g.launch(s)
    s.synchronize()
    np.testing.assert_allclose(y.get(), 2 * hx, rtol=1e-6)
    np.testing.assert_allclose(z.get(), 3 * hx, rtol=1e-6)


def test_a_graph_dropped_while_capturing_frees_its_stream(device):
    s = simt.Stream(device)
    simt.graph(device, stream=s).begin_capture()  # the graph goes at once
    y = simt.to_device(np.ones(4, np.float32), device=device)
    scale[1, 4, s](y, np.float32(2))  # runs: nothing captures s any more
    s.synchronize()
    np.testing.assert_array_equal(y.get(), 2)


def test_fills_and_host_reads_are_refused_on_a_captured_current_stream(current):
    # Fills and host reads of views run outside every stream: a capture of the current
    # (non-default) stream refuses them too, as it does on the default stream.
    from simt import cuda

    y = simt.to_device(np.ones((4, 4), np.float32))
    s = cuda.Stream()
    for action, message in [(lambda: simt.zeros(4, np.float32), "filling memory"),
                            (lambda: y[:, 1].get(),
                             "copy to host memory|reading arrays on the host")]:
        with s:
            s.begin_capture()
            try:
                with pytest.raises(RuntimeError, match=message):
                    action()
            finally:
                s.end_capture()


@pytest.mark.needs_cpu
def test_race_checked_kernels_are_refused():
    @simt.kernel(racecheck=True)
    def bump(y):
        i = simt.grid(1)
        if i < y.shape[0]:
            y[i] += 1

    y = simt.to_device(np.ones(4, np.float32), device="cpu")
    # Race-checked kernels are bounds-checked too: the refusal names the checks.
    with pytest.raises(RuntimeError, match="cannot be captured into a graph"):
        with simt.graph("cpu"):
            bump[1, 4](y)
