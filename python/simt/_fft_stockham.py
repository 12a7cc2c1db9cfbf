"""simt.fft on GPUs (opencl, and cuda until cuFFT is loaded there): complex-to-complex
transforms of contiguous batches of rows, generated in simt's kernel language.

A power-of-two length n is a Stockham FFT (the self-sorting form: no bit-reversal pass,
each pass reads one buffer and writes the other): log4(n) radix-4 passes and, for odd
log2(n), one radix-2 pass. A pass is one launch over (rows x n / radix) butterflies; its
twiddle factors come from a table of the n roots of unity, computed once on the host in
float64 (more accurate than sin/cos of a float32 angle on the device). The last pass
also applies the norm's scale, so normalizing costs no pass of its own.

Any other length is Bluestein's: the transform as a convolution with a chirp, computed by
power-of-two FFTs of length m >= 2n - 1 (about 6x the work of a power-of-two length of
the same size, and the same accuracy).
"""

from collections import OrderedDict

import numpy as np

from ._array import empty
from ._array_api import _generated, _launch
from ._array_api._elementwise import FUNCTIONS, assign
from ._array_api._manipulation import reshape

__all__ = ["transform_rows"]

# Device tables kept per (device, n, dtype, direction): a transform's twiddles (and
# Bluestein's chirps) are built once. Bounded: each holds device memory.
_TABLES_KEPT = 32
_tables = OrderedDict()


def transform_rows(x, rows, n, forward, scale):
    """The length-n DFT (forward: exp(-2 pi i jk/n); else the unscaled inverse) of each of
    the `rows` rows of x, a C-contiguous complex array of rows * n elements (only read),
    times `scale`: a new C-contiguous (rows * n,) array of x's dtype."""
    flat = reshape(x, (rows * n,))
    if n == 1:
        out = empty((rows,), x.dtype, x.device)
        assign(out, FUNCTIONS["multiply"](flat, _real(x.dtype).type(scale)))
        return out
    if n & (n - 1) == 0:
        return _power_of_two(flat, rows, n, forward, scale)
    return _bluestein(flat, rows, n, forward, scale)


def _real(dtype):
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)


