"""Semantics of compiled kernels on every available device, compared with NumPy.

Each kernel here runs on every device (the `on_device` fixture) on
fresh random inputs (plus the edge cases: zero divisors, INT_MIN // -1, shift
counts out of range, NaN and infinities), with outputs poisoned before the
launch, and compared with what NumPy computes for the same inputs.
"""

import math

import numpy as np
import pytest

import simt
from simt import cuda

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
POISON = 0xA5  # every byte of an output before the launch


# ---------------------------------------------------------------------------------- helpers

def poisoned(shape, dtype, order="C"):
    """A new array whose bytes are all POISON."""
    out = np.empty(shape, dtype, order=order)
    out.reshape(-1, order="A").view(np.uint8)[...] = POISON
    return out


@pytest.fixture(autouse=True)
def on_device(device):
    """Every test here runs once per available device, launching there."""
    with simt.use_device(device):
        yield device


def run(kernel, grid, block, *args):
    """kernel[grid, block](*args) on the current device; NumPy array arguments are
    copied there and back where the device cannot use host memory."""
    if simt.current_device().host_accessible:
        kernel[grid, block](*args)
        return
    arrays = [isinstance(a, np.ndarray) and a.ndim > 0 for a in args]
    device_args = [simt.to_device(a) if is_array else a for a, is_array in zip(args, arrays)]
    kernel[grid, block](*device_args)
    for host, on_device, is_array in zip(args, device_args, arrays):
        if is_array:
            np.copyto(host, on_device.get())


def launch(kernel, n, *args, block=32):
    """Runs `kernel` with at least `n` threads (1-D grid; the last block is partial)."""
    run(kernel, -(-n // block), block, *args)


def assert_same(actual, expected, rtol=0.0, atol=0.0):
    """Equal dtypes and values; exact (including the sign of zero) unless a tolerance is given."""
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if expected.dtype == np.bool_:  # compare the bytes: a kernel must write exactly 0 or 1
        np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))
    elif rtol or atol:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)
        if expected.dtype.kind in "fc":  # NaN == NaN here; the sign of zero must match
            parts = ([(actual, expected)] if expected.dtype.kind == "f" else
                     [(actual.real, expected.real), (actual.imag, expected.imag)])
            for a, e in parts:
                same = np.isnan(e) | (np.signbit(a) == np.signbit(e))
                assert same.all(), f"sign of zero differs at {np.flatnonzero(~same)[:10]}"


def check(kernel, inputs, expected, rtol=0.0, atol=0.0, tolerances=None):
    """Runs kernel(*inputs, *outputs) with poisoned outputs shaped like `expected` (a list, or
    a dict {name: array}), over their first axis; compares each output with its expected
    value, exactly unless rtol/atol (or tolerances={name: rtol}) say otherwise."""
    named = expected if isinstance(expected, dict) else dict(enumerate(expected))
    outputs = [poisoned(e.shape, e.dtype) for e in named.values()]
    launch(kernel, len(outputs[0]), *inputs, *outputs)
    for actual, (name, e) in zip(outputs, named.items()):
        r = (tolerances or {}).get(name, rtol)
        try:
            assert_same(actual, e, r, atol if r == rtol else r)
        except AssertionError as error:
            raise AssertionError(f"output {name!r} of {kernel.__name__}: {error}") from None


def int_pair(rng, dtype, n=200):
    """(a, b): every pair of edge values, then random full-range and small values."""
    info = np.iinfo(dtype)
    edges = sorted({v for v in (0, 1, -1, 2, -2, 3, -3, 7, -7, info.min, info.min + 1,
                                info.max, info.max - 1, info.max // 2) if info.min <= v <= info.max})
    ea, eb = (x.ravel() for x in np.meshgrid(np.array(edges, dtype), np.array(edges, dtype)))
    full = rng.integers(info.min, info.max, size=(2, n), dtype=dtype, endpoint=True)
    small = rng.integers(max(info.min, -20), 21, size=(2, n)).astype(dtype)
    return (np.concatenate([ea, full[0], small[0], full[0]]),
            np.concatenate([eb, full[1], small[1], small[1]]))


def float_pair(rng, dtype, n=200):
    """(a, b): every pair of edge values (zeros, infinities, NaN), then random values."""
    edges = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 5.5, -5.5, 3.0, -3.0,
                      np.inf, -np.inf, np.nan], dtype)
    ea, eb = (x.ravel() for x in np.meshgrid(edges, edges))
    rand = (rng.standard_normal((2, n)) * 10.0 ** rng.integers(-3, 4, (2, n))).astype(dtype)
    return np.concatenate([ea, rand[0]]), np.concatenate([eb, rand[1]])


def ignore_errors():
    return np.errstate(all="ignore")


# ------------------------------------------------------------------------ integer operators
# One kernel computes many operators (each C++ compile costs a fraction of a second).

@simt.kernel
def k_int_ops(a, b, add, sub, mul, truediv, floordiv, mod, and_, or_, xor, neg, inv, absolute,
              pos, eq, ne, lt, le, gt, ge):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        truediv[i] = a[i] / b[i]
        floordiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
        and_[i] = a[i] & b[i]
        or_[i] = a[i] | b[i]
        xor[i] = a[i] ^ b[i]
        neg[i] = -a[i]
        inv[i] = ~a[i]
        absolute[i] = abs(a[i])
        pos[i] = +a[i]
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        lt[i] = a[i] < b[i]
        le[i] = a[i] <= b[i]
        gt[i] = a[i] > b[i]
        ge[i] = a[i] >= b[i]


@pytest.mark.parametrize("dtype", INTS)
def test_int_operators(rng, dtype):
    """Wrapping + - * and unary -, abs (abs(INT_MIN) wraps); / is float64; // and % floor,
    with x // 0 == x % 0 == 0 and INT_MIN // -1 == INT_MIN as NumPy's; bitwise; comparisons."""
    a, b = int_pair(rng, dtype)
    with ignore_errors():
        expected = {"+": a + b, "-": a - b, "*": a * b, "/": np.true_divide(a, b),
                    "//": np.floor_divide(a, b), "%": np.remainder(a, b), "&": a & b,
                    "|": a | b, "^": a ^ b, "neg": np.negative(a), "~": np.invert(a),
                    "abs": np.absolute(a), "pos": a.copy(), "==": a == b, "!=": a != b,
                    "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
    assert expected["/"].dtype == np.float64
    check(k_int_ops, (a, b), expected)


@simt.kernel
def k_shift_pow(a, s, p, lshift, rshift, power):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lshift[i] = a[i] << s[i]
        rshift[i] = a[i] >> s[i]
        power[i] = a[i] ** p[i]


@pytest.mark.parametrize("dtype", INTS)
def test_int_shifts_out_of_range_counts_and_pow_wraps(rng, dtype):
    """Shift counts negative or >= the width give NumPy's np.left_shift / np.right_shift."""
    a, _ = int_pair(rng, dtype)
    bits = np.dtype(dtype).itemsize * 8
    low = -3 if np.dtype(dtype).kind == "i" else 0
    s = rng.integers(low, bits + 4, size=a.shape).astype(dtype)
    s[:6] = [0, 1, bits - 1, bits, bits + 1, 3 if low == 0 else -1]
    p = rng.integers(0, 70, size=a.shape).astype(dtype)
    p[:8] = [0, 1, 2, 3, 0, 1, 63, 64]
    a[:4] = 0  # 0 ** 0 == 1 among them
    check(k_shift_pow, (a, s, p), {"<<": np.left_shift(a, s), ">>": np.right_shift(a, s),
                                   "**": np.power(a, p)})


@simt.kernel
def k_bitwise(a, b, and_, or_, xor):
    i = cuda.grid(1)
    if i < a.shape[0]:
        and_[i] = a[i] & b[i]
        or_[i] = a[i] | b[i]
        xor[i] = a[i] ^ b[i]


def test_bool_bitwise(rng):
    a, b = rng.integers(0, 2, (2, 100)).astype(bool)
    check(k_bitwise, (a, b), [a & b, a | b, a ^ b])


@simt.kernel
def k_arith(a, b, add, sub, mul):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]


@simt.kernel
def k_plus_one(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] + 1


def test_int32_max_plus_one_wraps():
    a = np.array([2**31 - 1, -1, 0, -(2**31)], np.int32)
    check(k_plus_one, (a,), [np.array([-(2**31), 0, 1, -(2**31) + 1], np.int32)])


@simt.kernel
def k_chained(lo, a, hi, out1, out2):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = lo[i] < a[i] <= hi[i]
        out2[i] = lo[i] != a[i] == hi[i] > 0


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float32])
def test_chained_comparisons(rng, dtype):
    lo, a, hi = rng.integers(0, 6, (3, 300)).astype(dtype)
    check(k_chained, (lo, a, hi), [(lo < a) & (a <= hi), (lo != a) & (a == hi) & (hi > 0)])


