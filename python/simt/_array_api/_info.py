"""The array API's inspection namespace (`simt.__array_namespace_info__()`: what simt can do,
on which devices, in which dtypes) and its constants (`e pi inf nan newaxis`).

The devices and their double precision are asked of the runtime when the functions are
called, so they stay true as devices come and go (SIMT_DEVICE, use_device).
"""

import math

import numpy as np

from .._device import current_device, devices as _devices, get_device
from .._launch import has_float64

__all__ = ["__array_namespace_info__", "e", "pi", "inf", "nan", "newaxis"]

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

# The standard's dtypes, by the kind names dtypes(kind=) takes (isdtype's). float16 is not
# one of them (simt has it, as NumPy does, outside the standard).
_KIND_DTYPES = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KIND_DTYPES["integral"] = _KIND_DTYPES["signed integer"] + _KIND_DTYPES["unsigned integer"]
_KIND_DTYPES["numeric"] = (_KIND_DTYPES["integral"] + _KIND_DTYPES["real floating"]
                           + _KIND_DTYPES["complex floating"])
_ALL_DTYPES = _KIND_DTYPES["bool"] + _KIND_DTYPES["numeric"]
_DOUBLE = ("float64", "complex128")


# The most axes an array may have: the runtime's abi::kMaxDims (src/abi/arg_type.h), which
# the extension does not export (tests/python/test_array_info.py checks the two agree).
MAX_DIMENSIONS = 32


class _Info:
    """What `simt.__array_namespace_info__()` returns: the standard's five inspection
    functions."""

    __slots__ = ()

    def capabilities(self):
        """What simt supports beyond the standard's minimum: boolean-mask indexing and
        functions whose output shape depends on the data (nonzero, unique_*) everywhere,
        and arrays of up to 'max dimensions' axes."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": MAX_DIMENSIONS}

    def default_device(self):
        """The device arrays are made on when no device is named: the current one."""
        return current_device()

    def default_dtypes(self, *, device=None):
        """The dtypes creation functions give when none is named (the same on every device:
        float64 and complex128 also on a device without double precision, where computing
        in them raises TypeError), and that of indices ("indexing")."""
        _checked_device(device)
        return {"real floating": np.dtype(np.float64), "complex floating":
                np.dtype(np.complex128), "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.int64)}

    def devices(self):
        """Every device simt can use: cuda:N, then opencl:N, then the CPU."""
        return list(_devices())

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes that `device` (default: the current one) computes in, by
        name, optionally only those of `kind` (a kind name of isdtype, or a tuple of them):
        float64 and complex128 only where the device has double precision."""
        device = _checked_device(device)
        names = _names_of_kind(kind)
        if not has_float64(device):
            names = [n for n in names if n not in _DOUBLE]
        return {name: np.dtype(name) for name in names}


def _checked_device(device):
    """The simt.Device named by `device` (None: the current one); a clear error otherwise."""
    if device is None:
        return current_device()
    try:
        return get_device(device)
    except TypeError:
        raise TypeError(f"simt.__array_namespace_info__(): device must be a simt.Device or "
                        f"an id such as 'cpu', not {type(device).__name__}") from None


def _names_of_kind(kind):
    if kind is None:
        return list(_ALL_DTYPES)
    if isinstance(kind, tuple):
        chosen = {name for k in kind for name in _names_of_kind(k)}
        return [name for name in _ALL_DTYPES if name in chosen]
    if not isinstance(kind, str) or kind not in _KIND_DTYPES:
        raise ValueError(f"simt.__array_namespace_info__().dtypes: kind must be None, one of "
                         f"{', '.join(map(repr, _KIND_DTYPES))} or a tuple of them, not "
                         f"{kind!r}")
    return list(_KIND_DTYPES[kind])


def __array_namespace_info__():
    """The array API's inspection namespace: capabilities(), default_device(),
    default_dtypes(device=), devices(), dtypes(device=, kind=)."""
    return _Info()
