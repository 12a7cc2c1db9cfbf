"""Numba's vectorizers for `simt.cuda`.

numba.cuda.vectorize: a scalar Python function with explicit
signatures becomes an element-wise function of arrays on the current device, with
broadcasting, through the same element-wise template and plans as simt.add.

Called with simt arrays it returns a simt array; called with NumPy arrays (and scalars)
alone it copies them to the current device and returns a NumPy array, as Numba's does
with host arrays.

numba.cuda.guvectorize: generalized ufuncs.

`@cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->(n)")` makes
a function of arrays whose trailing (core) dimensions are the layout's and whose leading
(loop) dimensions are broadcast, NumPy's way, over all arguments. One thread runs the
user's function, compiled as a device function, for each element of the loop shape, on
views of the arguments (`a[i, j]` of an array with two loop dimensions is the view of its
core dimensions); an argument whose loop dimension is 1 gives the same view to every
thread of that dimension.

As Numba's: the inputs come first, then the outputs; outputs not given are allocated;
NumPy in gives NumPy out (copied back into NumPy outputs that were given), a device
array in any argument gives device arrays out; a "()" argument declared as an array
(`float32[:]`) is a one-element array (write `res[0] = ...`), one declared as a scalar
is the element's value; the first signature the inputs convert to safely is used and
the inputs are converted to it.
"""

import functools
import inspect
import re
import warnings

import numpy as np

from .. import _array, _interop, _types
from .._array_api import _elementwise, _generated
from .._device import block_size
from .._kernel import Func
from .kernels.reduction import Reduce
from .types import Signature

_PYTHON_TYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}
_SCALARS = (bool, int, float, complex, np.generic)


def _takes(operand, python, target):
    """Whether a loop taking dtype `target` takes an operand (as NumPy picks a ufunc's
    loop): an array's dtype that converts to it safely, or a Python scalar (`python`)
    whose value's kind it holds."""
    if python:
        return np.can_cast(np.min_scalar_type(operand), target, "same_kind")
    return np.can_cast(operand, target, "safe")


def _dtype(name, signature):
    """The dtype of a scalar type as the signature reader spells it."""
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise TypeError(f"vectorize: {name!r} in {signature!r} is not a number type") from None
    if dtype.kind not in "biufc":
        raise TypeError(f"vectorize: {dtype} in {signature!r} is not a number type")
    return dtype


def _read(signature, where, example):
    """(text, result, argument types) of a signature given as text or a type object, through
    the core's reader; a TypeError naming `where` otherwise, as Numba's vectorizers raise."""
    text = _types.type_text(signature)
    if text is None:
        raise TypeError(f"{where}: a signature is a string such as '{example}', not "
                        f"{type(signature).__name__}")
    try:
        return (text,) + _types.signature_types(text)
    except ValueError as error:
        raise TypeError(f"{where}: {error} (write '{example}')") from None


def _parse(signature):
    """'float32(float32, int32)' (or a type object spelling it) -> (input dtypes, output
    dtype)."""
    text, result, params = _read(signature, "vectorize", "float32(float32, float32)")
    if result is None:
        raise TypeError(f"vectorize: the signature {text!r} names no result type (write "
                        f"'float32(float32, float32)')")
    return tuple(_dtype(t, text) for t in params), _dtype(result, text)