# --------------------------------------------------------------------------- float operators

@simt.kernel
def k_float_ops(a, b, add, sub, mul, truediv, floordiv, mod, power, neg, absolute,
                eq, ne, lt, le, gt, ge):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        truediv[i] = a[i] / b[i]
        floordiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
        power[i] = a[i] ** b[i]
        neg[i] = -a[i]
        absolute[i] = abs(a[i])
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        lt[i] = a[i] < b[i]
        le[i] = a[i] <= b[i]
        gt[i] = a[i] > b[i]
        ge[i] = a[i] >= b[i]


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_operators(rng, dtype):
    """Each operation rounds to the dtype as NumPy's do (float16 too: exact equality, sign of
    zero included); // and % with negative operands, zero divisors, infinities and NaN are
    np.floor_divide / np.remainder; ** is compared with a tolerance."""
    a, b = float_pair(rng, dtype)
    b[-100:] = np.round(b[-100:])  # integral exponents too
    with ignore_errors():
        expected = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "//": np.floor_divide(a, b),
                    "%": np.remainder(a, b), "**": np.power(a, b), "neg": -a, "abs": np.abs(a),
                    "==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}
    rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-14}[dtype]
    check(k_float_ops, (a, b), expected, tolerances={"**": rtol})


# ------------------------------------------------------------------------- complex operators

@simt.kernel
def k_complex(a, b, add, sub, mul, div, absolute, eq):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        absolute[i] = abs(a[i])
        eq[i] = a[i] == b[i]


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_operators(rng, dtype):
    n = 300
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b[:20] = a[:20]  # some equal pairs
    b[20:30] = a[20:30].real  # equal real parts only
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    outputs = [poisoned(n, dtype) for _ in range(4)] + [
        poisoned(n, np.finfo(dtype).dtype), poisoned(n, np.bool_)]
    launch(k_complex, n, a, b, *outputs)
    for actual, e in zip(outputs, [a + b, a - b, a * b, a / b, np.abs(a)]):
        assert_same(actual, e, rtol=rtol)
    assert_same(outputs[-1], a == b)


# ------------------------------------------------------------------------- mixed promotion

@pytest.mark.parametrize("ta, tb", [
    (np.int8, np.int16), (np.uint8, np.int8), (np.uint16, np.int32), (np.int32, np.uint32),
    (np.int64, np.uint64), (np.uint8, np.float16), (np.int16, np.float16),
    (np.int32, np.float32), (np.float16, np.float32), (np.float32, np.float64),
    (np.int64, np.float32), (np.bool_, np.int8), (np.bool_, np.float32)])
def test_mixed_array_promotion(rng, ta, tb):
    """int8 array + int16 array is an int16 result (NumPy's promotion), stored without loss."""
    def values(t):
        if t == np.bool_:
            return rng.integers(0, 2, 200).astype(bool)
        if np.dtype(t).kind in "iu":
            return int_pair(rng, t, 100)[0][:200]
        return float_pair(rng, t, 100)[0][-200:]
    a, b = values(ta), values(tb)
    with ignore_errors():
        add, mul = np.add(a, b), np.multiply(a, b)
        sub = np.subtract(a.astype(add.dtype), b.astype(add.dtype))  # bool - bool is no ufunc
    assert add.dtype == np.result_type(ta, tb)
    check(k_arith, (a, b), [add, sub, mul])


@simt.kernel
def k_weak_literals(a, out1, out2, out3):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = a[i] * 2.5 + 0.1
        out2[i] = a[i] * 3 - 1
        out3[i] = (a[i] + 1) / 3


