"""How each distribution turns a Philox block's four uint32 words x0..x3 into values, as
lines of simt's kernel language, and the kernels made of them (one per distribution,
dtype and loop form, kept for the process by _generated).

float64 values take 64 bits each (words x0 | x1 << 32 and x2 | x3 << 32: two values per
block), float32 values 32 bits (one word each: four per block).

- uniform [0, 1): float64 (w >> 11) * 2**-53 (53 bits, as NumPy), float32 (x >> 8) * 2**-24
  (24 bits): every value a multiple of the last bit, exactly.
- uniform [low, high): low + (high - low) * u, NumPy's formula (no fused multiply-add on
  any backend, so every device rounds it alike).
- exponential: scale * -log1p(-u), u in [0, 1), so the logarithm's argument is in (0, 1].
- normal: Box-Muller on two uniforms u, v: sqrt(-2 log1p(-u)) times cos(2 pi v) and
  sin(2 pi v), the pair's two values; loc + scale * z. (NumPy's Generator uses a ziggurat:
  the values differ from NumPy's, not their distribution.)
- integers: Lemire's method or masked rejection (see integer_kernel), redraws from blocks
  of their own.

The logarithm, sine and cosine are _portable_math's, computed from the random integers
with operations every backend rounds alike (not the devices' math libraries, which differ
in the last bits): every distribution gives the same values bit for bit on every device.
"""

import numpy as np

from .._array_api import _generated
from .. import _launch
from . import _philox, _portable_math

_F64_LSB = "1.1102230246251565e-16"  # 2**-53
_F32_LSB = "5.9604644775390625e-08"  # 2**-24

# Values per Philox block.
PER_BLOCK = {np.dtype(np.float64): 2, np.dtype(np.float32): 4}


def _integer_lines(dtype):
    """j0..j{per-1}: the block's random integers, 53 bits (float64) or 24 (float32)."""
    if dtype == np.float64:
        return [f"j{k} = (np.uint64(x{2 * k}) | (np.uint64(x{2 * k + 1}) << np.uint64(32))) "
                f">> np.uint64(11)" for k in range(2)]
    return [f"j{k} = x{k} >> np.uint32(8)" for k in range(4)]


def _uniform_lines(dtype):
    """u0..u{per-1}: the block's uniforms in [0, 1), j * 2**-bits exactly."""
    lsb = f"np.float32({_F32_LSB})" if dtype == np.float32 else _F64_LSB
    return _integer_lines(dtype) + [f"u{k} = np.{dtype.name}(j{k}) * {lsb}"
                                    for k in range(PER_BLOCK[dtype])]


