"""Numba-compatible names: ``from simt import cuda`` then ``cuda.grid(1)``,
``cuda.threadIdx.x``, ``cuda.shared.array``, ``cuda.atomic.add`` and the rest,
as in Numba's CUDA target."""

from ._device_api import (  # noqa: F401
    activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, const, blockIdx, block_dim,
    block_idx, grid, grid_dim, gridDim, gridsize, laneid, local, shared, shfl_down_sync,
    shfl_sync, shfl_up_sync, shfl_xor_sync, syncthreads, syncthreads_and, syncthreads_count,
    syncthreads_or, thread_idx, threadIdx, threadfence, threadfence_block, threadfence_system,
    warpsize)
