"""NumPy's protocols on simt.Array, as CuPy answers them: NumPy's functions run on the
array's device and give simt arrays, and NumPy never copies a device array implicitly.

- ``__array_ufunc__``: ``np.sin(a)``, ``np.add(a, 1, out=b)`` call simt's element-wise
  function of that ufunc (``dtype=`` converts the arrays to that dtype first), and
  ``np.matmul`` and ``np.vecdot`` simt.matmul and simt.vecdot;
  ``np.add.reduce(a, axis=0)`` (and multiply, maximum, minimum, logical_and,
  logical_or) call simt.sum (prod, max, min, all, any).
- ``__array_function__``: ``np.sum(a, axis=0)``, ``np.concatenate([a, b])`` call simt's
  function of the same name (``np.linalg.x``: ``simt.linalg.x``).
- ``__array__``: ``np.asarray(a)`` views an array whose memory the host reads (a cpu
  array: no copy) and raises TypeError for the others (call ``.get()``).

A NumPy array among the operands raises TypeError: copy it to the device first (a 0-d one
is read as the NumPy scalar it holds). Anything
simt does not implement returns NotImplemented, for which NumPy raises TypeError.
"""

import numpy as np

from .._array import Array
from ._dtypes import astype
from ._elementwise import FUNCTIONS, assign, check_out

__all__ = []

# ufunc.reduce -> the reduction of the array namespace that computes it.
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logical_and": "all", "logical_or": "any"}

# Generalized ufuncs computed by simt's namespace function of the same name.
_GENERALIZED = ("matmul", "vecdot")

# Keywords of a ufunc call simt takes only at NumPy's default value.
_DEFAULT_KEYWORDS = {"casting": "same_kind", "order": "K", "where": True, "subok": True}


def _numpy_array_error(where):
    return TypeError(f"{where}: an operand is a NumPy array, the others simt arrays; copy it "
                     f"to the device first (simt.asarray(x, device=a.device)), or bring the "
                     f"simt arrays back with .get() (simt never copies implicitly)")


def _simt():
    import simt

    return simt


def _checked_operands(values, where):
    """False when an operand is of a type simt leaves to others (NotImplemented)."""
    for value in values:
        if isinstance(value, np.ndarray):
            raise _numpy_array_error(where)
        if not isinstance(value, (Array, bool, int, float, complex, np.generic)) and \
                value is not None:
            return False
    return True


def _only_defaults(kwargs, where):
    for name, value in kwargs.items():
        default = _DEFAULT_KEYWORDS.get(name, _NO_DEFAULT)
        if default is _NO_DEFAULT or not (value is default or (
                isinstance(value, (str, bool)) and value == default)):
            raise TypeError(f"{where}: simt arrays do not take {name}={value!r}")


_NO_DEFAULT = object()


def _array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    """NumPy's ufunc protocol: ufunc(*inputs) computed by simt on the arrays' device."""
    name = getattr(ufunc, "__name__", repr(ufunc))
    where = f"numpy.{name}" if method == "__call__" else f"numpy.{name}.{method}"
    outs = () if out is None else tuple(out)
    # NumPy hands a NumPy scalar on the left of a comparison (np.float32(1) < a) over as
    # a 0-d ndarray: read as the scalar it is.
    inputs = tuple(v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in inputs)
    if not _checked_operands(inputs + outs, where):
        return NotImplemented
    if method == "__call__" and name in _GENERALIZED and getattr(np, name, None) is ufunc:
        return _generalized(getattr(_simt(), name), name, inputs, outs, kwargs, where)
    if method == "__call__":
        function = FUNCTIONS.get(name)
        if function is None or getattr(function, "ufunc", None) is not ufunc:
            return NotImplemented
        dtype = kwargs.pop("dtype", None)
        _only_defaults(kwargs, where)
        if dtype is not None:
            # NumPy's dtype= picks the loop: the arrays are converted to it first (Dask's
            # reductions add partial sums with np.add(a, b, dtype=...)).
            inputs = tuple(astype(x, dtype, copy=False) if isinstance(x, Array) else x
                           for x in inputs)
        if len(outs) > 1:
            raise TypeError(f"{where}: has one output, not {len(outs)} (out=)")
        return function(*inputs, out=outs[0] if outs else None)
    if method == "reduce" and name in _REDUCTIONS and \
            getattr(np, name, None) is ufunc:
        reduction = getattr(_simt(), _REDUCTIONS[name], None)
        if reduction is None or len(inputs) != 1:
            return NotImplemented
        return _reduce(reduction, _REDUCTIONS[name], inputs[0], outs, kwargs, where)
    return NotImplemented