def _normal_lines(dtype):
    """v0..: Box-Muller on the pairs (j0, j1), (j2, j3), scaled by p1 and shifted by p0."""
    lines = _integer_lines(dtype)
    for pair in range(PER_BLOCK[dtype] // 2):
        a, b = f"j{2 * pair}", f"j{2 * pair + 1}"
        lines += [
            f"r{pair} = np.sqrt(np.{dtype.name}(2) * dev_neglog1m_{dtype.name}({a}))",
            f"sin{pair}, cos{pair} = dev_sincos2pi_{dtype.name}({b})",
            f"v{2 * pair} = p0 + p1 * (r{pair} * cos{pair})",
            f"v{2 * pair + 1} = p0 + p1 * (r{pair} * sin{pair})",
        ]
    return lines


def _value_lines(kind, dtype):
    per = PER_BLOCK[dtype]
    if kind == "random":
        return _uniform_lines(dtype) + [f"v{k} = u{k}" for k in range(per)]
    if kind == "uniform":  # p0 = low, p1 = high - low
        return _uniform_lines(dtype) + [f"v{k} = p0 + p1 * u{k}" for k in range(per)]
    if kind == "exponential":  # p0 = scale
        return _integer_lines(dtype) + [f"v{k} = p0 * dev_neglog1m_{dtype.name}(j{k})"
                                        for k in range(per)]
    if kind == "normal":  # p0 = loc, p1 = scale
        return _normal_lines(dtype)
    raise ValueError(f"unknown distribution {kind!r}")


PARAMS = {"random": [], "uniform": ["p0", "p1"], "exponential": ["p0"],
          "normal": ["p0", "p1"]}

_MATH = ("exponential", "normal")  # the kinds calling _portable_math's functions
_float_kernels = {}


def float_kernel(kind, dtype):
    """kernel_for(form) of the float distribution `kind` in `dtype`."""
    def kernel_for(form):
        key = (kind, dtype, form)
        found = _float_kernels.get(key)
        if found is None:
            name = f"philox_{kind}_{dtype.name}"
            helpers = _portable_math.source(dtype) if kind in _MATH else ""
            text = _philox.kernel_source(name, PER_BLOCK[dtype], _value_lines(kind, dtype),
                                         PARAMS[kind], form, helpers)
            found = _float_kernels[key] = _generated.kernel(name, text)
        return found
    return kernel_for


# --- integers -----------------------------------------------------------------------------

# Ranges up to 2**32 values: Lemire's multiply-and-reject on one 32-bit word per value
# (four values per block); wider ranges: a 64-bit word (two words, two values per block)
# masked to the range's bit length and rejected when past it.
NARROW = "lemire32"
WIDE = "masked64"
INT_PER_BLOCK = {NARROW: 4, WIDE: 2}


def _candidate_lines(method, k, words):
    """Lines setting `d` (uint64) to value k's candidate from the block words `words`
    and `ok` to whether it is accepted."""
    if method == NARROW:
        # x * m < 2**64 for m <= 2**32; its low 32 bits below t = 2**32 mod m are the
        # draws that would make some results more likely than others.
        return [f"d = np.uint64({words[k]}) * m",
                "ok = (d & np.uint64(4294967295)) >= t"]
    return [f"d = (np.uint64({words[2 * k]}) | (np.uint64({words[2 * k + 1]}) << "
            f"np.uint64(32))) & mask",
            "ok = d <= top"]


def _result_line(method, k, dtype):
    draw = "(d >> np.uint64(32))" if method == NARROW else "d"
    total = f"low + {draw}"  # uint64, wrapping: low is the dtype's bound as uint64
    if dtype == np.bool_:
        return f"v{k} = ({total}) != np.uint64(0)"
    if dtype.kind == "i":
        # through int64: the wrapped sum is the value in two's complement
        return f"v{k} = np.{dtype.name}(np.int64({total}))"
    return f"v{k} = np.{dtype.name}({total})"


def _integer_value_lines(method, dtype):
    """v0..: each value's candidate from block b, redrawn from the blocks (c0, c1, c2, r),
    r = 1, 2, ..., until accepted (redraw r of value k reads word k of that block)."""
    per = INT_PER_BLOCK[method]
    redraw = ["y0", "y1", "y2", "y3"]
    lines = []
    for k in range(per):
        lines += _candidate_lines(method, k, ["x0", "x1", "x2", "x3"])
        lines += ["r = np.uint32(0)", "while not ok:", "    r += np.uint32(1)",
                  "    y0 = c0", "    y1 = c1", "    y2 = c2", "    y3 = r"]
        lines += _philox.rounds_text(redraw, ["k0", "k1"], "    ")
        lines += ["    " + line for line in _candidate_lines(method, k, redraw)]
        lines.append(_result_line(method, k, dtype))
    return lines


_int_kernels = {}


def integer_kernel(method, dtype):
    """kernel_for(form) of integers drawn by `method` into `dtype`. Parameters: low (the
    lower bound as uint64), then m and t (NARROW: the range's size and 2**32 mod m) or
    mask and top (WIDE: the range's bit mask and its largest offset)."""
    def kernel_for(form):
        key = (method, dtype, form)
        found = _int_kernels.get(key)
        if found is None:
            name = f"philox_{method}_{dtype.name}"
            params = ["low", "m", "t"] if method == NARROW else ["low", "mask", "top"]
            text = _philox.kernel_source(name, INT_PER_BLOCK[method],
                                         _integer_value_lines(method, dtype), params, form)
            found = _int_kernels[key] = _generated.kernel(name, text)
        return found
    return kernel_for


def integer_params(span):
    """(method, two uint64 parameters) for `span` = high - low + 1 values (at most 2**64)."""
    if span <= 2 ** 32:
        return NARROW, [np.uint64(span), np.uint64((2 ** 32) % span)]
    bits = (span - 1).bit_length()
    return WIDE, [np.uint64(2 ** bits - 1), np.uint64(span - 1)]


# --- choice with probabilities ------------------------------------------------------------

_search_kernels = {}


def _search_source(form):
    # out[i]: the number of cdf entries <= u[i] (the first j with cdf[j] > u[i]), by
    # bisection; at most len(cdf) - 1, for a u that rounding puts past the last entry.
    body = ["x = u[i]", "first = 0", "last = cdf.size",
            "while first < last:",
            "    middle = (first + last) // 2",
            "    if cdf[middle] <= x:",
            "        first = middle + 1",
            "    else:",
            "        last = middle",
            "out[i] = min(first, cdf.size - 1)"]
    lines = ["def philox_search(out, u, cdf):"] + _launch.flat_loop(body, form)
    return "\n".join(lines) + "\n"


def search(cdf, u, out):
    """out[i] = the index of the first entry of the 1-D cdf greater than u[i] (out and u
    of one shape, out int64)."""
    if out.size == 0:
        return
    device = out.device
    form = _launch.loop_form(device)
    kernel = _search_kernels.get(form)
    if kernel is None:
        kernel = _search_kernels[form] = _generated.kernel("philox_search",
                                                           _search_source(form))
    kernel[_launch.elementwise_config(device, out.size)](
        out.reshape((out.size,)), u.reshape((u.size,)), cdf)
