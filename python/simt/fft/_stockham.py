"""simt.fft on GPUs (opencl, and cuda until cuFFT is loaded there): complex-to-complex
transforms of contiguous batches of rows, generated in simt's kernel language.

A power-of-two length n is a Stockham FFT (the self-sorting form: no bit-reversal pass,
each pass reads one buffer and writes the other). On GPUs the first steps run in shared
memory, one launch for up to log2(1024) of them (the whole transform of rows up to 1024
long). The others are passes over global memory, one launch each over (rows x n / radix)
butterflies of radix 16 (a 16-point DFT in registers: four steps per pass over memory),
the last of radix 8, 4 or 2 as log2(n) asks. The twiddle factors
come from a table of the n roots of unity, computed once on the host in float64 (more
accurate than sin/cos of a float32 angle on the device). The last launch also applies
the norm's scale, so normalizing costs no pass of its own.

Any other length is Bluestein's: the transform as a convolution with a chirp, computed by
three power-of-two FFTs of length m, 2n - 1 <= m < 4n (6 to 12 times the work of a
power-of-two length of the same size; errors measured alike, about 1e-7 relative in
complex64).
"""

from collections import OrderedDict

import numpy as np

from .._array import empty
from .._array_api import _generated
from .. import _launch
from .._array_api._elementwise import FUNCTIONS, assign
from .._array_api._manipulation import reshape

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
    """The shared-memory passes' radices for n = 2**p: as many 4s as fit, then a 2 when p
    is odd."""
    p = n.bit_length() - 1
    return [4] * (p // 2) + [2] * (p % 2)


def _global_radices(n):
    """The global passes' radices for n = 2**p: 16s (one pass over memory for 4 of the
    p steps, the 16-point DFT done in registers), then one of 8, 4, 2 for the rest."""
    p = n.bit_length() - 1
    return [16] * (p // 4) + ([1 << (p % 4)] if p % 4 else [])


def _power_of_two(flat, rows, n, forward, scale):
    device, dtype = flat.device, flat.dtype
    twiddles = _table(device, "twiddles", n, dtype, forward,
                      lambda: np.exp((-2j if forward else 2j) * np.pi * np.arange(n) / n))
    n_bits = n.bit_length() - 1
    in_block = _block_bits(device, n)  # the first passes, in shared memory
    radices = _global_radices(n >> in_block)
    launches = (1 if in_block else 0) + len(radices)
    buffers = [empty((rows * n,), dtype, device) for _ in range(min(2, launches))]
    real = _real(dtype).type
    source, ns, number = flat, 1, 0
    if in_block:
        per_block = BLOCK_ELEMENTS >> in_block  # sub-transforms
        blocks = -(-(rows << (n_bits - in_block)) // per_block)
        _block_kernel(forward, dtype, in_block)[min(blocks, 2 ** 31 - 1), BLOCK_THREADS](
            source, buffers[0], twiddles, n_bits, rows, real(scale if launches == 1 else 1.0))
        source, ns, number = buffers[0], 1 << in_block, 1
    for radix in radices:
        target = buffers[number % len(buffers)]
        last = number == launches - 1
        butterflies = rows * (n // radix)
        _pass_kernel(radix, forward, dtype)[_config(device, butterflies)](
            source, target, twiddles, n_bits, ns.bit_length() - 1, rows,
            real(scale if last else 1.0))
        source, ns, number = target, ns * radix, number + 1
    return source


def _block_bits(device, n):
    """log2 of the sub-transforms' length the shared-memory kernel takes first (0: none)."""
    if n < 2 or not uses_shared_memory(device):
        return 0
    return (n if n <= BLOCK_ELEMENTS else STRIDED_LENGTH).bit_length() - 1


def uses_shared_memory(device):
    """Whether the first passes run in shared memory on `device`: on GPUs. An OpenCL CPU
    device (PoCL) runs a block's threads as loops split at each barrier, where the
    shared-memory kernel measured 10x slower than the global passes (2^20 complex64:
    140-290 ms against 19-23 ms on 2 cores)."""
    return (device.is_gpu and device.max_threads_per_block >= BLOCK_THREADS
            and device.max_shared_memory_per_block >= BLOCK_ELEMENTS * 16)


def _block_kernel(forward, dtype, l_bits):
    key = ("block", forward, dtype, l_bits)
    if key not in _kernels:
        name = f"fft_block{1 << l_bits}_{'forward' if forward else 'inverse'}"
        _kernels[key] = _generated.kernel(
            name, _block_text(name, forward, _generated.dtype_name(dtype), l_bits))
    return _kernels[key]


def _config(device, items):
    block = _launch.block_size(device)
    return max(1, min(-(-items // block), 2 ** 31 - 1)), block


def _table(device, what, n, dtype, forward, make):
    """The device array of `make()` (complex values computed on the host in complex128)
    in `dtype`: the table `what` of a length-n transform, kept per device."""
    key = (device.id, what, n, dtype, forward)
    found = _tables.get(key)
    if found is not None:
        _tables.move_to_end(key)
        return found
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
        _kernels[key] = _generated.kernel(
            name, _pass_text(name, radix, forward, _generated.dtype_name(dtype)))
    return _kernels[key]


# Butterfly j of a pass (j < n / R within a row) reads the R elements j + r * n / R,
# multiplies element r by the twiddle w**(r * k) (k = j mod ns, w the (R * ns)-th root of
# unity: index r * k * n / (R * ns) of the table), takes their R-point DFT and writes it
# at (j - k) * R + k + r * ns: the Stockham ordering, sorted after the last pass.
def _pass_text(name, radix, forward, type_name):
    r_bits = radix.bit_length() - 1
    lines = [
        f"def {name}(x, y, w, n_bits, ns_bits, rows, scale):",
        # Every extent is a power of two: shifts and masks, not 64-bit divisions.
        f"    part_bits = n_bits - {r_bits}",
        "    total = rows << part_bits",
        "    i = simt.grid(1)",
        "    step = simt.gridsize(1)",
        "    while i < total:",
        "        row = i >> part_bits",
        "        j = i & ((1 << part_bits) - 1)",
        "        base = row << n_bits",
        "        k = j & ((1 << ns_bits) - 1)",
        "        t = k << (part_bits - ns_bits)",
        "        src = base + j",
        f"        dst = base + ((j - k) << {r_bits}) + k",
        "        a0 = x[src]",
    ]
    lines += [f"        a{r} = x[src + ({r} << part_bits)] * w[{r} * t]" for r in range(1, radix)]
    lines += [f"        {line}" for line in _register_dft(radix, forward, type_name, "a", "o")]
    lines += [f"        y[dst + ({r} << ns_bits)] = o{r} * scale" for r in range(radix)]
    lines.append("        i += step")
    return "\n".join(lines) + "\n"


def _register_dft(radix, forward, type_name, a, o):
    """Statements computing the radix-point DFT (radix 2 to 16) of a0.. into o0..: radix-4
    and radix-2 Stockham stages on named values, their twiddles constants (none for the
    trivial ones), so a pass of radix 16 does four steps between one load and one store."""
    values, ns = [f"{a}{r}" for r in range(radix)], 1
    lines = []
    for stage, r in enumerate(_radices(radix)):
        part = radix // r
        out = [None] * radix
        for j in range(part):
            k = j % ns
            ins = []
            for q in range(r):
                v = values[j + q * part]
                exponent = q * k * (radix // (r * ns))  # of the radix-th root of unity
                if exponent % radix:
                    lines.append(f"{a}w{stage}_{j}_{q} = "
                                 f"{_times_root(v, exponent, radix, forward, type_name)}")
                    v = f"{a}w{stage}_{j}_{q}"
                ins.append(v)
            slots = [(j - k) * r + k + q * ns for q in range(r)]
            outs = [f"{a}v{stage}_{slot}" for slot in slots]
            lines += _butterfly(r, forward, type_name, ins, outs, f"{a}b{stage}_{j}_")
            for slot, name in zip(slots, outs):
                out[slot] = name
        values, ns = out, ns * r
    return lines + [f"{o}{q} = {values[q]}" for q in range(radix)]


def _times_root(v, exponent, radix, forward, type_name):
    """v times exp(-+2 pi i exponent / radix): quarter turns exactly, as a swap of parts
    or a negation; other roots as a complex constant."""
    quarters, rest = divmod(4 * exponent, radix)
    if not rest:
        sign = 1 if forward else -1  # times -i forward, +i inverse, for one quarter
        if quarters % 4 == 2:
            return f"-{v}"
        if (quarters % 4 == 1) == (sign == 1):
            return f"{type_name}(complex({v}.imag, -{v}.real))"
        return f"{type_name}(complex(-{v}.imag, {v}.real))"
    angle = (-2 if forward else 2) * np.pi * exponent / radix
    return f"{v} * {type_name}(complex({float(np.cos(angle))!r}, {float(np.sin(angle))!r}))"


# The first passes in shared memory: a block of BLOCK_THREADS threads loads BLOCK_ELEMENTS
# elements, G sub-transforms of length L, runs their Stockham passes between barriers
# (every thread reads its butterflies' values into registers, then all write), and writes
# them back: one launch and one pass over memory instead of log4(L). A row of n <= 1024
# is a whole sub-transform (G rows per block); a longer row's first log2(L) passes are
# the length-L transforms of the subsequences g, g + S, g + 2S, ... (S = n / L), which
# land at g * L .. g * L + L - 1 (the Stockham order after those passes); the global
# passes go on from there.
BLOCK_THREADS = 256
BLOCK_ELEMENTS = 1024
# The sub-transforms of a long row: G = 4 neighbouring subsequences per block, so each
# load reads 4 neighbouring elements (a 32-byte sector of complex64), not one.
STRIDED_LENGTH = BLOCK_ELEMENTS // 4


def _block_text(name, forward, type_name, l_bits):
    """The kernel computing the first l_bits passes (sub-transforms of length 2**l_bits)
    in shared memory; the shared array holds element m of sub-transform t at m * G + t."""
    length = 1 << l_bits
    g_bits = (BLOCK_ELEMENTS // length).bit_length() - 1
    per_thread = BLOCK_ELEMENTS // BLOCK_THREADS
    lines = [
        f"def {name}(x, y, w, n_bits, rows, scale):",
        f"    sh = simt.shared.array({BLOCK_ELEMENTS}, {type_name})",
        "    tid = simt.threadIdx.x",
        f"    s_bits = n_bits - {l_bits}",
        "    total = rows << s_bits",
        f"    u0 = simt.blockIdx.x << {g_bits}",
        "    while u0 < total:",
    ]
    # Loads: neighbouring threads on neighbouring addresses (along a row when each
    # sub-transform is a whole row, across sub-transforms when they interleave).
    for i in range(per_thread):
        e = f"(tid + {i * BLOCK_THREADS})"
        lines += [
            "        if s_bits == 0:",
            f"            t = {e} >> {l_bits}",
            f"            m = {e} & {length - 1}",
            "        else:",
            f"            t = {e} & {(1 << g_bits) - 1}",
            f"            m = {e} >> {g_bits}",
            "        u = u0 + t",
            "        if u < total:",
            "            row = u >> s_bits",
            "            g = u - (row << s_bits)",
            f"            sh[(m << {g_bits}) + t] = x[(row << n_bits) + g + (m << s_bits)]",
        ]
    lines.append("        simt.syncthreads()")
    ns_bits = 0
    for radix in _radices(length):
        r_bits = radix.bit_length() - 1
        part = length // radix
        count = (BLOCK_ELEMENTS // radix) // BLOCK_THREADS  # butterflies per thread
        for c in range(count):
            b = f"(tid + {c * BLOCK_THREADS})"
            lines += [
                f"        t = {b} & {(1 << g_bits) - 1}",
                f"        j = {b} >> {g_bits}",
                f"        k = j & {(1 << ns_bits) - 1}",
                f"        tw = k << (n_bits - {r_bits + ns_bits})",
                f"        d{c} = ((((j - k) << {r_bits}) + k) << {g_bits}) + t",
            ]
            values = [f"sh[((j + {r * part}) << {g_bits}) + t]" for r in range(radix)]
            lines += [f"        a{c}_0 = {values[0]}"]
            lines += [f"        a{c}_{r} = {values[r]} * w[{r} * tw]" for r in range(1, radix)]
            lines += [f"        {stmt}" for stmt in _butterfly(
                radix, forward, type_name, [f"a{c}_{r}" for r in range(radix)],
                [f"o{c}_{r}" for r in range(radix)], "b")]
        lines.append("        simt.syncthreads()")
        for c in range(count):
            lines += [f"        sh[d{c} + {r << ns_bits << g_bits}] = o{c}_{r}"
                      for r in range(radix)]
        lines.append("        simt.syncthreads()")
        ns_bits += r_bits
    # Stores: sub-transform t's value q goes to g * L + q of its row: neighbouring
    # threads on neighbouring q.
    for i in range(per_thread):
        e = f"(tid + {i * BLOCK_THREADS})"
        lines += [
            f"        t = {e} >> {l_bits}",
            f"        q = {e} & {length - 1}",
            "        u = u0 + t",
            "        if u < total:",
            "            row = u >> s_bits",
            "            g = u - (row << s_bits)",
            f"            y[(row << n_bits) + (g << {l_bits}) + q] = "
            f"sh[(q << {g_bits}) + t] * scale",
        ]
    lines += ["        simt.syncthreads()",
              f"        u0 += simt.gridDim.x << {g_bits}"]
    return "\n".join(lines) + "\n"


def _butterfly(radix, forward, type_name, ins, outs, tmp):
    """Statements computing the radix-point DFT (radix 2 or 4) of the values named `ins`
    into the names `outs`, with temporaries named from `tmp`."""
    a, o = ins, outs
    if radix == 2:
        return [f"{o[0]} = {a[0]} + {a[1]}", f"{o[1]} = {a[0]} - {a[1]}"]
    d = f"{tmp}d"
    # d times -i (forward) or +i (inverse): a swap of parts, not a complex product.
    parts = f"{d}.imag, -{d}.real" if forward else f"-{d}.imag, {d}.real"
    s0, s1, s2, s3 = (f"{tmp}s{i}" for i in range(4))
    return [f"{s0} = {a[0]} + {a[2]}", f"{s1} = {a[0]} - {a[2]}", f"{s2} = {a[1]} + {a[3]}",
            f"{d} = {a[1]} - {a[3]}", f"{s3} = {type_name}(complex({parts}))",
            f"{o[0]} = {s0} + {s2}", f"{o[1]} = {s1} + {s3}", f"{o[2]} = {s0} - {s2}",
            f"{o[3]} = {s1} - {s3}"]


def _bluestein(flat, rows, n, forward, scale):
    """X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]), c[j] = exp(-+ pi i j^2 / n): the
    convolution as a product of power-of-two FFTs of length m >= 2n - 1."""
    device, dtype = flat.device, flat.dtype
    m = 1 << (2 * n - 2).bit_length()
    chirp = _table(device, "chirp", n, dtype, forward, lambda: _chirp(n, forward))
    kernel = _table(device, "chirp_spectrum", n, dtype, forward,
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
