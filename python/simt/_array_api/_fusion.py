"""simt.fuse: a Python function of arrays and scalars compiled into one element-wise
kernel (CuPy's fuse), so that an expression reads each input once and writes once.

The function is traced, once per argument types: it is called with TracedValue stand-ins,
and each element-wise function or operator they meet (through the same Elementwise
objects as eager calls, so the same NumPy type resolution and expression table) appends
one statement to a device function. The kernel is then the element-wise template with
that device function as its expression: the same broadcasting, collapsed dimensions,
loop forms, plans and caches as simt.add. A function ending in a reduction (simt.sum,
x.max(), ...) runs that reduction over the fused result.
"""

import functools
import hashlib

import numpy as np

from .._array import Array, empty
from . import _generated, _reduction
from .. import _launch
from ._elementwise import (_COMPARISON_UFUNCS, FUNCTIONS, Operand, TracedValue, _plan,
                           common_device, conversion, expression)
from ._methods import _BINARY, _COMPARISONS, _UNARY

__all__ = ["fuse"]

# How a Python scalar argument is passed to the kernel (weak in the expression: each use
# converts it to that operation's dtype, as NEP 50 converts a Python scalar operand).
_PASSED = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
           complex: np.dtype(np.complex128)}
_PYTHON_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class _Traced(TracedValue):
    """A value in a function being fused: the name of a local of the device function,
    its dtype, and (for values of Python scalars alone) the Python type it acts as."""

    __slots__ = ("trace", "name", "dtype", "weak", "host")

    def __init__(self, trace, name, dtype, weak=None, host=None):
        self.trace, self.name, self.dtype, self.weak = trace, name, dtype, weak
        # For a value of Python scalars alone: its value from the call's arguments, as
        # NumPy computes it on the host (checked against the integer dtypes it meets).
        self.host = host

    @property
    def resolve_as(self):
        # NumPy's type resolution takes Python int, float and complex as weak types; a
        # Python bool is simply bool.
        if self.weak is None or self.weak is bool:
            return self.dtype
        return self.weak

    def astype(self, dtype, /, *, copy=True):
        return self.trace.cast(self, np.dtype(dtype))

    @property
    def real(self):
        return self.trace.part(self, "real")

    @property
    def imag(self):
        return self.trace.part(self, "imag")

    def __bool__(self):
        raise TypeError("simt.fuse: the value of an array is not known while the function "
                        "is traced; use simt.where(condition, x, y) instead of if/and/or")


def _operator_methods(cls):
    def binary(name):
        f = FUNCTIONS[name]
        return (lambda self, other: f(self, other)), (lambda self, other: f(other, self))

    for stem, name in _BINARY.items():
        forward, reflected = binary(name)
        setattr(cls, f"__{stem}__", forward)
        setattr(cls, f"__r{stem}__", reflected)
    for stem, name in _COMPARISONS.items():
        setattr(cls, f"__{stem}__", binary(name)[0])
    for stem, name in _UNARY.items():
        setattr(cls, f"__{stem}__", lambda self, f=FUNCTIONS[name]: f(self))
    cls.__hash__ = None


def _reduction_method(name):
    if name in ("sum", "prod", "mean"):
        def method(self, axis=None, dtype=None, keepdims=False):
            return getattr(_reduction, name)(self, axis=axis, dtype=dtype, keepdims=keepdims)
    else:
        def method(self, axis=None, keepdims=False):
            return getattr(_reduction, name)(self, axis=axis, keepdims=keepdims)
    method.__name__ = name
    return method


_operator_methods(_Traced)
for _name in ("sum", "prod", "min", "max", "mean", "all", "any"):
    setattr(_Traced, _name, _reduction_method(_name))


