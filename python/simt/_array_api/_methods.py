"""simt.Array's operators and methods, from the array namespace's functions.

Array (in _array.py) is the storage: shape, strides, device memory, copies and views. Its
arithmetic lives with the functions that compute it; this module gives Array the
dunders and methods that name those functions, from tables, once at import.
"""

import dis
import sys

import numpy as np

from .. import _core
from .._array import Array
from ._elementwise import FUNCTIONS, Elementwise

# Binary operators: dunder stem -> element-wise function. Each gets its forward,
# reflected (__radd__) and in-place (__iadd__) form.
_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                "eq": "equal", "ne": "not_equal"}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}

_OPERAND_TYPES = (Array, bool, int, float, complex, np.generic)


def _foreign(other, symbol):
    """NotImplemented for an operand type simt does not take (Python then tries the other
    operand, or says the types); a clear error for a NumPy array."""
    if isinstance(other, np.ndarray):
        raise TypeError(f"a simt array {symbol} a NumPy array: copy the NumPy array to the "
                        f"device first (simt.asarray(x, device=a.device)), or bring the simt "
                        f"array back with .get()")
    return NotImplemented


def _none(*args):
    return None


# Temporaries reused as results (NumPy's elision): `2*a + b` adds into the memory of
# `2*a`, which nothing else can reach, instead of a new array. Only where the interpreter's
# binary operation called the operator, and the temporary has the references it has there
# and no more: how many that is depends on the interpreter (3.14's stack borrows
# references, so a named variable looks as a temporary did before), so it is measured at
# import on a probe class and the reuse is off where a temporary and a named variable
# cannot be told apart. Results of at least 1 MiB (smaller ones stay in the caches, where
# reading a new result's lines for ownership costs little).
_ELIDE_MIN_BYTES = 1 << 20
_BINARY_OP = dis.opmap.get("BINARY_OP")


def _called_by_binary_operation(depth):
    frame = sys._getframe(depth + 1)
    return frame.f_code.co_code[frame.f_lasti] == _BINARY_OP


def _temporary_references():
    """The references an operator sees on a temporary operand of `x + y` (the operator's
    own call of the check included), or None where some named operand has as few."""
    seen = {"temporary": set(), "named": set(), "caller": set()}

    class Probe:
        __slots__ = ("kind", "__weakref__")

        def __init__(self, kind):
            self.kind = kind

        def __add__(self, other):
            seen[self.kind].add(sys.getrefcount(self))
            seen["caller"].add(_called_by_binary_operation(1))
            return Probe("temporary")

        __radd__ = __add__

    def local_and_argument(argument):
        named = Probe("named")
        return (named + 1, 1 + named, argument + 1, Probe("temporary") + 1,
                1 + Probe("temporary"))

    class Holder:
        attribute = Probe("named")

    try:
        local_and_argument(Probe("named"))
        Holder.attribute + 1  # noqa: B018 (the probe's effect is what it records)
        (Holder.attribute + 1) + 1  # noqa: B018
    except AttributeError:  # an interpreter without reference counts (sys.getrefcount)
        return None
    if _BINARY_OP is None or seen["caller"] != {True} or len(seen["temporary"]) != 1:
        return None
    count, = seen["temporary"]
    return count if min(seen["named"]) > count else None


_TEMPORARY_REFERENCES = _temporary_references()


