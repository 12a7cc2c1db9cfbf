"""Resolution of the names a kernel reads but does not define.

The C++ front end reports each free name; here each is looked up the way
Python would (closure, globals, builtins) and described to the compiler as
data, a `_core.Global` (src/python/globals.cpp): a module, an intrinsic function, a
dtype, a constant or a tuple of constants. Values are read at compile time and become
part of the kernel.
"""

import builtins
import cmath
import math
import operator
import types

import numpy as np

from . import _core, _types

_INT64_MAX = 2 ** 63 - 1
_MISSING = object()

# cuda.random's device functions by name, registered by _numba_random (which imports
# this module, so it cannot be imported from here).
ATTRIBUTE_FUNCTIONS = {}


def _module_name(module):
    name = module.__name__
    if name.startswith("simt"):
        return "simt"
    return name


# Exception classes kernels raise, by key: a checked launch whose kernel raised
# one raises it on the host (src/python/checked_launch.cpp reads it here).
_EXCEPTIONS = []


def exception_class(key):
    """The exception class `describe` gave `key`."""
    return _EXCEPTIONS[key]


def _exception_key(cls):
    for key, known in enumerate(_EXCEPTIONS):
        if known is cls:
            return key
    _EXCEPTIONS.append(cls)
    return len(_EXCEPTIONS) - 1


def _is_named_tuple_class(value):
    return (isinstance(value, type) and issubclass(value, tuple)
            and isinstance(getattr(value, "_fields", None), tuple))


def _record_dtype(dtype):
    """The description of a record dtype (cuda.local.array(n, dtype=rec))."""
    try:
        return _core.Global.dtype(_types.record_text(dtype))
    except TypeError as error:
        return _core.Global.unsupported(f"a record dtype kernels cannot use ({error})")


# abi::kMaxTupleLeaves: a longer tuple would be megabytes of generated code.
_MAX_TUPLE_VALUES = 1024


# Classes that kernels call as constructors of their own kind, each with the function giving
# its description: simt.cuda registers a struct model's constructor lowered by
# cudaimpl.lower (Numba's extension API) here.
CLASS_DESCRIPTIONS = {}


def describe(value):
    """What a Python value is to the compiler: a `_core.Global`."""
    hook = getattr(value, "_simt_describe_", None)
    if callable(hook) and not isinstance(value, type):
        # Objects that describe themselves: simt.func, cuda.declare_device functions,
        # simt.cuda's Numba-style types.
        return hook()
    member = getattr(value, "_simt_member", None)
    if member is not None:
        return _core.Global.member(member[0], member[1])
    intrinsic = getattr(value, "_simt_intrinsic", None)
    if isinstance(intrinsic, str):
        return _core.Global.function(intrinsic)
    if isinstance(value, types.ModuleType):
        return _core.Global.module(_module_name(value))
    if isinstance(value, (bool, int, float, complex)):
        return _core.Global.number(value)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        v = value.item()
        as_int = int(v) if value.dtype.kind in "biu" else 0
        if as_int > _INT64_MAX:
            as_int -= 2 ** 64
        real = float(v.real) if value.dtype.kind == "c" else float(v)
        imag = float(v.imag) if value.dtype.kind == "c" else 0.0
        return _core.Global.scalar(value.dtype.name, as_int, real, imag)
    if _is_named_tuple_class(value):
        # collections.namedtuple and typing.NamedTuple classes: kernels call them to make
        # named tuples; defaults fill the last fields.
        fields = list(value._fields)
        defaults = getattr(value, "_field_defaults", {})
        given = [f for f in fields if f in defaults]
        if given != fields[len(fields) - len(given):]:
            return _core.Global.unsupported(f"the named tuple class {value.__name__} with "
                                            "defaults before fields without one")
        return _core.Global.named_tuple_class(value.__name__, fields,
                                              [describe(defaults[f]) for f in given])
    if isinstance(value, type) and value in CLASS_DESCRIPTIONS:
        return CLASS_DESCRIPTIONS[value]()
    if isinstance(value, type) and issubclass(value, Exception):
        return _core.Global.exception(value.__name__, _exception_key(value))
    if isinstance(value, type) and issubclass(value, np.generic):
        return _core.Global.dtype(np.dtype(value).name)
    if isinstance(value, np.dtype):
        if value.names is not None:
            return _record_dtype(value)
        return _core.Global.dtype(value.name)
    if isinstance(value, tuple):
        if len(value) > _MAX_TUPLE_VALUES:
            return _core.Global.unsupported(
                f"a tuple of {len(value)} values (kernels take tuples of at most "
                f"{_MAX_TUPLE_VALUES}; a table of numbers can be a constant ndarray)")
        items = [describe(item) for item in value]
        if _is_named_tuple_class(type(value)):
            return _core.Global.tuple(items, list(type(value)._fields))
        return _core.Global.tuple(items)
    if isinstance(value, np.ndarray):
        # A global array is a constant of the kernel (as in Numba): its values
        # are copied into the generated code when the kernel compiles.
        record = value.dtype.names is not None
        if (value.dtype.kind not in "biufc" and not record) or value.ndim == 0 or value.ndim > 3:
            return _core.Global.unsupported(
                f"a {value.ndim}-d {value.dtype} ndarray (constant arrays are 1- to 3-d "
                "arrays of numbers or records)")
        if value.nbytes > 65536:
            return _core.Global.unsupported(
                f"an ndarray of {value.nbytes} bytes (constant arrays hold at most 64 KiB, "
                "the size of GPU constant memory)")
        if record:
            value = value.astype(value.dtype.newbyteorder("="))  # the bytes kernels read
            try:
                dtype = _types.record_text(value.dtype)
            except TypeError as error:
                return _core.Global.unsupported(f"a record dtype kernels cannot use ({error})")
        else:
            dtype = value.dtype.name
        return _core.Global.constant_array(dtype, list(value.shape),
                                           np.ascontiguousarray(value).tobytes())
    if isinstance(value, np.ufunc):
        return _core.Global.function("numpy." + value.__name__)
    name = getattr(value, "__name__", None)
    if callable(value) and name:
        if getattr(math, name, None) is value:
            return _core.Global.function("math." + name)
        if getattr(cmath, name, None) is value:
            return _core.Global.function("cmath." + name)
        if getattr(np, name, None) is value:
            return _core.Global.function("numpy." + name)
        if getattr(builtins, name, None) is value:
            return _core.Global.function("builtins." + name)
        if getattr(operator, name, None) is value:
            return _core.Global.function("operator." + name)
    return _core.Global.unsupported(f"a {type(value).__name__}")


def resolve(function, free_names):
    """{name: description} for each free name `function` reads."""
    scope = {}
    code = function.__code__
    if function.__closure__:
        for name, cell in zip(code.co_freevars, function.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not assigned yet
                pass
    resolved = {}
    for name in free_names:
        value = scope.get(name, _MISSING)
        if value is _MISSING:
            value = function.__globals__.get(name, _MISSING)
        if value is _MISSING:
            value = getattr(builtins, name, _MISSING)
            if value is _MISSING:
                continue  # the compiler reports the undefined name where it is used
        resolved[name] = describe(value)
    # `cuda.random.xoroshiro128p_uniform_float32(...)` reads the function as an
    # attribute: the compiler finds it as the global "simt.random.<name>". Attribute
    # names are in co_names, so only kernels that may call one pay for it.
    for name in ATTRIBUTE_FUNCTIONS.keys() & set(code.co_names):
        resolved["simt.random." + name] = describe(ATTRIBUTE_FUNCTIONS[name])
    return resolved