class _ResolveAs:
    """What Elementwise.resolve reads of an operand: its dtype (or weak Python type), and
    for a constant its value (which a comparison's exact rule may replace)."""

    __slots__ = ("value", "is_array", "resolve_as")

    def __init__(self, value, comparison):
        if isinstance(value, _Traced):
            self.value, self.is_array, self.resolve_as = value, True, value.resolve_as
            if comparison and value.weak is int:
                # A Python int argument compared: its value is only known at the call, so
                # it is compared as an int64 (exact for every value that fits one).
                self.resolve_as = np.dtype(np.int64)
        else:
            operand = Operand(value, "simt.fuse")
            self.value, self.is_array, self.resolve_as = value, False, operand.resolve_as


class _Reduction(TracedValue):
    """A reduction the fused function ends in: applied to the fused element-wise result.
    Anything done with it afterwards is an error (trace.call says so)."""

    __slots__ = ("trace", "value", "name", "axis", "keepdims", "dtype")

    def __init__(self, value, name, axis, keepdims, dtype):
        self.trace, self.value, self.name = value.trace, value, name
        self.axis, self.keepdims, self.dtype = axis, keepdims, dtype


_operator_methods(_Reduction)


class _Trace:
    """The statements of one fused function for one set of argument types."""

    def __init__(self, function_name):
        self.function_name = function_name
        self.statements = []
        self.helpers = []
        self.narrowed = []  # (host value of a weak int, an integer dtype it converts to)
        self.inputs = []

    def input(self, position, value):
        name = f"v{position}"
        if isinstance(value, Array):
            traced = _Traced(self, name, value.dtype)
        elif isinstance(value, np.generic):
            traced = _Traced(self, name, value.dtype.newbyteorder("="))
        else:
            kind = bool if isinstance(value, bool) else type(value)
            traced = _Traced(self, name, _PASSED[kind], weak=kind,
                             host=lambda args, k=position: args[k])
        self.inputs.append(traced)
        return traced

    def _new(self, text, dtype, weak=None, host=None):
        name = f"t{len(self.statements)}"
        self.statements.append(f"{name} = {text}")
        return _Traced(self, name, dtype, weak, host)

    def _text(self, value, dtype):
        """`value` (a traced value or a constant) as text of dtype `dtype`."""
        dtype_name = _generated.dtype_name(dtype)
        if isinstance(value, _Traced):
            if value.weak is int and dtype.kind in "iu" and value.host is not None:
                self.narrowed.append((value.host, dtype))
            return value.name if value.dtype == dtype else f"{dtype_name}({value.name})"
        constant = np.asarray(value).astype(dtype)[()]
        if dtype.kind in "iu" or (dtype.kind == "f" and np.isfinite(constant)):
            return f"{dtype_name}({constant.item()!r})"
        if dtype.kind == "b":
            return repr(bool(constant))
        # A non-finite or complex constant: a local holding it, built from finite parts.
        return self._new(_constant_text(constant, dtype_name), dtype).name

    def call(self, function, args, out):
        """One element-wise function applied to traced values and constants."""
        if out is not None:
            raise TypeError(f"simt.fuse: out= inside a fused function ({function.__name__})")
        if len(args) != function.nin:
            raise TypeError(f"simt.{function.__name__}() takes {function.nin} arguments, "
                            f"not {len(args)}")
        for a in args:
            if isinstance(a, _Reduction):
                raise TypeError(f"simt.fuse: {self.function_name} uses the result of "
                                f"simt.{a.name} in simt.{function.__name__}; a reduction can "
                                f"only be the function's last operation")
            if isinstance(a, Array):
                raise TypeError(f"simt.fuse: {self.function_name} uses an array it was not "
                                f"given as an argument (in simt.{function.__name__}); pass "
                                f"every array as an argument of the fused function")
            if isinstance(a, _Traced) and a.trace is not self:
                raise TypeError("simt.fuse: a value of another fused function")
        comparison = function.ufunc in _COMPARISON_UFUNCS
        operands = [_ResolveAs(a, comparison) for a in args]
        loop = function.resolve(operands)
        text, helpers = expression(function, loop)
        for helper in helpers:
            if helper not in self.helpers:
                self.helpers.append(helper)
        # A constant's value as resolution left it (a comparison with an int beyond every
        # integer dtype compares it as an infinity).
        converted = [self._text(a if o.is_array else o.value, d)
                     for a, o, d in zip(args, operands, loop)]
        weak = host = None
        if not any(isinstance(a, _Traced) and a.weak is None for a in args):
            weak = _PYTHON_TYPE[loop[-1].kind]  # an expression of Python scalars alone
            parts = [a.host if isinstance(a, _Traced) else (lambda args, c=a: c) for a in args]
            if function.ufunc is not None and None not in parts:
                host = _host_value(function.ufunc, parts)
        return self._new(text.format(*converted), loop[-1], weak, host)

    def clip(self, x, low, high):
        operands = [_ResolveAs(v, False) for v in (x, low, high)]
        loop = FUNCTIONS["clip"].resolve(operands)
        text = FUNCTIONS["clip"].expressions["*"]
        return self._new(text.format(*(self._text(v, d) for v, d in zip((x, low, high), loop))),
                         loop[-1])

    def cast(self, value, dtype):
        if dtype.kind not in "biufc":
            raise TypeError(f"simt.fuse: astype to {dtype}")
        text = conversion(value.dtype, dtype)
        if text != "{0}":  # complex to real or bool: astype's rule, as assignments use it
            return self._new(f"{_generated.dtype_name(dtype)}({text.format(value.name)})", dtype)
        return self._new(self._text(value, dtype), dtype)

    def part(self, value, which):
        if value.dtype.kind != "c":
            if which == "real":
                return value
            return self._new(f"{_generated.dtype_name(value.dtype)}(0)", value.dtype)
        real = np.dtype(np.float32 if value.dtype == np.complex64 else np.float64)
        return self._new(f"{value.name}.{which}", real)

    def reduction(self, value, name, axis, keepdims, dtype):
        if value.trace is not self:
            raise TypeError("simt.fuse: a value of another fused function")
        return _Reduction(value, name, axis, keepdims, dtype)

    def device_function(self, result, name):
        params = ", ".join(v.name for v in self.inputs)
        body = [f"    {s}" for s in self.statements] + [f"    return {result.name}"]
        return f"def {name}({params}):\n" + "\n".join(body) + "\n"


