"""The CPU backend's two ways of running barriers, on kernels both can run: regions
(loops over a block's threads between barriers, the default) and fiber mode (each thread
a fiber, a barrier a context switch; what the compiler picks when regions cannot place a
barrier). SIMT_CPU_FIBERS=1, read when a kernel compiles, forces fiber mode.

Run: python3 bench/cpu_fibers.py
"""

import os
import statistics
import time

import numpy as np

import simt
from simt import cuda

BLOCK = 256


def block_sum(x, out):
    # A tree reduction in shared memory: 1 + log2(256) = 9 barriers per block.
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf = cuda.shared.array(256, np.float32)
    buf[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


def warp_sum(x, out):
    # Five shuffles per warp, then one value per warp.
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0.0
    for offset in (16, 8, 4, 2, 1):
        u = cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        v += u
    if cuda.laneid == 0:
        out[i // 32] = v


def stencil_1d(x, out):
    # A blocked 3-point stencil: one barrier per block, plenty of work per thread.
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf = cuda.shared.array(258, np.float32)
    buf[t + 1] = x[i] if i < x.size else 0.0
    if t == 0:
        buf[0] = x[i - 1] if i > 0 else 0.0
        buf[BLOCK + 1] = x[i + BLOCK] if i + BLOCK < x.size else 0.0
    cuda.syncthreads()
    if i < x.size:
        out[i] = 0.25 * buf[t] + 0.5 * buf[t + 1] + 0.25 * buf[t + 2]


def timed(fn, repeats=7):
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def compiled(function, fibers, *args):
    os.environ["SIMT_CPU_FIBERS"] = "1" if fibers else "0"
    try:
        kernel = cuda.jit(function)
        source = kernel.inspect_source(*args)
    finally:
        del os.environ["SIMT_CPU_FIBERS"]
    assert ("simt_ctx->fibers->run_block" in source) == fibers, function.__name__
    return kernel


def main():
    simt.use_device("cpu")
    n = 1 << 22
    rng = np.random.default_rng(1)
    x = simt.asarray(rng.standard_normal(n).astype(np.float32))
    blocks = n // BLOCK
    cases = [
        ("block_sum (9 barriers/block)", block_sum, simt.zeros(blocks, np.float32)),
        ("warp_sum (5 shuffles/warp)", warp_sum, simt.zeros(n // 32, np.float32)),
        ("stencil_1d (1 barrier/block)", stencil_1d, simt.zeros(n, np.float32)),
    ]
    print(f"cpu device, {os.cpu_count()} cores; n = {n} float32, blocks of {BLOCK}")
    print(f"{'kernel':32} {'regions ms':>11} {'fibers ms':>10} {'fibers/regions':>15}")
    for name, function, out in cases:
        times = {}
        results = {}
        for fibers in (False, True):
            kernel = compiled(function, fibers, x, out)
            launch = kernel[blocks, BLOCK]
            times[fibers] = timed(lambda: launch(x, out))  # the default stream: synchronous on cpu
            results[fibers] = out.get().copy()
        np.testing.assert_allclose(results[True], results[False], rtol=1e-6)
        print(f"{name:32} {times[False] * 1e3:11.2f} {times[True] * 1e3:10.2f} "
              f"{times[True] / times[False]:14.1f}x")


if __name__ == "__main__":
    main()
