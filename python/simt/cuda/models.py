"""Numba's data models (numba.cuda.models, `extending.core_models`): the layout of a type
that extension code registers with `extending.register_model`.

A `StructModel` is laid out as a NumPy record of its members (aligned, as Numba lays out
a struct); kernels use the type as they use any record type. The other models describe
LLVM values that only Numba's lowering builds: registering one is allowed, and a kernel
that uses a type of that model is an error naming it (simt._models.struct_members).
"""


class DataModel:
    """The base of Numba's data models: made with (data model manager, the type)."""

    def __init__(self, dmm, fe_type):
        self._dmm, self.fe_type = dmm, fe_type


class StructModel(DataModel):
    """A struct of named members: `members` is [(name, type object)] in layout order."""

    def __init__(self, dmm, fe_type, members):
        super().__init__(dmm, fe_type)
        self._members = [(str(name), member) for name, member in members]

    def get_member_fe_type(self, name):
        for member, member_type in self._members:
            if member == name:
                return member_type
        raise KeyError(f"{self.fe_type} has no member {name!r}")


class PrimitiveModel(DataModel):
    """A value held in one LLVM type (Numba's); simt has no LLVM type to give it."""

    def __init__(self, dmm, fe_type, be_type=None):
        super().__init__(dmm, fe_type)
        self.be_type = be_type


class OpaqueModel(PrimitiveModel):
    """An opaque pointer (Numba's): host objects a kernel only passes along."""
