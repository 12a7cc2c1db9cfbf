"""Data types: the array API's dtype functions (astype, can_cast, result_type, finfo, iinfo,
isdtype) and the dtypes' names. Promotion is NumPy 2's, which is the standard's where the
standard defines it (and NumPy's, NEP 50, for mixed kinds and Python scalars)."""

from typing import NamedTuple

import numpy as np

from .._array import Array
from ._elementwise import contiguous_copy

__all__ = ["astype", "can_cast", "result_type", "finfo", "iinfo", "isdtype"]

# The kinds of isdtype (the standard's names) as NumPy's dtype kinds.
_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to `dtype` (NumPy's astype conversions; complex to real keeps the real
    part), on `device` (default x's). With copy=False, x itself when nothing changes."""
    if not isinstance(x, Array):
        raise TypeError(f"astype takes a simt array, not {type(x).__name__}")
    dtype = np.dtype(dtype)
    if device is not None and device != x.device:
        x = x.to_device(device)
        copy = False
    if dtype == x.dtype and not copy:
        return x
    return contiguous_copy(x, dtype)


def _dtype_of(value):
    if isinstance(value, Array):
        return value.dtype
    if isinstance(value, (bool, int, float, complex)):
        return value  # Python scalars stay weak, as in NumPy
    return np.dtype(value)


def result_type(*arrays_and_dtypes):
    """The dtype the operands promote to (Python scalars weak)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    return np.result_type(*map(_dtype_of, arrays_and_dtypes))


def can_cast(from_, to, /, casting="safe"):
    """Whether `from_` (a dtype or an array) converts to `to` under `casting`."""
    source = from_.dtype if isinstance(from_, Array) else np.dtype(from_)
    return bool(np.can_cast(source, np.dtype(to), casting))


class finfo_object(NamedTuple):
    """Machine limits of a floating dtype as the array API gives them: Python floats (and
    ints), not NumPy scalars, so that they mix with any namespace's arrays. Besides the
    standard's fields, NumPy's `tiny` (smallest_normal), `resolution` and `precision`."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype
    resolution: float
    precision: int

    @property
    def tiny(self):
        return self.smallest_normal


class iinfo_object(NamedTuple):
    """Machine limits of an integer dtype as the array API gives them: Python ints."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def _dtype_of_type(type, where):
    try:
        return type.dtype if isinstance(type, Array) else np.dtype(type)
    except TypeError:
        raise TypeError(f"{where} takes a dtype or a simt array, not {type!r}") from None


def finfo(type, /):
    """Machine limits of a floating dtype (of a complex dtype: of its real parts), as
    Python floats: bits, eps, max, min, smallest_normal, dtype."""
    dtype = _dtype_of_type(type, "simt.finfo")
    if dtype.kind not in "fc":
        raise ValueError(f"simt.finfo takes a floating or complex dtype, not {dtype}")
    info = np.finfo(dtype)
    return finfo_object(bits=int(info.bits), eps=float(info.eps), max=float(info.max),
                        min=float(info.min), smallest_normal=float(info.smallest_normal),
                        dtype=info.dtype, resolution=float(info.resolution),
                        precision=int(info.precision))


def iinfo(type, /):
    """Machine limits of an integer dtype, as Python ints: bits, max, min, dtype."""
    dtype = _dtype_of_type(type, "simt.iinfo")
    if dtype.kind not in "iu":
        raise ValueError(f"simt.iinfo takes an integer dtype, not {dtype}")
    info = np.iinfo(dtype)
    return iinfo_object(bits=int(info.bits), max=int(info.max), min=int(info.min),
                        dtype=info.dtype)


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: a dtype, one of the standard's kind names ('bool',
    'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
    'numeric') or a tuple of them."""
    dtype = np.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        try:
            return dtype.kind in _KINDS[kind]
        except KeyError:
            raise ValueError(f"unknown dtype kind {kind!r}; the kinds are "
                             f"{', '.join(map(repr, _KINDS))}") from None
    return dtype == np.dtype(kind)
