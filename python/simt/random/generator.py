"""CuPy's legacy RandomState (``cupy.random.generator.RandomState``) and the module-level
state behind ``simt.random.rand``, ``normal``, ``choice`` and the other legacy functions.

A RandomState draws from a simt.random.Generator (Philox4x32-10, on every device): the
values are not NumPy's or CuPy's Mersenne Twister / XORWOW streams, but a seed gives the
same values on every device. Distribution parameters may be arrays (simt, NumPy or
lists), broadcast against each other and `size`, as NumPy's.
"""

import numpy as np

from .. import _array
from .._array import Array
from ._generator import default_rng

__all__ = ["RandomState", "get_random_state", "set_random_state", "reset_states"]


def _is_scalar(value):
    return not isinstance(value, (Array, np.ndarray, list, tuple))


class RandomState:
    """NumPy's and CuPy's RandomState interface over a simt.random.Generator.

    ``RandomState(seed)`` seeds as ``simt.random.default_rng(seed)``; ``seed(s)`` reseeds.
    Every method takes `device` (default: the current device) and returns simt arrays.
    """

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        """Reseeds the state (fresh entropy for None)."""
        self._generator = default_rng(seed)

    def __repr__(self):
        return f"simt.random.RandomState({self._generator!r})"

    # --- uniform --------------------------------------------------------------------------

    def random_sample(self, size=None, dtype=float, *, device=None):
        """Uniform floats in [0, 1)."""
        return self._generator.random(size, np.dtype(dtype), device=device)

    random = ranf = sample = random_sample

    def rand(self, *size, dtype=float, device=None):
        """Uniform floats in [0, 1) of shape `size` (given as separate ints)."""
        return self.random_sample(size, dtype, device=device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float, *, device=None):
        """Uniform floats in [low, high); low and high may be arrays."""
        if _is_scalar(low) and _is_scalar(high):
            return self._generator.uniform(low, high, size, np.dtype(dtype), device=device)
        return self._affine(low, high, size, dtype, device, self.random_sample, span=True)

    # --- normal and derived ---------------------------------------------------------------

    def standard_normal(self, size=None, dtype=float, *, device=None):
        """Standard normal floats."""
        return self._generator.standard_normal(size, np.dtype(dtype), device=device)

    def randn(self, *size, dtype=float, device=None):
        """Standard normal floats of shape `size` (given as separate ints)."""
        return self.standard_normal(size, dtype, device=device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float, *, device=None):
        """Normal floats of mean `loc` and standard deviation `scale`; either may be an
        array."""
        if _is_scalar(loc) and _is_scalar(scale):
            return self._generator.normal(loc, scale, size, np.dtype(dtype), device=device)
        return self._affine(loc, scale, size, dtype, device, self.standard_normal)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=float, *, device=None):
        """exp of normal floats of mean `mean` and standard deviation `sigma`."""
        import simt

        return simt.exp(self.normal(mean, sigma, size, dtype, device=device))

    def standard_exponential(self, size=None, dtype=float, *, device=None):
        """Exponential floats of mean 1."""
        return self._generator.standard_exponential(size, np.dtype(dtype), device=device)

    def exponential(self, scale=1.0, size=None, dtype=float, *, device=None):
        """Exponential floats of mean `scale`."""
        return self._generator.exponential(scale, size, np.dtype(dtype), device=device)

    # --- integers and permutations --------------------------------------------------------

    def randint(self, low, high=None, size=None, dtype=int, *, device=None):
        """Integers in [low, high) ([0, low) without high)."""
        return self._generator.integers(low, high, size, dtype, device=device)

    def random_integers(self, low, high=None, size=None, *, device=None):
        """Integers in [low, high] ([1, low] without high), NumPy's deprecated form."""
        if high is None:
            low, high = 1, low
        return self._generator.integers(low, high, size, np.int64, endpoint=True,
                                        device=device)

    def choice(self, a, size=None, replace=True, p=None, *, device=None):
        """Samples of `a` (an array, or range(a) for an int), as numpy.random.choice."""
        return self._generator.choice(a, size, replace, p, device=device)

    def permutation(self, x, *, device=None):
        """A permuted range(x) (x an int) or a permuted copy of the array x (first axis)."""
        return self._generator.permutation(x, device=device)

    def shuffle(self, x):
        """Permutes the simt array x in place along its first axis."""
        self._generator.shuffle(x)

    # --- helpers --------------------------------------------------------------------------

    def _affine(self, a, b, size, dtype, device, draw, span=False):
        # a + b * draw() (or a + (b - a) * draw() for spans), the parameters broadcast with
        # each other and `size` on the device the draw is on.
        import simt

        device = device if device is not None else next(
            (p.device for p in (a, b) if isinstance(p, Array)), None)
        a, b = (p if isinstance(p, Array) else simt.asarray(np.asarray(p, dtype=dtype),
                                                             device=device) for p in (a, b))
        if size is None:
            shape = np.broadcast_shapes(a.shape, b.shape)
        else:
            shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
            if np.broadcast_shapes(a.shape, b.shape, shape) != shape:
                raise ValueError(f"shape mismatch: parameters of shapes {a.shape} and "
                                 f"{b.shape} do not broadcast to size {shape}")
        if not span and bool(simt.any(b < 0)):  # a scale (one read of the device)
            raise ValueError("scale < 0: the standard deviation must be non-negative")
        values = draw(shape, dtype, device=device if device is not None else a.device)
        if span:
            b = b - a
        return (a + b * values).astype(np.dtype(dtype), copy=False)


_state = None


def get_random_state():
    """The RandomState behind the module-level functions (seeded from fresh entropy first)."""
    global _state
    if _state is None:
        _state = RandomState()
    return _state


def set_random_state(rs):
    """Makes `rs` the RandomState behind the module-level functions."""
    global _state
    if not isinstance(rs, RandomState):
        raise TypeError(f"set_random_state takes a simt.random.RandomState, not "
                        f"{type(rs).__name__}")
    _state = rs


def reset_states():
    """Forgets the module-level state: the next draw seeds a fresh one."""
    global _state
    _state = None
