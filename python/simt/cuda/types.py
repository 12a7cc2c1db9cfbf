"""numba.cuda.types: Numba's type objects for `simt.cuda`: `float32`, `int32[:]`, `float32[:, ::1]`,
`void(float32[:], int32)`, `types.Array(types.float32, 2, "C")`, `types.UniTuple(...)`,
record types (`numpy_support.from_dtype(np.dtype([...]))`) and the short names
`f4 f8 i4 i8 u4 u8 b1`.

Each is simt's own spelling of a type underneath (str() gives it: "float32[:, ::1]",
"void(float32[:], int32)"), which is what simt's kernels take as signatures, so they
serve `cuda.jit(...)` as Numba's do. A scalar type is also a dtype (`np.dtype(float32)`,
`cuda.device_array(n, dtype=float32)`) and, inside kernels, names that dtype
(`cuda.local.array(4, dtype=float32)`, `float32(x)`).
"""

import numpy as np

from .. import _core, _types
from . import _models


class _Spelled:
    """Something spelled in simt's type text: str() gives it, and so does `_simt_type_`,
    the one thing the core reads of it (simt._types.type_text)."""

    def __init__(self, name):
        self._text = name

    @property
    def _simt_type_(self):
        return self._text

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def __eq__(self, other):
        return isinstance(other, _Spelled) and str(other) == self._text

    def __hash__(self):
        return hash(self._text)


class _Type(_Spelled):
    """A type object (Numba's types.Type, the base of them all); a signature is not one.

    Extension code subclasses it (`class MyType(types.Type)`) and gives the subclass a
    data model (`extending.register_model`): a type with a struct model is the record of
    its members in simt's type text, as a dtype and in array types (`MyType()[::1]`)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name

    @property
    def _simt_type_(self):
        dtype = _models.struct_dtype(self)
        return self._text if dtype is None else _types.record_text(dtype)

    def __getattr__(self, name):
        # Only for names an instance does not have: what a type with a struct model has of
        # a record type, its dtype and (for kernels' globals) its description.
        dtype = _models.struct_dtype(self) if name in ("dtype", "_simt_describe_") else None
        if dtype is not None and name == "dtype":
            return dtype
        if dtype is not None:
            return lambda: _core.Global.dtype(_types.record_text(dtype))
        raise AttributeError(f"type {self} has no attribute {name!r}")

    def __getitem__(self, key):
        """MyType()[::1]: an array type of a type with a struct model."""
        return _array_type(self, key)


class _Element(_Type):
    """An array's element type: a dtype too, and subscripted it makes array types."""

    def __init__(self, text, dtype):
        super().__init__(text)
        self.dtype = dtype

    def _simt_describe_(self):
        """What a kernel's global of this value is: its dtype, by its text (a number's
        name, a record's text)."""
        return _core.Global.dtype(str(self))


def _array_type(element, key):
    """float32[:] (any layout), float32[::1] (C), float32[:, ::1] (C), float32[::1, :]
    (Fortran), as Numba's."""
    items = key if isinstance(key, tuple) else (key,)
    parts = []
    for item in items:
        if not isinstance(item, slice) or item.start is not None or item.stop is not None \
                or item.step not in (None, 1):
            raise TypeError(f"{element}[{key!r}]: an array type takes ':' or '::1' for each "
                            f"dimension")
        parts.append("::1" if item.step == 1 else ":")
    if "::1" in parts[1:-1] or (len(parts) > 1 and parts[0] == parts[-1] == "::1"):
        raise TypeError(f"{element}[...]: '::1' marks the first (Fortran) or last (C) "
                        f"dimension only")
    layout = "C" if parts[-1] == "::1" and (len(parts) == 1 or parts[0] == ":") \
        else "F" if parts[0] == "::1" else "A"
    return Array(element, len(parts), layout)


class Scalar(_Element):
    """A number type."""

    def __init__(self, name):
        super().__init__(name, np.dtype(name))

    def __call__(self, *args):
        """float32(float32[:], int32): a signature (for kernels, `void(...)`), or, given a
        number, that number as this type (as np.float32(x))."""
        if args and all(isinstance(a, _Type) for a in args):
            return Signature(self, args)
        if len(args) == 1:
            return self.dtype.type(args[0])
        raise TypeError(f"{self}(...) takes types (a signature) or one number")

    @property
    def underlying_float(self):
        """A complex type's parts' type (Numba's Complex.underlying_float)."""
        if self.dtype.kind != "c":
            raise AttributeError(f"{self} is not a complex type: it has no underlying_float")
        return SCALARS[np.dtype(self.dtype.char.lower()).name]


