"""Numba-CUDA's cuda.fp16 functions inside kernels (issue 19), on every device: each
result is the float16 NumPy computes (float32's operation rounded to float16 once);
hfma is a * b + c rounded once; the math functions are within one float16 ulp of
NumPy's (the device's float32 functions may differ from the host's by an ulp)."""

import math

import numpy as np
import pytest

import simt
from simt import cuda
from simt.cuda import fp16
from simt.cuda.fp16 import hadd as imported_hadd

POISON = -7777

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")

N = 4096


def halves(rng, n=N, specials=True):
    """float16 values over a wide range of magnitudes and both signs, with zeros,
    infinities, NaN and subnormals when `specials`."""
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))).astype(np.float16)
    if specials:
        x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, -3e-6, 65504.0]
        rng.shuffle(x)
    return x


def assert_same_halves(got, expected):
    """Bit for bit, any NaN equal to any NaN."""
    got, expected = np.asarray(got, np.float16), np.asarray(expected, np.float16)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint16), expected[~nan].view(np.uint16))


def assert_within_an_ulp(got, expected):
    got, expected = np.asarray(got, np.float16), np.asarray(expected, np.float16)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    # Ordered integers: float16 bits mapped so neighbours differ by one.
    def ordered(h):
        b = h.view(np.uint16).astype(np.int32)
        return np.where(b & 0x8000, 0x8000 - b, b)
    distance = np.abs(ordered(got[~nan]) - ordered(expected[~nan]))
    assert distance.max(initial=0) <= 1, (got[~nan][distance > 1], expected[~nan][distance > 1])


def f32(op, *xs):
    """NumPy's float16 op: in float32, rounded to float16."""
    with np.errstate(all="ignore"):
        return op(*(x.astype(np.float32) for x in xs)).astype(np.float16)


@cuda.jit
def binary_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i, 0] = cuda.fp16.hadd(a[i], b[i])
        out[i, 1] = cuda.fp16.hsub(a[i], b[i])
        out[i, 2] = cuda.fp16.hmul(a[i], b[i])
        out[i, 3] = cuda.fp16.hdiv(a[i], b[i])
        out[i, 4] = fp16.hmax(a[i], b[i])
        out[i, 5] = fp16.hmin(a[i], b[i])
        out[i, 6] = imported_hadd(a[i], b[i])


