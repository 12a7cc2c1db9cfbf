"""Element-wise operations on arrays and scalars: one template, specialized per operation,
loop dtypes, operand kinds (array or scalar), collapsed dimensions and loop form.

The template (TEXT below) is written once, in simt's kernel language: the output's
element i (flat, or decomposed into one index per dimension) gets the operation's
expression of the operands' elements, converted to the loop dtypes first. Type resolution
is NumPy's own (ufunc.resolve_dtypes), so results have NumPy's and the array API's dtypes,
Python scalars weak (NEP 50).
"""

import builtins
import warnings
from inspect import Parameter, Signature

import numpy as np

from .. import _core
from .._array import Array, empty, to_device
from .._device import get_device
from .. import _broadcast
from . import _generated
from .. import _launch
from ._elementwise_ops import ALIASES, COMPLEX, OPERATIONS, helpers_for

_PY_SCALARS = (bool, int, float, complex)


class Operand:
    """One input of an operation: an array, or a scalar (weak when a Python number)."""

    __slots__ = ("value", "is_array", "resolve_as")

    def __init__(self, value, where):
        if isinstance(value, Array):
            self.value, self.is_array, self.resolve_as = value, True, value.dtype
        elif isinstance(value, np.generic):  # before float: np.float64 is a float, but strong
            if value.dtype.kind not in "biufc":
                raise TypeError(f"{where}: unsupported operand type {type(value).__name__}")
            self.value, self.is_array, self.resolve_as = value, False, value.dtype.newbyteorder("=")
        elif isinstance(value, bool):
            self.value, self.is_array, self.resolve_as = value, False, np.dtype(bool)
        elif isinstance(value, _PY_SCALARS):
            self.value, self.is_array, self.resolve_as = value, False, type(value)
        elif isinstance(value, np.ndarray):
            raise TypeError(f"{where}: a NumPy array is not a simt array; copy it to a device "
                            f"first (simt.asarray(x, device=...)), as CuPy asks")
        else:
            raise TypeError(f"{where}: unsupported operand type {type(value).__name__}")


class TracedValue:
    """A stand-in for an array in a function being traced by simt.fuse: the element-wise
    functions hand their calls on such values to its trace (`trace.call`)."""

    __slots__ = ()


def common_device(operands, where, out=None):
    """The device of the array operands (all on one); ValueError naming two that differ."""
    device = None
    for op in operands + ([Operand(out, where)] if out is not None else []):
        if op.is_array:
            d = op.value.device
            if device is None:
                device = d
            elif d != device:
                raise ValueError(f"{where}: arrays on two devices, {device.id} and {d.id}; "
                                 f"move one with .to_device() (simt never copies implicitly)")
    return device


def _signature(*names):
    """What inspect.signature shows of an element-wise function: the array API's
    positional-only parameters, then out= (the object's __call__ takes *args)."""
    return Signature([Parameter(n, Parameter.POSITIONAL_ONLY) for n in names]
                     + [Parameter("out", Parameter.KEYWORD_ONLY, default=None)])


