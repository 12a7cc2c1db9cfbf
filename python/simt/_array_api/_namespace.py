"""What `simt` exports as the array namespace, gathered from each family's module (their
__all__ and their METHODS for simt.Array), and Array given its operators and methods."""

import builtins

import numpy as np

from .._array import Array, to_device as _to_device
from .._device import get_device
from . import (_creation, _dtypes, _fusion, _indexing, _info, _linalg, _manipulation, _methods,
               _numpy_extras, _numpy_protocol, _printing, _reduction, _searching, _sets,
               _sorting, _statistics)
from ._elementwise import FUNCTIONS as _ELEMENTWISE

__array_api_version__ = "2024.12"

_FAMILIES = (_creation, _dtypes, _manipulation, _reduction, _indexing, _linalg, _sorting,
             _searching, _sets, _fusion, _printing, _numpy_protocol, _info, _numpy_extras,
             _statistics)

globals().update(_ELEMENTWISE)
for _family in _FAMILIES:
    globals().update({name: getattr(_family, name) for name in _family.__all__})

__all__ = (["__array_api_version__", "get_array_module"] + sorted(_ELEMENTWISE)
           + [name for family in _FAMILIES for name in family.__all__])


def get_array_module(*args):
    """CuPy's get_array_module: simt where any argument is a simt array, else NumPy, so that
    one function body (``xp = simt.get_array_module(x)``) serves both."""
    import simt

    return simt if builtins.any(isinstance(arg, Array) for arg in args) else np


def _array_namespace(self, /, *, api_version=None):
    """The array API namespace of the array: simt itself."""
    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        raise ValueError(f"simt implements the array API 2024.12, not {api_version!r}")
    import simt

    return simt


def _to_device_method(self, device, /, *, stream=None):
    """A copy of the array on `device` (the array itself when it is there already)."""
    if get_device(device) == self.device:
        return self
    return _to_device(self, device=device, stream=stream)


def _astype_method(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """The array converted to `dtype` (simt.astype), with NumPy's keywords: `casting` is
    checked as NumPy checks it; the result is C-contiguous for order 'K', 'A' or 'C'."""
    if order not in ("K", "A", "C"):
        raise ValueError(f"astype: simt arrays convert to C order ('K', 'A' or 'C'), not "
                         f"order={order!r}")
    if not np.can_cast(self.dtype, dtype, casting=casting):
        raise TypeError(f"astype: cannot cast from {self.dtype} to {np.dtype(dtype)} under "
                        f"casting={casting!r}")
    return _dtypes.astype(self, dtype, copy=copy)


_METHODS = {
    "__array_namespace__": _array_namespace,
    "to_device": _to_device_method,
    "astype": _astype_method,
    "conj": lambda self: _ELEMENTWISE["conj"](self),
}
for _family in _FAMILIES:
    _METHODS.update(getattr(_family, "METHODS", {}))
_methods.install(_METHODS)
