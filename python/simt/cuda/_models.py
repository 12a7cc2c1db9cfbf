"""What Numba's extension API registers, kept for simt.cuda's type objects to read: the data
model of each type class (`register_model`), its attribute wrappers, the `typeof` of host
classes, and the typers and lowerings of callables.

simt compiles kernels from their source text to C, not through Numba's LLVM lowering, so
of a data model it reads the layout: a `StructModel`'s members become a record type, which
kernels read, write, copy and keep in local, shared and global arrays as any NumPy record.
The registrations that only Numba's typing or lowering machinery could act on are kept and
named in the error of the kernel that needs them (docs/porting.md, "Numba's extension API").
"""

import numpy as np

# type class -> model class (register_model)
MODELS = {}
# type class -> {python attribute: member} (make_attribute_wrapper)
ATTRIBUTES = {}
# host class -> typeof function(value, context) (typeof_impl.register)
TYPEOFS = {}
# callable -> typer factory (type_callable)
TYPERS = {}
# (callable, argument types...) -> lowering function (cudaimpl.lower)
LOWERINGS = {}


def model_class(type_obj):
    """The model class registered for `type_obj`'s class or a base of it; None if none."""
    for cls in type(type_obj).__mro__:
        if cls in MODELS:
            return MODELS[cls]
    return None


def struct_members(type_obj):
    """[(member name, member type object)] of a type with a struct model, in layout order;
    None for a type without a registered model."""
    model = model_class(type_obj)
    if model is None:
        return None
    instance = model(None, type_obj)
    members = getattr(instance, "_members", None)
    if members is None:
        raise TypeError(f"{type_obj}: its data model {model.__name__} is not a StructModel; "
                        f"simt lays out a type from a StructModel's members only")
    return members


# The builder a lowering is run with when simt reads it (cgutils.create_struct_proxy).
RECORDING = object()


class _Argument:
    def __init__(self, index):
        self.index = index


class MemberRecorder:
    """A struct proxy that records which argument each member is set from."""

    def __init__(self, fe_type):
        object.__setattr__(self, "_fe_type", fe_type)
        object.__setattr__(self, "_set", {})

    def __setattr__(self, name, value):
        self._set[name] = value

    def __getattr__(self, name):
        raise NotImplementedError(f"reads member {name!r} of the struct it builds")

    def _getvalue(self):
        return self


def constructor_description(cls):
    """What `cls(...)` is in kernels when a cudaimpl.lower lowering of `cls` builds a struct
    model type from its arguments, member k from argument k (the pattern of Numba's
    extension examples): a named tuple of the members, which stores into an array of the
    type as a record. Any other lowering is an error naming it."""
    from .. import _core

    name = getattr(cls, "__name__", str(cls))
    found = [(key[1:], impl) for key, impl in LOWERINGS.items() if key[0] is cls]
    if not found:
        return _core.Global.unsupported(f"the class {name}, whose calls have no lowering")
    argtypes, impl = found[-1]
    try:
        result = impl(None, RECORDING, None, [_Argument(k) for k in range(len(argtypes))])
    except Exception as error:
        return _core.Global.unsupported(
            f"the class {name}, whose lowering ({getattr(impl, '__name__', impl)}) simt "
            f"cannot read: {error}")
    members = struct_members(result._fe_type) if isinstance(result, MemberRecorder) else None
    if members is None:
        return _core.Global.unsupported(
            f"the class {name}, whose lowering returns no struct model value it built")
    names = [m for m, _ in members]
    sources = [result._set.get(m) for m in names]
    if len(argtypes) != len(names) or any(
            not isinstance(s, _Argument) or s.index != k for k, s in enumerate(sources)):
        return _core.Global.unsupported(
            f"the class {name}, whose lowering does not set member k of {names} from "
            f"argument k (the one form simt reads; write the constructor as a device "
            f"function instead)")
    return _core.Global.named_tuple_class(name, names, [])


def struct_dtype(type_obj):
    """The NumPy record dtype (aligned, as Numba's struct models lay members out) of a type
    with a struct model; None for a type without a registered model."""
    members = struct_members(type_obj)
    if members is None:
        return None
    fields = []
    for name, member in members:
        dtype = getattr(member, "dtype", None)
        if not isinstance(dtype, np.dtype):
            raise TypeError(f"{type_obj}: member {name!r} is {member}, which simt cannot lay "
                            f"out in a record (numbers and records can be members)")
        fields.append((name, dtype))
    return np.dtype(fields, align=True)