class Elementwise:
    """An element-wise function of the array namespace (simt.add, simt.sin, ...): called
    with arrays and scalars, optionally `out=` (an array to write, cast to its dtype)."""

    def __init__(self, name):
        self.__name__ = name
        self.ufunc, self.expressions = OPERATIONS[name]
        self.nin = self.ufunc.nin
        self.__signature__ = _signature(*(("x",) if self.nin == 1 else ("x1", "x2")))
        self._resolved = {}
        self._fast = {}  # _fast_key of a call -> _FastCall
        self._calls = _core.ElementwiseCalls()  # the warm plain calls, answered in C++
        self.__doc__ = (f"simt.{name}: element-wise, as numpy.{self.ufunc.__name__} (NumPy's "
                        f"result dtypes), on the operands' device.")

    def __repr__(self):
        return f"<simt element-wise function {self.__name__}>"

    def __call__(self, *args, out=None):
        if out is None:
            # A repeated call of a kept layout (one contiguous dimension): one call into
            # C++ allocates the result and launches the kernel.
            result = self._calls(*args)
            if result is not None:
                return result
        key = _fast_key(args) if out is None else None
        if key is not None:
            fast = self._fast.get(key)
            if fast is not None:
                result = fast(args)
                if result is not None:
                    return result
        for a in args:
            if isinstance(a, TracedValue):
                return a.trace.call(self, args, out)
        if len(args) != self.nin:
            raise TypeError(f"simt.{self.__name__}() takes {self.nin} arguments, "
                            f"not {len(args)}")
        where = f"simt.{self.__name__}"
        operands = [Operand(a, where) for a in args]
        if out is not None and not isinstance(out, Array):
            raise TypeError(f"{where}: out must be a simt array, not {type(out).__name__}")
        device = common_device(operands, where, out)
        if device is None:
            # Only scalars: computed on the current device as 0-d arrays of NumPy's dtypes
            # for them (CuPy's: cupy.log(2.0) is a 0-d array), as NumPy converts them.
            device, key = get_device(), None
            operands = [Operand(to_device(np.asarray(op.value), device=device), where)
                        for op in operands]
        loop = self.resolve(operands)
        result, plan = apply(self, loop, operands, device, out)
        if key is not None and len(self._fast) < 1024 and type(loop) is not _ValueLoop:
            fast = self._fast[key] = _FastCall(plan, loop, operands, device)
            if plan.launch is not None and plan.plain and not fast.checks:
                self._calls.keep(args, plan.launch, fast.dtype, fast.shape, device,
                                 [None if op.is_array else t
                                  for op, t in zip(operands, plan.scalar_types)])
        return result

    def resolve(self, operands):
        """The loop dtypes (inputs..., output): NumPy's for these operand types."""
        key = tuple(op.resolve_as for op in operands)
        loop = self._resolved.get(key)
        if loop is None:
            try:
                loop = self.ufunc.resolve_dtypes(key + (None,))
            except TypeError:
                names = ", ".join(k.name if isinstance(k, np.dtype) else f"Python {k.__name__}"
                                  for k in key)
                raise TypeError(f"simt.{self.__name__} does not take ({names})") from None
            if loop[-1].kind == "O" or any(d.kind not in "biufc" for d in loop):
                raise TypeError(f"simt.{self.__name__}: unsupported dtypes {loop}")
            if any(d.kind == "c" for d in loop[:-1]) and self.__name__ not in COMPLEX:
                raise TypeError(f"simt.{self.__name__} does not take complex arrays yet "
                                f"({', '.join(d.name for d in loop[:-1])})")
            if self.ufunc in _COMPARISON_UFUNCS:
                loop = _exact_mixed_integers(key, loop)
            self._resolved[key] = loop
        return self._checked_scalars(loop, operands)

    def _checked_scalars(self, loop, operands):
        # A Python int must fit the integer dtype it is computed in (NumPy: OverflowError);
        # comparisons compare its exact value instead, in a dtype that holds it.
        for position, op in enumerate(operands):
            if op.is_array or type(op.value) is not int or loop[position].kind not in "iu":
                continue
            info = np.iinfo(loop[position])
            if info.min <= op.value <= info.max:
                continue
            if self.ufunc in _COMPARISON_UFUNCS:
                wide = np.dtype(np.int64 if op.value < 2 ** 63 else np.uint64)
                if op.value < -(2 ** 63) or op.value >= 2 ** 64:
                    # Beyond every integer dtype: it compares with each element as the
                    # infinity of its sign does (float64, where every element is finite).
                    wide = np.dtype(np.float64)
                    op.value = float("inf") if op.value > 0 else float("-inf")
                key = tuple(wide if o is op else o.resolve_as for o in operands)
                return _ValueLoop(_exact_mixed_integers(
                    key, self.ufunc.resolve_dtypes(key + (None,))))
            raise OverflowError(f"Python integer {op.value} out of bounds for {loop[position]}")
        return loop


