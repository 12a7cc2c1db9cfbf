"""The device API as Python objects: they exist so kernels can name them.

Inside a kernel, simt's compiler gives them meaning; called from ordinary
Python code they explain that they only work in kernels.
"""


class _DeviceFunction:
    def __init__(self, qualified_name):
        self._simt_intrinsic = qualified_name
        self.__name__ = qualified_name.rsplit(".", 1)[-1]

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._simt_intrinsic}() can only be called inside a simt kernel")

    def __repr__(self):
        return f"<simt device function {self._simt_intrinsic}>"


class _IndexObject:
    """thread_idx, block_idx, block_dim, grid_dim: .x, .y and .z inside kernels."""

    def __init__(self, name):
        self._simt_member = ("simt", name)

    def __getattr__(self, attribute):
        if attribute in ("x", "y", "z"):
            raise RuntimeError(
                f"simt.{self._simt_member[1]}.{attribute} can only be read inside a simt kernel")
        raise AttributeError(attribute)

    def __repr__(self):
        return f"<simt index object {self._simt_member[1]}>"


grid = _DeviceFunction("simt.grid")
gridsize = _DeviceFunction("simt.gridsize")

thread_idx = threadIdx = _IndexObject("thread_idx")
block_idx = blockIdx = _IndexObject("block_idx")
block_dim = blockDim = _IndexObject("block_dim")
grid_dim = gridDim = _IndexObject("grid_dim")


class _Namespace:
    """simt.shared, simt.local, simt.atomic: groups of device functions."""

    def __init__(self, name, functions):
        self._simt_member = ("simt", name)
        for function in functions:
            setattr(self, function, _DeviceFunction(f"simt.{name}.{function}"))

    def __repr__(self):
        return f"<simt device namespace simt.{self._simt_member[1]}>"


class _DeviceValue:
    """laneid, warpsize: values read inside kernels."""

    def __init__(self, name):
        self._simt_member = ("simt", name)

    def __repr__(self):
        return f"<simt device value {self._simt_member[1]}>"


shared = _Namespace("shared", ["array"])
local = _Namespace("local", ["array"])
const = _Namespace("const", ["array_like"])
atomic = _Namespace("atomic", ["add", "sub", "min", "max", "and_", "or_", "xor", "exch", "inc",
                               "dec", "cas", "compare_and_swap", "nanmin", "nanmax"])

# Numba's cuda.fp16: float16 arithmetic, math and comparisons.
fp16 = _Namespace("fp16", [
    "hadd", "hsub", "hmul", "hdiv", "hneg", "habs", "hfma", "hsqrt", "hrsqrt", "hrcp", "hexp",
    "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsin", "hcos", "hceil", "hfloor", "hrint",
    "htrunc", "hmax", "hmin", "heq", "hne", "hgt", "hge", "hlt", "hle"])

# Numba's cuda.cg (cooperative groups): `cuda.cg.this_grid().sync()`.
cg = _Namespace("cg", ["this_grid"])

syncthreads = _DeviceFunction("simt.syncthreads")
syncthreads_count = _DeviceFunction("simt.syncthreads_count")
syncthreads_and = _DeviceFunction("simt.syncthreads_and")
syncthreads_or = _DeviceFunction("simt.syncthreads_or")
threadfence = _DeviceFunction("simt.threadfence")
threadfence_block = _DeviceFunction("simt.threadfence_block")
threadfence_system = _DeviceFunction("simt.threadfence_system")

laneid = _DeviceValue("laneid")
warpsize = _DeviceValue("warpsize")
activemask = _DeviceFunction("simt.activemask")
shfl_sync = _DeviceFunction("simt.shfl_sync")
shfl_up_sync = _DeviceFunction("simt.shfl_up_sync")
shfl_down_sync = _DeviceFunction("simt.shfl_down_sync")
shfl_xor_sync = _DeviceFunction("simt.shfl_xor_sync")
ballot_sync = _DeviceFunction("simt.ballot_sync")
all_sync = _DeviceFunction("simt.all_sync")
eq_sync = _DeviceFunction("simt.eq_sync")
any_sync = _DeviceFunction("simt.any_sync")
syncwarp = _DeviceFunction("simt.syncwarp")
lanemask_lt = _DeviceFunction("simt.lanemask_lt")
match_any_sync = _DeviceFunction("simt.match_any_sync")
match_all_sync = _DeviceFunction("simt.match_all_sync")

# Numba's cuda.* arithmetic on numbers.
popc = _DeviceFunction("simt.popc")
clz = _DeviceFunction("simt.clz")
ffs = _DeviceFunction("simt.ffs")
brev = _DeviceFunction("simt.brev")
fma = _DeviceFunction("simt.fma")
cbrt = _DeviceFunction("simt.cbrt")
selp = _DeviceFunction("simt.selp")
