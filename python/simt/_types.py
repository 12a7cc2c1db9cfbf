"""simt type names of Python values, as kernel signatures spell them."""

import numpy as np

from . import _core

_PYTHON_SCALARS = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def array_type(dtype, ndim, layout):
    """'float32[:, ::1]' for a C-contiguous 2-D float32 array ('C', 'F' or 'A')."""
    dims = [":"] * ndim
    if ndim and layout == "C":
        dims[-1] = "::1"
    elif ndim and layout == "F":
        dims[0] = "::1"
    return f"{np.dtype(dtype).name}[{', '.join(dims)}]"


def typeof(value):
    """The simt type of an argument value, or of a type given as a string or dtype."""
    if isinstance(value, str):
        try:
            return _core.normalize_type(value)
        except ValueError:
            raise TypeError(f"not a simt type: {value!r}") from None
    if isinstance(value, type) and value in _PYTHON_SCALARS:
        return _PYTHON_SCALARS[value]
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return _scalar_name(np.dtype(value))
    for kind, name in _PYTHON_SCALARS.items():
        if type(value) is kind:
            if kind is int and not -(2 ** 63) <= value < 2 ** 63:
                raise TypeError(f"the int {value} does not fit in int64")
            return name
    if isinstance(value, np.generic):
        return _scalar_name(value.dtype)
    from ._array import Array  # noqa: PLC0415  (the array module imports this one)

    if isinstance(value, Array):
        return array_type(value.dtype, value.ndim, _layout(value.shape, value.strides,
                                                           value.itemsize))
    if isinstance(value, np.ndarray):
        if value.ndim == 0:  # a 0-d array passes its value, as a NumPy scalar does
            return _scalar_name(value.dtype)
        layout = "C" if value.flags.c_contiguous else "F" if value.flags.f_contiguous else "A"
        return array_type(_scalar_name(value.dtype), value.ndim, layout)
    if isinstance(value, tuple):
        items = [typeof(item) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    raise TypeError(f"simt kernels do not accept {type(value).__name__} values")


def _layout(shape, strides, itemsize):
    """'C', 'F' or 'A', as NumPy's flags decide (extents of 1 take any stride)."""
    if 0 in shape:
        return "C"

    def contiguous(order):
        expected = itemsize
        for extent, stride in order:
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    dims = list(zip(shape, strides))
    return "C" if contiguous(reversed(dims)) else "F" if contiguous(dims) else "A"


def _scalar_name(dtype):
    try:
        return _core.normalize_type(dtype.name)
    except ValueError:
        raise TypeError(f"dtype {dtype} is not supported in simt kernels") from None