def test_float32_array_times_float_literal_stays_float32(rng):
    a = rng.standard_normal(300).astype(np.float32)
    # Outputs are float64: the values stored must still be float32-rounded.
    expected32 = a * 2.5 + 0.1
    assert expected32.dtype == np.float32
    assert k_weak_literals.inspect_types(a, a, a, a)["a"] == "float32[::1]"
    check(k_weak_literals, (a,), [expected32.astype(np.float64),
                                   (a * 3 - 1).astype(np.float64),
                                   ((a + 1) / 3).astype(np.float64)])
    assert not np.array_equal(expected32.astype(np.float64), a.astype(np.float64) * 2.5 + 0.1)


@simt.kernel
def k_literal_past_float32(a, out1, out2):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = a[i] * 1e39
        out2[i] = a[i] - 1e300


def test_float_literal_past_float32s_range_is_infinity_as_in_numpy(rng):
    # NEP 50: the weak literal becomes float32, so it is inf (the fuzzer found `inf.0f` in the
    # generated C here).
    a = np.concatenate([rng.standard_normal(100), [0.0]]).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = [a * 1e39, a - 1e300]
    assert expected[0].dtype == np.float32
    check(k_literal_past_float32, (a,), expected)


@simt.kernel
def k_weak_types(a, out):
    i = cuda.grid(1)
    x = a[0] * 2.5
    y = a[0] + 1
    z = a[0] * 1j
    w = a[0] / 2


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32,
                                   np.complex64])
def test_weak_literal_types_follow_nep50(dtype):
    a = np.zeros(1, dtype)
    types = k_weak_types.inspect_types(a, a)
    assert types["x"] == (a * 2.5).dtype.name
    assert types["y"] == (a + 1).dtype.name
    assert types["z"] == (a * 1j).dtype.name
    assert types["w"] == (a / 2).dtype.name


@simt.kernel
def k_int8_shift_literal(a, out1, out2):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = a[i] << 3
        out2[i] = a[i] >> 1


def test_shift_by_literal_keeps_dtype(rng):
    a = int_pair(rng, np.int8)[0]
    check(k_int8_shift_literal, (a,), [a << 3, a >> 1])


@simt.kernel
def k_f64_to_f16(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = np.float16(x[i])


def test_float64_to_float16_rounds_once(rng):
    """float64 -> float16 rounds once, as NumPy does: through float32 it would round twice
    (1 + 2**-11 + 2**-30 would become 1.0 instead of 1 + 2**-10)."""
    tricky = np.array([1 + 2.0**-11 + 2.0**-30, -(1 + 2.0**-11 + 2.0**-30), 1 + 2.0**-11,
                       65519.99, 65520.0, 2.0**-25 + 2.0**-40, 2.0**-25, np.inf, -0.0, 1e300])
    x = np.concatenate([tricky, rng.standard_normal(500) * 100,
                        1 + (rng.integers(0, 2**20, 200) * 2.0**-31)])
    with np.errstate(over="ignore"):  # 1e300 becomes inf, as intended
        expected = x.astype(np.float16)
    check(k_f64_to_f16, (x,), [expected])


# --------------------------------------------------------------------------- math functions


@simt.kernel
def k_frexp_modf(a, mant, expo, frac, whole):
    i = cuda.grid(1)
    if i < a.shape[0]:
        m, e = math.frexp(a[i])
        mant[i] = m
        expo[i] = e
        f, w = math.modf(a[i])
        frac[i] = f
        whole[i] = w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frexp_and_modf_return_tuples_as_python_does(rng, dtype):
    """math.frexp -> (mantissa, int exponent) and math.modf -> (fraction, integer part), as
    Python's, also for zeros, infinities, NaN and subnormals."""
    tiny = np.finfo(dtype).smallest_subnormal
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -3 * tiny, 1.0, -2.5],
                       dtype=dtype)
    a = np.concatenate([special, (rng.standard_normal(200) * 1e4).astype(dtype)])
    frexp = [math.frexp(float(x)) for x in a]
    modf = [math.modf(float(x)) for x in a]
    check(k_frexp_modf, (a,),
          [np.array([m for m, _ in frexp], dtype), np.array([e for _, e in frexp], np.int64),
           np.array([f for f, _ in modf], dtype), np.array([w for _, w in modf], dtype)])


