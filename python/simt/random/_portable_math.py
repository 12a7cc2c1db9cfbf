"""The logarithm, sine and cosine the exponential and normal distributions need, as device
functions in simt's kernel language built from operations every backend rounds alike, so
that those distributions, too, give the same values bit for bit on every device.

The devices' own log, sin and cos are not correctly rounded and differ by a few units in
the last place between CUDA's libdevice, the CPU's libm and each OpenCL implementation.
These functions use integer operations, conversions of exactly representable integers,
and IEEE +, -, * , / and sqrt (correctly rounded on every backend: simt compiles without
fused multiply-adds or fast math, and asks OpenCL for correctly rounded float32 division
and square roots, which PoCL and the GPU drivers provide).

Their arguments are the random integers themselves, which makes the reductions exact:

- dev_neglog1m(j) = -log(1 - j / 2**B) for j in [0, 2**B) (B = 53 for float64, 24 for
  float32): 1 - j / 2**B = q / 2**B with q = 2**B - j an integer, q = 2**e * f with e from
  q's leading zeros and f in [sqrt(1/2), sqrt(2)) exactly, and log f = 2 atanh(s) with
  s = (f - 1) / (f + 1), a short odd series (|s| < 0.172).
- dev_sincos2pi(k) = (sin, cos) of 2 pi k / 2**B for k in [0, 2**B): k is split exactly
  into a quarter turn q and a remainder r of at most an eighth of a turn, x = r * 2 pi / 2**B
  in [-pi/4, pi/4], Taylor series for sin x and cos x, then the quarter turn's symmetry.

Accuracy: within a few units in the last place of the exact values (the tests check it
against NumPy's float64 functions).
"""

import math

import numpy as np

BITS = {np.dtype(np.float64): 53, np.dtype(np.float32): 24}

# Terms of the series: the last one below half a unit in the last place on the range.
_ATANH_TERMS = {53: 10, 24: 5}  # 1/3, 1/5, ... multiplying s**2, s**4, ...
_SIN_TERMS = {53: 9, 24: 6}  # x**3/3!, ..., for |x| <= pi/4
_COS_TERMS = {53: 9, 24: 6}  # x**2/2!, ...


def _float(dtype, value):
    """A literal of `value` rounded to dtype, spelled exactly (float32 values through their
    float64 repr, which is exact)."""
    value = float(dtype.type(value))
    return f"np.{dtype.name}({value!r})"


def _horner(variable, coefficients, dtype):
    """c0 + v * (c1 + v * (...)) as text."""
    text = _float(dtype, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        text = f"{_float(dtype, c)} + {variable} * ({text})"
    return text


def source(dtype):
    """The module text of dev_neglog1m and dev_sincos2pi for `dtype` (float32, float64)."""
    dtype = np.dtype(dtype)
    bits = BITS[dtype]
    f, unsigned = f"np.{dtype.name}", "np.uint64" if bits > 32 else "np.uint32"
    signed = "np.int64" if bits > 32 else "np.int32"
    suffix = dtype.name
    atanh = [1 / (2 * k + 1) for k in range(1, _ATANH_TERMS[bits] + 1)]
    sin = [(-1) ** k / math.factorial(2 * k + 1) for k in range(1, _SIN_TERMS[bits] + 1)]
    cos = [(-1) ** k / math.factorial(2 * k) for k in range(1, _COS_TERMS[bits] + 1)]
    lines = [
        f"def dev_neglog1m_{suffix}(j):",
        f"    q = {unsigned}({2 ** bits}) - j",
        f"    e = {63 if bits > 32 else 31} - np.int64(simt.clz(q))",  # floor(log2 q)
        # q's leading bit moved to bit `bits`: the integer is exact as a float, and
        # times 2**-bits it is q's significand f in [1, 2).
        f"    g = {f}(q << {unsigned}({bits} - e)) * {_float(dtype, 2.0 ** -bits)}",
        # selects, not branches: the CPU's compiler vectorizes the loop around them
        f"    big = g > {_float(dtype, math.sqrt(2))}",
        f"    g = g * {_float(dtype, 0.5)} if big else g",
        "    e = e + 1 if big else e",
        f"    s = (g - {f}(1)) / (g + {f}(1))",
        "    z = s * s",
        f"    log_g = {f}(2) * s + {f}(2) * s * z * ({_horner('z', atanh, dtype)})",
        f"    return {f}({bits} - e) * {_float(dtype, math.log(2))} - log_g",
        "",
        f"def dev_sincos2pi_{suffix}(k):",
        # the nearest quarter turn (0..4) and the rest, exactly, in units of 2**-bits turns
        f"    q = (k + {unsigned}({2 ** (bits - 3)})) >> {unsigned}({bits - 2})",
        f"    r = {signed}(k) - {signed}(q << {unsigned}({bits - 2}))",
        f"    x = {f}(r) * {_float(dtype, float(dtype.type(2 * math.pi)) * 2.0 ** -bits)}",
        "    z = x * x",
        f"    s = x + x * z * ({_horner('z', sin, dtype)})",
        f"    c = {f}(1) + z * ({_horner('z', cos, dtype)})",
        # quarter turns 1, 2, 3: (sin, cos) = (c, -s), (-s, -c), (-c, s)
        f"    odd = (q & {unsigned}(1)) != {unsigned}(0)",
        "    sine = c if odd else s",
        "    cosine = s if odd else c",
        f"    sine = -sine if (q & {unsigned}(2)) != {unsigned}(0) else sine",
        f"    cosine = -cosine if ((q + {unsigned}(1)) & {unsigned}(2)) != {unsigned}(0) "
        "else cosine",
        "    return sine, cosine",
        "",
    ]
    return "\n".join(lines) + "\n"