def _constant_text(constant, dtype_name):
    def part(x):
        if np.isnan(x):
            return "math.nan"
        if np.isinf(x):
            return "math.inf" if x > 0 else "-math.inf"
        return repr(float(x))

    if np.iscomplexobj(constant):
        return f"{dtype_name}(complex({part(constant.real)}, {part(constant.imag)}))"
    return f"{dtype_name}({part(constant)})"


def _host_value(ufunc, parts):
    """The value NumPy computes on the host for a Python-scalar expression, from the
    call's arguments."""
    return lambda args: ufunc(*(part(args) for part in parts))


class _Compiled:
    """A fused function traced for one set of argument types."""

    __slots__ = ("name", "text", "helpers", "loop", "narrowed", "reduction")


class Fused:
    """A function compiled by simt.fuse: called with simt arrays and scalars (at least one
    array; all on one device), it returns what the function computes, in one kernel (a
    final reduction runs as a second)."""

    def __init__(self, function, name=None):
        functools.update_wrapper(self, function)
        self._function = function
        self._name = name or getattr(function, "__name__", "fused")
        self._compiled = {}

    def __repr__(self):
        return f"<simt.fuse of {self._name}>"

    def __call__(self, *args):
        where = f"simt.fuse({self._name})"
        if not any(isinstance(a, Array) for a in args):
            # CuPy's rule: without a device array the function runs as written (NumPy
            # arrays give NumPy's result).
            return self._function(*args)
        operands = [Operand(a, where) for a in args]
        device = common_device(operands, where)
        key = tuple(op.resolve_as for op in operands)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = self._trace(args)
        for host, dtype in compiled.narrowed:
            value = int(host(args))
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise OverflowError(f"{where}: Python integer {value} out of bounds for "
                                    f"{dtype}")
        loop = _passed(compiled.loop, operands, device, where)
        plan = _plan(compiled.name, lambda: (compiled.text, compiled.helpers), loop, operands,
                     device, None)
        out = empty(plan.shape, loop[-1], device)
        if plan.launch is not None:
            plan.launch(*plan.arguments(out, operands))
        reduction = compiled.reduction
        if reduction is None:
            return out
        kwargs = {"axis": reduction.axis, "keepdims": reduction.keepdims}
        if reduction.name in ("sum", "prod", "mean"):
            kwargs["dtype"] = reduction.dtype
        return getattr(_reduction, reduction.name)(out, **kwargs)

    def _trace(self, args):
        trace = _Trace(self._name)
        traced = [trace.input(k, a) for k, a in enumerate(args)]
        result = self._function(*traced)
        reduction = None
        if isinstance(result, _Reduction):
            reduction, result = result, result.value
        if isinstance(result, tuple):
            raise TypeError(f"simt.fuse({self._name}): the function returns a tuple; a fused "
                            f"function returns one array")
        if not isinstance(result, _Traced) or result.trace is not trace:
            raise TypeError(f"simt.fuse({self._name}): the function must return an "
                            f"expression of its arguments, not {type(result).__name__}")
        # Named by what it computes: the same body (a lambda made again in a loop, another
        # fused function alike) is the same kernel, compiled once.
        body = "".join(trace.helpers) + trace.device_function(result, "dev_fused")
        function_name = "dev_fused_" + hashlib.sha1(body.encode()).hexdigest()[:16]
        compiled = _Compiled()
        compiled.name = function_name[len("dev_"):]
        compiled.helpers = trace.helpers + [trace.device_function(result, function_name)]
        compiled.text = f"{function_name}({', '.join('{%d}' % k for k in range(len(args)))})"
        compiled.loop = tuple(v.dtype for v in trace.inputs) + (result.dtype,)
        compiled.narrowed = trace.narrowed
        compiled.reduction = reduction
        return compiled