class Round(Elementwise):
    """round: integers keep their dtype, as the array API's round and np.round do (the
    loop is NumPy's rint otherwise, whose integer loops give floats: simt.rint)."""

    def resolve(self, operands):
        dtype = operands[0].resolve_as if len(operands) == 1 else None
        if isinstance(dtype, np.dtype) and dtype.kind in "iu":
            return (dtype, dtype)
        return super().resolve(operands)


class _ValueLoop(tuple):
    """Loop dtypes chosen by a scalar's value, not its type: never kept for the fast path
    (the next call's scalar of the same type may need another loop)."""


class _Custom(Elementwise):
    """An element-wise function that is not a NumPy ufunc: its own type rule."""

    def __init__(self, name, nin, text, doc):
        self.__name__, self.nin = name, nin
        self.expressions = {"*": text}
        self._resolved, self._fast = {}, {}
        self._calls = _core.ElementwiseCalls()
        self.__doc__ = doc


_WEAK_EXAMPLES = {int: 0, float: 0.0, complex: 0j}


class Where(_Custom):
    def __init__(self):
        super().__init__("where", 3, "{1} if {0} else {2}",
                         "where(condition, x1, x2): x1's element where condition is true, "
                         "else x2's; x1 and x2 promote as in arithmetic (scalars weak).")
        self.__signature__ = _signature("condition", "x1", "x2")

    def resolve(self, operands):
        key = tuple(op.resolve_as for op in operands)
        loop = self._resolved.get(key)
        if loop is None:
            # Python scalar types as values: result_type takes int (the type) as a strong
            # int64, a value (0) as weak (NEP 50).
            dtype = np.result_type(*(_WEAK_EXAMPLES.get(k, k) for k in key[1:]))
            loop = self._resolved[key] = (np.dtype(bool), dtype, dtype, dtype)
        return self._checked_scalars(loop, operands)

    ufunc = None


class Clip(_Custom):
    def __init__(self):
        super().__init__("clip", 3, "np.minimum(np.maximum({0}, {1}), {2})",
                         "clip(x, min=None, max=None): x limited to [min, max], in x's dtype "
                         "(NaN stays NaN).")

    def __call__(self, x, /, min=None, max=None, *, out=None):
        if isinstance(x, TracedValue):
            if out is not None:
                raise TypeError("simt.fuse: out= inside a fused function (clip)")
            return x.trace.clip(x, *(_bound(x, v, name) for v, name in
                                     ((min, "min"), (max, "max"))))
        if not isinstance(x, Array):
            raise TypeError(f"simt.clip: x must be a simt array, not {type(x).__name__}")
        if min is None and max is None:
            return x.copy() if out is None else assign(out, x)
        low = _bound(x, min, "min")
        high = _bound(x, max, "max")
        return Elementwise.__call__(self, x, low, high, out=out)

    def resolve(self, operands):
        x = operands[0].value.dtype
        for op in operands[1:]:
            if op.is_array and not np.can_cast(op.value.dtype, x, "same_kind"):
                raise TypeError(f"simt.clip: a bound of dtype {op.value.dtype} for x of "
                                f"dtype {x}")
        return (x, x, x, x)

    ufunc = None


def _bound(x, value, name):
    if value is None:  # no bound on that side: the dtype's extreme
        if x.dtype.kind == "f":
            return float("-inf") if name == "min" else float("inf")
        if x.dtype.kind == "b":
            return name == "max"
        info = np.iinfo(x.dtype)
        return np.dtype(x.dtype).type(info.min if name == "min" else info.max)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and x.dtype.kind in "iu":
        if isinstance(value, float):
            raise TypeError(f"simt.clip: a float {name} for an integer array (the array "
                            f"API leaves it undefined)")
        info = np.iinfo(x.dtype)
        return np.dtype(x.dtype).type(builtins.min(builtins.max(value, info.min), info.max))
    return value


_COMPARISON_UFUNCS = {np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                      np.greater_equal}


