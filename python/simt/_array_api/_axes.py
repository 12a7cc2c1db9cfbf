"""Axis arguments, read as NumPy reads them: one place for every family's check."""

import operator

import numpy as np


def normalize_axis(axis, ndim, where):
    """`axis` as a non-negative int below `ndim`: a TypeError naming `where` for a non-int,
    NumPy's AxisError (both an IndexError and a ValueError) when out of range."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{where}: axis must be an int, not {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise np.exceptions.AxisError(a, ndim, where)
    return a % ndim
