"""Grid-stride loops in kernels with barriers, written the ways Numba-CUDA users write them
(`while i < n: ...; i += cuda.gridsize(1)`, `for i in range(cuda.grid(1), n, stride)`), on
every device against NumPy, with outputs poisoned.

The CPU runs these loops in lockstep (one iteration of every thread of the block per
round, codegen/emit_regions.cpp) so that neighbouring threads read neighbouring elements:
each thread must still see exactly its own elements, in its own order, leave the loop
with Python's value of the loop variable, and skip the loop when it has no element.
"""

import numpy as np
import pytest

from simt import cuda

BLOCK = 64


@cuda.jit
def while_sums(x, partial, last):
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    acc = 0.0
    i = cuda.grid(1)
    while i < x.size:
        if x[i] > 0.5:  # a branch inside: each thread its own elements
            acc += x[i]
        else:
            acc -= 2 * x[i]
        i += cuda.gridsize(1)
    s[t] = acc
    last[cuda.grid(1)] = i  # the first index past the thread's last: the while's own i
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for k in range(cuda.blockDim.x):
            total += s[k]
        partial[cuda.blockIdx.x] = total


@cuda.jit
def range_sums(x, partial, last):
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    stride = cuda.gridsize(1)
    acc = 0.0
    j = -1
    for j in range(cuda.grid(1), x.size, stride):
        acc += x[j] * (j % 3)
    s[t] = acc
    last[cuda.grid(1)] = j  # Python's: the last value taken (-1 where the loop never ran)
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for k in range(cuda.blockDim.x):
            total += s[k]
        partial[cuda.blockIdx.x] = total


