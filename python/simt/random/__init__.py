"""simt.random: NumPy's Generator interface on every device (cpu, opencl:N, cuda:N).

    rng = simt.random.default_rng(42)
    x = rng.random(1_000_000, dtype=simt.float32, device="cuda:0")
    n = rng.normal(0.0, 2.0, size=(3, 4))            # on the current device
    k = rng.integers(0, 10, size=100, device="cpu")

The generator is Philox4x32-10 (the counter-based generator of cuRAND and Random123),
computed by kernels simt generates in its own kernel language. A seed gives the same
values on every device, whatever the launch layout: a value depends only on the key, the
counter and its position in the call (see _philox and _distributions for the exact
mapping of blocks to values, and _generator for the counter's bookkeeping).

Seeding: default_rng(seed) takes the first two 32-bit words of
numpy.random.SeedSequence(seed).generate_state as the 64-bit key (the first word the
low half); the counter starts at 0. seed=None draws fresh entropy from the operating
system. The values differ from NumPy's (NumPy's Philox is Philox4x64, and its normals come
from a ziggurat); their distributions are the same.

The legacy helpers (seed, rand, randn, random, random_sample, randint) draw from one
module-level Generator, seeded by seed(s) (fresh entropy until then); they are not NumPy's
Mersenne Twister streams.
"""

from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "random", "random_sample",
           "randint"]

_global = None


def _shared():
    global _global
    if _global is None:
        _global = default_rng()
    return _global


def seed(seed=None):
    """Reseeds the generator behind the legacy helpers (as default_rng(seed) seeds)."""
    global _global
    _global = default_rng(seed)


def rand(*shape, device=None):
    """Uniform float64 values in [0, 1) of the given shape (a 0-d array for none)."""
    return _shared().random(shape, device=device)


def randn(*shape, device=None):
    """Standard normal float64 values of the given shape (a 0-d array for none)."""
    return _shared().standard_normal(shape, device=device)


def random(size=None, *, device=None):
    """Uniform float64 values in [0, 1) (Generator.random)."""
    return _shared().random(size, device=device)


random_sample = random


def randint(low, high=None, size=None, dtype=int, *, device=None):
    """Integers in [low, high) ([0, low) without high), as numpy.random.randint."""
    return _shared().integers(low, high, size, dtype, device=device)
