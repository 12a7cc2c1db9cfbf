"""Numba's extension API (numba.cuda.extending), as far as simt's compilation from source
can act on it:

- `register_model(TypeClass)` with a `models.StructModel`: the type is a record of the
  members wherever kernels take a dtype or a type (`cuda.local.array(n, dtype=t)`,
  `cuda.shared.array`, `void(t[::1])` signatures); `make_attribute_wrapper` names a member
  as an attribute (`x.member` in kernels, as for any record field).
- `typeof_impl.register(HostClass)`, `type_callable(f)`: kept, and read by simt.cuda
  (`typeof_impl(value)` gives the type the registered function returns).
- `cudaimpl.lower(f, *types)`: kept; simt does not run LLVM lowering, so a kernel that
  calls `f` is an error naming the lowering it would need.
- `overload`, `overload_method`, `overload_attribute` and `intrinsic` define
  implementations that Numba compiles through its own typing and LLVM IR: they raise
  NotImplementedError when used, saying to write a device function (`cuda.jit(device=True)`)
  instead.
"""

from . import models as core_models  # noqa: F401  (Numba's name in numba.cuda.extending)
from . import _models
from . import models  # noqa: F401

__all__ = ["core_models", "models", "typeof_impl", "register_model", "make_attribute_wrapper",
           "type_callable", "overload", "overload_method", "overload_attribute", "intrinsic"]


class _TypeofRegistry:
    """Numba's typeof_impl: `typeof_impl.register(HostClass)(fn)`; fn(value, context) gives
    the type of a host value of that class."""

    def register(self, cls):
        def decorate(fn):
            _models.TYPEOFS[cls] = fn
            return fn
        return decorate

    def __call__(self, value, context=None):
        for cls in type(value).__mro__:
            if cls in _models.TYPEOFS:
                return _models.TYPEOFS[cls](value, context)
        raise TypeError(f"typeof_impl: no type is registered for {type(value).__name__}")


typeof_impl = _TypeofRegistry()


def register_model(type_class):
    """`@register_model(MyType) class MyModel(models.StructModel)`: MyType's layout."""
    if not isinstance(type_class, type):
        raise TypeError(f"register_model takes a type class, not {type_class!r}")

    def decorate(model_class):
        _models.MODELS[type_class] = model_class
        return model_class
    return decorate


def make_attribute_wrapper(type_class, struct_attr, python_attr):
    """`x.python_attr` in kernels reads member `struct_attr` of a value of `type_class`.
    simt reads members as record fields, by their own names: the two names must agree."""
    if struct_attr != python_attr:
        raise NotImplementedError(
            f"make_attribute_wrapper({type_class.__name__}, {struct_attr!r}, {python_attr!r}): "
            f"simt reads a struct model's members as record fields under their own names; "
            f"name the attribute as the member ({struct_attr!r})")
    _models.ATTRIBUTES.setdefault(type_class, {})[python_attr] = struct_attr


def type_callable(func):
    """`@type_callable(f) def typer(context): ...`: the typer of calls to `f` (kept)."""
    def decorate(typer_factory):
        _models.TYPERS[func] = typer_factory
        return typer_factory
    return decorate


def _compiled_by_numba(name):
    def unsupported(*args, **kwargs):
        raise NotImplementedError(
            f"numba.cuda.extending.{name}: simt compiles kernels from their Python source, "
            f"not through Numba's typing and LLVM lowering; write the implementation as a "
            f"device function (@cuda.jit(device=True)) and call it from kernels")
    unsupported.__name__ = name
    return unsupported


overload = _compiled_by_numba("overload")
overload_method = _compiled_by_numba("overload_method")
overload_attribute = _compiled_by_numba("overload_attribute")
intrinsic = _compiled_by_numba("intrinsic")
