"""How generated array kernels are laid out over a device's threads: one description of
the loop forms and launch shapes, which every operation family reads.

GPUs (cuda, opencl) walk the elements with a grid-stride loop, neighbouring threads on
neighbouring elements (coalesced). The CPU device runs a block's threads as a loop, so
there each thread takes one contiguous chunk, a loop the C++ compiler can vectorize.
"""

import re

import numpy as np

from ._device import GPU_BLOCK, block_size as block_size_of, runs_on_host

GRID_STRIDE = "grid_stride"
CHUNKED = "chunked"

# On the CPU: at least this many elements per thread (a launch costs about a microsecond;
# a chunk, about as much as 4096 additions), and a few chunks per core for balance.
CPU_MIN_CHUNK = 4096
CPU_CHUNKS_PER_CORE = 4


def loop_form(device):
    return CHUNKED if runs_on_host(device) else GRID_STRIDE


# Elements per thread per trip of a GPU's grid-stride loop over one dimension: their loads
# are issued together (several memory requests in flight per thread).
GPU_UNROLL = 4


def _unrolled(store):
    """`out[i] = value` for the GPU_UNROLL elements i, i + step, ...: every value computed
    before any store (a store may alias a later load, which would serialize them)."""
    target, value = store.split(" = ", 1)
    at = [f"(i + {j} * step)" if j else "i" for j in range(GPU_UNROLL)]
    loads = [f"v{j} = " + re.sub(r"\bi\b", at[j], value) for j in range(GPU_UNROLL)]
    stores = [re.sub(r"\bi\b", at[j], target) + f" = v{j}" for j in range(GPU_UNROLL)]
    return loads + stores


def flat_loop(body, form, indent="    "):
    """The lines of a loop running `body` (lines using the flat index i) over i < out.size."""
    inner = [indent * 2 + line for line in body]
    if form == GRID_STRIDE and len(body) == 1:
        unrolled = [indent * 2 + line for line in _unrolled(body[0])]
        return [indent + "i = simt.grid(1)", indent + "step = simt.gridsize(1)",
                indent + "n = out.size",
                indent + f"while i + {GPU_UNROLL - 1} * step < n:", *unrolled,
                indent * 2 + f"i += {GPU_UNROLL} * step",
                indent + "while i < n:", *inner, indent * 2 + "i += step"]
    if form == GRID_STRIDE:
        return [indent + "i = simt.grid(1)", indent + "step = simt.gridsize(1)",
                indent + "n = out.size", indent + "while i < n:", *inner,
                indent * 2 + "i += step"]
    return [indent + "n = out.size", indent + "threads = simt.gridsize(1)",
            # n // threads + 1, not a ceiling division: the compiler then knows the
            # indices are non-negative (no negative-index wrapping; the loop vectorizes).
            indent + "chunk = n // threads + 1",
            indent + "i = simt.grid(1) * chunk", indent + "end = min(i + chunk, n)",
            indent + "while i < end:", *inner, indent * 2 + "i += 1"]


_block_cache = {}
_WIDE = (np.dtype(np.float64), np.dtype(np.complex128))


def has_float64(device):
    # One place to ask (tests stand in a device without double precision here).
    return device.supports_float64


def check_dtypes(device, dtypes, where):
    """TypeError naming the device and dtype when an operation would compute in float64
    (or complex128) on a device without it (an OpenCL device lacking cl_khr_fp64)."""
    wide = [d for d in _WIDE if d in dtypes]
    if wide and not has_float64(device):
        raise TypeError(f"{where}: {device.id} ({device.name}) cannot compute in {wide[0]} "
                        f"(it has no double precision: cl_khr_fp64); use float32 or "
                        f"complex64 arrays there, or another device")


def block_size(device):
    """Threads per block of the generated kernels on `device`."""
    found = _block_cache.get(device)
    if found is None:
        found = block_size_of(device, GPU_BLOCK)
        _block_cache[device] = found
    return found


def threads_for(k, limit):
    """A GPU block's threads for work of k items per block (a row, a segment): a power of
    two from 32 (a warp) up to `limit`, no more than k needs."""
    threads = 32
    while threads < min(k, limit):
        threads *= 2
    return min(threads, limit)


def elementwise_config(device, n):
    """(grid, block) for n elements."""
    block = block_size(device)
    if block == 1:
        cores = device.compute_units or 1
        return max(1, min(-(-n // CPU_MIN_CHUNK), cores * CPU_CHUNKS_PER_CORE)), 1
    return max(1, min(-(-n // (block * GPU_UNROLL)), 2 ** 31 - 1)), block
