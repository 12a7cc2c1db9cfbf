"""Kernels guarded as users write them (`if i < n:`, `if i >= n: return`, `0 < i < n - 1`,
indices falling along the block, 2-D blocks whose rows are partly outside the array), on
every device, against NumPy with poisoned outputs.

On the CPU these are the kernels whose rows of threads run unguarded where the guard holds
for the whole row (passes/thread_guard.h): a row partly outside the array, a guard that
holds in the middle of a row only, and blocks that are wider than the array must still
leave every element outside the guard untouched.
"""

import numpy as np
import pytest

import simt
from simt import cuda

POISON = -7.25


def on(device, *arrays):
    return [simt.to_device(a, device=device) for a in arrays]


@cuda.jit
def copy_if(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 2 + 1


@cuda.jit
def copy_unless_return(x, out, n):
    i = cuda.grid(1)
    if i >= n:
        return
    out[i] = x[i] - 3


@cuda.jit
def neighbours(x, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    n = x.shape[0]
    if 0 < i < n - 1:
        out[i] = x[i - 1] + x[i + 1] - x[i]


@cuda.jit
def reversed_index(x, out, n):
    i = n - 1 - cuda.grid(1)
    if i >= 0:
        out[i] = x[i] + 0.5


@cuda.jit
def middle_only(x, out, lo, hi):
    i = cuda.grid(1)
    if lo <= i and not i >= hi:
        out[i] = -x[i]


@cuda.jit
def stencil_2d(u, out, alpha):
    j, i = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = u[i, j] + alpha * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                       - 4 * u[i, j])
    elif i < n and j < m:
        out[i, j] = u[i, j]


@cuda.jit
def branchy(x, out):
    i = cuda.grid(1)
    if i < x.size:
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[i] = 0.0


@pytest.mark.parametrize("n, block", [(1, 32), (31, 32), (32, 32), (33, 32), (1000, 64),
                                      (4097, 256), (5, 1)])
def test_one_dimensional_guards(device, rng, n, block):
    x = rng.standard_normal(n)
    grid = -(-n // block) + 1  # one block entirely outside the array as well
    cases = [
        (copy_if, (), x * 2 + 1, slice(0, n)),
        (copy_unless_return, (n,), x - 3, slice(0, n)),
        (neighbours, (), np.r_[0, x[:-2] + x[2:] - x[1:-1], 0] if n > 2 else x * 0,
         slice(1, n - 1)),
        (reversed_index, (n,), x + 0.5, slice(0, n)),
        (middle_only, (n // 3, n - n // 3), -x, slice(n // 3, n - n // 3)),
        (branchy, (), np.maximum(x, 0.0), slice(0, n)),
    ]
    for kernel, extra, full, written in cases:
        expected = np.full(n, POISON)
        expected[written] = full[written]
        dx, dout = on(device, x, np.full(n, POISON))
        kernel[grid, block](dx, dout, *extra)
        np.testing.assert_array_equal(dout.get(), expected, err_msg=kernel.__name__)


@pytest.mark.parametrize("shape, block", [((37, 45), (16, 16)), ((16, 16), (16, 16)),
                                          ((3, 70), (32, 4)), ((50, 9), (8, 8))])
def test_two_dimensional_stencil_with_rows_partly_outside(device, rng, shape, block):
    u = rng.standard_normal(shape)
    n, m = shape
    expected = u.copy()
    expected[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                                   + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    du, dout = on(device, u, np.full(shape, POISON))
    grid = (-(-m // block[0]), -(-n // block[1]))
    stencil_2d[grid, block](du, dout, 0.2)
    np.testing.assert_allclose(dout.get(), expected, rtol=1e-13, atol=1e-13)


@cuda.jit
def guard_facts(x, out):
    i = cuda.grid(1)
    if 0 < i < x.size:
        # i >= 1 here: i - 1 needs no wraparound, but i - 2 is -1 at i = 1 and wraps to the
        # last element, as in Python.
        out[i] = x[i - 1] * 10 + x[i - 2]


@cuda.jit
def guard_then_reassigned(x, out):
    i = cuda.grid(1)
    if i > 0 and i < x.size:
        j = i
        i = i - 3  # the guard says nothing of this i
        out[j] = x[i - 1]


@pytest.mark.parametrize("n", [1, 2, 5, 77])
def test_indices_known_from_the_guard_and_those_not(device, rng, n):
    x = rng.integers(0, 9, n).astype(np.float64)
    idx = np.arange(n)
    expected = np.full(n, POISON)
    expected[1:] = x[idx[1:] - 1] * 10 + x[idx[1:] - 2]
    dx, dout = on(device, x, np.full(n, POISON))
    guard_facts[-(-n // 32), 32](dx, dout)
    np.testing.assert_array_equal(dout.get(), expected)
    if n >= 4:
        expected = np.full(n, POISON)
        expected[1:] = x[idx[1:] - 4]
        dx, dout = on(device, x, np.full(n, POISON))
        guard_then_reassigned[-(-n // 32), 32](dx, dout)
        np.testing.assert_array_equal(dout.get(), expected)


@cuda.jit
def clamped_window(img, out, reach):
    x, y = cuda.grid(2)
    rows, cols = img.shape
    if y < rows and x < cols:
        # y < rows with y >= 0: rows >= 1, so the clamp is never negative (no wraparound),
        # while `rows - 2 - y` below still may be, and wraps as in Python.
        acc = 0.0
        for d in range(-reach, reach + 1):
            yy = min(max(y + d, 0), rows - 1)
            xx = min(max(x + d, 0), cols - 1)
            acc += img[yy, xx]
        out[y, x] = acc + img[rows - 2 - y, x]


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (9, 1), (37, 50)])
def test_clamped_indices_from_a_guard_and_wrapping_ones(device, rng, shape):
    img = rng.random(shape)
    dimg, dout = on(device, img, np.full(shape, POISON))
    reach = 2
    clamped_window[(-(-shape[1] // 8), -(-shape[0] // 8)), (8, 8)](dimg, dout, reach)
    rows, cols = shape
    expected = np.empty(shape)
    for y in range(rows):
        for x in range(cols):
            acc = 0.0
            for d in range(-reach, reach + 1):
                acc += img[min(max(y + d, 0), rows - 1), min(max(x + d, 0), cols - 1)]
            expected[y, x] = acc + img[rows - 2 - y, x]
    np.testing.assert_allclose(dout.get(), expected, rtol=1e-14)