_I64, _U64 = np.dtype(np.int64), np.dtype(np.uint64)
_CMP_SIGNS = {np.equal: "== 0", np.not_equal: "!= 0", np.less: "< 0", np.less_equal: "<= 0",
              np.greater: "> 0", np.greater_equal: ">= 0"}


def _exact_mixed_integers(key, loop):
    """A signed integer against uint64 (NumPy's loop: both in float64, which rounds) is
    compared exactly, as NumPy 2 compares them: the operands keep int64 and uint64."""
    kinds = [k.kind if isinstance(k, np.dtype) else "" for k in key]  # "": a Python type
    if loop[0].kind == "f" and sorted(kinds) == ["i", "u"] and _U64 in key:
        return tuple(_I64 if k == "i" else _U64 for k in kinds) + (np.dtype(bool),)
    return loop


def _mixed_comparison(function, loop):
    # dev_compare_iu(signed, unsigned): -1, 0 or 1, as the exact values compare.
    if loop[0].kind == "i":
        return f"dev_compare_iu({{0}}, {{1}}) {_CMP_SIGNS[function.ufunc]}"
    return f"-dev_compare_iu({{1}}, {{0}}) {_CMP_SIGNS[function.ufunc]}"


def expression(function, loop):
    """The expression of `function` for loop dtypes `loop`, and the helpers it calls."""
    kind = loop[0].kind
    if function.ufunc in _COMPARISON_UFUNCS and {kind, loop[1].kind} == {"i", "u"}:
        text = _mixed_comparison(function, loop)
        return text, helpers_for(text)
    text = function.expressions.get(loop[0].name) or \
        function.expressions.get(kind, function.expressions.get("*"))
    if kind in "iu" and kind not in function.expressions and "f" in function.expressions \
            and "*" not in function.expressions:
        text = function.expressions["f"]
    text = text.replace("{T}", _generated.dtype_name(loop[-1]))
    return text, helpers_for(text)


def apply(function, loop, operands, device, out=None):
    """function(*operands) into `out` (or a new array): the shared path of every call."""
    if out is not None:
        operands = [_separate(op, out) for op in operands]
    plan = _plan(function.__name__, lambda: expression(function, loop), loop, operands,
                 device, out)
    if out is None:
        out = empty(plan.shape, loop[-1], device)
    else:
        check_out(function.__name__, out, plan.shape, loop[-1])
    if plan.launch is not None:
        plan.launch(*plan.arguments(out, operands))
    return out, plan


def _fast_key(args):
    """What decides a call's plan, read cheaply: each array's dtype, layout and device,
    each Python scalar's type; None for anything else (the full path handles it)."""
    key = []
    for a in args:
        t = type(a)
        if t is Array:
            impl = a._impl
            key.append((impl.dtype, tuple(impl.shape), tuple(impl.strides), impl.device))
        elif t is float or t is int or t is bool or t is complex:
            key.append(t)
        else:
            return None
    return tuple(key)


class _FastCall:
    """A call repeated with operands of the same dtypes and layouts (the warm a + 1): the
    result allocated and the kernel launched, with no type resolution or planning."""

    __slots__ = ("plan", "shape", "dtype", "device", "checks")

    def __init__(self, plan, loop, operands, device):
        self.plan, self.device = plan, device
        self.shape, self.dtype = list(plan.shape), loop[-1].name
        # Python ints must still fit the integer dtype they compute in.
        self.checks = [(k, np.iinfo(loop[k]).min, np.iinfo(loop[k]).max)
                       for k, op in enumerate(operands)
                       if type(op.value) is int and loop[k].kind in "iu"]

    def __call__(self, args):
        for k, low, high in self.checks:
            if not low <= args[k] <= high:
                return None
        out = Array._wrap(_core.empty(self.shape, self.dtype, self.device, "C"))
        plan = self.plan
        if plan.launch is not None:
            if plan.plain:
                plan.launch(out, *[a if type(a) is Array else t(a)
                                   for a, t in zip(args, plan.scalar_types)])
            else:
                plan.launch(*plan.arguments(out, [Operand(a, "") for a in args]))
        return out


