"""Numba's numba.cuda.cudadrv: the documented parts of its driver layer, on simt's arrays,
streams and devices (devicearray, driver, runtime, error)."""

from . import devicearray, driver, error, runtime  # noqa: F401