def _generalized(function, name, inputs, outs, kwargs, where):
    # A generalized ufunc (numpy.matmul, and `@` inside Dask's blocks): simt's function of
    # that name, with NumPy's default core dimensions only.
    _only_defaults(kwargs, where)
    if not all(isinstance(x, Array) for x in inputs):
        return NotImplemented
    result = function(*inputs)
    if not outs:
        return result
    if len(outs) != 1:
        raise TypeError(f"{where}: has one output, not {len(outs)} (out=)")
    out, = outs
    check_out(name, out, result.shape, result.dtype)
    return assign(out, result)


def _reduce(reduction, reduction_name, x, outs, kwargs, where):
    if not isinstance(x, Array):
        return NotImplemented
    kwargs = dict(kwargs)
    axis = kwargs.pop("axis", 0)  # ufunc.reduce's default: the first axis
    call = {"axis": axis, "keepdims": bool(kwargs.pop("keepdims", False))}
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        if reduction_name not in ("sum", "prod"):
            raise TypeError(f"{where}: simt.{reduction_name} takes no dtype")
        call["dtype"] = dtype
    if kwargs.get("where", True) is True:
        kwargs.pop("where", None)
    if kwargs:
        raise TypeError(f"{where}: simt arrays do not take "
                        f"{', '.join(f'{k}=' for k in kwargs)}")
    result = reduction(x, **call)
    if not outs:
        return result
    if len(outs) != 1:
        raise TypeError(f"{where}: has one output, not {len(outs)} (out=)")
    out, = outs
    check_out(reduction_name, out, result.shape, result.dtype)
    return assign(out, result)


# NumPy's functions that only read an array's attributes, for when simt has none of them.
_ATTRIBUTES = {
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
}


def _array_function(self, func, types, args, kwargs):
    """NumPy's function protocol: numpy.f(...) on simt arrays is simt.f(...)."""
    for t in types:
        if not issubclass(t, (Array, np.ndarray)):
            return NotImplemented  # another library's array: its protocol answers
    module = getattr(func, "__module__", None) or ""
    if module != "numpy" and not module.startswith("numpy."):
        return NotImplemented
    target = _simt()
    for part in module.split(".")[1:]:
        target = getattr(target, part, None)
    name = func.__name__
    implementation = getattr(target, name, None) if target is not None else None
    if implementation is None and module == "numpy":
        implementation = _ATTRIBUTES.get(name)
    if implementation is None or not callable(implementation) or isinstance(
            implementation, type):
        return NotImplemented
    return implementation(*args, **kwargs)


def _array(self, dtype=None, copy=None):
    """numpy.asarray(a): a view of the array's memory where the host reads it."""
    if not self._impl.host_visible:
        raise TypeError(f"numpy cannot read an array on {self.device.id}: call .get() for a "
                        f"NumPy copy (simt never copies implicitly)")
    self._impl.device.synchronize()  # work queued on the device comes first
    view = self._host_view()  # through __array_interface__: no copy
    if dtype is not None and np.dtype(dtype) != view.dtype:
        if copy is False:
            raise ValueError(f"numpy.asarray: the array is {view.dtype}, not {np.dtype(dtype)}, "
                             f"and copy=False forbids converting it")
        return view.astype(dtype)
    return view.copy() if copy else view


METHODS = {"__array_ufunc__": _array_ufunc, "__array_function__": _array_function,
           "__array__": _array}