def check_out(name, out, shape, dtype):
    if out.shape != tuple(shape):
        raise ValueError(f"simt.{name}: out has shape {out.shape}, the result {tuple(shape)}")
    if out.readonly:
        raise ValueError(f"simt.{name}: out is read-only")
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"simt.{name}: cannot cast the result from {dtype} to out's dtype "
                        f"{out.dtype} (NumPy's casting rule 'same_kind')")


class _Plan:
    """How one call's layout runs: the result's shape, the launcher, and the views (merged
    dimensions, broadcast strides) each array is passed as. Kept per (operation, loop
    dtypes, operand layouts, device): a repeated call pays a dictionary lookup."""

    __slots__ = ("shape", "launch", "dims", "strides", "scalar_types", "plain")

    def arguments(self, out, operands):
        if self.plain:
            return [out] + [op.value if op.is_array else t(op.value)
                            for op, t in zip(operands, self.scalar_types)]
        strides = iter(self.strides)
        args = [_broadcast.element_view(out, self.dims, next(strides))]
        for op, t in zip(operands, self.scalar_types):
            args.append(_broadcast.element_view(op.value, self.dims, next(strides))
                        if op.is_array else t(op.value))
        return args


_plans = {}


def _layout(op):
    if op.is_array:
        impl = op.value._impl
        return (tuple(impl.shape), tuple(impl.strides), impl.itemsize)
    return None


def _plan(name, make_expression, loop, operands, device, out):
    key = (name, loop, tuple(map(_layout, operands)), None if out is None else
           (tuple(out._impl.shape), tuple(out._impl.strides)), device)
    plan = _plans.get(key)
    if plan is not None:
        return plan
    arrays = [op.value for op in operands if op.is_array]
    if out is not None:
        # The inputs broadcast to out's shape (as NumPy's out=); an expression of scalars
        # alone (and the index i) fills out.
        shape = out.shape
        if _broadcast.broadcast_shapes(shape, *(a.shape for a in arrays)) != shape:
            raise ValueError(f"simt.{name}: operands of shapes "
                             f"{', '.join(str(a.shape) for a in arrays)} do not broadcast to "
                             f"out's shape {shape}")
    else:
        shape = arrays[0].shape if len(arrays) == 1 else \
            _broadcast.broadcast_shapes(*(a.shape for a in arrays))
    _launch.check_dtypes(device, loop, f"simt.{name}")
    plan = _Plan()
    plan.shape = shape
    plan.scalar_types = [d.type for d in loop[:-1]]
    plan.launch = None
    size = 1
    for extent in shape:
        size *= extent
    if size:
        out_strides = out.strides if out is not None else \
            _broadcast.c_strides(shape, loop[-1].itemsize)
        views = [_broadcast.broadcast_strides(a.shape, a.strides, shape) for a in arrays]
        dims, strides = _broadcast.collapse(shape, [out_strides] + views)
        if not dims:
            dims, strides = [1], [[a.itemsize] for a in [loop[-1]] + arrays]
        plan.dims, plan.strides = dims, strides
        # Arrays already one contiguous dimension (and scalars) are passed as they are.
        plan.plain = len(shape) == 1 and all(
            a.shape == shape and a.strides == (a.itemsize,) for a in arrays) and \
            out_strides == (loop[-1].itemsize,)
        text, helpers = make_expression()
        k = kernel_for(name, text, helpers, loop[:-1], [op.is_array for op in operands],
                       len(dims), _launch.loop_form(device))
        plan.launch = k[_launch.elementwise_config(device, size)]
    if len(_plans) < 4096:
        _plans[key] = plan
    return plan