def test_arithmetic_is_numpys_float16(current, rng):
    a, b = halves(rng), halves(rng)
    out = np.full((N, 7), POISON, np.float16)
    binary_kernel[N // 128, 128](a, b, out)
    with np.errstate(all="ignore"):
        assert_same_halves(out[:, 0], a + b)
        assert_same_halves(out[:, 1], a - b)
        assert_same_halves(out[:, 2], a * b)
        assert_same_halves(out[:, 3], a / b)
        assert_same_halves(out[:, 6], a + b)
    # fmax/fmin: a NaN loses to a number; +0 and -0 may come out either way.
    np.testing.assert_array_equal(out[:, 4], np.fmax(a, b))
    np.testing.assert_array_equal(out[:, 5], np.fmin(a, b))


@cuda.jit
def unary_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        h = x[i]
        out[i, 0] = fp16.hneg(h)
        out[i, 1] = fp16.habs(h)
        out[i, 2] = fp16.hsqrt(h)
        out[i, 3] = fp16.hrcp(h)
        out[i, 4] = fp16.hceil(h)
        out[i, 5] = fp16.hfloor(h)
        out[i, 6] = fp16.hrint(h)
        out[i, 7] = fp16.htrunc(h)


def test_exact_unary_functions(current, rng):
    x = halves(rng)
    x[9] = 2.5  # a rint tie
    out = np.full((N, 8), POISON, np.float16)
    unary_kernel[N // 128, 128](x, out)
    assert_same_halves(out[:, 0], -x)
    assert_same_halves(out[:, 1], np.abs(x))
    assert_same_halves(out[:, 2], f32(np.sqrt, x))
    assert_same_halves(out[:, 3], f32(lambda v: np.float32(1) / v, x))
    assert_same_halves(out[:, 4], np.ceil(x))
    assert_same_halves(out[:, 5], np.floor(x))
    assert_same_halves(out[:, 6], np.rint(x))
    assert_same_halves(out[:, 7], np.trunc(x))


@cuda.jit
def math_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        h = x[i]
        out[i, 0] = fp16.hexp(h)
        out[i, 1] = fp16.hexp2(h)
        out[i, 2] = fp16.hexp10(h)
        out[i, 3] = fp16.hlog(h)
        out[i, 4] = fp16.hlog2(h)
        out[i, 5] = fp16.hlog10(h)
        out[i, 6] = fp16.hsin(h)
        out[i, 7] = fp16.hcos(h)
        out[i, 8] = fp16.hrsqrt(h)


def test_math_functions_within_an_ulp(current, rng):
    x = halves(rng)
    out = np.full((N, 9), POISON, np.float16)
    math_kernel[N // 128, 128](x, out)
    assert_within_an_ulp(out[:, 0], f32(np.exp, x))
    assert_within_an_ulp(out[:, 1], f32(np.exp2, x))
    assert_within_an_ulp(out[:, 2], f32(lambda v: np.power(np.float32(10), v), x))
    assert_within_an_ulp(out[:, 3], f32(np.log, x))
    assert_within_an_ulp(out[:, 4], f32(np.log2, x))
    assert_within_an_ulp(out[:, 5], f32(np.log10, x))
    finite = np.abs(x) < 1000  # large arguments: float32 sin and cos differ more
    assert_within_an_ulp(out[finite, 6], f32(np.sin, x)[finite])
    assert_within_an_ulp(out[finite, 7], f32(np.cos, x)[finite])
    assert_within_an_ulp(out[:, 8], f32(lambda v: np.float32(1) / np.sqrt(v), x))


@cuda.jit
def fma_kernel(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fp16.hfma(a[i], b[i], c[i])


@cuda.jit
def math_fma_kernel(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.fma(a[i], b[i], c[i])  # float16 operands: float16, rounded once too


@pytest.mark.parametrize("kernel", [fma_kernel, math_fma_kernel], ids=["hfma", "math.fma"])
def test_hfma_rounds_once(current, rng, kernel):
    # Magnitudes within 2**-7 .. 2**6 keep a * b + c exact in float64, which NumPy
    # then rounds to float16 once.
    def moderate(n):
        m = rng.integers(1024, 2048, n)
        return (rng.choice([-1, 1], n) * m * np.exp2(rng.integers(-6, 6, n) - 10.0)).astype(
            np.float16)
    a, b, c = moderate(N), moderate(N), moderate(N)
    # Where float32's fma rounded to float16 again would differ (found by search).
    a[:4] = [-0.463134765625, 0.038543701171875, -0.277099609375, 0.064208984375]
    b[:4] = [-0.055877685546875, 0.02850341796875, -0.0212554931640625, -0.41064453125]
    c[:4] = [0.12030029296875, -0.443603515625, -0.10955810546875, 2.95703125]
    out = np.full(N, POISON, np.float16)
    kernel[N // 128, 128](a, b, c, out)
    exact = a.astype(np.float64) * b + c
    twice = exact.astype(np.float32).astype(np.float16)
    assert (twice[:4] != exact[:4].astype(np.float16)).all()
    assert_same_halves(out, exact.astype(np.float16))


def test_hfma_specials(current):
    inf, nan = np.inf, np.nan
    a = np.array([inf, inf, 0.0, nan, 2.0, 65504.0, 6e-8, -0.0], np.float16)
    b = np.array([2.0, 0.0, 3.0, 1.0, 3.0, 2.0, 6e-8, 5.0], np.float16)
    c = np.array([1.0, 1.0, -0.0, 1.0, nan, 0.0, 0.0, -0.0], np.float16)
    out = np.full(a.size, POISON, np.float16)
    fma_kernel[1, 32](a, b, c, out)
    with np.errstate(all="ignore"):
        assert_same_halves(out, (a.astype(np.float64) * b + c).astype(np.float16))


@cuda.jit
def compare_kernel(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = fp16.heq(a[i], b[i])
        out[i, 1] = fp16.hne(a[i], b[i])
        out[i, 2] = fp16.hgt(a[i], b[i])
        out[i, 3] = fp16.hge(a[i], b[i])
        out[i, 4] = fp16.hlt(a[i], b[i])
        out[i, 5] = fp16.hle(a[i], b[i])


def test_comparisons_are_bools_as_numpys(current, rng):
    a, b = halves(rng), halves(rng)
    b[100:200] = a[100:200]  # equal pairs
    out = np.zeros((N, 6), np.bool_)
    out[:] = True
    compare_kernel[N // 128, 128](a, b, out)
    np.testing.assert_array_equal(out[:, 0], a == b)
    np.testing.assert_array_equal(out[:, 1], a != b)
    np.testing.assert_array_equal(out[:, 2], a > b)
    np.testing.assert_array_equal(out[:, 3], a >= b)
    np.testing.assert_array_equal(out[:, 4], a < b)
    np.testing.assert_array_equal(out[:, 5], a <= b)


def test_other_numbers_convert_to_float16(current):
    @cuda.jit
    def mixed(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fp16.hadd(x[i], 0.1)  # x[i] float32 and 0.1: both become float16

    x = np.array([1.0, 2049.0, -3.3], np.float32)
    out = np.full(3, POISON, np.float16)
    mixed[1, 32](x, out)
    assert_same_halves(out, x.astype(np.float16) + np.float16(0.1))


def test_complex_argument_is_refused(current):
    @cuda.jit
    def bad(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fp16.hadd(x[i], 1.0)

    with pytest.raises(simt.CompileError, match="real number"):
        bad[1, 32](np.ones(2, np.complex64), np.zeros(2, np.float16))


def test_calling_outside_a_kernel_explains():
    with pytest.raises(RuntimeError, match="inside a simt kernel"):
        cuda.fp16.hadd(np.float16(1), np.float16(2))


def test_nan_payloads_survive_copies_and_conversions(current, rng):
    # A float16 copied through a kernel keeps its bits, NaN payloads and signs too; a
    # float32 NaN converted to float16 keeps its payload's top bits, as NumPy's astype.
    @cuda.jit
    def copy_and_convert(h, f, h_out, f_out):
        i = cuda.grid(1)
        if i < h.size:
            h_out[i] = h[i]
            f_out[i] = np.float16(f[i])

    payloads = rng.integers(1, 0x400, 64).astype(np.uint16)
    signs = rng.choice([0, 0x8000], 64).astype(np.uint16)
    h = (signs | 0x7C00 | payloads).view(np.float16)
    f32_bits = (signs.astype(np.uint32) << 16) | 0x7F800000 | rng.integers(1, 1 << 23, 64).astype(np.uint32)
    f32_bits[:4] = [0x7F800001, 0xFF800FFF, 0x7FC00000, 0x7FBFE000]  # payload below / at the top
    f = f32_bits.view(np.float32)
    h_out = np.zeros(64, np.float16)
    f_out = np.zeros(64, np.float16)
    copy_and_convert[1, 64](h, f, h_out, f_out)
    np.testing.assert_array_equal(h_out.view(np.uint16), h.view(np.uint16))
    with np.errstate(invalid="ignore"):
        want = f.astype(np.float16)
    np.testing.assert_array_equal(f_out.view(np.uint16), want.view(np.uint16))