def _radices(n):
    """The passes' radices for n = 2**p: as many 4s as fit, then a 2 when p is odd."""
    p = n.bit_length() - 1
    return [4] * (p // 2) + [2] * (p % 2)


def _power_of_two(flat, rows, n, forward, scale):
    device, dtype = flat.device, flat.dtype
    twiddles = _table(device, ("twiddles", n, dtype, forward),
                      lambda: np.exp((-2j if forward else 2j) * np.pi * np.arange(n) / n))
    radices = _radices(n)
    buffers = [empty((rows * n,), dtype, device) for _ in range(min(2, len(radices)))]
    source, ns = flat, 1
    real = _real(dtype).type
    for number, radix in enumerate(radices):
        target = buffers[number % len(buffers)]
        last = number == len(radices) - 1
        butterflies = rows * (n // radix)
        _pass_kernel(radix, forward, dtype)[_config(device, butterflies)](
            source, target, twiddles, n.bit_length() - 1, ns.bit_length() - 1, rows,
            real(scale if last else 1.0))
        source, ns = target, ns * radix
    return source


def _config(device, items):
    block = _launch.block_size(device)
    return max(1, min(-(-items // block), 2 ** 31 - 1)), block


def _table(device, key, make):
    """The device array of `make()` (complex values, computed on the host in complex128)
    as key's dtype, cached for the device."""
    key = (device.id,) + key
    found = _tables.get(key)
    if found is not None:
        _tables.move_to_end(key)
        return found
    dtype = next(part for part in key if isinstance(part, np.dtype))
    host = np.ascontiguousarray(make().astype(dtype))
    found = empty(host.shape, dtype, device)
    found.set(host)
    _tables[key] = found
    while len(_tables) > _TABLES_KEPT:
        _tables.popitem(last=False)
    return found


_kernels = {}


def _pass_kernel(radix, forward, dtype):
    key = (radix, forward, dtype)
    if key not in _kernels:
        name = f"fft_radix{radix}_{'forward' if forward else 'inverse'}"
        text = (_radix4 if radix == 4 else _radix2)(name, forward, _generated.dtype_name(dtype))
        _kernels[key] = _generated.kernel(name, text)
    return _kernels[key]


# Butterfly j of a pass (j < n / R within a row) reads the R elements j + r * n / R,
# multiplies element r by the twiddle w**(r * k) (k = j mod ns, w the (R * ns)-th root of
# unity: index r * k * n / (R * ns) of the table), takes their R-point DFT and writes it
# at (j - k) * R + k + r * ns: the Stockham ordering, sorted after the last pass.
_HEAD = '''def {name}(x, y, w, n_bits, ns_bits, rows, scale):
    # Every extent is a power of two: shifts and masks, not 64-bit divisions.
    part_bits = n_bits - {R_BITS}
    total = rows << part_bits
    i = simt.grid(1)
    step = simt.gridsize(1)
    while i < total:
        row = i >> part_bits
        j = i & ((1 << part_bits) - 1)
        base = row << n_bits
        k = j & ((1 << ns_bits) - 1)
        t = k << (part_bits - ns_bits)
        src = base + j
        dst = base + ((j - k) << {R_BITS}) + k
        part = 1 << part_bits
        ns = 1 << ns_bits
'''


def _radix2(name, forward, type_name):
    return _HEAD.format(name=name, R_BITS=1) + '''        v0 = x[src]
        v1 = x[src + part] * w[t]
        y[dst] = (v0 + v1) * scale
        y[dst + ns] = (v0 - v1) * scale
        i += step
'''


def _radix4(name, forward, type_name):
    # d times -i (forward) or +i (inverse): a swap of parts, not a complex product.
    parts = "d.imag, -d.real" if forward else "-d.imag, d.real"
    rotate = f"{type_name}(complex({parts}))"
    return _HEAD.format(name=name, R_BITS=2) + f'''        v0 = x[src]
        v1 = x[src + part] * w[t]
        v2 = x[src + 2 * part] * w[2 * t]
        v3 = x[src + 3 * part] * w[3 * t]
        a0 = v0 + v2
        a1 = v0 - v2
        a2 = v1 + v3
        d = v1 - v3
        a3 = {rotate}
        y[dst] = (a0 + a2) * scale
        y[dst + ns] = (a1 + a3) * scale
        y[dst + 2 * ns] = (a0 - a2) * scale
        y[dst + 3 * ns] = (a1 - a3) * scale
        i += step
'''


def _bluestein(flat, rows, n, forward, scale):
    """X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]), c[j] = exp(-+ pi i j^2 / n): the
    convolution as a product of power-of-two FFTs of length m >= 2n - 1."""
    device, dtype = flat.device, flat.dtype
    m = 1 << (2 * n - 2).bit_length()
    chirp = _table(device, ("chirp", n, dtype, forward), lambda: _chirp(n, forward))
    kernel = _table(device, ("chirp_spectrum", n, dtype, forward),
                    lambda: _chirp_spectrum(n, m, forward))
    padded = empty((rows, m), dtype, device)
    assign(padded[:, n:], 0)
    assign(padded[:, :n], FUNCTIONS["multiply"](reshape(flat, (rows, n)), chirp))
    spectrum = reshape(_power_of_two(reshape(padded, (rows * m,)), rows, m, True, 1.0),
                       (rows, m))
    assign(spectrum, FUNCTIONS["multiply"](spectrum, kernel))
    back = reshape(_power_of_two(reshape(spectrum, (rows * m,)), rows, m, False, 1.0 / m),
                   (rows, m))
    out = empty((rows, n), dtype, device)
    weighted = chirp if scale == 1.0 else FUNCTIONS["multiply"](chirp, _real(dtype).type(scale))
    assign(out, FUNCTIONS["multiply"](back[:, :n], weighted))
    return reshape(out, (rows * n,))


def _chirp(n, forward):
    # j*j mod 2n in integers: the angle stays exact for large j (j*j/n in floating point
    # would lose the fraction that matters).
    j = np.arange(n, dtype=np.int64)
    angle = np.pi * ((j * j) % (2 * n)) / n
    return np.exp((-1j if forward else 1j) * angle)


def _chirp_spectrum(n, m, forward):
    """The length-m DFT of conj(chirp) wrapped around (index -j at m - j): the
    convolution's second operand, a constant of (n, direction), computed once on the host
    in float64."""
    b = np.zeros(m, np.complex128)
    c = np.conj(_chirp(n, forward))
    b[:n] = c
    b[m - n + 1:] = c[1:][::-1]
    return _host_dft(b)


def _host_dft(b):
    """The forward DFT of b on the host, by the radix-2 Stockham passes this module runs
    on devices (float64 NumPy, vectorized over butterflies): the table's spectrum needs
    no FFT library."""
    m = b.size
    w = np.exp(-2j * np.pi * np.arange(m) / m)
    x, ns = b.astype(np.complex128), 1
    while ns < m:
        half = m // 2
        j = np.arange(half)
        k = j % ns
        v0 = x[j]
        v1 = x[j + half] * w[k * (m // (2 * ns))]
        y = np.empty_like(x)
        dst = (j - k) * 2 + k
        y[dst] = v0 + v1
        y[dst + ns] = v0 - v1
        x, ns = y, ns * 2
    return x