def expected(x, blocks, form):
    threads = blocks * BLOCK
    partial = np.zeros(blocks)
    last = np.empty(threads, np.int64)
    for g in range(threads):
        idx = np.arange(g, x.size, threads)
        if form == "while":
            v = x[idx]
            acc = np.where(v > 0.5, v, -2 * v).sum() if idx.size else 0.0
            last[g] = g + threads * idx.size
        else:
            acc = (x[idx] * (idx % 3)).sum() if idx.size else 0.0
            last[g] = idx[-1] if idx.size else -1
        partial[g // BLOCK] += acc
    return partial, last


@pytest.mark.parametrize("n, blocks", [(1000, 3), (5, 2), (64 * 4, 4), (12_345, 1)])
@pytest.mark.parametrize("form", ["while", "range"])
def test_grid_stride_loops_give_each_thread_its_elements(device, rng, n, blocks, form):
    import simt

    x = rng.random(n)
    kernel = while_sums if form == "while" else range_sums
    dx = simt.to_device(x, device=device)
    partial = simt.full(blocks, np.nan, device=device)
    last = simt.full(blocks * BLOCK, -7, dtype=np.int64, device=device)
    kernel[blocks, BLOCK](dx, partial, last)
    want_partial, want_last = expected(x, blocks, form)
    np.testing.assert_array_equal(last.get(), want_last)
    np.testing.assert_allclose(partial.get(), want_partial, rtol=1e-12)


# The counter dead after the loop (the CPU's gang rounds keep it in a C local, not its
# per-thread array), and read after it only under a condition (it must stay exact).

@cuda.jit
def dead_counter_sums(x, partial, scale):
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    acc = 0.0
    i = cuda.grid(1)
    while i < x.size:
        acc += x[i] * (i % 5)
        i += cuda.gridsize(1)
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += scale * x[j]
    s[t] = acc
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for k in range(cuda.blockDim.x):
            total += s[k]
        partial[cuda.blockIdx.x] = total


@cuda.jit
def counter_read_under_a_condition(x, partial, last):
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    acc = 0.0
    i = cuda.grid(1)
    while i < x.size:
        acc += x[i]
        i += cuda.gridsize(1)
    s[t] = acc
    cuda.syncthreads()
    if t % 2 == 1:
        last[cuda.grid(1)] = i
    if t == 0:
        total = 0.0
        for k in range(cuda.blockDim.x):
            total += s[k]
        partial[cuda.blockIdx.x] = total


@pytest.mark.parametrize("n, blocks", [(1000, 3), (5, 2), (64 * 4, 4), (12_345, 1)])
def test_grid_stride_counters_dead_or_read_after_the_loop(device, rng, n, blocks):
    import simt

    x = rng.random(n)
    threads = blocks * BLOCK
    dx = simt.to_device(x, device=device)
    partial = simt.full(blocks, np.nan, device=device)
    dead_counter_sums[blocks, BLOCK](dx, partial, 0.25)
    idx = np.arange(n)
    want = np.zeros(blocks)
    np.add.at(want, (idx % threads) // BLOCK, x * (idx % 5) + 0.25 * x)
    np.testing.assert_allclose(partial.get(), want, rtol=1e-12)
    last = simt.full(threads, -7, dtype=np.int64, device=device)
    counter_read_under_a_condition[blocks, BLOCK](dx, partial, last)
    g = np.arange(threads)
    want_last = np.where(g % 2 == 1, g + threads * np.maximum(0, -(-(n - g) // threads)), -7)
    np.testing.assert_array_equal(last.get(), want_last)
    want = np.zeros(blocks)
    np.add.at(want, (idx % threads) // BLOCK, x)
    np.testing.assert_allclose(partial.get(), want, rtol=1e-12)


# Kernels without barriers: the CPU emits them twice and runs the lockstep form when the
# grid has fewer threads than the largest array has elements.

@cuda.jit
def axpy_while(a, x, out, visits):
    i = cuda.grid(1)
    while i < x.size:
        out[i] = a * x[i] + 1.0
        visits[i] += 1  # every element exactly once, whatever the form
        i += cuda.gridsize(1)


@cuda.jit
def axpy_range(a, x, out, visits):
    stride = cuda.gridsize(1)
    first = cuda.grid(1)
    for i in range(first, x.size, stride):
        if x[i] > 0.5:
            out[i] = a * x[i]
        else:
            out[i] = -x[i]
        visits[i] += 1
    visits[x.size + first] = i if first < x.size else -5  # Python's loop variable after


@pytest.mark.parametrize("n, blocks, block", [(10_000, 2, 64), (10_000, 200, 64), (77, 1, 32),
                                              (4096, 64, 64), (1, 3, 32)])
def test_grid_stride_kernels_without_barriers(device, rng, n, blocks, block):
    import simt

    x = rng.random(n)
    threads = blocks * block
    dx = simt.to_device(x, device=device)
    out = simt.full(n, np.nan, device=device)
    visits = simt.zeros(n, dtype=np.int64, device=device)
    axpy_while[blocks, block](2.5, dx, out, visits)
    np.testing.assert_array_equal(out.get(), 2.5 * x + 1.0)
    np.testing.assert_array_equal(visits.get(), np.ones(n, np.int64))

    out = simt.full(n, np.nan, device=device)
    visits = simt.zeros(n + threads, dtype=np.int64, device=device)
    axpy_range[blocks, block](2.5, dx, out, visits)
    np.testing.assert_array_equal(out.get(), np.where(x > 0.5, 2.5 * x, -x))
    got = visits.get()
    np.testing.assert_array_equal(got[:n], np.ones(n, np.int64))
    first = np.arange(threads)
    last = np.where(first < n, first + (n - 1 - first) // threads * threads, -5)
    np.testing.assert_array_equal(got[n:], last)


# The CPU runs a block whose counters are consecutive (one-dimensional blocks, `i` from
# cuda.grid(1)) as a gang: each round a plain loop over the threads still in the loop,
# which Clang vectorizes (codegen/emit_gang.cpp). Every other shape must take the masked
# rounds and give the same elements to the same threads.

@cuda.jit
def while_shapes(x, visits, last, shape):
    s = cuda.shared.array(1, np.int64)  # a barrier kernel: the loop runs in regions
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
        s[0] = 0
    cuda.syncthreads()
    if shape == 3 and cuda.threadIdx.x % 5 == 1:
        return  # threads that left before the loop are not in its rounds
    i = cuda.grid(1)
    if shape == 2:
        i = 2 * i  # counters two apart: not a gang
    while i < x.size:
        cuda.atomic.add(visits, i, 1)
        i += cuda.gridsize(1)
    last[cuda.grid(1) + cuda.threadIdx.y * cuda.gridsize(1)] = i


@cuda.jit
def while_through(x, visits, last, shape):
    s = cuda.shared.array(1, np.int64)
    if cuda.threadIdx.x == 0:
        s[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    while i <= x.size - 1:  # `<=`: the gang counts one more thread per round
        cuda.atomic.add(visits, i, 1)
        i += cuda.gridsize(1)
    last[cuda.grid(1)] = i


@cuda.jit
def range_walk(x, visits, last, shape):
    s = cuda.shared.array(1, np.int64)
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
        s[0] = 0
    cuda.syncthreads()
    j = -1
    for j in range(cuda.grid(1) * (2 if shape == 5 else 1), x.size, cuda.gridsize(1)):
        cuda.atomic.add(visits, j, 1)
    last[cuda.grid(1) + cuda.threadIdx.y * cuda.gridsize(1)] = j


@pytest.mark.parametrize("n, blocks", [(1000, 3), (31, 2), (4096, 4)])
@pytest.mark.parametrize("shape, block", [(0, (32, 1)), (1, (32, 1)), (2, (32, 1)),
                                          (3, (32, 1)), (0, (16, 2)), (4, (32, 1)),
                                          (5, (32, 1)), (4, (16, 2))])
def test_grid_stride_loops_of_every_shape(device, rng, n, blocks, shape, block):
    import simt

    bx = block[0]
    threads = blocks * bx
    x = rng.random(n)
    visits = simt.zeros(n, dtype=np.int64, device=device)
    last = simt.full(threads * block[1], -7, dtype=np.int64, device=device)
    kernel = {1: while_through, 4: range_walk, 5: range_walk}.get(shape, while_shapes)
    kernel[blocks, block](simt.to_device(x, device=device), visits, last, shape)
    want_visits = np.zeros(n, np.int64)
    want_last = np.full(threads * block[1], -7, np.int64)
    for y in range(block[1]):
        for g in range(threads):
            if shape == 3 and (g % bx) % 5 == 1:
                continue
            i = 2 * g if shape in (2, 5) else g
            taken = -1
            while i < n:
                want_visits[i] += 1
                taken = i
                i += threads
            want_last[g + y * threads] = taken if shape >= 4 else i
    np.testing.assert_array_equal(visits.get(), want_visits)
    np.testing.assert_array_equal(last.get(), want_last)


# A grid-stride while loop is emitted with its count computed before it starts (compilers
# unroll it: codegen/emit_counted_while.cpp), where the count is exact; near int64's end
# the plain loop runs. `break` leaves either form with the counter where it was.

@cuda.jit
def while_with_break(x, out, last, stop, offset):
    i = cuda.grid(1) - offset
    while i < stop:
        if i >= x.size:
            break
        if i >= 0:
            if x[i] > 0.9:
                break
            out[i] = 2 * x[i]
        i += cuda.gridsize(1)
    last[cuda.grid(1)] = i


@pytest.mark.parametrize("stop, offset", [(None, 0), (None, 7), (2 ** 63 - 1, 0),
                                          (2 ** 63 - 100, 3), (-5, 0)])
def test_grid_stride_while_counts_and_breaks(device, rng, stop, offset):
    import simt

    n, blocks, block = 3000, 3, 64
    x = rng.random(n)
    stop = n if stop is None else stop
    out = simt.full(n, np.nan, device=device)
    last = simt.full(blocks * block, -7, dtype=np.int64, device=device)
    while_with_break[blocks, block](simt.to_device(x, device=device), out, last, stop, offset)
    want_out, want_last = np.full(n, np.nan), np.empty(blocks * block, np.int64)
    for g in range(blocks * block):
        i = g - offset
        while i < stop:
            if i >= n or (i >= 0 and x[i] > 0.9):
                break
            if i >= 0:
                want_out[i] = 2 * x[i]
            i += blocks * block
        want_last[g] = i
    np.testing.assert_array_equal(out.get(), want_out)
    np.testing.assert_array_equal(last.get(), want_last)