@simt.kernel
def k_ldexp_remainder(a, b, n, ld, rem):
    i = cuda.grid(1)
    if i < a.shape[0]:
        ld[i] = math.ldexp(a[i], n[i])
        rem[i] = math.remainder(a[i], b[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp_and_remainder_are_exact(rng, dtype):
    """math.ldexp and math.remainder (IEEE remainder, ties to even) are exact operations."""
    a = (rng.standard_normal(300) * 50).astype(dtype)
    b = (rng.random(300) * 7 + 0.25).astype(dtype)
    n = rng.integers(-20, 20, 300).astype(np.int32)
    expected_rem = np.array([math.remainder(float(x), float(y)) for x, y in zip(a, b)], dtype)
    check(k_ldexp_remainder, (a, b, n), [np.ldexp(a, n).astype(dtype), expected_rem])

@simt.kernel
def k_math(a, b, s, c, e, lg, sq, at, hy):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s[i] = math.sin(a[i])
        c[i] = math.cos(a[i])
        e[i] = math.exp(a[i])
        lg[i] = math.log(b[i])
        sq[i] = math.sqrt(b[i])
        at[i] = math.atan2(a[i], b[i])
        hy[i] = math.hypot(a[i], b[i])


@simt.kernel
def k_np_math(a, b, s, c, e, lg, sq, at, hy):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s[i] = np.sin(a[i])
        c[i] = np.cos(a[i])
        e[i] = np.exp(a[i])
        lg[i] = np.log(b[i])
        sq[i] = np.sqrt(b[i])
        at[i] = np.arctan2(a[i], b[i])
        hy[i] = np.hypot(a[i], b[i])


def _math_inputs(rng, dtype):
    a = (rng.standard_normal(300) * 5).astype(dtype)
    b = (rng.random(300) * 100 + 1e-3).astype(dtype)
    return a, b


def _math_expected(a, b):
    return [np.sin(a), np.cos(a), np.exp(a), np.log(b), np.sqrt(b), np.arctan2(a, b),
            np.hypot(a, b)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_module_functions(rng, dtype):
    """math.* of a float32 follows the argument's precision; compared with tolerances."""
    a, b = _math_inputs(rng, dtype)
    check(k_math, (a, b), _math_expected(a, b), rtol=2e-6 if dtype == np.float32 else 1e-13,
          atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_numpy_math_functions(rng, dtype):
    a, b = _math_inputs(rng, dtype)
    rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[dtype]
    with ignore_errors():
        expected = _math_expected(a, b)
    check(k_np_math, (a, b), expected, rtol=rtol, atol=rtol)


@simt.kernel
def k_floor_ceil_round(a, fl, ce, ro, flags):
    i = cuda.grid(1)
    if i < a.shape[0]:
        fl[i] = math.floor(a[i])
        ce[i] = math.ceil(a[i])
        ro[i] = round(a[i])
        flags[i, 0] = math.isnan(a[i])
        flags[i, 1] = math.isinf(a[i])
        flags[i, 2] = np.isnan(a[i]) or np.isinf(a[i])


def test_floor_ceil_round_return_ints_round_half_to_even(rng):
    a = np.concatenate([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51, 0.0, -0.0],
                        rng.standard_normal(200) * 100, np.round(rng.standard_normal(50) * 9) + .5])
    types = k_floor_ceil_round.inspect_types(a, a, a, a, np.zeros((1, 3), bool))
    assert types["a"] == "float64[::1]"
    fl, ce, ro = (poisoned(a.shape, np.int64) for _ in range(3))
    flags = poisoned((a.shape[0], 3), np.bool_)
    launch(k_floor_ceil_round, a.shape[0], a, fl, ce, ro, flags)
    assert_same(fl, np.floor(a).astype(np.int64))
    assert_same(ce, np.ceil(a).astype(np.int64))
    assert_same(ro, np.rint(a).astype(np.int64))
    assert_same(flags, np.zeros_like(flags, dtype=bool))
    special = np.array([np.nan, np.inf, -np.inf, 1.0])
    flags = poisoned((4, 3), np.bool_)
    # NaN and infinities: only the flags are compared (int(nan) has no value)
    launch(k_floor_ceil_round, 4, special, *(poisoned(4, np.int64) for _ in range(3)), flags)
    assert_same(flags, np.array([[1, 0, 1], [0, 1, 1], [0, 1, 1], [0, 0, 0]], bool))


@simt.kernel
def k_floor_types(a, out):
    x = math.floor(a[0])
    y = round(a[0])
    z = math.sqrt(a[0])
    w = math.floor(1.5)


def test_floor_and_round_types():
    types = k_floor_types.inspect_types("float32[:]", "float32[:]")
    assert types["x"] == "int64"
    assert types["y"] == "int64"
    assert types["w"] == "int64"


@simt.kernel
def k_min_max(a, b, c, lo, hi, lo3):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])
        lo3[i] = min(a[i], b[i], c[i])


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.int64, np.float32, np.float64])
def test_min_max(rng, dtype):
    if np.dtype(dtype).kind == "f":
        a, b, c = rng.standard_normal((3, 200)).astype(dtype)
    else:
        a, b = int_pair(rng, dtype, 50)
        c = rng.permutation(a)
    check(k_min_max, (a, b, c), [np.minimum(a, b), np.maximum(a, b), np.minimum(np.minimum(a, b), c)])


# ---------------------------------------------------------------------------------- casts

@simt.kernel
def k_casts(f, n, to_int, to_float, to_i32_from_float, to_i32_from_int, to_f32, to_bool):
    i = cuda.grid(1)
    if i < f.shape[0]:
        to_int[i] = int(f[i])
        to_float[i] = float(n[i])
        to_i32_from_float[i] = np.int32(f[i])
        to_i32_from_int[i] = np.int32(n[i])
        to_f32[i] = np.float32(f[i])
        to_bool[i] = bool(n[i])


def test_casts(rng):
    f = np.concatenate([[0.5, -0.5, 1.99, -1.99, -0.0, 2.0**31 - 1.5, -(2.0**31) + 0.5],
                        rng.standard_normal(200) * 1e6])
    n = rng.integers(-(2**63), 2**63, f.shape[0], dtype=np.int64)
    n[:6] = [0, 1, -1, 2**31, -(2**31) - 1, 2**32 + 5]
    check(k_casts, (f, n), [np.trunc(f).astype(np.int64), n.astype(np.float64),
                            np.trunc(f).astype(np.int32), n.astype(np.int32),
                            f.astype(np.float32), n != 0])


@simt.kernel
def k_cast_types(f, n):
    a = int(f[0])
    b = float(n[0])
    c = np.int32(f[0])
    d = np.float32(n[0])
    e = bool(f[0])


def test_cast_types():
    types = k_cast_types.inspect_types("float32[:]", "uint8[:]")
    assert (types["a"], types["b"], types["c"], types["d"], types["e"]) == (
        "int64", "float64", "int32", "float32", "bool")


# ------------------------------------------------------------------------ arrays and layouts

