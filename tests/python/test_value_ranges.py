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


# Ranges read while a local's type was still narrower (a uint8 before a loop widens it to
# int64) must not survive the widening, along a chain of copies; and an operand converted
# to a narrower type (a Python int beside an int32) wraps there, so its range says nothing.

@cuda.jit
def k_widened_chain(out, a8, b, n):
    x = a8[0]
    for t in range(n):
        y1 = x
        y1 -= 0
        y2 = y1
        y2 -= 0
        y3 = y2
        y3 -= 0
        y4 = y3
        y4 -= 0
        y5 = y4
        y5 -= 0
        x = b
    out[0] = y5 // 2
    out[1] = y5 % 4
    out[2] = out[y5]  # a negative index wraps around, as Python's


@cuda.jit
def k_widened_chain_wraps(out, a8, b, n):
    x = a8[0]
    for t in range(n):
        y1 = x - 0
        y2 = y1 - 0
        y3 = y2 - 0
        y4 = y3 - 0
        y5 = y4 - 0
        y6 = y5 - 0
        y7 = y6 - 0
        y8 = y7 - 0
        x = b
    out[0] = y8 + 1 > y8  # False: y8 + 1 wraps for y8 = INT64_MAX
    out[1] = y8 * 2 // 2


@cuda.jit
def k_converted_operand(out, a32):
    big = 2147483653  # a Python int: converted to int32 beside one (NumPy's weak rule)
    x = min(max(a32[0], 0), 10)
    m = min(x, big)
    out[0] = m
    out[1] = m // 2
    out[2] = m % 7
    c = x if a32[0] > 100 else big
    out[3] = c // 2


def test_ranges_follow_types_and_conversions(device):
    out = simt.to_device(np.arange(6, dtype=np.int64), device=device)
    k_widened_chain[1, 1](out, simt.to_device(np.array([7], np.uint8), device=device), -3, 2)
    np.testing.assert_array_equal(out.get()[:3], [-3 // 2, -3 % 4, 3])
    out = simt.full(2, -7, dtype=np.int64, device=device)
    k_widened_chain_wraps[1, 1](out, simt.to_device(np.array([7], np.int8), device=device),
                                I64_MAX, 2)
    np.testing.assert_array_equal(out.get(), [0, -1])
    out = simt.full(4, -7, dtype=np.int64, device=device)
    k_converted_operand[1, 1](out, simt.to_device(np.array([4], np.int32), device=device))
    m = int(np.array(2147483653).astype(np.int32))  # -2147483643
    np.testing.assert_array_equal(out.get(), [m, m // 2, m % 7, m // 2])
