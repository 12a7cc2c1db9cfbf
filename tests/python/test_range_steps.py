"""`for i in range(start, stop, step)` with the step a run-time value, on every device,
against Python's own range.

Such loops are emitted as C's plain `for (i = start; i < stop; i += step)` (and `i >
stop` for a negative step) where a run-time test shows them exact, the counted form
elsewhere (codegen/emit_range_versions.cpp): every case here is chosen on one side or
the other of those tests (steps of both signs and zero, spans the step does not
divide, empty ranges, bounds at the ends of int32 and int64, negative starts, loop
variables used as indices that may be negative), with break, continue and nested
loops inside. Outputs are poisoned before each launch.
"""

import numpy as np
import pytest

import simt
from simt import cuda

I64_MAX, I64_MIN = 2**63 - 1, -(2**63)
I32_MAX, I32_MIN = 2**31 - 1, -(2**31)
CAP = 8  # values kept per case; a longer range is left with break

CASES_ANY = [
    (0, 10, 3), (10, 0, -3), (-5, 7, 4), (7, -5, -1), (5, 5, 1), (5, 5, -1), (0, 5, -1),
    (5, 0, 2), (0, 7, 7), (0, 7, 8), (3, -4, -7), (3, -4, -8), (-10, -3, 2), (-3, -10, -2),
    (5, 0, 0), (0, 5, 0), (0, 0, 0),
]


def limit_cases(lo, hi):
    """Bounds at the ends of a type: each on both sides of the no-overflow test."""
    return [
        (hi - 9, hi - 3, 3),   # stop == MAX - step: the plain loop, its last step to MAX - 3
        (hi - 9, hi - 2, 3),   # one past: a step to MAX would overflow, the counted loop
        (hi - 5, hi, 3), (hi - 1, hi, 1), (hi - 2, hi, 5),
        (lo + 9, lo + 3, -3), (lo + 9, lo + 2, -3), (lo + 5, lo, -3), (lo + 1, lo, -1),
        (0, hi, 2**(hi.bit_length() - 1)), (lo, hi, hi), (5, lo, lo), (hi, lo, lo),
        (lo, hi, -1), (hi, lo, 1), (hi, hi, hi), (lo, lo + 1, hi),
    ]


@cuda.jit
def k_walk(cases, out, count, last):
    t = cuda.grid(1)
    if t < cases.shape[0]:
        start = cases[t, 0]
        stop = cases[t, 1]
        step = cases[t, 2]
        c = 0
        j = start - start + 77  # the range's type; Python keeps it where the loop runs none
        for j in range(start, stop, step):
            out[t, c] = j
            c += 1
            if c == out.shape[1]:
                break
        count[t] = c
        last[t] = j


