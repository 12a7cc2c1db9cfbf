"""SAXPY, out = a * x + y: the "hello world" of GPU programming, checked against NumPy."""

import time

import numpy as np

import simt
from simt import cuda


@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def run(n=1 << 24, device=None):
    """Runs saxpy on `device`; returns (seconds per launch, max abs error)."""
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a = np.float32(2.5)
    with simt.use_device(simt.get_device(device)):
        dx, dy = simt.to_device(x), simt.to_device(y)
        out = simt.full(n, np.nan, np.float32)
        block = 256
        grid = (n + block - 1) // block
        saxpy[grid, block](a, dx, dy, out)  # compile and warm up
        out.device.synchronize()
        repeats = 10
        start = time.perf_counter()
        for _ in range(repeats):
            saxpy[grid, block](a, dx, dy, out)
        out.device.synchronize()
        seconds = (time.perf_counter() - start) / repeats
        error = float(np.max(np.abs(out.get() - (a * x + y))))
    return seconds, error


if __name__ == "__main__":
    seconds, error = run()
    print(f"saxpy on {simt.current_device().id}: {seconds * 1e3:.2f} ms, max error {error:.2e}")