class Vectorized:
    """An element-wise function made by cuda.vectorize."""

    def __init__(self, function, signatures):
        self.__name__ = getattr(function, "__name__", "vectorized")
        self.__doc__ = function.__doc__
        self._loops = [_parse(s) for s in signatures]
        # Without signatures (Numba's lazy vectorize) each call's input dtypes make a loop,
        # its output dtype what simt infers for the function's result.
        self._lazy = not self._loops
        self._function = function
        self._reduction = None  # the cuda.reduce of the function, made on first use
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
        args = _foreign_arrays(args)
        if out is not None:
            out, = _foreign_arrays((out,))  # another library's device array: written in place
        if out is not None and not isinstance(out, _array.Array):
            # A host out= (Numba's): the result is computed on the device and copied in.
            host_out = out
            if not isinstance(host_out, np.ndarray) or not host_out.flags.writeable:
                raise TypeError(f"{where}: out= is a simt array or a writeable NumPy array, "
                                f"not {type(out).__name__}")
            result = self(*[a if isinstance(a, (_array.Array, *_SCALARS)) else
                            _array.to_device(np.asarray(a)) for a in args], stream=stream)
            np.copyto(host_out, result.get() if isinstance(result, _array.Array) else result)
            return host_out
        # As Numba's: host data (NumPy arrays, lists, tuples) is copied to the device of the
        # device arrays given (else the current device), and a call with no device array
        # gives host data back: a NumPy array, or a scalar for scalars alone.
        given = [a for a in args if isinstance(a, _array.Array)]
        host = not given and out is None
        target = given[0].device if given else out.device if out is not None else None
        scalars = all(isinstance(a, _SCALARS) for a in args)
        args = [a if isinstance(a, _array.Array) or (isinstance(a, _SCALARS) and not scalars)
                else _array.to_device(np.asarray(a), target) for a in args]
        operands = [_elementwise.Operand(a, where) for a in args]
        device = _elementwise.common_device(operands, where, out)
        loop = self._loop(operands)
        result, _ = _elementwise.apply(_Expression(self, loop), loop, operands, device, out)
        if not host:
            return result
        return result.get()[()] if scalars else result.get()

    def reduce(self, arg, stream=0):
        """Reduces a 1-D array with the binary function (Numba's ufunc.reduce of a CUDA
        vectorize): the loop whose inputs take the array's dtype, all of whose types must
        be one (the function's result goes back in as an argument); a NumPy array is copied
        to the current device. The function must be associative and commutative, as
        Numba's tree reduction requires. Returns the result as a NumPy scalar of that type."""
        where = f"vectorize({self.__name__}).reduce"
        if self.nin != 2:
            raise TypeError(f"{where}: reduce needs a function of two arguments, not "
                            f"{self.nin}")
        x = arg if isinstance(arg, _array.Array) else _array.to_device(np.asarray(arg))
        if x.ndim != 1:
            raise TypeError(f"{where}: a 1-D array is reduced, not shape {x.shape}")
        if x.size == 0:
            raise TypeError(f"{where}: reduction of an empty array (no identity to give)")
        operand = _elementwise.Operand(x, where)
        inputs_and_output = self._loop([operand, operand])
        if len(set(inputs_and_output)) != 1:
            raise TypeError(f"{where}: the loop for {x.dtype} is "
                            f"({', '.join(map(str, inputs_and_output[:-1]))}) -> "
                            f"{inputs_and_output[-1]}; reduce needs its inputs and result of "
                            f"one type")
        dtype = inputs_and_output[0]
        if x.dtype != dtype:
            x = x.astype(dtype)
        if self._reduction is None:
            self._reduction = Reduce(self._function)
        # No initial value: the first partial starts the fold, so any function works.
        partials = self._reduction.partials(x, x.size, stream)
        with np.errstate(all="ignore"):  # the host's last steps wrap and overflow as kernels do
            return dtype.type(functools.reduce(self._function, partials))


def _foreign_arrays(args):
    """The arguments with other libraries' device arrays (__cuda_array_interface__, as
    Numba's vectorizers take them) as simt arrays over the same memory."""
    return tuple(_interop.asarray(a) if not isinstance(a, (_array.Array, np.ndarray)) and
                 hasattr(a, "__cuda_array_interface__") else a for a in args)


class _Expression:
    """What the element-wise path reads of a function: its name and expression text."""

    def __init__(self, vectorized, loop):
        self.__name__ = vectorized._callee
        self.expressions = {"*": vectorized._text}
        self.ufunc = None


# Options Numba's CUDA vectorizers take; simt compiles with none of them (its kernels are
# cached on disk and compiled in nopython mode always).
_VECTORIZE_OPTIONS = ("identity", "cache", "nopython", "fastmath", "debug")


