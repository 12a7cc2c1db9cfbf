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
