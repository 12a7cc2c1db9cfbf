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

The legacy functions (seed, rand, randn, random_sample, uniform, normal, lognormal,
exponential, randint, choice, permutation, shuffle, ...) and CuPy's RandomState
(simt.random.generator) draw from a Generator too: one module-level RandomState, seeded by
seed(s) (fresh entropy until then); they are not NumPy's Mersenne Twister streams.
"""

from ._generator import Generator, default_rng
from . import generator
from .generator import RandomState, get_random_state, reset_states, set_random_state

# The legacy functions (NumPy's and CuPy's numpy.random.* names) and what they call on
# the module-level RandomState.
_LEGACY = ("rand", "randn", "random_sample", "random", "ranf", "sample", "uniform",
           "standard_normal", "normal", "lognormal", "standard_exponential", "exponential",
           "randint", "random_integers", "choice", "permutation", "shuffle")

__all__ = ["Generator", "default_rng", "RandomState", "get_random_state", "set_random_state",
           "reset_states", "seed", *_LEGACY]


def seed(seed=None):
    """Reseeds the state behind the legacy functions (as default_rng(seed) seeds)."""
    get_random_state().seed(seed)


def _legacy(name):
    def function(*args, **kwargs):
        return getattr(get_random_state(), name)(*args, **kwargs)
    method = getattr(RandomState, name)
    function.__name__, function.__qualname__, function.__doc__ = name, name, method.__doc__
    return function


globals().update({name: _legacy(name) for name in _LEGACY})