def _passed(loop, operands, device, where):
    """The loop with each Python scalar's dtype as this call passes it: an int as int64,
    or uint64 beyond int64 (each use converts it to its operation's dtype); a float or
    complex in double precision, or single on a device without it (eager operations
    convert weak scalars to their array's dtype, so they run there too)."""
    passed = list(loop)
    for position, op in enumerate(operands):
        if op.is_array or not isinstance(op.resolve_as, type):
            continue
        if op.resolve_as is int:
            if -(2 ** 63) <= op.value < 2 ** 63:
                continue
            if 0 <= op.value < 2 ** 64:
                passed[position] = np.dtype(np.uint64)
                continue
            raise OverflowError(f"{where}: Python integer {op.value} out of bounds for int64 "
                                f"and uint64")
        if loop[position] in _DOUBLE and not _launch.has_float64(device):
            passed[position] = _DOUBLE[loop[position]]
    return tuple(passed)


_DOUBLE = {np.dtype(np.float64): np.dtype(np.float32),
           np.dtype(np.complex128): np.dtype(np.complex64)}


def fuse(*args, kernel_name=None):
    """Compiles a function of arrays and scalars into one element-wise kernel (CuPy's
    fuse): `simt.fuse(f)`, `@simt.fuse` or `@simt.fuse(kernel_name="f")`. The function may
    use operators, simt's element-wise functions, where, clip, astype, real, imag, and end
    in one reduction (sum, prod, min, max, mean, all, any)."""
    if len(args) == 1 and callable(args[0]):
        return Fused(args[0], kernel_name)
    if args:
        raise TypeError("simt.fuse takes a function (or keyword arguments only)")
    return lambda function: Fused(function, kernel_name)