class Record(_Element):
    """A record (structured) dtype's type, as Numba's numpy_support.from_dtype makes it:
    `Record(dtype)[::1]` in signatures, and the dtype of local arrays of records."""

    def __init__(self, dtype):
        dtype = np.dtype(dtype)
        super().__init__(_types.record_text(dtype), dtype)


class Array(_Type):
    """An array type, Numba's types.Array: `types.Array(types.float32, 2, "C")`, as
    `float32[:, ::1]` spells it."""

    def __init__(self, dtype, ndim, layout="A", readonly=False):
        if layout not in ("C", "F", "A"):
            raise ValueError(f"types.Array: layout must be 'C', 'F' or 'A', not {layout!r}")
        if not isinstance(ndim, int) or ndim < 1:
            raise ValueError(f"types.Array: ndim must be an int >= 1, not {ndim!r}")
        element = of(dtype)
        if not isinstance(getattr(element, "dtype", None), np.dtype):
            raise TypeError(f"types.Array: the element type is a number or record type, "
                            f"not {element}")
        parts = [":"] * ndim
        if layout == "C":
            parts[-1] = "::1"
        elif layout == "F":
            parts[0] = "::1"
        super().__init__(("readonly " if readonly else "") +
                         f"{element._simt_type_}[{', '.join(parts)}]")
        self.dtype, self.ndim, self.readonly = element.dtype, ndim, readonly
        self.layout = "C" if ndim == 1 and layout == "F" else layout


class Signature(_Spelled):
    def __init__(self, result, args):
        result, args = of(result), tuple(map(of, args))
        super().__init__(f"{result._simt_type_}({', '.join(a._simt_type_ for a in args)})")
        self.return_type, self.args = result, args


class _Void(_Type):
    def __call__(self, *args):
        return Signature(self, args)


void = none = _Void("void")

class Boolean(Scalar):
    """Numba's types.Boolean: `isinstance(t, types.Boolean)` in typing code."""


class Integer(Scalar):
    """Numba's types.Integer (signed and unsigned)."""

    @property
    def signed(self):
        return self.dtype.kind == "i"

    @property
    def bitwidth(self):
        return self.dtype.itemsize * 8


class Float(Scalar):
    """Numba's types.Float."""

    @property
    def bitwidth(self):
        return self.dtype.itemsize * 8


class Complex(Scalar):
    """Numba's types.Complex."""

    @property
    def bitwidth(self):
        return self.dtype.itemsize * 8


Number = Scalar  # Numba's base class of the number types

_KIND_CLASSES = {"b": Boolean, "i": Integer, "u": Integer, "f": Float, "c": Complex}
_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SCALARS = {name: _KIND_CLASSES[np.dtype(name).kind](name) for name in _NAMES}
SCALARS["boolean"] = SCALARS["bool_"] = SCALARS["b1"] = SCALARS["bool"]
SHORT = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "i2": "int16",
         "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
         "u8": "uint64", "c8": "complex64", "c16": "complex128", "intp": "int64",
         "uintp": "uint64", "float_": "float32", "double": "float64"}
SCALARS.update({short: SCALARS[name] for short, name in SHORT.items()})


# Numba's base class of its type objects (`isinstance(t, types.Type)`).
Type = _Type


def of(value):
    """The type object of `value`: itself, or a NumPy scalar type or dtype's (np.float32,
    np.dtype("int8")), as Numba's typing takes either; TypeError for anything else."""
    if isinstance(value, _Type):
        return value
    try:
        dtype = np.dtype(value)
    except TypeError:
        dtype = None
    if dtype is None or dtype.name not in SCALARS:
        raise TypeError(f"{value!r} is not a type (float32, int32[:], void, ...)")
    return SCALARS[dtype.name]


def UniTuple(dtype, count):  # noqa: N802
    """types.UniTuple(types.int32, 3): a tuple of `count` values of one type."""
    return _Type(f"({', '.join([of(dtype)._simt_type_] * count)})")


def Tuple(items):  # noqa: N802
    """types.Tuple([types.int32, types.float64])."""
    return _Type(f"({', '.join(of(t)._simt_type_ for t in items)})")


def CPointer(dtype):  # noqa: N802
    """types.CPointer(types.float32): a pointer parameter of a declare_device function
    (an array's data pointer is passed)."""
    if not isinstance(dtype, Scalar):
        raise TypeError(f"types.CPointer takes a number type such as float32, not {dtype!r}")
    return _Type(f"CPointer({dtype})")


# types.float32, types.int32, types.boolean, ... as module attributes (Numba's spelling;
# `bool` among them, which this module's own code does not call).
globals().update(SCALARS)
