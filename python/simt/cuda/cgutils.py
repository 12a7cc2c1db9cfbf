"""numba.cuda.cgutils: Numba's helpers for building LLVM IR in lowering functions
(`create_struct_proxy`). simt never runs a lowering function (see extending), so these
exist for extension modules to import, and say so if called."""

__all__ = ["create_struct_proxy"]


def create_struct_proxy(fe_type, kind="value"):
    raise NotImplementedError(
        f"cgutils.create_struct_proxy({fe_type}): simt compiles kernels from their Python "
        f"source and runs no LLVM lowering; build the struct in a kernel as a record "
        f"(an element of a local array of the type) instead")