def kernel_for(name, text, helpers, in_dtypes, is_array, ndim, form):
    """The element-wise kernel computing `text` (an expression of {0}, {1}, ...) into out."""
    key = (name, text, tuple(in_dtypes), tuple(is_array), ndim, form)
    k = _kernels.get(key)
    if k is None:
        source = _source(name, text, helpers, in_dtypes, is_array, ndim, form)
        k = _kernels[key] = _generated.kernel(f"ew_{name}", source)
    return k


def run(name, text, helpers, out, operands, in_dtypes):
    """Writes `out` (whose dtype it converts to) from the expression `text` of `operands`,
    each array converted to its dtype in `in_dtypes` (scalars are passed in it): the
    internal entry of other families (copies, casts)."""
    loop = tuple(np.dtype(d) for d in in_dtypes) + (out.dtype,)
    operands = [_separate(op, out) for op in operands]
    plan = _plan(name, lambda: (text, helpers), loop, operands, out.device, out)
    if plan.launch is not None:
        plan.launch(*plan.arguments(out, operands))


_kernels = {}


def _separate(op, out):
    """An input that overlaps `out` other than element for element is copied first (as
    NumPy does): the kernel would read elements it already wrote."""
    if not op.is_array:
        return op
    a = op.value
    if a._impl.data_ptr != out._impl.data_ptr or a.strides != out.strides or a.shape != out.shape:
        if _may_overlap(a, out):
            copy = Operand.__new__(Operand)
            copy.value, copy.is_array, copy.resolve_as = contiguous_copy(a), True, op.resolve_as
            return copy
    return op


def _extent(a):
    low = high = a._impl.data_ptr
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high + a.itemsize


def _may_overlap(a, b):
    if a.size == 0 or b.size == 0 or a._impl.buffer_bytes == 0:
        return False
    (a0, a1), (b0, b1) = _extent(a), _extent(b)
    return a0 < b1 and b0 < a1


def contiguous_copy(a, dtype=None):
    """A new C-contiguous array with `a`'s values, converted to `dtype` (default a's)."""
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    out = empty(a.shape, dtype, a.device)
    assign(out, a)
    return out


def assign(out, value):
    """out[...] = value: an array broadcast to out's shape, or a scalar, converted to out's
    dtype (any conversion NumPy's astype makes; complex to real keeps the real part)."""
    if out.readonly:
        raise ValueError("assignment destination is read-only")
    operand = Operand(value, "assignment")
    if operand.is_array and operand.value.device != out.device:
        raise ValueError(f"assignment: the value is on {operand.value.device.id}, the array "
                         f"on {out.device.id}; move one with .to_device()")
    if out.size == 0:
        return out
    if operand.is_array:
        source = operand.value.dtype
        if len(operand.value.shape) > out.ndim:
            raise ValueError(f"could not broadcast an array of shape {operand.value.shape} "
                             f"into shape {out.shape}")
        _broadcast.broadcast_shapes(operand.value.shape, out.shape)
    else:
        # The scalar as NumPy's astype converts it (complex to real: its real part).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            operand.value = np.asarray(value).astype(out.dtype)[()]
        source = out.dtype
    run("copy", conversion(source, out.dtype), [], out, [operand], [source])
    return out


def conversion(source, target):
    """The expression of {0} (a value of dtype `source`) that the conversion to `target`
    reads, as NumPy's astype converts: a complex number's real part, or to bool whether
    it is nonzero (the imaginary part included)."""
    if source.kind == "c" and target.kind == "b":
        return "{0} != 0"
    if source.kind == "c" and target.kind != "c":
        return "{0}.real"
    return "{0}"


class Power(Elementwise):
    """pow: NumPy's, which refuses integers to negative integer powers (ValueError) where
    C's would give 0 or garbage."""

    def __call__(self, *args, out=None):
        # As NumPy's loop, which checks the elements it computes (none: no error), in an
        # integer loop only (uint64 ** int8 computes in float64).
        if len(args) == 2 and _signed_integers(args[1]) and not _empty(args) and \
                not any(isinstance(a, TracedValue) for a in args) and \
                self.resolve([Operand(a, "simt.pow") for a in args])[-1].kind in "iu" and \
                _negative_integers(args[1]):
            raise ValueError("Integers to negative integer powers are not allowed.")
        return super().__call__(*args, out=out)


