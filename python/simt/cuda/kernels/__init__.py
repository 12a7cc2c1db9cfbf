"""Numba's numba.cuda.kernels: transpose and reduction."""

from . import reduction, transpose  # noqa: F401
