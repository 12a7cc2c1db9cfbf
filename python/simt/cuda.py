"""Numba-compatible names: ``from simt import cuda`` then ``cuda.grid(1)``,
``cuda.threadIdx.x`` and the rest, as in Numba's CUDA target."""

from ._device_api import (  # noqa: F401
    blockDim, blockIdx, block_dim, block_idx, grid, grid_dim, gridDim, gridsize,
    threadIdx, thread_idx)