def walk_reference(start, stop, step):
    if step == 0:
        return [], 77  # Python raises; a kernel runs no iteration
    values, j = [], 77
    for j in range(start, stop, step):
        values.append(j)
        if len(values) == CAP:
            break
    return values, j


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8])
def test_range_steps_visit_pythons_values(device, dtype):
    info = np.iinfo(dtype)  # narrow types: the loop counts in their own C type
    cases = CASES_ANY + limit_cases(int(info.min), int(info.max))
    table = np.array(cases, dtype)
    n = len(cases)
    poison = max(-12345, int(info.min))
    with simt.use_device(device):
        out = simt.full((n, CAP), poison, dtype=dtype)
        count = simt.full(n, -1, dtype=np.int64)
        last = simt.full(n, poison, dtype=dtype)
        k_walk[(n + 31) // 32, 32](simt.asarray(table, device=device), out, count, last)
        out, count, last = out.get(), count.get(), last.get()
    for t, case in enumerate(cases):
        values, j = walk_reference(*case)
        got = out[t, :count[t]].tolist() if count[t] >= 0 else None
        assert (got, int(last[t])) == (values, j), f"range{case} on {device}"
        assert (out[t, count[t]:] == poison).all(), f"range{case} wrote past its values"


@cuda.jit
def k_index(x, out, start, stop, step, skip, limit):
    if cuda.grid(1) == 0:
        n = 0
        for i in range(start, stop, step):
            if i == skip:
                continue
            out[i] += x[i] * (n + 1)  # a negative i wraps, as in Python
            n += 1
            if n == limit:
                break
        out[out.size - 1] += 1000 * n


def index_reference(x, start, stop, step, skip, limit):
    out = np.zeros_like(x)
    n = 0
    if step != 0:
        for i in range(start, stop, step):
            if i == skip:
                continue
            out[i] += x[i] * (n + 1)
            n += 1
            if n == limit:
                break
    out[out.size - 1] += 1000 * n
    return out


N = 40
INDEX_CASES = [
    (0, N, 3, 6, 100), (N - 1, -1, -1, 20, 100), (N - 1, -1, -3, -99, 100),  # i >= 0 throughout
    (-N, N, 7, 0, 100), (-1, -N - 1, -2, -5, 100), (N - 1, -N - 1, -5, -1, 100),  # negative i
    (5, 30, 4, 9, 3), (30, 5, -4, 26, 3),  # left by break
    (7, 7, 2, 0, 100), (7, 3, 2, 0, 100), (3, 7, -2, 0, 100), (3, 9, 0, 0, 100),  # none
]


@pytest.mark.parametrize("case", INDEX_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_range_steps_index_arrays_as_python(device, rng, case, dtype):
    x = rng.random(N)
    want = index_reference(x, *case)
    with simt.use_device(device):
        out = simt.zeros(N)
        k_index[1, 32](simt.asarray(x, device=device), out, *(dtype(v) for v in case))
        np.testing.assert_array_equal(out.get(), want)


@cuda.jit
def k_nested(x, out, rows, cols):
    # Both loops' steps are run-time values: the inner one is emitted as plain loops,
    # the outer one counted (codegen copies one loop of a nest).
    if cuda.grid(1) == 0:
        for r in range(rows[0], rows[1], rows[2]):
            if r == rows[3]:
                continue
            for c in range(cols[0], cols[1], cols[2]):
                if c == cols[3]:
                    break
                out[r, c] += x[r, c] + r * 100 + c


def nested_reference(x, rows, cols):
    out = np.zeros_like(x)
    for r in range(*rows[:3]):
        if r == rows[3]:
            continue
        for c in range(*cols[:3]):
            if c == cols[3]:
                break
            out[r, c] += x[r, c] + r * 100 + c
    return out


@pytest.mark.parametrize("rows, cols", [
    ((0, 9, 2, 4), (1, 12, 3, 99)), ((8, -1, -3, 5), (11, -1, -2, 3)),
    ((-9, 9, 4, -1), (-12, 12, 5, 8)), ((0, 9, 1, -1), (11, -13, -4, -9)),
    ((3, 3, 1, 0), (0, 12, 1, 0)),
])
def test_nested_range_steps(device, rng, rows, cols):
    x = rng.random((9, 12))
    with simt.use_device(device):
        out = simt.zeros(x.shape)
        k_nested[1, 32](simt.asarray(x, device=device), out, simt.asarray(np.array(rows, np.int64), device=device),
                        simt.asarray(np.array(cols, np.int64), device=device))
        np.testing.assert_array_equal(out.get(), nested_reference(x, rows, cols))


@cuda.jit
def k_from_thread(out, step):
    # Every value of both loops is >= 0 (sema knows it from their bounds: start and stop
    # >= 0, or a stop of -1), so they index without wraparound whatever the step's sign.
    t = cuda.grid(1)
    if t < out.shape[0]:
        for j in range(t, out.shape[0], step):
            out[t, j] += 1
        for j in range(t, -1, -1):
            out[t, j] += 10


@pytest.mark.parametrize("step", [1, 3, -1, -4, 0])
def test_range_steps_from_the_thread_index(device, step):
    n = 9
    want = np.zeros((n, n), np.int64)
    for t in range(n):
        if step != 0:
            for j in range(t, n, step):
                want[t, j] += 1
        for j in range(t, -1, -1):
            want[t, j] += 10
    with simt.use_device(device):
        out = simt.zeros((n, n), dtype=np.int64)
        k_from_thread[2, 8](out, step)
        np.testing.assert_array_equal(out.get(), want)
