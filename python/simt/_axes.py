"""Axis arguments, read as NumPy reads them: one place for every family's check (the core's,
since the snippet kernels read it too)."""

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


def normalize_axes(axis, ndim, where):
    """`axis` of a reduction (None for all, an int or a tuple of ints) as the sorted tuple of
    distinct non-negative axes: normalize_axis's errors, and a ValueError for a repeat."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    found = []
    for item in items:
        try:
            a = operator.index(item)
        except TypeError:
            raise TypeError(f"{where}: axis must be an int, a tuple of ints or None, not "
                            f"{type(item).__name__}") from None
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim, where)
        found.append(a % ndim)
    if len(set(found)) != len(found):
        raise ValueError(f"{where}: an axis repeats in {axis}")
    return tuple(sorted(found))
