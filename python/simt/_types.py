"""simt type names of Python values, as kernel signatures spell them."""

import numpy as np

from . import _core

_PYTHON_SCALARS = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def typeof(value, name=None):
    """The simt type of an argument value, or of a type given as a string or dtype.

    Values are classified by the launch path itself (``_core.typeof``), so the type
    is the one a launch with that value compiles for. ``name`` names the argument in
    errors."""
    if isinstance(value, str):
        try:
            return _core.normalize_type(value)
        except ValueError:
            where = f"argument {name!r}: " if name else ""
            raise TypeError(f"{where}not a simt type: {value!r}") from None
    if isinstance(value, type) and value in _PYTHON_SCALARS:
        return _PYTHON_SCALARS[value]
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return _scalar_name(np.dtype(value))
    return _core.typeof(value, name or "value")


def _scalar_name(dtype):
    try:
        return _core.normalize_type(dtype.name)
    except ValueError:
        raise TypeError(f"dtype {dtype} is not supported in simt kernels") from None
