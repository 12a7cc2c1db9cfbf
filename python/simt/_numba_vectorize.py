"""numba.cuda.vectorize for `simt.cuda`: a scalar Python function with explicit
signatures becomes an element-wise function of arrays on the current device, with
broadcasting, through the same element-wise template and plans as simt.add.

Called with simt arrays it returns a simt array; called with NumPy arrays (and scalars)
alone it copies them to the current device and returns a NumPy array, as Numba's does
with host arrays.
"""

import inspect
import re

import numpy as np

from . import _array
from ._array_api import _elementwise, _generated
from ._kernel import Func

_PYTHON_TYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}
_SIGNATURE = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")
_NUMBA_NAMES = {"f4": "float32", "f8": "float64", "i4": "int32", "i8": "int64", "u4": "uint32",
                "u8": "uint64", "b1": "bool", "boolean": "bool", "intp": "int64",
                "float_": "float32", "double": "float64"}


def _takes(operand, python, target):
    """Whether a loop taking dtype `target` takes an operand (as NumPy picks a ufunc's
    loop): an array's dtype that converts to it safely, or a Python scalar (`python`)
    whose value's kind it holds."""
    if python:
        return np.can_cast(np.min_scalar_type(operand), target, "same_kind")
    return np.can_cast(operand, target, "safe")


def _dtype(name, signature):
    name = _NUMBA_NAMES.get(name, name)
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise TypeError(f"vectorize: {name!r} in {signature!r} is not a type") from None
    if dtype.kind not in "biufc":
        raise TypeError(f"vectorize: {dtype} in {signature!r} is not a number type")
    return dtype


def _parse(signature):
    """'float32(float32, int32)' -> (input dtypes, output dtype)."""
    if not isinstance(signature, str):
        raise TypeError(f"vectorize: a signature is a string such as 'float32(float32, "
                        f"float32)', not {type(signature).__name__}")
    match = _SIGNATURE.match(signature)
    if not match:
        raise TypeError(f"vectorize: cannot read the signature {signature!r} (write "
                        f"'float32(float32, float32)')")
    inputs = [_dtype(t.strip(), signature) for t in match.group(2).split(",") if t.strip()]
    return tuple(inputs), _dtype(match.group(1), signature)


class Vectorized:
    """An element-wise function made by cuda.vectorize."""

    def __init__(self, function, signatures):
        self.__name__ = getattr(function, "__name__", "vectorized")
        self.__doc__ = function.__doc__
        self._loops = [_parse(s) for s in signatures]
        # Without signatures (Numba's lazy vectorize) each call's input dtypes make a loop,
        # its output dtype what simt infers for the function's result.
        self._lazy = not self._loops
        self._callee = _generated.define("user_vectorized", Func(function))
        if self._lazy:
            self.nin = len(inspect.signature(function).parameters)
        else:
            counts = {len(inputs) for inputs, _ in self._loops}
            if len(counts) != 1:
                raise TypeError(f"vectorize({self.__name__}): signatures with different "
                                f"numbers of arguments")
            self.nin = counts.pop()
        self._text = f"{self._callee}({', '.join('{%d}' % k for k in range(self.nin))})"

    def __repr__(self):
        return f"<simt.cuda.vectorize {self.__name__}>"

    @property
    def types(self):
        """The loops compiled so far, as NumPy's ufunc.types ('ff->f')."""
        return ["".join(d.char for d in inputs) + "->" + output.char
                for inputs, output in self._loops]

    def _lazy_loop(self, operands):
        inputs = tuple(op.resolve_as if isinstance(op.resolve_as, np.dtype)
                       else np.dtype(_PYTHON_TYPES[op.resolve_as]) for op in operands)
        for loop_inputs, output in self._loops:
            if loop_inputs == inputs:
                return inputs + (output,)
        params = ", ".join(f"x{k}" for k in range(self.nin))
        probe = _generated.kernel("vectorize_result_type",
                                  f"def vectorize_result_type({params}):\n"
                                  f"    r = {self._text.format(*params.split(', '))}\n")
        try:
            output = np.dtype(probe.inspect_types(*inputs)["r"])
        except (KeyError, TypeError) as error:
            raise TypeError(f"vectorize({self.__name__}): the function's result for "
                            f"({', '.join(map(str, inputs))}) is not a number ({error})") \
                from None
        self._loops.append((inputs, output))
        return inputs + (output,)

    def _loop(self, operands):
        if self._lazy:
            return self._lazy_loop(operands)
        # The first signature that takes every operand (_takes).
        for inputs, output in self._loops:
            if all(_takes(op.resolve_as, False, d) if isinstance(op.resolve_as, np.dtype)
                   else _takes(op.value, True, d) for op, d in zip(operands, inputs)):
                return inputs + (output,)
        kinds = ", ".join(str(op.resolve_as if isinstance(op.resolve_as, np.dtype)
                              else type(op.value).__name__) for op in operands)
        raise TypeError(f"vectorize({self.__name__}): no signature takes ({kinds}); it has "
                        f"{', '.join(f'{o}({chr(44).join(map(str, i))})' for i, o in self._loops)}")

    def __call__(self, *args, out=None, stream=0):
        where = f"vectorize({self.__name__})"
        if len(args) != self.nin:
            raise TypeError(f"{where} takes {self.nin} arguments, not {len(args)}")
        host = not any(isinstance(a, _array.Array) for a in args) and out is None
        if host:
            args = [_array.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        operands = [_elementwise.Operand(a, where) for a in args]
        device = _elementwise.common_device(operands, where, out)
        if device is None:
            raise TypeError(f"{where}: at least one argument must be an array")
        loop = self._loop(operands)
        result, _ = _elementwise.apply(_Expression(self, loop), loop, operands, device, out)
        return result.get() if host else result


class _Expression:
    """What the element-wise path reads of a function: its name and expression text."""

    def __init__(self, vectorized, loop):
        self.__name__ = vectorized._callee
        self.expressions = {"*": vectorized._text}
        self.ufunc = None


def vectorize(signatures=None, target="cuda", **options):
    """`@cuda.vectorize(['float32(float32, float32)', ...])`: an element-wise function of
    arrays from a scalar function (Numba's vectorize with target='cuda'). `target` is
    accepted as Numba's ('cuda', 'parallel', 'cpu'): the current device runs it."""
    if callable(signatures):  # @cuda.vectorize: lazy, compiled per call's input dtypes
        if getattr(signatures, "__name__", "") == "<lambda>":
            raise TypeError("cuda.vectorize needs its signatures for a lambda, or a function "
                            "defined with def (simt parses the function's source text)")
        return Vectorized(signatures, [])
    if signatures is None:
        signatures = []
    if isinstance(signatures, str):
        signatures = [signatures]
    return lambda function: Vectorized(function, list(signatures))