@simt.kernel
def k_copy1d(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * 2 + 1


@pytest.mark.parametrize("view", ["contiguous", "step2", "reversed", "column"])
def test_1d_views(rng, view):
    base = rng.integers(-1000, 1000, (40, 7)).astype(np.int32)
    a = {"contiguous": base[3], "step2": base.ravel()[1::2], "reversed": base.ravel()[::-3],
         "column": base[:, 2]}[view]
    out = poisoned(a.shape, np.int32)
    launch(k_copy1d, a.shape[0], a, out)
    assert_same(out, a * 2 + 1)
    out_strided = poisoned((a.shape[0], 3), np.int32)[:, 1]
    launch(k_copy1d, a.shape[0], a, out_strided)
    assert_same(out_strided, a * 2 + 1)


@simt.kernel
def k_2d(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * 2.0 - b[i, j] + i * 100 + j


def _layout(base, layout):
    """A (13, 7) view of `base` in the given layout."""
    if layout == "C":
        return np.ascontiguousarray(base[:13, :7])
    if layout == "F":
        return np.asfortranarray(base[:13, :7])
    if layout == "strided":
        return base[:26:2, 1:15:2]
    if layout == "reversed":  # negative strides
        return base[25::-2, 13::-2]
    if layout == "T":
        return np.ascontiguousarray(base[:7, :13]).T
    raise ValueError(layout)


@pytest.mark.parametrize("layout_in, layout_out", [
    ("C", "C"), ("F", "F"), ("strided", "C"), ("T", "strided"), ("C", "F"), ("strided", "strided"),
    ("reversed", "C")])
def test_2d_layouts_and_grid_not_dividing_shape(rng, layout_in, layout_out):
    a = _layout(rng.standard_normal((30, 20)), layout_in)
    b = _layout(rng.standard_normal((30, 20)), "C" if layout_in == "F" else "F")
    out = _layout(poisoned((30, 20), np.float64), layout_out)
    outer = poisoned((30, 20), np.float64) if layout_out == "strided" else None
    if outer is not None:  # the untouched elements between the strided ones stay poisoned
        out = outer[:26:2, 1:15:2]
    assert out.shape == (13, 7)
    run(k_2d, (4, 2), (4, 4), a, b, out)  # 16 x 8 threads for 13 x 7 elements
    ii, jj = np.indices((13, 7))
    assert_same(out, a * 2.0 - b + ii * 100 + jj)
    if outer is not None:
        mask = np.ones(outer.shape, bool)
        mask[:26:2, 1:15:2] = False
        assert (outer.view(np.uint64)[mask] == int("A5" * 8, 16)).all()


@simt.kernel
def k_negative_index(a, m, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = a[-1]
        out[1] = a[-a.shape[0]]
        out[2] = m[-1, -2]
        out[3] = m[-2][1]
        out[-1] = a[-2]


def test_negative_indices(rng):
    a = rng.integers(0, 10**6, 9)
    m = rng.integers(0, 10**6, (4, 5))
    check(k_negative_index, (a, m), [np.array([a[-1], a[0], m[-1, -2], m[-2, 1], a[-2]])])


@simt.kernel
def k_rows_shape(m, out):
    i = cuda.grid(1)
    rows, cols = m.shape
    if i < rows:
        row = m[i]
        s = 0.0
        for j in range(cols):
            s += row[j] * (j + 1)
        out[i] = s + m[i][cols - 1] + len(m)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_row_views_and_shape(rng, layout):
    m = _layout(rng.standard_normal((30, 20)), layout)
    weights = np.arange(1, 8)
    expected = np.zeros(13)
    for j in range(7):
        expected += m[:, j] * weights[j]
    check(k_rows_shape, (m,), [expected + m[:, 6] + 13], rtol=1e-12)


# ---------------------------------------------------------------------------- control flow

@simt.kernel
def k_loops(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0
        for j in range(20):
            if j % 3 == 0:
                continue
            if j > a[i]:
                break
            s += j
        down = 0
        for j in range(a[i], -4, -3):
            down = down * 3 + j
        steps = 0
        n = a[i] + 1
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
            if steps >= 50:
                break
        empty = 0
        for j in range(5, a[i], 1):
            empty += 1
        out[i, 0] = s
        out[i, 1] = down
        out[i, 2] = steps
        out[i, 3] = empty


def _loops_reference(x):
    s = 0
    for j in range(20):
        if j % 3 == 0:
            continue
        if j > x:
            break
        s += j
    down = 0
    for j in range(x, -4, -3):
        down = down * 3 + j
    steps, n = 0, x + 1
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
        if steps >= 50:
            break
    return [s, down, steps, len(range(5, x, 1))]


def test_loops_break_continue_negative_step_while(rng):
    a = rng.integers(-5, 30, 100)
    check(k_loops, (a,), [np.array([_loops_reference(int(x)) for x in a], np.int64)])


@simt.kernel
def k_tuples(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x, y = a[i], b[i]
        x, y = y, x
        s = 0.0
        for c in (1, 2.5, -3):
            s += c * x
        pair = (x, y)
        p, q = pair
        out[i, 0] = x - y
        out[i, 1] = s
        out[i, 2] = p * 10 + q
        out[i, 3] = y if x > y else -y


def test_tuple_unpacking_swap_and_literal_tuple_loop(rng):
    a, b = rng.standard_normal((2, 100))
    s = ((0.0 + 1 * b) + 2.5 * b) + -3 * b
    expected = np.stack([b - a, s, b * 10 + a, np.where(b > a, a, -a)], axis=1)
    check(k_tuples, (a, b), [expected])


@simt.kernel
def k_bool_logic(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = a[i] > 0 and b[i] > 0
        out[i, 1] = a[i] > 0 or b[i] > 0
        out[i, 2] = not a[i] > 0
        out[i, 3] = (a[i] if b[i] > 0 else b[i]) > 0.5


def test_boolean_operators_and_conditional_expression(rng):
    a, b = rng.standard_normal((2, 200))
    expected = np.stack([(a > 0) & (b > 0), (a > 0) | (b > 0), ~(a > 0),
                         np.where(b > 0, a, b) > 0.5], axis=1)
    check(k_bool_logic, (a, b), [expected])


@simt.kernel
def k_scalar_args(a, s, f, t, h, c, flag, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i] * s + f + t[0] * t[1] + h
        if flag:
            x = x + c.real
        out[i] = x


def test_scalar_and_tuple_arguments(rng):
    a = rng.standard_normal(50)
    h = np.float16(0.25)
    out = poisoned(50, np.float64)
    launch(k_scalar_args, 50, a, 3, 0.5, (2, 1.5), h, 2 + 1j, True, out)
    assert_same(out, a * 3 + 0.5 + 3.0 + 0.25 + 2.0)
    launch(k_scalar_args, 50, a, np.int16(-2), np.float32(0.5), (2, 1.5), h, 2 + 1j, False, out)
    assert_same(out, (a * -2 + np.float32(0.5) + 3.0 + 0.25))


@simt.kernel
def k_nested_tuple(t, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        inner, last = t
        out[i] = t[1] * 1000 + t[0][2] * 100 + t[-1] * 10 + inner[0] + last + t[-2][-3]


def test_nested_tuple_items_are_read_by_item_not_by_leaf(rng):
    # t[1] is the item after the whole inner tuple, not the inner tuple's
    # second leaf.
    a, b, c = (int(v) for v in rng.integers(1, 9, 3))
    d = int(rng.integers(10, 20))  # never equal to b, the inner tuple's second leaf
    out = poisoned(40, np.int64)
    launch(k_nested_tuple, 40, ((a, b, c), d), out)
    assert_same(out, np.full(40, d * 1000 + c * 100 + d * 10 + a + d + a, np.int64))


@simt.kernel
def k_chained_assignment(a, out, out2):
    i = cuda.grid(1)
    if i < out.shape[0]:
        y = z = 1
        z = a[i] + 2j
        out[i] = y + z.real + z.imag
        acc = 0j
        for w in (3, 0.5j):  # items of other types than the loop variable's
            acc = acc + w * a[i]
        out2[i] = acc.real - acc.imag


def test_chained_assignment_and_literal_tuple_loop_convert_each_value(rng):
    a = rng.standard_normal(40)
    out, out2 = poisoned(40, np.float64), poisoned(40, np.float64)
    launch(k_chained_assignment, 40, a, out, out2)
    assert_same(out, 1 + a + 2)
    assert_same(out2, 3 * a - 0.5 * a)


# ---------------------------------------------------------------- globals and closures

SCALE = 3
OFFSET32 = np.float32(0.1)
WEIGHTS = (1, 2, 4)


@simt.kernel
def k_globals(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = a[i] * SCALE + OFFSET32
        for w in WEIGHTS:
            s += w
        out[i] = s


def test_module_constants_are_baked_in(rng):
    a = rng.standard_normal(64).astype(np.float32)
    expected = a * 3 + np.float32(0.1)
    for w in (1, 2, 4):
        expected += np.float32(w)
    assert k_globals.inspect_types(a, a)["s"] == "float32"
    check(k_globals, (a,), [expected])


def make_scaler(factor, dtype):
    scale = dtype(factor)

    @simt.kernel
    def scaled(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i] * scale + factor

    return scaled


@pytest.mark.parametrize("factor, dtype", [(3, np.int16), (0.5, np.float32), (2, np.float64)])
def test_closure_variables_are_baked_in(rng, factor, dtype):
    kernel = make_scaler(factor, dtype)
    a = rng.integers(-100, 100, 64).astype(dtype)
    check(kernel, (a,), [a * dtype(factor) + factor])


# --------------------------------------------------------------- more documented semantics

@simt.kernel
def k_int_pow_negative(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** b[i]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_int_pow_negative_exponent_is_zero_unless_base_is_one(rng, dtype):
    """Documented: int ** negative is 0 unless the base is 1 or -1 (NumPy raises instead)."""
    a = np.array([1, -1, -1, 2, -2, 0, 5, 1, -1], dtype)
    b = np.array([-1, -1, -2, -1, -3, -1, -2, -100, -101], dtype)
    check(k_int_pow_negative, (a, b), [np.array([1, -1, 1, 0, 0, 0, 0, 1, -1], dtype)])


@simt.kernel
def k_float_to_int(f, i64, i32, i8, u8, u64):
    i = cuda.grid(1)
    if i < f.shape[0]:
        i64[i] = int(f[i])
        i32[i] = np.int32(f[i])
        i8[i] = np.int8(f[i])
        u8[i] = np.uint8(f[i])
        u64[i] = np.uint64(f[i])


def test_float_to_int_saturates_and_nan_is_zero():
    """Documented: float -> int saturates, NaN becomes 0 (NumPy's result is platform-defined)."""
    f = np.array([np.nan, np.inf, -np.inf, 1e300, -1e300, 300.0, -300.0, -5.5, 200.7, 2.0**63,
                  2.0**64, -1.0, 0.99])
    expected = []
    for dtype in (np.int64, np.int32, np.int8, np.uint8, np.uint64):
        info = np.iinfo(dtype)
        clipped = [0 if math.isnan(x) else int(min(max(x, info.min), info.max)) if math.isinf(x)
                   else min(max(math.trunc(x), info.min), info.max) for x in f]
        expected.append(np.array(clipped, dtype))
    check(k_float_to_int, (f,), expected)


@simt.kernel
def k_int_conversions(n, i8, u16, i32, u64, f16, b):
    i = cuda.grid(1)
    if i < n.shape[0]:
        i8[i] = np.int8(n[i])
        u16[i] = np.uint16(n[i])
        i32[i] = n[i]
        u64[i] = n[i]
        f16[i] = n[i]
        b[i] = n[i]


def test_integer_conversions_wrap_and_stores_convert(rng):
    n = int_pair(rng, np.int64)[0]
    with ignore_errors():
        expected = [n.astype(t) for t in (np.int8, np.uint16, np.int32, np.uint64, np.float16,
                                           np.bool_)]
    check(k_int_conversions, (n,), expected)


@simt.kernel
def k_attributes_ok(a, out):
    i = cuda.grid(1)
    if i == 0:
        for j in range(5):
            pass
        out[0] = j
        out[1] = a.size
        out[2] = a.ndim
        out[3] = a.strides[0]
        out[4] = a.strides[1]
        out[5] = a.itemsize
        out[6] = a.shape[1]
        out[7] = len(a)
        out[8] = a[0, 0] or 5
        out[9] = a[0, 1] or 5
        out[10] = a[0, 1] and 7
        k = 0
        while k < 10:
            k += 3
        out[11] = k


def test_array_attributes_loop_variable_after_loop_and_or_values():
    a = np.zeros((9, 8), np.int16)[::3, 1::2]
    a[0, 1] = 4
    out = poisoned(12, np.int64)
    launch(k_attributes_ok, 1, a, out)
    # Devices without host memory get a contiguous copy of the view.
    strides = a.strides if simt.current_device().host_accessible else (a.shape[1] * 2, 2)
    assert_same(out, np.array([4, a.size, 2, strides[0], strides[1], 2, 4, 3, 5, 4, 7, 12]))


@simt.kernel
def k_annotated_and_augmented(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x: np.float32 = a[i]
        x += 0.1
        x *= 3
        out[i] = 1
        out[i] += x
        out[i] //= 2
        out[i] **= 2


def test_annotated_variable_keeps_type_and_augmented_array_elements(rng):
    a = rng.standard_normal(100) * 10
    x = (a.astype(np.float32) + np.float32(0.1)) * np.float32(3)
    expected = np.ones(100) + x.astype(np.float64)
    expected = np.floor_divide(expected, 2) ** 2
    check(k_annotated_and_augmented, (a,), [expected])


@simt.kernel
def k_gather(a, idx, out):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        out[i] = a[idx[i]]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint64, np.int64])
def test_index_arrays_of_every_int_dtype_and_negative_indices(rng, dtype):
    a = rng.standard_normal(100)
    low = -100 if np.dtype(dtype).kind == "i" else 0
    idx = rng.integers(low, min(100, np.iinfo(dtype).max + 1), 200).astype(dtype)
    check(k_gather, (a, idx), [a[idx.astype(np.int64)]])


@simt.kernel
def k_3d(a, out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = out.shape
    if x < nx and y < ny and z < nz:
        out[x, y, z] = a[x, y, z] + x * 10000 + y * 100 + z


def test_3d_grid_over_a_transposed_array(rng):
    a = rng.integers(0, 100, (7, 5, 3)).transpose(2, 0, 1)  # (3, 7, 5), no contiguous layout
    out = poisoned(a.shape, a.dtype)
    run(k_3d, (2, 3, 2), (2, 3, 4), a, out)
    x, y, z = np.indices(a.shape)
    assert_same(out, a + x * 10000 + y * 100 + z)


@simt.kernel
def k_index_objects(out):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y, 0] = cuda.threadIdx.x + 10 * cuda.threadIdx.y
        out[x, y, 1] = cuda.blockIdx.x + 10 * cuda.blockIdx.y
        out[x, y, 2] = cuda.blockDim.x + 10 * cuda.blockDim.y
        out[x, y, 3] = cuda.gridDim.x + 10 * cuda.gridDim.y
        out[x, y, 4] = w + 1000 * h


def test_thread_and_block_indices():
    out = poisoned((7, 9, 5), np.int64)
    run(k_index_objects, (2, 3), (4, 3), out)
    x, y = np.indices((7, 9))
    expected = np.stack([x % 4 + 10 * (y % 3), x // 4 + 10 * (y // 3),
                         np.full_like(x, 4 + 30), np.full_like(x, 2 + 30),
                         np.full_like(x, 8 + 9000)], axis=-1)
    assert_same(out, expected)


@simt.kernel
def k_builtin_min_max_nan(a, b, lo, hi, nlo, nhi):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])
        nlo[i] = np.minimum(a[i], b[i])
        nhi[i] = np.maximum(a[i], b[i])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_min_max_with_nan_and_signed_zeros(rng, dtype):
    """Builtin min/max of floats are C's fmin/fmax, as Numba's CUDA target lowers them: a NaN
    loses to a number (NumPy's fmin/fmax); np.minimum/np.maximum propagate NaN. Zeros of both
    signs are equal, and either may come back."""
    a, b = float_pair(rng, dtype, 50)
    mixed_zeros = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    a, b, za, zb = a[~mixed_zeros], b[~mixed_zeros], a[mixed_zeros], b[mixed_zeros]
    check(k_builtin_min_max_nan, (a, b), [np.fmin(a, b), np.fmax(a, b),
                                         np.minimum(a, b), np.maximum(a, b)])
    outputs = [poisoned(za.shape, za.dtype) for _ in range(4)]
    launch(k_builtin_min_max_nan, len(za), za, zb, *outputs)
    for out in outputs:
        np.testing.assert_array_equal(out, np.zeros_like(za))


UNARY_MATH = {  # name: (domain low, high) of float64 inputs
    "sin": (-10, 10), "cos": (-10, 10), "tan": (-1.5, 1.5), "asin": (-1, 1), "acos": (-1, 1),
    "atan": (-50, 50), "sinh": (-5, 5), "cosh": (-5, 5), "tanh": (-5, 5),
    "asinh": (-50, 50), "acosh": (1, 50), "atanh": (-0.99, 0.99), "exp": (-20, 20),
    "exp2": (-20, 20), "expm1": (-1, 1), "log": (1e-3, 1e3), "log2": (1e-3, 1e3),
    "log10": (1e-3, 1e3), "log1p": (-0.9, 10), "sqrt": (0, 1e3), "cbrt": (-1e3, 1e3),
    "erf": (-3, 3), "erfc": (-3, 3), "gamma": (0.1, 10), "lgamma": (0.1, 10),
    "fabs": (-10, 10), "degrees": (-10, 10), "radians": (-500, 500),
}


@simt.kernel
def k_all_math(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i, 0]
        out[i, 0] = math.sin(x)
        out[i, 1] = math.cos(a[i, 1])
        out[i, 2] = math.tan(a[i, 2])
        out[i, 3] = math.asin(a[i, 3])
        out[i, 4] = math.acos(a[i, 4])
        out[i, 5] = math.atan(a[i, 5])
        out[i, 6] = math.sinh(a[i, 6])
        out[i, 7] = math.cosh(a[i, 7])
        out[i, 8] = math.tanh(a[i, 8])
        out[i, 9] = math.asinh(a[i, 9])
        out[i, 10] = math.acosh(a[i, 10])
        out[i, 11] = math.atanh(a[i, 11])
        out[i, 12] = math.exp(a[i, 12])
        out[i, 13] = math.exp2(a[i, 13])
        out[i, 14] = math.expm1(a[i, 14])
        out[i, 15] = math.log(a[i, 15])
        out[i, 16] = math.log2(a[i, 16])
        out[i, 17] = math.log10(a[i, 17])
        out[i, 18] = math.log1p(a[i, 18])
        out[i, 19] = math.sqrt(a[i, 19])
        out[i, 20] = math.cbrt(a[i, 20])
        out[i, 21] = math.erf(a[i, 21])
        out[i, 22] = math.erfc(a[i, 22])
        out[i, 23] = math.gamma(a[i, 23])
        out[i, 24] = math.lgamma(a[i, 24])
        out[i, 25] = math.fabs(a[i, 25])
        out[i, 26] = math.degrees(a[i, 26])
        out[i, 27] = math.radians(a[i, 27])
        out[i, 28] = math.atan2(x, b[i])
        out[i, 29] = math.hypot(x, b[i])
        out[i, 30] = math.copysign(x, b[i])
        out[i, 31] = math.fmod(x, b[i])
        out[i, 32] = math.pow(abs(x), b[i])
        out[i, 33] = math.pi + math.e * 10 + math.tau * 100
        out[i, 34] = math.trunc(x) + math.floor(x) * 100 + math.ceil(x) * 10000
        out[i, 35] = math.isfinite(b[i]) + math.isinf(b[i]) * 10 + math.isnan(b[i]) * 100


def test_every_math_function_against_python_math(rng):
    """Float64 results of every math.* function, against Python's math on the same values."""
    n = 64
    a = np.zeros((n, 36))
    for column, (low, high) in enumerate(UNARY_MATH.values()):
        a[:, column] = rng.uniform(low, high, n)
    a[:, 0] = rng.uniform(-10, 10, n)
    b = rng.uniform(-5, 5, n)
    b[:3] = [np.inf, np.nan, -0.0]
    out = poisoned((n, 36), np.float64)
    launch(k_all_math, n, a, b, out)
    names = list(UNARY_MATH)
    for column, name in enumerate(names):
        expected = [getattr(math, name)(v) for v in a[:, column]]
        np.testing.assert_allclose(out[:, column], expected, rtol=1e-13, atol=1e-14,
                                   err_msg=name)
    x = a[:, 0]
    with ignore_errors():  # NumPy's, not math's: math raises for fmod(x, 0.0) where C gives NaN
        binary = [np.arctan2(x, b), np.hypot(x, b), np.copysign(x, b), np.fmod(x, b),
                  np.power(np.abs(x), b)]
    for column, expected in enumerate(binary, start=28):
        np.testing.assert_allclose(out[:, column], expected, rtol=1e-13, equal_nan=True,
                                   err_msg=f"column {column}")
    assert (out[:, 33] == math.pi + math.e * 10 + math.tau * 100).all()
    assert_same(out[:, 34], np.array([math.trunc(v) + math.floor(v) * 100 + math.ceil(v) * 10000
                                      for v in x], np.float64))
    assert_same(out[:, 35], np.isfinite(b) + np.isinf(b) * 10.0 + np.isnan(b) * 100.0)


@simt.kernel
def k_np_rounding(a, fl, ce, tr, ri, cs, fin):
    i = cuda.grid(1)
    if i < a.shape[0]:
        fl[i] = np.floor(a[i])
        ce[i] = np.ceil(a[i])
        tr[i] = np.trunc(a[i])
        ri[i] = np.rint(a[i])
        cs[i] = np.copysign(np.absolute(a[i]), -1.0)
        fin[i] = np.isfinite(a[i])


@pytest.mark.parametrize("dtype", FLOATS)
def test_numpy_rounding_functions_return_floats(rng, dtype):
    a, _ = float_pair(rng, dtype)
    a = np.concatenate([a, np.array([0.5, 1.5, 2.5, -0.5, -2.5], dtype)])
    check(k_np_rounding, (a,), [np.floor(a), np.ceil(a), np.trunc(a), np.rint(a),
                                np.copysign(np.absolute(a), dtype(-1)), np.isfinite(a)])


@simt.kernel
def k_print(a):
    i = cuda.grid(1)
    if i == 1:
        print("value", a[i], 2.5, None, -7)


def test_print(capfd):
    launch(k_print, 4, np.array([1.5, 0.25, 3, 4]))
    import ctypes
    ctypes.CDLL(None).fflush(None)  # C stdio buffers what printf wrote
    assert capfd.readouterr().out == "value 0.25 2.5 None -7\n"


@simt.kernel
def k_print_values(t, x):
    if cuda.grid(1) == 0:
        print(t, (x[0],), x[1], x[2], -0.0, True)
    if cuda.threadIdx.x == 1:
        print(cuda.threadIdx, cuda.blockDim)


def test_print_of_tuples_dim3_and_whole_floats(capfd):
    # As Python prints them: nested tuples, a one-item tuple's comma, 3.0 with its ".0".
    launch(k_print_values, 2, (1, ((2, 4), 3.0), (4,), 5), np.array([7.5, 3.0, 1e20]))
    import ctypes
    ctypes.CDLL(None).fflush(None)
    out = capfd.readouterr().out
    assert out.splitlines() == ["(1, ((2, 4), 3.0), (4,), 5) (7.5,) 3.0 1e+20 -0.0 True",
                                "(1, 0, 0) (32, 1, 1)"]


@simt.kernel
def k_range_values(bounds, out, count):
    i = cuda.grid(1)
    if i == 0:
        c = 0
        for j in range(bounds[0], bounds[1], bounds[2]):
            out[c] = j
            c += 1
            if c >= out.shape[0]:
                break
        count[0] = c


@pytest.mark.parametrize("bounds", [(0, 10, 3), (10, 0, -3), (-5, 7, 4), (7, -5, -1), (5, 5, 1),
                                    (0, 5, -1), (5, 0, 2)])
def test_range_with_run_time_bounds_and_steps(bounds):
    expected = list(range(*bounds))
    out, count = poisoned(16, np.int64), poisoned(1, np.int64)
    launch(k_range_values, 1, np.array(bounds, np.int64), out, count)
    assert count[0] == len(expected)
    assert out[:len(expected)].tolist() == expected


@pytest.mark.parametrize("bounds", [(5, 0, 0), (0, 5, 0)])
def test_range_with_a_run_time_zero_step_runs_no_iteration(bounds):
    # Python raises ValueError; a kernel cannot, and runs none (it divided by zero
    # computing the trip count when start > stop).
    out, count = poisoned(16, np.int64), poisoned(1, np.int64)
    launch(k_range_values, 1, np.array(bounds, np.int64), out, count)
    assert count[0] == 0


@pytest.mark.parametrize("bounds", [(2**63 - 5, 2**63 - 1, 3), (-(2**63) + 4, -(2**63), -3)])
def test_range_near_int64_limits_stops(bounds):
    expected = list(range(*bounds))
    out, count = poisoned(16, np.int64), poisoned(1, np.int64)
    launch(k_range_values, 1, np.array(bounds, np.int64), out, count)
    assert out[:len(expected)].tolist() == expected
    assert count[0] == len(expected)


@simt.kernel
def k_round_digits(a, ndigits, out):
    i = simt.grid(1)
    if i < a.size:
        out[i] = round(a[i], ndigits)


def test_round_with_digits_is_pythons(device, rng):
    # Python rounds the exact decimal value half to even: round(0.3425, 3) is 0.343 (0.3425
    # is a little above the tie), round(2.675, 2) is 2.67 (a little below); a product
    # x * 10**n that lands exactly on a tie must not decide it.
    a = np.concatenate([[0.3425, 1.005, 2.675, 2.5, -2.675, 1234.5, 0.125, 1e300, -0.0, 5e-324],
                        [round(v, int(d)) + e for v, d, e in zip(
                            rng.uniform(-1000, 1000, 500), rng.integers(0, 6, 500),
                            rng.choice([0.0, 5e-4, 5e-5, 5e-3], 500))]])
    for ndigits in (-2, 0, 1, 2, 3, 5):
        out = simt.zeros(a.size, device=device)
        with simt.use_device(device):
            k_round_digits[(a.size + 63) // 64, 64](simt.asarray(a, device=device), ndigits, out)
        np.testing.assert_array_equal(out.get(), [round(v, ndigits) for v in a.tolist()])
