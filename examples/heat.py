"""A 2-D heat-equation stencil (explicit Euler steps), checked against NumPy."""

import time

import numpy as np

import simt
from simt import cuda


@simt.kernel
def heat_step(u, out, alpha):
    # x runs along a row, so neighbouring threads touch neighbouring memory.
    j, i = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
        out[i, j] = u[i, j] + alpha * lap
    elif i < n and j < m:
        out[i, j] = u[i, j]


def numpy_step(u, alpha):
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    return out


def run(n=1024, steps=50, device=None):
    """`steps` steps on an n x n float64 grid; returns (seconds per step, max abs error)."""
    rng = np.random.default_rng(1)
    u0 = rng.random((n, n))
    alpha = 0.2
    with simt.use_device(simt.get_device(device)):
        a, b = simt.to_device(u0), simt.full((n, n), np.nan)
        block = (16, 16)
        grid = ((n + 15) // 16, (n + 15) // 16)
        heat_step[grid, block](a, b, alpha)  # compile and warm up
        a, b = simt.to_device(u0), b
        b.device.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            heat_step[grid, block](a, b, alpha)
            a, b = b, a
        a.device.synchronize()
        seconds = (time.perf_counter() - start) / steps
        result = a.get()
    expected = u0
    for _ in range(steps):
        expected = numpy_step(expected, alpha)
    return seconds, float(np.max(np.abs(result - expected)))


if __name__ == "__main__":
    seconds, error = run()
    print(f"heat on {simt.current_device().id}: {seconds * 1e3:.2f} ms/step, max error {error:.2e}")
