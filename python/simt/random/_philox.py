"""Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011;
the generator of cuRAND's and Random123's philox4x32_10) as text in simt's kernel language,
and the launches of the kernels built from it.

A block is the function of a 128-bit counter (four uint32 words, the first the least
significant) and a 64-bit key (two uint32 words): ten rounds, each two 32x32->64-bit
products (done as uint64 products: the kernel language has no 32-bit multiply-high, and
every backend compiles a product of two zero-extended 32-bit values to one widening
multiply), the key bumped by the Weyl constants between rounds. Its four uint32 words are
the block's output, in order.

Layout independence: a kernel is given the Generator's counter `base` and computes block
`b` of the call at counter base + b, whatever thread, block of threads or chunk of a CPU
thread it is computed by. Value j of a call comes from block j // per (per values per
block), so a call's values depend only on the key, the counter and j.

Counter space: the stream's blocks have counters below 2**96 (the most significant word
0). A block whose most significant word is r > 0 is the r-th redraw of the rejection
sampling in `integers` (same three low words as the block it redraws for): redraws never
meet another call's blocks, and every element's redraws are its own, so the values stay
layout-independent however many redraws an element needs.
"""

import numpy as np

from .._array_api import _generated
from .. import _launch

# The multipliers and Weyl increments of Philox4x32 (Random123's PHILOX_M4x32_0/1 and
# PHILOX_W32_0/1).
M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85
ROUNDS = 10

# The stream's counters stay below this (the top word is the redraw number).
STREAM_BLOCKS = 2 ** 96

_MASK64 = 2 ** 64 - 1


def rounds_text(x, key, indent):
    """Lines running the ten rounds on the uint32 variables x[0..3] (the counter in,
    the block out) with the key in the uint32 variables key[0], key[1] (left unchanged:
    the bumped key lives in temporaries named after x[0])."""
    k0, k1 = f"{x[0]}_k0", f"{x[0]}_k1"
    lines = [f"{k0} = {key[0]}", f"{k1} = {key[1]}"]
    for r in range(ROUNDS):
        if r:
            lines += [f"{k0} = {k0} + np.uint32({W0})", f"{k1} = {k1} + np.uint32({W1})"]
        lines += [
            f"{x[0]}_p = np.uint64({x[0]}) * np.uint64({M0})",
            f"{x[0]}_q = np.uint64({x[2]}) * np.uint64({M1})",
            # the new words 0 and 2 read the old words 1 and 3 before they are replaced
            f"{x[0]} = np.uint32({x[0]}_q >> np.uint64(32)) ^ {x[1]} ^ {k0}",
            f"{x[2]} = np.uint32({x[0]}_p >> np.uint64(32)) ^ {x[3]} ^ {k1}",
            f"{x[1]} = np.uint32({x[0]}_q)",
            f"{x[3]} = np.uint32({x[0]}_p)",
        ]
    return [indent + line for line in lines]


def counter_text(indent):
    """Lines setting c0..c3 (uint32) to the counter of block b: (hi:lo) + b, 128-bit."""
    lines = [
        "c = lo + np.uint64(b)",
        "ch = hi + np.uint64(1) if c < lo else hi",
        "c0 = np.uint32(c)",
        "c1 = np.uint32(c >> np.uint64(32))",
        "c2 = np.uint32(ch)",
        "c3 = np.uint32(ch >> np.uint64(32))",
    ]
    return [indent + line for line in lines]


def block_text(indent):
    """Lines computing block b: x0..x3 from the counter words c0..c3 and the key k0, k1."""
    lines = counter_text(indent)
    lines += [indent + f"x{w} = c{w}" for w in range(4)]
    return lines + rounds_text(["x0", "x1", "x2", "x3"], ["k0", "k1"], indent)


def loop_lines(body, form, indent="    "):
    """`body` (lines using the block index b) for every b < nfull: a grid-stride loop on
    GPUs, a contiguous chunk of blocks per CPU thread (_launch's two forms)."""
    inner = [indent * 2 + line for line in body]
    if form == _launch.GRID_STRIDE:
        return [indent + "b = simt.grid(1)", indent + "step = simt.gridsize(1)",
                indent + "while b < nfull:", *inner, indent * 2 + "b += step"]
    return [indent + "threads = simt.gridsize(1)",
            indent + "chunk = nfull // threads + 1",
            indent + "b = simt.grid(1) * chunk", indent + "end = min(b + chunk, nfull)",
            indent + "while b < end:", *inner, indent * 2 + "b += 1"]


def store_lines(per, indent, partial=False):
    """Lines writing v0..v{per-1} to out[j..j+per-1] (j = b * per); for the `partial`
    last block, only those before out's end."""
    lines = [f"j = b * {per}"]
    for k in range(per):
        target = f"out[j + {k}]" if k else "out[j]"
        lines += [f"if j + {k} < n:", f"    {target} = v{k}"] if partial else \
            [f"{target} = v{k}"]
    return [indent + line for line in lines]


def kernel_source(name, per, value_lines, params, form, helpers=""):
    """The module text of a kernel writing per values per block: `value_lines` turn the
    block's words x0..x3 (and `params`) into v0..v{per-1}, calling the device functions
    of `helpers` (module text, placed before the kernel).

    The loop over the full blocks stores without bounds checks (the CPU's compiler
    vectorizes it); the first thread then writes the values of a partial last block."""
    head = f"def {name}(out, nblocks, lo, hi, k0, k1{''.join(', ' + p for p in params)}):"
    body = block_text("") + value_lines
    tail = ["if simt.grid(1) == 0 and nfull < nblocks:", "    b = nfull"]
    tail += block_text("    ") + ["    " + line for line in value_lines]
    tail += store_lines(per, "    ", partial=True)
    lines = [head, "    n = out.size", f"    nfull = n // {per}"]
    lines += loop_lines(body + store_lines(per, ""), form)
    lines += ["    " + line for line in tail]
    return helpers + "\n".join(lines) + "\n"


def split_counter(counter):
    """(lo, hi) uint64 halves of a 128-bit counter, as the kernels take them."""
    return np.uint64(counter & _MASK64), np.uint64(counter >> 64)


def launch(kernel_for, out, per, counter, key, params, config=None):
    """Runs the kernel (kernel_for(form) gives it) filling the flat contiguous `out` from
    the blocks at counter, counter + 1, ...; the number of blocks used. `config` (grid,
    block) replaces the usual layout (the tests vary it: the values must not change)."""
    n = out.size
    nblocks = -(-n // per)
    if nblocks == 0:
        return 0
    device = out.device
    kernel = kernel_for(_launch.loop_form(device))
    lo, hi = split_counter(counter)
    if config is None:
        config = _launch.elementwise_config(device, nblocks)
    kernel[config](out, np.int64(nblocks), lo, hi, np.uint32(key[0]), np.uint32(key[1]),
                   *params)
    return nblocks


_raw_kernels = {}


def _raw_kernel(form):
    found = _raw_kernels.get(form)
    if found is None:
        values = [f"v{w} = x{w}" for w in range(4)]
        found = _generated.kernel("philox_raw",
                                  kernel_source("philox_raw", 4, values, [], form))
        _raw_kernels[form] = found
    return found


def raw_blocks(out, counter, key):
    """Fills the flat uint32 array `out` with the words of the blocks at counter,
    counter + 1, ... under `key` (two uint32 words): block b's words at out[4b..4b+3].
    What the tests compare with the reference generator. The number of blocks used."""
    if out.dtype != np.uint32:
        raise TypeError(f"simt.random raw blocks are uint32, not {out.dtype}")
    return launch(_raw_kernel, out, 4, counter, key, [])
