"""Integer arithmetic whose operands' value ranges show it cannot wrap is emitted as C's
signed operators (sema/infer_ranges.cpp); the rest keeps NumPy's wraparound. Both must
give NumPy's values on every device: launch indices, array extents, small loop
variables and clamps near the ends of int64, with outputs poisoned."""

import numpy as np
import pytest

import simt
from simt import cuda

I64_MAX = np.iinfo(np.int64).max


@cuda.jit
def k_index_arithmetic(out, big):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x  # ranges: exact
    n = out.shape[0]
    if i < n:
        acc = 0
        for d in range(-2, 3):
            acc += min(max(i + d, 0), n - 1) * (d + 3)
        out[i, 0] = acc
        out[i, 1] = (i - 1) * 3 - i * i + (n - 1)
        out[i, 2] = i + big  # big near INT64_MAX: wraps, as NumPy's int64 does
        out[i, 3] = big * (i + 1)  # wraps
        out[i, 4] = -i - big  # wraps below INT64_MIN for big = INT64_MAX and i >= 2
        j = i
        j += big  # an augmented sum that wraps
        out[i, 5] = j


def reference(n, big):
    i = np.arange(n, dtype=np.int64)
    with np.errstate(over="ignore"):
        acc = sum(np.clip(i + d, 0, n - 1) * (d + 3) for d in range(-2, 3))
        big = np.int64(big)
        return np.stack([acc, (i - 1) * 3 - i * i + (n - 1), i + big, big * (i + 1), -i - big,
                         i + big], axis=1)


@pytest.mark.parametrize("big", [I64_MAX, I64_MAX - 3, 5, -I64_MAX])
def test_value_ranges_keep_numpys_integers(device, big):
    n = 70
    with simt.use_device(device):
        out = simt.full((n, 6), -12345, dtype=np.int64)
        k_index_arithmetic[3, 32](out, big)
        np.testing.assert_array_equal(out.get(), reference(n, big))


@cuda.jit
def k_reverse(out, stop):
    # k >= 0 in the first loop (its range: stop + 1 = 0 up), so out[k] needs no
    # wraparound; the second's `stop` may be below -1, and out[-1] is the last element.
    if cuda.grid(1) == 0:
        n = out.shape[0]
        for k in range(n - 1, -1, -1):
            out[k] += k + 1
        for j in range(n - 1, stop, -2):
            out[j] += 100


@pytest.mark.parametrize("stop", [-1, -4, -7, 2])
def test_reverse_loops_index_as_python(device, stop):
    n = 6
    want = np.zeros(n, np.int64)
    for j in range(n - 1, -1, -1):
        want[j] += j + 1
    for j in range(n - 1, stop, -2):
        want[j] += 100
    with simt.use_device(device):
        out = simt.zeros(n, dtype=np.int64)
        k_reverse[1, 32](out, stop)
        np.testing.assert_array_equal(out.get(), want)
