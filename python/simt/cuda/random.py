"""numba.cuda.random for `simt.cuda`: the xoroshiro128+ generator with Numba's algorithm
(its seeding by SplitMix64, its rotations 55/14/36, its jump of 2**64 steps between
generators, its conversions to floats), so a seed gives Numba's streams, on every device.

The states of n generators are a simt array of shape (n, 2), uint64 (s0, s1), where
Numba has a record array of n; programs only pass them to these functions. Generator i
starts at J**i applied to the seeded state, J the jump; the jump is linear over GF(2), so
its powers J**(2**k) are 128x128 bit matrices computed once on the host, and a kernel
starts every generator at once from the binary digits of i.
"""

import numpy as np

from .. import _array, _device_api as cuda
from .._device import block_size
from .._kernel import func, kernel
from .._resolve import ATTRIBUTE_FUNCTIONS

# Kernels name this module as `cuda.random`: its device functions are then resolved
# as the globals "simt.random.<name>" (_resolve.py), so `cuda.random.f(...)` works.
_simt_member = ("simt", "random")

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


# ---- device functions (what kernels call) -----------------------------------------------

@func
def xoroshiro128p_next(states, index):
    """The next uint64 of generator `index`, advancing it."""
    s0 = states[index, 0]
    s1 = states[index, 1]
    result = s0 + s1
    s1 ^= s0
    states[index, 0] = ((s0 << np.uint64(55)) | (s0 >> np.uint64(9))) ^ s1 ^ (s1 << np.uint64(14))
    states[index, 1] = (s1 << np.uint64(36)) | (s1 >> np.uint64(28))
    return result


@func
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1): the top 53 bits of the next uint64."""
    return np.float64(xoroshiro128p_next(states, index) >> np.uint64(11)) * \
        1.1102230246251565e-16


@func
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0, 1): Numba's float64 value rounded to float32. Computed as the
    53-bit integer rounded to float32, then scaled by 2**-53 (exact): the same value,
    with no float64 arithmetic (OpenCL devices without it run this too)."""
    return np.float32(xoroshiro128p_next(states, index) >> np.uint64(11)) * \
        np.float32(1.1102230246251565e-16)


@func
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 (Box-Muller from two uniforms; the second normal value
    is dropped, as Numba's)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.float32(np.sqrt(np.float32(-2.0) * np.log(u1)) *
                      np.cos(np.float32(6.283185307179586) * u2))


@func
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64 (Box-Muller; from float32 uniforms, as Numba's)."""
    u1 = np.float64(xoroshiro128p_uniform_float32(states, index))
    u2 = np.float64(xoroshiro128p_uniform_float32(states, index))
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)


@kernel
def _start_generators(states, table, base0, base1):
    # generator i starts at J**i (base): the powers J**(2**level) for the set bits of i
    i = cuda.grid(1)
    if i < states.shape[0]:
        s0 = base0
        s1 = base1
        j = i
        level = 0
        while j > 0:
            if j % 2 == 1:
                r0 = np.uint64(0)
                r1 = np.uint64(0)
                for b in range(64):
                    if (s0 >> np.uint64(b)) & np.uint64(1) != 0:
                        r0 ^= table[level, b, 0]
                        r1 ^= table[level, b, 1]
                    if (s1 >> np.uint64(b)) & np.uint64(1) != 0:
                        r0 ^= table[level, 64 + b, 0]
                        r1 ^= table[level, 64 + b, 1]
                s0 = r0
                s1 = r1
            j //= 2
            level += 1
        states[i, 0] = s0
        states[i, 1] = s1


# ---- the host side: seeding and the jump's matrices ---------------------------------------

def _next(s0, s1):
    s1 ^= s0
    s0 = (((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14)) & _MASK
    s1 = ((s1 << 36) | (s1 >> 28)) & _MASK
    return s0, s1


def _jump(s0, s1):
    """xoroshiro128+'s jump: 2**64 steps ahead (used for the matrix of J)."""
    t0 = t1 = 0
    for word in _JUMP:
        for bit in range(64):
            if word >> bit & 1:
                t0 ^= s0
                t1 ^= s1
            s0, s1 = _next(s0, s1)
    return t0, t1


def _seeded(seed):
    """SplitMix64 of the seed, as both halves of the first generator's state."""
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return z, z


_powers = []  # _powers[k]: J**(2**k) as its 128 columns, a (128, 2) uint64 array


def _apply(columns, vectors):
    """The bit matrix (its columns) applied to each (s0, s1) row of `vectors`."""
    result = np.zeros_like(vectors)
    for bit in range(128):
        word, shift = divmod(bit, 64)
        chosen = (vectors[:, word] >> np.uint64(shift)) & np.uint64(1) == 1
        result[chosen] ^= columns[bit]
    return result


def _power_table(levels):
    """J**(2**k) for k < levels (each the square of the last)."""
    if not _powers:
        units = [(1 << b, 0) if b < 64 else (0, 1 << (b - 64)) for b in range(128)]
        _powers.append(np.array([_jump(*u) for u in units], np.uint64))
    while len(_powers) < levels:
        _powers.append(_apply(_powers[-1], _powers[-1]))
    return np.stack(_powers[:levels])


def _start(seed, subsequence_start):
    """The first generator's state: the seeded state jumped subsequence_start times."""
    state = np.array([_seeded(int(seed) & _MASK)], np.uint64)
    count = int(subsequence_start)
    if count < 0:
        raise ValueError(f"subsequence_start must be >= 0, not {subsequence_start}")
    table = _power_table(max(count.bit_length(), 1))
    for level in range(count.bit_length()):
        if count >> level & 1:
            state = _apply(table[level], state)
    return int(state[0, 0]), int(state[0, 1])


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Starts the generators of `states` (an (n, 2) uint64 device array) from `seed`,
    each 2**64 steps after the one before, the first after `subsequence_start` jumps."""
    if states.ndim != 2 or states.shape[1] != 2 or states.dtype != np.uint64:
        raise ValueError(f"init_xoroshiro128p_states: states must be an (n, 2) uint64 array "
                         f"(create_xoroshiro128p_states makes one), not {states.shape} "
                         f"{states.dtype}")
    n = states.shape[0]
    if n == 0:
        return
    base0, base1 = _start(seed, subsequence_start)
    table = _array.to_device(_power_table(max((n - 1).bit_length(), 1)), device=states.device)
    block = block_size(states.device, 128)
    _start_generators[-(-n // block), block, stream](states, table, np.uint64(base0),
                                                     np.uint64(base1))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """The states of n generators on the current device, started from `seed` (Numba's
    streams for the same seed)."""
    states = _array.empty((n, 2), np.uint64)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


# Kernels may call them as `cuda.random.<name>` (_resolve.py).
ATTRIBUTE_FUNCTIONS.update({f.__name__: f for f in (
    xoroshiro128p_next, xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float32, xoroshiro128p_normal_float64)})