def _check_options(options, where):
    """Numba's answers: a RuntimeWarning for nopython (redundant on the GPU targets), a
    KeyError naming options it does not know."""
    unknown = sorted(set(options) - set(_VECTORIZE_OPTIONS))
    if unknown:
        raise KeyError(f"{where}: Unrecognized options: {', '.join(unknown)} (it takes "
                       f"{', '.join(_VECTORIZE_OPTIONS)}, target)")
    if "nopython" in options:
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning,
                      stacklevel=3)


def vectorize(signatures=None, target="cuda", **options):
    """`@cuda.vectorize(['float32(float32, float32)', ...])`: an element-wise function of
    arrays from a scalar function (Numba's vectorize with target='cuda'). `target` is
    accepted as Numba's ('cuda', 'parallel', 'cpu'): the current device runs it."""
    _check_options(options, "cuda.vectorize")
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


# --- guvectorize ------------------------------------------------------------------------

_NAME = re.compile(r"^[A-Za-z_]\w*$")
_ARG_TYPE = re.compile(r"^(?:readonly\s+)?(\w+)\s*(?:\[(.*)\])?$")
_GPU_BLOCK = 256


def parse_layout(layout):
    """'(m,n),(n,p)->(m,p)' -> ([('m', 'n'), ('n', 'p')], [('m', 'p')])."""
    if not isinstance(layout, str):
        raise TypeError(f"guvectorize: the layout is a string such as '(n),(n)->(n)', not "
                        f"{type(layout).__name__}")
    text = re.sub(r"\s+", "", layout)
    if text.count("->") != 1:
        raise ValueError(f"guvectorize: the layout {layout!r} needs one '->' between inputs "
                         f"and outputs, as '(n),(n)->(n)'")
    sides = []
    for side in text.split("->"):
        if not re.fullmatch(r"\([^()]*\)(,\([^()]*\))*", side):
            raise ValueError(f"guvectorize: cannot read {side!r} in the layout {layout!r} "
                             f"(write each argument's dimensions as '(m,n)' or '()')")
        groups = []
        for group in re.findall(r"\(([^()]*)\)", side):
            names = tuple(n for n in group.split(",")) if group else ()
            for name in names:
                if not _NAME.match(name):
                    raise ValueError(f"guvectorize: {name!r} in the layout {layout!r} is not "
                                     f"a dimension name")
            groups.append(names)
        sides.append(groups)
    return sides[0], sides[1]


def _arg_type(text, signature):
    """'float32[:, ::1]' -> (dtype, ndim); 'float32' -> (dtype, 0)."""
    match = _ARG_TYPE.match(text.strip())
    if not match:
        raise TypeError(f"guvectorize: cannot read the type {text!r} in {signature!r}")
    dtype = _dtype(match.group(1), signature)
    dims = match.group(2)
    return dtype, (0 if dims is None else len(dims.split(",")))


class _Loop:
    """One signature: each argument's dtype and declared ndim (0 for a scalar)."""

    def __init__(self, signature, nin, nout, core):
        text, result, params = _read(signature, "guvectorize",
                                     "void(float32[:], float32[:])")
        if result is not None:
            raise TypeError(f"guvectorize: {text!r} returns a value; a gufunc returns nothing "
                            f"(write 'void(...)' and give the outputs as arguments)")
        args = [_arg_type(t, text) for t in params]
        if len(args) != nin + nout:
            raise TypeError(f"guvectorize: {text!r} has {len(args)} arguments but the layout "
                            f"has {nin} inputs and {nout} outputs")
        for k, ((dtype, ndim), dims) in enumerate(zip(args, core)):
            if ndim != len(dims) and not (ndim == 1 and not dims):
                raise TypeError(f"guvectorize: argument {k + 1} of {text!r} has {ndim} "
                                f"dimensions but its layout ({','.join(dims)}) has {len(dims)}")
            if k >= nin and ndim == 0:
                raise TypeError(f"guvectorize: output {k - nin + 1} of {text!r} is a scalar; "
                                f"outputs are arrays (declare '()' outputs as 'float32[:]' and "
                                f"write out[0])")
        self.text = text
        self.dtypes = tuple(d for d, _ in args)
        # A '()' argument declared as an array: a one-element trailing dimension.
        self.unit = tuple(ndim == 1 and not dims for (_, ndim), dims in zip(args, core))


