"""Numba's numba.cuda.np: numpy_support."""

from . import numpy_support  # noqa: F401