def _signed_integers(value):
    """Whether an operand is a signed integer array or number (one that may be negative)."""
    if isinstance(value, Array):
        return value.dtype.kind == "i"
    return isinstance(value, (int, np.signedinteger)) and not isinstance(value, bool)


def _empty(operands):
    return any(isinstance(a, Array) and a.size == 0 for a in operands)


def _negative_integers(value):
    """Whether an integer operand holds a negative value (an array's: a reduction on its
    device, through the method the reduction family installs, which waits for it)."""
    if isinstance(value, Array):
        return bool(FUNCTIONS["less"](value, 0).any())
    return value < 0


def _functions():
    """{name: Elementwise} for every operation and alias."""
    special = {"pow": Power, "round": Round}
    found = {name: special.get(name, Elementwise)(name) for name in OPERATIONS}
    found["where"], found["clip"] = Where(), Clip()
    found.update({alias: found[name] for alias, name in ALIASES.items()})
    return found


FUNCTIONS = _functions()


def _source(name, text, helpers, in_dtypes, is_array, ndim, form):
    params = ["out"] + [f"a{k}" for k in range(len(in_dtypes))]
    index = "i" if ndim == 1 else ", ".join(f"i{d}" for d in range(ndim))
    values = [f"{_generated.dtype_name(d)}(a{k}[{index}])" if arr else f"a{k}"
              for k, (d, arr) in enumerate(zip(in_dtypes, is_array))]
    body = f"out[{index}] = {text.format(*values)}"
    lines = ["".join(helpers), f"def ew_{name}({', '.join(params)}):"]
    if ndim > 1 and form == _launch.CHUNKED:
        lines += _rows_of_chunk(ndim, body)
    else:
        lines += _launch.flat_loop([body] if ndim == 1 else _decompose(ndim) + [body], form)
    return "\n".join(lines) + "\n"


def _rows_of_chunk(ndim, body):
    """The CPU's chunk of a thread over an N-d result, row by row: the first flat index is
    split into one index per dimension, then an inner loop walks each row of the last
    dimension and the others advance as an odometer does (split per element, the flat
    index's divisions cost more than the arithmetic: broadcasting operations ran at about
    0.6x NumPy's, whose loops stride along rows)."""
    last = f"i{ndim - 1}"
    lines = ["    n = out.size", "    threads = simt.gridsize(1)",
             "    chunk = n // threads + 1",  # as flat_loop's: indices known non-negative
             "    i = simt.grid(1) * chunk", "    end = min(i + chunk, n)",
             f"    inner = out.shape[{ndim - 1}]",
             f"    {last} = i % inner", "    r = i // inner"]
    for d in range(ndim - 2, 0, -1):
        lines += [f"    i{d} = r % out.shape[{d}]", f"    r = r // out.shape[{d}]"]
    lines += ["    i0 = r", "    while i < end:",
              f"        stop = min(inner, {last} + end - i)",
              f"        i += stop - {last}", f"        while {last} < stop:",
              f"            {body}", f"            {last} += 1", f"        {last} = 0"]
    # The carry: dimension d steps, and wraps into d - 1 at its extent (dimension 0 never
    # wraps: the loop ends first).
    indent = "        "
    for d in range(ndim - 2, -1, -1):
        lines.append(f"{indent}i{d} += 1")
        if d == 0:
            break
        lines += [f"{indent}if i{d} == out.shape[{d}]:", f"{indent}    i{d} = 0"]
        indent += "    "
    return lines


def _decompose(ndim):
    """Statements giving i0..i{ndim-1} from the flat index i (C order)."""
    lines = ["r = i"]
    for d in range(ndim - 1, 0, -1):
        lines.append(f"i{d} = r % out.shape[{d}]")
        lines.append(f"r = r // out.shape[{d}]")
    lines.append("i0 = r")
    return lines

