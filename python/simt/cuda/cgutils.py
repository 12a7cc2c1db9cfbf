"""numba.cuda.cgutils: Numba's helpers for building LLVM IR in lowering functions
(`create_struct_proxy`). simt runs no LLVM lowering; it reads one kind of lowering: a
struct model's constructor that sets the members from its arguments, which simt runs once
with a recording builder (_models.constructor_description). Used any other way, the proxy
says so."""

from . import _models

__all__ = ["create_struct_proxy"]


def create_struct_proxy(fe_type, kind="value"):
    def proxy(context, builder, value=None, ref=None):
        if builder is _models.RECORDING and value is None and ref is None:
            return _models.MemberRecorder(fe_type)
        raise NotImplementedError(
            f"cgutils.create_struct_proxy({fe_type}): simt compiles kernels from their Python "
            f"source and runs no LLVM lowering; it reads a constructor's lowering that sets "
            f"the members from its arguments, and nothing else (build the struct in a kernel "
            f"as a record: an element of a local array of the type)")
    return proxy
