"""Globals are frozen when a kernel compiles (as in Numba), and Kernel.recompile() drops
the compiled code so the next launch reads them anew; on every available device."""

import threading

import numpy as np

import simt

SCALE = 2.5
OFFSET = 1.0
N = 1000
BLOCK = 128
BLOCKS = -(-N // BLOCK)


def _scaled_kernel():
    # A fresh kernel per test: what one compiled does not leak into the next.
    @simt.kernel
    def scaled(x, out):
        i = simt.grid(1)
        if i < x.size:
            out[i] = x[i] * SCALE

    return scaled


def _launch(kernel, dx, device, *extra):
    out = simt.full(N, np.nan, dtype=np.float32, device=device)  # poisoned
    with simt.use_device(device):
        kernel[BLOCKS, BLOCK](dx, out, *extra)
    return out.get()


def test_a_changed_global_is_frozen_until_recompile(device, rng):
    global SCALE
    x = rng.standard_normal(N).astype(np.float32)
    dx = simt.to_device(x, device=device)
    scaled = _scaled_kernel()
    saved = SCALE
    try:
        SCALE = 2.5
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(2.5), rtol=1e-6)
        SCALE = -3.25
        # Frozen: this signature compiled with SCALE = 2.5.
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(2.5), rtol=1e-6)
        assert scaled._dispatcher.specialization_count == 1
        scaled.recompile()
        assert scaled._dispatcher.specialization_count == 0
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(-3.25),
                                   rtol=1e-6)
        assert scaled._dispatcher.specialization_count == 1
        # Frozen again, at the value read by the new compile.
        SCALE = 7.0
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(-3.25),
                                   rtol=1e-6)
    finally:
        SCALE = saved


def test_recompile_drops_eagerly_compiled_signatures(device, rng):
    global SCALE
    saved = SCALE
    try:
        SCALE = 0.5
        scaled = _scaled_kernel()
        scaled.compile("(float32[::1], float32[::1])", device)
        SCALE = 4.0
        x = rng.standard_normal(N).astype(np.float32)
        dx = simt.to_device(x, device=device)
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(0.5), rtol=1e-6)
        scaled.recompile()
        scaled.compile("(float32[::1], float32[::1])", device)  # compiles with SCALE = 4.0
        SCALE = 9.0
        np.testing.assert_allclose(_launch(scaled, dx, device), x * np.float32(4.0), rtol=1e-6)
    finally:
        SCALE = saved


@simt.func
def _shifted(v):
    return v + OFFSET


def test_a_device_functions_globals_change_with_the_kernels_recompile(device, rng):
    global OFFSET

    @simt.kernel
    def shift(x, out):
        i = simt.grid(1)
        if i < x.size:
            out[i] = _shifted(x[i])

    x = rng.standard_normal(N).astype(np.float32)
    dx = simt.to_device(x, device=device)
    saved = OFFSET
    try:
        OFFSET = 1.0
        np.testing.assert_allclose(_launch(shift, dx, device), x + np.float32(1.0), rtol=1e-6)
        OFFSET = -6.0
        np.testing.assert_allclose(_launch(shift, dx, device), x + np.float32(1.0), rtol=1e-6)
        shift.recompile()
        np.testing.assert_allclose(_launch(shift, dx, device), x + np.float32(-6.0), rtol=1e-6)
    finally:
        OFFSET = saved


def test_a_closure_variable_is_frozen_too(device, rng):
    factor = 3.0

    @simt.kernel
    def by_factor(x, out):
        i = simt.grid(1)
        if i < x.size:
            out[i] = x[i] * factor

    x = rng.standard_normal(N).astype(np.float32)
    dx = simt.to_device(x, device=device)
    np.testing.assert_allclose(_launch(by_factor, dx, device), x * np.float32(3.0), rtol=1e-6)
    factor = 0.25
    np.testing.assert_allclose(_launch(by_factor, dx, device), x * np.float32(3.0), rtol=1e-6)
    by_factor.recompile()
    np.testing.assert_allclose(_launch(by_factor, dx, device), x * np.float32(factor),
                               rtol=1e-6)


def test_recompile_while_another_thread_launches(device, rng):
    """Launches on another thread keep running while the main thread recompiles: each
    result is the input times one of the values the global held."""
    global SCALE
    values = (2.5, -3.25, 0.5)
    x = rng.standard_normal(N).astype(np.float32)
    dx = simt.to_device(x, device=device)
    scaled = _scaled_kernel()
    expected = [x * np.float32(v) for v in values]
    results, errors, done = [], [], threading.Event()

    def launch_loop():
        try:
            stream = simt.Stream(device)
            while not done.is_set() or not results:
                out = simt.full(N, np.nan, dtype=np.float32, device=device)
                scaled[BLOCKS, BLOCK, stream](dx, out)
                stream.synchronize()
                results.append(out.get())
        except Exception as error:  # reported by the main thread
            errors.append(error)

    saved = SCALE
    SCALE = values[0]
    worker = threading.Thread(target=launch_loop)
    worker.start()
    try:
        for k in range(6):
            SCALE = values[k % len(values)]
            scaled.recompile()
            _launch(scaled, dx, device)  # compiles here too, racing the worker's compiles
    finally:
        done.set()
        worker.join()
        SCALE = saved
    assert not errors, errors
    assert results
    for out in results:
        assert any(np.allclose(out, e, rtol=1e-6) for e in expected), out[:4]