class GUVectorized:
    """A generalized ufunc made by cuda.guvectorize."""

    def __init__(self, function, signatures, layout):
        self.__name__ = getattr(function, "__name__", "gufunc")
        self.__doc__ = function.__doc__
        self.py_func = function
        self.layout = layout
        inputs, outputs = parse_layout(layout)
        self.nin, self.nout = len(inputs), len(outputs)
        self.nargs = self.nin + self.nout
        if not self.nout:
            raise ValueError(f"guvectorize: the layout {layout!r} has no output")
        self._core = inputs + outputs
        if isinstance(signatures, (str, Signature)):
            signatures = [signatures]
        self._loops = [_Loop(s, self.nin, self.nout, self._core) for s in signatures]
        if not self._loops:
            raise TypeError("guvectorize needs at least one signature")
        self.types = [l.text for l in self._loops]
        self._callee = _generated.define("user_gufunc", Func(function))
        self.max_blocksize = 2 ** 30  # Numba's attribute: caps the threads per block

    def __repr__(self):
        return f"<simt.cuda.guvectorize {self.__name__} {self.layout!r}>"

    @property
    def signature(self):
        return self.layout

    def _select(self, inputs):
        for loop in self._loops:
            if all(_takes(a if python else a.dtype, python, d)
                   for (a, python), d in zip(inputs, loop.dtypes)):
                return loop
        kinds = ", ".join(type(a).__name__ if python else str(a.dtype) for a, python in inputs)
        raise TypeError(f"guvectorize({self.__name__}): no signature takes ({kinds}); it has "
                        f"{', '.join(self.types)}")

    def _kernel(self, nloop):
        """The kernel over `nloop` loop dimensions: thread i runs the function on the
        views at i's loop index (taken modulo each argument's extent: broadcasting)."""
        names = [f"a{k}" for k in range(self.nargs)]
        shape = [f"s{d}" for d in range(1, nloop)]
        lines = [f"def gufunc_loop(count, {', '.join(names + shape)}):",
                 "    i = simt.grid(1)",
                 "    if i < count:"]
        rest = "i"
        for d in range(nloop - 1, 0, -1):
            lines.append(f"        j{d} = {rest} % s{d}")
            lines.append(f"        r{d} = {rest} // s{d}")
            rest = f"r{d}"
        lines.append(f"        j0 = {rest}")
        views = []
        for name in names:
            index = ", ".join(f"j{d} % {name}.shape[{d}]" for d in range(nloop))
            views.append(f"{name}[{index}]")
        lines.append(f"        {self._callee}({', '.join(views)})")
        return _generated.kernel("gufunc_loop", "\n".join(lines) + "\n")

    def __call__(self, *args, out=None, stream=0):
        where = f"guvectorize({self.__name__})"
        if out is not None:
            if len(args) != self.nin:
                raise ValueError(f"{where}: outputs given both as arguments and as out=")
            args = args + (tuple(out) if isinstance(out, (tuple, list)) else (out,))
        args = _foreign_arrays(args)
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"{where} takes {self.nin} arguments (the inputs) or {self.nargs} "
                            f"(inputs and outputs), not {len(args)}")
        given = list(args[self.nin:]) or [None] * self.nout
        host = not any(isinstance(a, _array.Array) for a in args)
        inputs = []
        for a in args[:self.nin]:
            python = isinstance(a, (bool, int, float, complex))
            inputs.append((a if python or isinstance(a, _array.Array) else np.asarray(a),
                           python))
        loop = self._select(inputs)
        arrays = [a if isinstance(a, _array.Array) else np.asarray(a, dtype=d)
                  for (a, _), d in zip(inputs, loop.dtypes)]

        # Core dimensions from the inputs (and given outputs); loop shapes broadcast.
        sizes, loop_shapes = {}, []
        for k, (a, dims) in enumerate(zip(arrays + given, self._core)):
            if a is None:
                continue
            if a.ndim < len(dims):
                raise ValueError(f"{where}: argument {k + 1} has {a.ndim} dimensions, fewer "
                                 f"than its layout ({','.join(dims)})")
            split = a.ndim - len(dims)
            for axis, (name, size) in enumerate(zip(dims, a.shape[split:])):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"{where}: argument {k + 1}'s dimension {split + axis} "
                                     f"({name}) is {size}, but {name} is {sizes[name]}")
            if k < self.nin:
                loop_shapes.append(a.shape[:split])
        try:
            loop_shape = np.broadcast_shapes(*loop_shapes)
        except ValueError:
            raise ValueError(f"{where}: the loop dimensions of the inputs "
                             f"{', '.join(map(str, loop_shapes))} do not broadcast") from None
        out_shapes = []
        for k, dims in enumerate(self._core[self.nin:]):
            missing = [n for n in dims if n not in sizes]
            if missing:
                raise ValueError(f"{where}: output {k + 1}'s dimension {missing[0]} is not "
                                 f"in the inputs; give the output")
            out_shapes.append(loop_shape + tuple(sizes[n] for n in dims))
        for k, (o, shape) in enumerate(zip(given, out_shapes)):
            if o is not None and tuple(o.shape) != shape:
                raise ValueError(f"{where}: output {k + 1} has shape {tuple(o.shape)}, not "
                                 f"{shape}")

        # Everything on the device, converted to the signature's dtypes.
        device = next((a.device for a in arrays + given if isinstance(a, _array.Array)),
                      None)
        operands = []
        for a, d in zip(arrays, loop.dtypes):
            if not isinstance(a, _array.Array):
                a = _array.to_device(np.ascontiguousarray(a), device, stream=stream or None)
            elif a.device != device:
                raise ValueError(f"{where}: arrays on {a.device.id} and {device.id}")
            operands.append(a if a.dtype == d else a.astype(d))
        outputs = []
        for o, shape, d in zip(given, out_shapes, loop.dtypes[self.nin:]):
            if isinstance(o, _array.Array):
                if o.dtype != d:
                    raise TypeError(f"{where}: output of dtype {o.dtype}; the signature "
                                    f"{loop.text} writes {d}")
                outputs.append(o)
            else:
                outputs.append(_array.empty(shape, d, device))

        count = int(np.prod(loop_shape, dtype=np.int64))
        if count:
            nloop = max(len(loop_shape), 1)
            full = (1,) * (nloop - len(loop_shape)) + loop_shape
            views = []
            for k, (a, dims) in enumerate(zip(operands + outputs, self._core)):
                core = tuple(a.shape[a.ndim - len(dims):])
                own = tuple(a.shape[:a.ndim - len(dims)])
                shape = (1,) * (nloop - len(own)) + own + core + ((1,) if loop.unit[k] else ())
                views.append(a.reshape(shape) if tuple(a.shape) != shape else a)
            kernel = self._kernel(nloop)
            target = views[0].device
            block = block_size(target, max(1, min(_GPU_BLOCK, self.max_blocksize)))
            blocks = -(-count // block)
            kernel[blocks, block, stream](count, *views, *full[1:])

        if host:
            results = []
            for o, d_o in zip(given, outputs):
                if o is None:
                    results.append(d_o.get(stream=stream or None))
                else:
                    np.copyto(o, d_o.get(stream=stream or None))
                    results.append(o)
            outputs = results
        else:
            outputs = [o if isinstance(o, _array.Array) else d_o
                       for o, d_o in zip(given, outputs)]
        return outputs[0] if self.nout == 1 else tuple(outputs)


def guvectorize(signatures, layout, target="cuda", identity=None, nopython=True,
                **options):
    """`@cuda.guvectorize(['void(float32[:], float32[:])'], '(n)->(n)')`: a generalized
    ufunc of arrays on the current device (Numba's guvectorize with target='cuda')."""
    if callable(signatures) and not isinstance(signatures, Signature):
        raise TypeError("cuda.guvectorize needs its signatures and layout: "
                        "@cuda.guvectorize(['void(float32[:], float32[:])'], '(n)->(n)')")
    return lambda function: GUVectorized(function, signatures, layout)
