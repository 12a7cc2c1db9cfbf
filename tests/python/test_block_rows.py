"""Kernels on grids of many blocks along x, in the forms that decide how the CPU runs a
row of blocks: threads that read their position only through cuda.grid() (the CPU may
run consecutive blocks in one call, one longer row of threads, codegen/emit_function.cpp),
and threads that also read threadIdx.x or blockIdx.x (one block per call). Guards that
hold in the middle of a row and fail at both of its ends, shapes that are not multiples
of the block. On every device against NumPy, outputs poisoned."""

import numpy as np
import pytest

from simt import cuda


@cuda.jit
def interior_mean(u, out):
    x, y = cuda.grid(2)
    rows, cols = u.shape
    if 0 < y < rows - 1 and 0 < x < cols - 1:
        out[y, x] = (u[y - 1, x] + u[y + 1, x] + u[y, x - 1] + u[y, x + 1]) / 4
    elif y < rows and x < cols:
        out[y, x] = -u[y, x]


@cuda.jit
def window(x, out, lo, hi):
    i = cuda.grid(1)
    if lo <= i < hi:  # holds only in the middle blocks of the row
        out[i] = 2 * x[i]


@cuda.jit
def block_parts(x, out):
    # blockIdx.x and threadIdx.x read directly: each thread's own block and lane.
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < x.size:
        out[i] = x[i] + cuda.threadIdx.x + 1000 * cuda.blockIdx.x


def expected_interior(u):
    out = -u
    out[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) / 4
    return out


@pytest.mark.parametrize("shape, block", [((37, 1000), (16, 4)), ((5, 4097), (32, 2)),
                                          ((64, 64), (16, 16)), ((3, 3), (8, 8))])
def test_interior_guard_over_rows_of_blocks(device, rng, shape, block):
    import simt

    u = rng.random(shape)
    out = simt.full(shape, np.nan, device=device)
    grid = ((shape[1] + block[0] - 1) // block[0], (shape[0] + block[1] - 1) // block[1])
    interior_mean[grid, block](simt.to_device(u, device=device), out)
    np.testing.assert_allclose(out.get(), expected_interior(u), rtol=1e-15)


@pytest.mark.parametrize("n, lo, hi", [(10_000, 300, 9_000), (10_000, 0, 10_000),
                                       (999, 500, 501), (4096, 4000, 5000)])
def test_guard_holding_in_the_middle_of_the_row(device, rng, n, lo, hi):
    import simt

    x = rng.random(n)
    out = simt.full(n, np.nan, device=device)
    window[(n + 63) // 64, 64](simt.to_device(x, device=device), out, lo, hi)
    want = np.full(n, np.nan)
    want[lo:hi] = 2 * x[lo:hi]
    np.testing.assert_array_equal(out.get(), want)


@pytest.mark.parametrize("n, block", [(10_000, 64), (1000, 96), (33, 32)])
def test_threads_reading_their_block_and_lane(device, rng, n, block):
    import simt

    x = rng.random(n)
    out = simt.full(n, np.nan, device=device)
    block_parts[(n + block - 1) // block, block](simt.to_device(x, device=device), out)
    i = np.arange(n)
    np.testing.assert_array_equal(out.get(), x + i % block + 1000 * (i // block))
