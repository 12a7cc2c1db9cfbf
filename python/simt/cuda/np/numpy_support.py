"""Numba's numba.cuda.np.numpy_support: from_dtype and as_dtype (NumPy dtypes and simt.cuda's
type objects), carray and farray (NumPy views of host memory at a pointer)."""

import ctypes
import math

import numpy as np

from ..types import SCALARS, Record, Scalar, _Type

__all__ = ["from_dtype", "as_dtype", "carray", "farray"]


def from_dtype(dtype):
    """The type object of a NumPy dtype (np.float32 -> float32; a record dtype -> its
    record type), as Numba's numpy_support.from_dtype."""
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        try:
            return Record(dtype)
        except TypeError as error:
            raise NotImplementedError(f"from_dtype: {dtype}: {error}") from None
    if dtype.kind not in "biufc" or not dtype.isnative:
        raise NotImplementedError(f"from_dtype: {dtype} is not a number type simt's kernels "
                                  f"take")
    return SCALARS[dtype.name]


def as_dtype(nbtype):
    """The NumPy dtype of a number or record type object (float32 -> dtype('float32'))."""
    if isinstance(nbtype, (Scalar, Record)):
        return nbtype.dtype
    if isinstance(nbtype, _Type):
        raise NotImplementedError(f"as_dtype: {nbtype} cannot be represented as a NumPy dtype")
    return np.dtype(nbtype)


def _from_pointer(ptr, shape, dtype, order, where):
    pointed = None
    if isinstance(ptr, ctypes._Pointer):
        pointed = np.dtype(ptr._type_)
    elif isinstance(ptr, ctypes.Array):
        pointed = np.dtype(ptr._type_)
        ptr = ctypes.cast(ptr, ctypes.c_void_p)
    if dtype is None:
        if pointed is None:
            raise TypeError(f"{where}: the dtype of a {type(ptr).__name__} pointer must be "
                            f"given")
        dtype = pointed
    dtype = np.dtype(dtype)
    if pointed is not None and pointed != dtype:
        raise TypeError(f"{where}: mismatching dtype {dtype} for a pointer to {pointed}")
    if isinstance(ptr, int):
        address = ptr
    elif isinstance(ptr, ctypes.c_void_p):
        address = ptr.value
    else:
        address = ctypes.cast(ptr, ctypes.c_void_p).value
    if not address:
        raise ValueError(f"{where}: a null pointer")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = math.prod(shape)
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype, count).reshape(shape, order=order)


def carray(ptr, shape, dtype=None):
    """A C-ordered NumPy array of `shape` over the host memory at `ptr` (a ctypes pointer
    or array, or an int address with `dtype`), no copy: Numba's carray on the host. Not
    available inside kernels (simt's kernel language has no pointers)."""
    return _from_pointer(ptr, shape, dtype, "C", "carray")


def farray(ptr, shape, dtype=None):
    """carray in Fortran order."""
    return _from_pointer(ptr, shape, dtype, "F", "farray")