def _binary(function, symbol):
    # A warm call of a kept layout goes straight to the function's C++ table (the
    # arguments it cannot key, any other type among them, get None: the full path).
    # Not for a function whose call checks its values first (pow's negative powers).
    calls = function._calls if type(function).__call__ is Elementwise.__call__ else _none
    reusable = _core.reusable_temporary
    temporary, least = _TEMPORARY_REFERENCES, _ELIDE_MIN_BYTES
    if calls is _none:
        temporary = None
    else:
        into = calls.into

    def forward(self, other):
        # A temporary operand (see _ELIDE_MIN_BYTES), checked here, where its references
        # are the ones measured on the probe; the kept plan's result must be laid out as
        # it is (C++: ElementwiseCalls.into), else a new array.
        if temporary is not None:
            target = self if reusable(self, temporary, least) else \
                other if reusable(other, temporary, least) else None
            if target is not None and _called_by_binary_operation(1):
                result = into(target, self, other)
                if result is not None:
                    return result
        result = calls(self, other)
        if result is not None:
            return result
        if not isinstance(other, _OPERAND_TYPES):
            return _foreign(other, symbol)
        return function(self, other)

    def reflected(self, other):
        # forward's check, spelled out again: in a helper both called, the operands would
        # have that frame's references too, not the ones the probe measured.
        if temporary is not None:
            target = self if reusable(self, temporary, least) else \
                other if reusable(other, temporary, least) else None
            if target is not None and _called_by_binary_operation(1):
                result = into(target, other, self)
                if result is not None:
                    return result
        result = calls(other, self)
        if result is not None:
            return result
        if not isinstance(other, _OPERAND_TYPES):
            return _foreign(other, symbol)
        return function(other, self)

    def in_place(self, other):
        if not isinstance(other, _OPERAND_TYPES):
            return _foreign(other, symbol)
        return function(self, other, out=self)

    return forward, reflected, in_place


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
            "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
            "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _install_operators():
    for stem, name in _BINARY.items():
        forward, reflected, in_place = _binary(FUNCTIONS[name], _SYMBOLS[stem])
        setattr(Array, f"__{stem}__", forward)
        setattr(Array, f"__r{stem}__", reflected)
        setattr(Array, f"__i{stem}__", in_place)
    for stem, name in _COMPARISONS.items():
        setattr(Array, f"__{stem}__", _binary(FUNCTIONS[name], _SYMBOLS[stem])[0])
    for stem, name in _UNARY.items():
        function = FUNCTIONS[name]
        setattr(Array, f"__{stem}__", lambda self, f=function: f(self))
    Array.__pow__ = _squared_or(Array.__pow__)
    # As NumPy's arrays: == is element-wise, so arrays are not hashable.
    Array.__hash__ = None


def _squared_or(power):
    """x ** 2 as square(x), as NumPy's operator does (its fast scalar power): x * x, where
    pow(x, 2) was a call of the math library per element (k-means' squared distances took
    their time there). Only where both give x's dtype: a Python 2 (or 2.0 for inexact x),
    the result bit for bit pow's (x * x is exactly rounded)."""
    square = FUNCTIONS["square"]

    def __pow__(self, other):
        kind = self.dtype.kind
        if (type(other) is int and other == 2 and kind in "iufc") or \
                (type(other) is float and other == 2.0 and kind in "fc"):
            return square(self)
        return power(self, other)

    return __pow__


def _scalar(self, convert, what):
    if self.size != 1:
        if what == "bool" and self.size > 1:
            raise ValueError("the truth value of an array with more than one element is "
                             "ambiguous; use .any() or .all()")
        raise TypeError(f"only arrays of one element convert to Python {what}s "
                        f"(this one has shape {self.shape})")
    return convert(self.get().reshape(()).item())


def _index(self):
    if self.ndim != 0 or self.dtype.kind not in "iu":
        raise TypeError(f"only 0-d integer arrays can be used as an index (this one has "
                        f"shape {self.shape} and dtype {self.dtype})")
    return int(self.get().item())


def _install_conversions():
    Array.__bool__ = lambda self: _scalar(self, bool, "bool")
    Array.__int__ = lambda self: _scalar(self, int, "int")
    Array.__float__ = lambda self: _scalar(self, float, "float")
    Array.__complex__ = lambda self: _scalar(self, complex, "complex")
    Array.__index__ = _index


def install(methods):
    """Gives Array the operators, conversions and `methods` ({name: function of the array
    first}) of the array namespace."""
    _install_operators()
    _install_conversions()
    for name, function in methods.items():
        setattr(Array, name, function)
