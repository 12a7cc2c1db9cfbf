"""Shared memory, barriers, atomics and warp shuffles: four algorithms written
as simt kernels, against the same algorithms by hand and in the peers, in one run.

Kernels (the same algorithm and launch geometry in every implementation):
  sgemm        C = A @ B, float32, 16x16 shared-memory tiles, one output per
               thread, no tensor cores (n a multiple of 16)
  transpose    out = a.T through a 32x33 shared tile, blocks of 32x8 threads
  histogram    256 uint32 bins of uint8 values: one global atomic per value;
               and per-block shared-memory histograms merged with atomics
  reduction    float32 sum: per-thread grid-stride sums, a shared-memory tree
               per block down to one warp, shfl_down_sync, one atomic per block;
               the shuffles in every warp (the form simt's CPU backend takes),
               and in warp 0 alone (the usual form)

CPU (default): simt on "cpu" against Numba @njit(parallel=True) versions of the
  algorithms, the OpenCL C versions (opencl/algorithms.cl) on PoCL through
  PyOpenCL, simt's OpenCL backend on that PoCL device, and NumPy as a reference.
      python3 bench/algorithms.py [--quick]
GPU (--gpu CUBIN): simt on cuda:0 against the CUDA C versions compiled by nvcc
  (cuda/algorithms.cu), numba-cuda running the very kernels simt runs, and
  CuPy's library calls (cuBLAS, CUB) as reference lines, not peers.
      nvcc -O3 -arch=sm_90 -cubin -o /tmp/algorithms.cubin bench/cuda/algorithms.cu
      python3 bench/algorithms.py --gpu /tmp/algorithms.cubin [--quick] [--dump-source FILE]

Time: CPU, the median wall time of one launch + finish; GPU, the median of
CUDA-event-timed samples of back-to-back launches (1 for sgemm, 10 for the
rest, so the host's launch cost overlaps the kernels). Both after a warm-up
(which compiles), the sides taking turns sample by sample; `spread` is the
interquartile range over the median, the noise a ratio must beat. Each side's
first run, on fresh random inputs with outputs poisoned (NaN) or zeroed
(histogram, sum), is checked against NumPy in float64 and against the others.
A side that fails (a simt feature not there yet, a missing peer) prints its
error and the rest goes on; the script exits 0.
"""

import argparse
import math
import os
import statistics
import sys
import time
import types

import numpy as np

import simt
from simt import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
ALGORITHMS_CL = os.path.join(HERE, "opencl", "algorithms.cl")

TILE = 16            # sgemm tile (and block) edge
TDIM = 32            # transpose tile edge
TPAD = TDIM + 1      # padded row of the transpose tile
TROWS = 8            # transpose block: TDIM x TROWS threads
NBINS = 256          # histogram bins
BLOCK = 256          # threads per block of the 1-D kernels
FULL_MASK = 0xFFFFFFFF

CPU_SIZES = {"sgemm": 512, "transpose": 2048, "hist": 1 << 22, "reduce": 1 << 22}
GPU_SIZES = {"sgemm": 4096, "transpose": 8192, "hist": 1 << 26, "reduce": 1 << 26,
             "blur": 8192}


# ---- the kernels ------------------------------------------------------------------------
# Plain functions in Numba's CUDA dialect: simt compiles them (simt.kernel), and
# numba-cuda compiles the same code objects with `cuda` bound to numba.cuda.


def sgemm_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), np.float32)
    sb = cuda.shared.array((TILE, TILE), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    n = a.shape[0]
    acc = np.float32(0)
    for t in range(0, n, TILE):
        sa[ty, tx] = a[row, t + tx]
        sb[ty, tx] = b[t + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def transpose_tiled(a, out):
    tile = cuda.shared.array((TDIM, TPAD), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    rows = a.shape[0]
    cols = a.shape[1]
    x = cuda.blockIdx.x * TDIM + tx
    y = cuda.blockIdx.y * TDIM + ty
    for j in range(0, TDIM, TROWS):
        if x < cols and y + j < rows:
            tile[ty + j, tx] = a[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TDIM + tx
    y = cuda.blockIdx.x * TDIM + ty
    for j in range(0, TDIM, TROWS):
        if x < rows and y + j < cols:
            out[y + j, x] = tile[tx, ty + j]


def hist_global(data, bins):
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(bins, data[i], 1)


def hist_shared(data, bins):
    h = cuda.shared.array(NBINS, np.uint32)
    for j in range(cuda.threadIdx.x, NBINS, cuda.blockDim.x):
        h[j] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(h, data[i], 1)
    cuda.syncthreads()
    for j in range(cuda.threadIdx.x, NBINS, cuda.blockDim.x):
        cuda.atomic.add(bins, j, h[j])


def reduce_sum(x, out):
    s = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    acc = np.float32(0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    s[t] = acc
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step >= cuda.warpsize:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    # Every warp runs the shuffles, so that all threads of the block reach them
    # (simt's CPU backend takes warp operations only where the whole block goes);
    # only warp 0's sum is used. reduce_sum_warp0 is the usual form.
    v = s[t]
    offset = cuda.warpsize // 2
    while offset > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    if t == 0:
        cuda.atomic.add(out, 0, v)


def reduce_sum_warp0(x, out):
    s = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    acc = np.float32(0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    s[t] = acc
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step >= cuda.warpsize:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t < cuda.warpsize:
        v = s[t]
        offset = cuda.warpsize // 2
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if t == 0:
            cuda.atomic.add(out, 0, v)


# Loops as Numba-CUDA users write them (issue 20): a grid-stride `while` loop, a
# `range` whose step is an argument, a loop left with `break`, and nested loops over a
# 2-D window with computed (clamped) indices. GPU part only.

def reduce_sum_while(x, out):
    s = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    acc = np.float32(0)
    i = cuda.grid(1)
    while i < x.size:
        acc += x[i]
        i += cuda.gridsize(1)
    s[t] = acc
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step >= cuda.warpsize:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t < cuda.warpsize:
        v = s[t]
        offset = cuda.warpsize // 2
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if t == 0:
            cuda.atomic.add(out, 0, v)


def scale_step(x, out, start, step):
    for i in range(start + cuda.grid(1), x.size, step):
        out[i] = np.float32(2) * x[i] + np.float32(1)


def first_above(a, out, limit):
    i = cuda.grid(1)
    if i < a.shape[0]:
        found = -1
        for j in range(a.shape[1]):
            if a[i, j] > limit:
                found = j
                break
        out[i] = found


def box_blur(img, out):
    x, y = cuda.grid(2)
    rows, cols = img.shape
    if y < rows and x < cols:
        acc = np.float32(0)
        for di in range(-2, 3):
            yy = min(max(y + di, 0), rows - 1)
            for dj in range(-2, 3):
                xx = min(max(x + dj, 0), cols - 1)
                acc += img[yy, xx]
        out[y, x] = acc / np.float32(25)


class Unavailable:
    """Stands for a kernel simt could not take: launching it raises the error."""

    def __init__(self, function, error):
        self.__name__ = function.__name__
        self.error = error

    def __getitem__(self, config):
        raise self.error


def simt_kernel(function, **options):
    try:
        return simt.kernel(function, **options)
    except Exception as error:  # a construct simt does not parse yet: the row says so
        return Unavailable(function, error)


SIMT = {
    "sgemm": simt_kernel(sgemm_tiled),
    "sgemm_fastmath": simt_kernel(sgemm_tiled, fastmath=True),
    "transpose": simt_kernel(transpose_tiled),
    "hist_global": simt_kernel(hist_global),
    "hist_shared": simt_kernel(hist_shared),
    "reduce": simt_kernel(reduce_sum),
    "reduce_warp0": simt_kernel(reduce_sum_warp0),
    "reduce_while": simt_kernel(reduce_sum_while),
    "scale_step": simt_kernel(scale_step),
    "first_above": simt_kernel(first_above),
    "box_blur": simt_kernel(box_blur),
}


def geometry(kernel, shape, grid1d):
    """(grid, block) for a kernel of SIMT over an input of `shape`: the same
    geometry for every implementation."""
    if kernel.startswith("sgemm"):
        n = shape[0]
        assert shape == (n, n) and n % TILE == 0, "sgemm takes square matrices, n % 16 == 0"
        return (n // TILE, n // TILE), (TILE, TILE)
    if kernel == "transpose":
        rows, cols = shape
        return ((cols + TDIM - 1) // TDIM, (rows + TDIM - 1) // TDIM), (TDIM, TROWS)
    if kernel == "first_above":  # a thread per row
        return (shape[0] + BLOCK - 1) // BLOCK, BLOCK
    if kernel == "box_blur":  # a thread per pixel, blocks of 32x8
        rows, cols = shape
        return ((cols + 31) // 32, (rows + 7) // 8), (32, 8)
    return grid1d, BLOCK


# ---- timing ------------------------------------------------------------------------------


def summarize(samples):
    median = statistics.median(samples)
    spread = math.nan
    if len(samples) >= 4:
        q1, _, q3 = statistics.quantiles(samples, n=4)
        spread = (q3 - q1) / median
    return median, spread


def take_turns(sides, repeats, sample, errors):
    """{label: (median ms, spread)} for sides {label: run}; `sample(run)` gives one
    sample in ms. The sides take turns sample by sample; a side that raises is
    dropped, with its error in `errors`."""
    samples = {label: [] for label in sides}
    for _ in range(repeats):
        for label, run in sides.items():
            if label in errors:
                continue
            try:
                samples[label].append(sample(run))
            except Exception as error:
                errors[label] = error
    return {label: summarize(s) for label, s in samples.items() if s and label not in errors}


def wall_sample(finish, per_sample=1):
    def sample(run):
        start = time.perf_counter()
        for _ in range(per_sample):
            run()
        finish()
        return (time.perf_counter() - start) / per_sample * 1e3
    return sample


# ---- checks -----------------------------------------------------------------------------


def relative_error(value, reference):
    value = np.asarray(value, np.float64)
    reference = np.asarray(reference, np.float64)
    if not np.all(np.isfinite(value)):
        return math.inf
    return float(np.linalg.norm(value - reference) / np.linalg.norm(reference))


def check(results, reference, exact, rtol=0.0):
    """'ok ...' or 'FAIL ...' for {label: NumPy result} against `reference`
    (exactly, or by ||r - ref|| / ||ref|| < rtol), and whether the sides agree."""
    problems, errors = [], {}
    for label, r in results.items():
        r = np.asarray(r)
        if r.shape != np.shape(reference):
            problems.append(f"{label}: shape {r.shape}")
        elif exact:
            if not np.array_equal(r, reference):
                problems.append(f"{label}: {np.mean(r != reference):.2%} of elements differ")
        else:
            errors[label] = relative_error(r, reference)
            if not errors[label] < rtol:
                problems.append(f"{label}: rel. error {errors[label]:.1e}")
    if problems:
        return "FAIL (" + "; ".join(problems) + ")"
    if exact:
        return f"ok (all {len(results)} exact)"
    labels = list(results)
    same = [lb for lb in labels[1:] if np.array_equal(results[lb], results[labels[0]])]
    worst = max(errors.values()) if errors else 0.0
    detail = f"rel. error <= {worst:.1e}"
    if same:
        detail += f"; {', '.join(same)} bit-identical to {labels[0]}"
    return f"ok ({detail})"


# =========================================================================================
# CPU: simt on "cpu" (and on PoCL) against Numba and PoCL through PyOpenCL
# =========================================================================================


class SimtCpuSide:
    def __init__(self, device, label):
        self.device = device
        self.label = label

    def finish(self):
        self.device.synchronize()

    def launcher(self, name, shape, grid1d, *args):
        grid, block = geometry(name, shape, grid1d)
        kernel = SIMT[name]

        def run():
            with simt.use_device(self.device):
                kernel[grid, block](*args)
        return run

    def sgemm(self, a, b, grid1d):
        da, db = simt.to_device(a, device=self.device), simt.to_device(b, device=self.device)
        c = simt.full(a.shape, np.nan, np.float32, device=self.device)
        return self.launcher("sgemm", a.shape, grid1d, da, db, c), c.get

    def transpose(self, a, grid1d):
        da = simt.to_device(a, device=self.device)
        out = simt.full(a.shape[::-1], np.nan, np.float32, device=self.device)
        return self.launcher("transpose", a.shape, grid1d, da, out), out.get

    def hist_global(self, data, grid1d, name="hist_global"):
        dd = simt.to_device(data, device=self.device)
        bins = simt.zeros(NBINS, np.uint32, device=self.device)
        return self.launcher(name, data.shape, grid1d, dd, bins), bins.get

    def hist_shared(self, data, grid1d):
        return self.hist_global(data, grid1d, "hist_shared")

    def reduce(self, x, grid1d, name="reduce"):
        dx = simt.to_device(x, device=self.device)
        out = simt.zeros(1, np.float32, device=self.device)
        return self.launcher(name, x.shape, grid1d, dx, out), out.get

    def reduce_warp0(self, x, grid1d):
        return self.reduce(x, grid1d, "reduce_warp0")


def numba_cpu_versions():
    """The algorithms as a CPU programmer writes them with Numba: blocked loops over
    the same tiles, per-chunk private histograms (Numba has no atomics), a prange
    reduction. Same k order in sgemm, so without fma the result is bit-identical."""
    import numba
    from numba import prange

    @numba.njit(parallel=True)
    def sgemm(a, b, c):
        n = a.shape[0]
        for bi in prange(n // TILE):
            acc = np.empty((TILE, TILE), np.float32)
            for bj in range(n // TILE):
                acc[:] = 0
                for t in range(0, n, TILE):
                    for i in range(TILE):
                        for k in range(TILE):
                            av = a[bi * TILE + i, t + k]
                            for j in range(TILE):
                                acc[i, j] += av * b[t + k, bj * TILE + j]
                for i in range(TILE):
                    for j in range(TILE):
                        c[bi * TILE + i, bj * TILE + j] = acc[i, j]

    @numba.njit(parallel=True)
    def transpose(a, out):
        rows, cols = a.shape
        for by in prange((rows + TDIM - 1) // TDIM):
            for bx in range(0, cols, TDIM):
                for y in range(by * TDIM, min(by * TDIM + TDIM, rows)):
                    for x in range(bx, min(bx + TDIM, cols)):
                        out[x, y] = a[y, x]

    @numba.njit(parallel=True)
    def hist_private(data, bins, chunks):
        n = data.size
        partial = np.zeros((chunks, NBINS), np.uint32)
        size = (n + chunks - 1) // chunks
        for c in prange(chunks):
            for i in range(c * size, min(n, c * size + size)):
                partial[c, data[i]] += 1
        for c in range(chunks):
            for j in range(NBINS):
                bins[j] += partial[c, j]

    @numba.njit(parallel=True)
    def reduce(x, out):
        s = np.float32(0)
        for i in prange(x.size):
            s += x[i]
        out[0] += s

    return sgemm, transpose, hist_private, reduce


class NumbaCpuSide:
    label = "numba"

    def __init__(self):
        self.fns = numba_cpu_versions()

    def finish(self):
        pass

    def sgemm(self, a, b, grid1d):
        c = np.full(a.shape, np.nan, np.float32)
        return (lambda: self.fns[0](a, b, c)), lambda: c.copy()

    def transpose(self, a, grid1d):
        out = np.full(a.shape[::-1], np.nan, np.float32)
        return (lambda: self.fns[1](a, out)), lambda: out.copy()

    hist_global = None  # no atomics: only the private-histogram form exists

    def hist_shared(self, data, grid1d):
        bins = np.zeros(NBINS, np.uint32)
        return (lambda: self.fns[2](data, bins, grid1d)), lambda: bins.copy()

    def reduce(self, x, grid1d):
        out = np.zeros(1, np.float32)
        return (lambda: self.fns[3](x, out)), lambda: out.copy()

    reduce_warp0 = None  # no warps: the row above is Numba's reduction


class PyOpenCLSide:
    def __init__(self, cl, device):
        self.cl = cl
        self.label = "PoCL" if "portable" in device.platform.name.lower() else "PyOpenCL"
        self.context = cl.Context([device])
        self.queue = cl.CommandQueue(self.context)
        with open(ALGORITHMS_CL) as f:
            self.program = cl.Program(self.context, f.read()).build()

    def finish(self):
        self.queue.finish()

    def buffer(self, host):
        flags = self.cl.mem_flags.READ_WRITE | self.cl.mem_flags.COPY_HOST_PTR
        return self.cl.Buffer(self.context, flags, hostbuf=host)

    def getter(self, buffer, shape, dtype):
        def get():
            host = np.empty(shape, dtype)
            self.cl.enqueue_copy(self.queue, host, buffer)  # blocking
            return host
        return get

    def launcher(self, kernel, scalar_dtypes, name, shape, grid1d, *args):
        k = self.cl.Kernel(self.program, kernel)
        k.set_scalar_arg_dtypes(scalar_dtypes)
        grid, block = geometry(name, shape, grid1d)
        grid, block = np.atleast_1d(grid), np.atleast_1d(block)
        gsize, lsize = tuple(int(v) for v in grid * block), tuple(int(v) for v in block)
        return lambda: k(self.queue, gsize, lsize, *args)

    def sgemm(self, a, b, grid1d):
        da, db, c = self.buffer(a), self.buffer(b), self.buffer(np.full_like(a, np.nan))
        run = self.launcher("sgemm_tiled", [None, None, None, np.int32], "sgemm", a.shape, grid1d,
                            da, db, c, a.shape[0])
        return run, self.getter(c, a.shape, np.float32)

    def transpose(self, a, grid1d):
        da, out = self.buffer(a), self.buffer(np.full(a.shape[::-1], np.nan, np.float32))
        run = self.launcher("transpose_tiled", [None, None, np.int32, np.int32], "transpose",
                            a.shape, grid1d, da, out, *a.shape)
        return run, self.getter(out, a.shape[::-1], np.float32)

    def hist_global(self, data, grid1d, kernel="hist_global"):
        dd, bins = self.buffer(data), self.buffer(np.zeros(NBINS, np.uint32))
        run = self.launcher(kernel, [None, None, np.int64], kernel, data.shape, grid1d, dd, bins,
                            data.size)
        return run, self.getter(bins, (NBINS,), np.uint32)

    def hist_shared(self, data, grid1d):
        return self.hist_global(data, grid1d, "hist_shared")

    def reduce(self, x, grid1d):
        dx, out = self.buffer(x), self.buffer(np.zeros(1, np.float32))
        run = self.launcher("reduce_sum", [None, None, np.int64], "reduce", x.shape, grid1d, dx,
                            out, x.size)
        return run, self.getter(out, (1,), np.float32)

    reduce_warp0 = None  # no shuffles in OpenCL C 1.2: the row above is the same kernel


class NumPyCpuSide:
    """Library calls, a reference line rather than a peer: BLAS matmul, a strided
    copy, bincount, pairwise sum."""

    label = "numpy"

    def finish(self):
        pass

    def sgemm(self, a, b, grid1d):
        c = np.full(a.shape, np.nan, np.float32)
        return (lambda: np.matmul(a, b, out=c)), lambda: c.copy()

    def transpose(self, a, grid1d):
        out = np.full(a.shape[::-1], np.nan, np.float32)
        return (lambda: np.copyto(out, a.T)), lambda: out.copy()

    def hist_global(self, data, grid1d):
        result = [None]

        def run():
            result[0] = np.bincount(data, minlength=NBINS)
        return run, lambda: result[0].astype(np.uint32)

    hist_shared = None

    def reduce(self, x, grid1d):
        result = [None]

        def run():
            result[0] = np.sum(x)
        return run, lambda: np.array([result[0]], np.float32)

    reduce_warp0 = None


def cpu_cases(sizes, rng):
    """(row name, side method, inputs, reference, check arguments, rate(ms))."""
    n = sizes["sgemm"]
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    yield (f"sgemm {n}^2 fp32, 16x16 tiles", "sgemm", (a, b),
           a.astype(np.float64) @ b.astype(np.float64), dict(exact=False, rtol=1e-5),
           lambda ms: f"{2 * n ** 3 / ms / 1e6:.3g} GFLOP/s")
    m = sizes["transpose"]
    t = rng.standard_normal((m, m), dtype=np.float32)
    yield (f"transpose {m}^2 fp32, 32x33", "transpose", (t,), t.T, dict(exact=True),
           lambda ms: f"{2 * m * m * 4 / ms / 1e6:.3g} GB/s")
    h = sizes["hist"]
    data = rng.integers(0, NBINS, h, dtype=np.uint8)
    counts = np.bincount(data, minlength=NBINS).astype(np.uint32)
    lg = int(math.log2(h))
    yield (f"histogram 2^{lg} u8, global atomics", "hist_global", (data,), counts,
           dict(exact=True), lambda ms: f"{h / ms / 1e6:.3g} GB/s")
    yield (f"histogram 2^{lg} u8, shared + merge", "hist_shared", (data,), counts,
           dict(exact=True), lambda ms: f"{h / ms / 1e6:.3g} GB/s")
    r = sizes["reduce"]
    x = rng.random(r, dtype=np.float32)
    lg = int(math.log2(r))
    total = np.array([x.astype(np.float64).sum()])
    yield (f"reduce 2^{lg} fp32, tree+shfl", "reduce", (x,), total,
           dict(exact=False, rtol=1e-4), lambda ms: f"{r * 4 / ms / 1e6:.3g} GB/s")
    yield (f"reduce 2^{lg} fp32, shfl warp 0 only", "reduce_warp0", (x,), total,
           dict(exact=False, rtol=1e-4), lambda ms: f"{r * 4 / ms / 1e6:.3g} GB/s")


def run_cases(sides, cases, grid1d, repeats, sample_for, errors_out):
    """Rows of (name, {label: (ms, spread)}, verdict, rate, {label: error})."""
    rows = []
    for name, method, inputs, reference, check_args, rate in cases:
        runs, results, errors = {}, {}, {}
        for side in sides:
            make = getattr(side, method, None)
            if make is None:
                continue
            try:
                run, get = make(*inputs, grid1d)
                run()  # compiles; checked below
                side.finish()
                results[side.label] = get()
                runs[side.label] = (run, side)
            except Exception as error:
                errors[side.label] = error
        verdict = check(results, reference, **check_args) if results else "-"
        del results
        # Warm-up: a second run each, then samples in turns.
        for label, (run, side) in list(runs.items()):
            try:
                run()
                side.finish()
            except Exception as error:
                errors[label] = error
        times = take_turns({label: (run, side) for label, (run, side) in runs.items()},
                           repeats, sample_for, errors)
        rows.append((name, times, verdict, rate, errors))
        for label, error in errors.items():
            errors_out.append(f"{name} / {label}: {type(error).__name__}: {error}")
    return rows


def ratio(times, num, den):
    if num in times and den in times:
        return f"{times[num][0] / times[den][0]:8.2f}"
    return f"{'-':>8}"


def cpu_main(args):
    cpu = simt.get_device("cpu")
    sides = [SimtCpuSide(cpu, "simt cpu")]
    notes = []
    try:
        sides.append(NumbaCpuSide())
    except ImportError as error:
        notes.append(f"numba: not installed ({error})")
    pocl = None
    try:
        import pyopencl as cl
        devices = [d for p in cl.get_platforms() for d in p.get_devices()
                   if d.type & cl.device_type.CPU]
        if devices:
            pocl = PyOpenCLSide(cl, devices[0])
            sides.append(pocl)
        else:
            notes.append("PyOpenCL: no OpenCL CPU device")
    except Exception as error:
        notes.append(f"PyOpenCL: {type(error).__name__}: {error}")
    simt_ocl = None
    if not args.no_simt_opencl:
        cpu_ocl = [d for d in simt.devices() if d.backend == "opencl"
                   and (pocl is None or d.name.strip() in pocl.queue.device.name.strip()
                        or pocl.queue.device.name.strip() in d.name.strip())]
        if cpu_ocl:
            simt_ocl = SimtCpuSide(cpu_ocl[0], f"simt {cpu_ocl[0].id}")
            sides.append(simt_ocl)
    sides.append(NumPyCpuSide())

    print(f"simt {simt.__version__} on {cpu.name}; numpy {np.__version__}; "
          f"1-D kernels: {args.cpu_blocks} blocks of {BLOCK}")
    if pocl is not None:
        d = pocl.queue.device
        print(f"PyOpenCL on {d.name.strip()} ({d.platform.name}, {d.version})")
    for note in notes:
        print(note)

    errors = []
    rows = run_cases(sides, cpu_cases(CPU_SIZES, np.random.default_rng(args.seed)),
                     args.cpu_blocks, args.repeats,
                     lambda pair: wall_sample(pair[1].finish)(pair[0]), errors)

    labels = [s.label for s in sides]
    print(f"\nms, median of {args.repeats} runs (launch + finish) after a warm-up, sides in "
          "turns; ratios > 1: simt faster")
    header = f"{'kernel':<36}" + "".join(f"{lb:>{max(10, len(lb) + 1)}}" for lb in labels)
    header += f" {'numba/simt':>10} {'PoCL/simt':>9} {'spread':>7}  simt rate      check"
    print(header)
    simt_label = sides[0].label
    peer = pocl.label if pocl else "PoCL"
    for name, times, verdict, rate, _ in rows:
        line = f"{name:<36}" + "".join(
            (f"{times[lb][0]:>{max(10, len(lb) + 1)}.3f}" if lb in times
             else f"{'-':>{max(10, len(lb) + 1)}}") for lb in labels)
        spreads = [s for _, s in times.values() if not math.isnan(s)]
        line += (f" {ratio(times, 'numba', simt_label):>10} {ratio(times, peer, simt_label):>9}"
                 f" {(f'{max(spreads):.1%}' if spreads else '-'):>7}  "
                 f"{(rate(times[simt_label][0]) if simt_label in times else '-'):<14} {verdict}")
        print(line)
    print("numba: hist shared = per-chunk private histograms (no atomics in Numba); "
          "numpy is a reference (BLAS, bincount, pairwise sum), not a peer.")
    if errors:
        print("\nerrors:")
        for e in errors:
            print("  " + e.replace("\n", "\n    "))


# =========================================================================================
# GPU: simt on cuda:0 against nvcc's cubin, numba-cuda and CuPy
# =========================================================================================


def numba_cuda_kernels():
    """The kernels above compiled by numba-cuda: the same code objects, with `cuda`
    bound to numba.cuda."""
    np.row_stack = np.vstack  # numba-cuda still names it; NumPy 2.5 removed it
    from numba import cuda as ncuda

    def jit(function, **options):
        scope = dict(function.__globals__, cuda=ncuda)
        copy = types.FunctionType(function.__code__, scope, function.__name__,
                                  function.__defaults__, function.__closure__)
        return ncuda.jit(**options)(copy)

    return ncuda, {
        "sgemm": jit(sgemm_tiled),
        "transpose": jit(transpose_tiled),
        "hist_global": jit(hist_global),
        "hist_shared": jit(hist_shared),
        "reduce": jit(reduce_sum),
        "reduce_warp0": jit(reduce_sum_warp0),
    }


def gpu_main(args):
    import cupy as cp

    device = simt.get_device("cuda:0")
    nvcc = cp.RawModule(path=args.gpu)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    grid1d = sms * (props["maxThreadsPerMultiProcessor"] // BLOCK)
    print(f"simt {simt.__version__} on {device.id}: {device.name} ({device.architecture}); "
          f"CuPy {cp.__version__}; 1-D kernels: {grid1d} blocks of {BLOCK} "
          f"({sms} SMs, one full wave)")
    try:
        ncuda, numba_k = numba_cuda_kernels()
        import numba
        print(f"numba-cuda: numba {numba.__version__}")
    except Exception as error:
        ncuda, numba_k = None, {}
        print(f"numba-cuda: unavailable ({type(error).__name__}: {error})")

    start_event, stop_event = cp.cuda.Event(), cp.cuda.Event()

    def sync():
        cp.cuda.Device().synchronize()
        device.synchronize()

    def event_sample(per_sample):
        def sample(run):
            start_event.record()
            for _ in range(per_sample):
                run()
            stop_event.record()
            stop_event.synchronize()
            return cp.cuda.get_elapsed_time(start_event, stop_event) / per_sample
        return sample

    # The memory ceiling: a device-to-device copy (cuBLAS SGEMM is a line below).
    big = cp.random.random(1 << 28, dtype=cp.float32)
    big_out = cp.empty_like(big)
    copy = take_turns({"copy": lambda: big_out.__setitem__(slice(None), big)}, 10,
                      event_sample(1), {})
    copy_gbs = 2 * big.nbytes / copy["copy"][0] / 1e6
    del big, big_out
    print(f"copy ceiling: {copy_gbs:.0f} GB/s (2^28 float32 device-to-device, read + write)")

    # The three implementations of a kernel, each make(inputs) -> (run, output):
    # outputs start poisoned (NaN) or zeroed (histograms, sum) for every side.
    def simt_make(name, outputs, scalars=lambda *ins: ()):
        kernel = SIMT[name]

        def make(*ins):
            outs = outputs(*ins)
            extra = scalars(*ins)
            grid, block = geometry(name, ins[0].shape, grid1d)

            def run():
                with simt.use_device(device):
                    kernel[grid, block](*ins, *outs, *extra)
            return run, outs[0]
        return make

    def nvcc_make(function, geometry_name, outputs, scalars):
        f = nvcc.get_function(function)

        def make(*ins):
            outs = outputs(*ins)
            grid, block = geometry(geometry_name, ins[0].shape, grid1d)
            grid, block = tuple(np.atleast_1d(grid).tolist()), tuple(np.atleast_1d(block).tolist())
            launch_args = (*ins, *outs, *scalars(*ins))
            return (lambda: f(grid, block, launch_args)), outs[0]
        return make

    def numba_make(name, outputs):
        def make(*ins):
            outs = outputs(*ins)
            grid, block = geometry(name, ins[0].shape, grid1d)
            launch = numba_k[name][grid, block]
            wrapped = [ncuda.as_cuda_array(v) for v in (*ins, *outs)]
            return (lambda: launch(*wrapped)), outs[0]
        return make

    rows, errors, sources = [], [], {}

    def row(name, inputs, expected, sides, check_args, per_sample, rate):
        """Checks then times `sides` ({label: make}) on `inputs` (drawn once per row,
        so that the sides can be compared with each other too)."""
        runs, results = {}, {}
        for label, make in sides.items():
            try:
                run, output = make(*inputs)
                run()
                sync()
                results[label] = cp.asnumpy(output)
                runs[label] = run
            except Exception as error:
                errors.append(f"{name} / {label}: {type(error).__name__}: {error}")
        verdict = check(results, expected, **check_args) if results else "-"
        del results
        errs = {}
        for label, run in list(runs.items()):  # warm-up
            try:
                run()
            except Exception as error:
                errs[label] = error
        sync()
        times = take_turns(runs, args.repeats, event_sample(per_sample), errs)
        for label, error in errs.items():
            errors.append(f"{name} / {label}: {type(error).__name__}: {error}")
        detail = rate(times["simt"][0]) if "simt" in times else "-"
        if "simt" in times:
            # Events bracket CuPy's stream; a wall-clock sample tells if they missed simt's.
            sync()
            start = time.perf_counter()
            for _ in range(per_sample):
                runs["simt"]()
            sync()
            wall_ms = (time.perf_counter() - start) / per_sample * 1e3
            if times["simt"][0] < 0.7 * wall_ms:
                detail += (f"; CHECK TIMING: events {times['simt'][0]:.3f} ms, wall "
                           f"{wall_ms:.3f} ms (is simt on CuPy's stream?)")
        rows.append((name, times, verdict, detail))

    def dump(name, *example):
        if args.dump_source and not isinstance(SIMT[name], Unavailable):
            try:
                sources[name] = SIMT[name].inspect_source(*example, dialect="cuda")
            except Exception as error:
                sources[name] = f"// inspect_source failed: {type(error).__name__}: {error}"

    def poisoned(shape):
        return cp.full(shape, cp.nan, cp.float32)

    host_rng = np.random.default_rng(args.seed)

    # 1. SGEMM, with each product and sum rounded (simt's default, nvcc's __fmul_rn /
    # __fadd_rn) and with contraction into fma (simt fastmath=True, nvcc's default).
    n = GPU_SIZES["sgemm"]
    a = cp.asarray(host_rng.uniform(-1, 1, (n, n)).astype(np.float32))
    b = cp.asarray(host_rng.uniform(-1, 1, (n, n)).astype(np.float32))
    expected = cp.asnumpy(a.astype(cp.float64) @ b.astype(cp.float64))
    out = lambda a, b: (poisoned(a.shape),)  # noqa: E731
    size = lambda a, b: (np.int32(a.shape[0]),)  # noqa: E731
    gflops = lambda ms: f"{2 * n ** 3 / ms / 1e6:.0f} GFLOP/s"  # noqa: E731

    def cublas(a, b):
        c = poisoned(a.shape)
        return (lambda: cp.matmul(a, b, out=c)), c

    row(f"sgemm {n}^2 fp32 16x16, no fma", (a, b), expected,
        {"simt": simt_make("sgemm", out),
         "nvcc": nvcc_make("sgemm_tiled_nofma", "sgemm", out, size)},
        dict(exact=False, rtol=1e-5), 1, gflops)
    sides = {"simt": simt_make("sgemm_fastmath", out),
             "nvcc": nvcc_make("sgemm_tiled", "sgemm", out, size)}
    if "sgemm" in numba_k:
        sides["numba"] = numba_make("sgemm", out)
    sides["cuBLAS"] = cublas
    row(f"sgemm {n}^2 fp32 16x16, fma", (a, b), expected, sides, dict(exact=False, rtol=1e-5),
        1, gflops)
    dump("sgemm", a, b, a)
    dump("sgemm_fastmath", a, b, a)
    del a, b, expected

    # 2. Transpose
    m = GPU_SIZES["transpose"]
    a = cp.asarray(host_rng.standard_normal((m, m), dtype=np.float32))
    out = lambda a: (poisoned(a.shape[::-1]),)  # noqa: E731
    shape = lambda a: (np.int32(a.shape[0]), np.int32(a.shape[1]))  # noqa: E731

    def strided_copy(a):
        o = poisoned(a.shape[::-1])
        return (lambda: cp.copyto(o, a.T)), o

    sides = {"simt": simt_make("transpose", out),
             "nvcc": nvcc_make("transpose_tiled", "transpose", out, shape)}
    if "transpose" in numba_k:
        sides["numba"] = numba_make("transpose", out)
    sides["cupy a.T copy"] = strided_copy
    row(f"transpose {m}^2 fp32, 32x33", (a,), cp.asnumpy(a).T, sides, dict(exact=True), 10,
        lambda ms: f"{2 * m * m * 4 / ms / 1e6:.0f} GB/s (copy {copy_gbs:.0f})")
    dump("transpose", a, a)
    del a

    # 3. Histograms
    h = GPU_SIZES["hist"]
    data = cp.asarray(host_rng.integers(0, NBINS, h, dtype=np.uint8))
    expected = np.bincount(cp.asnumpy(data), minlength=NBINS)
    out = lambda data: (cp.zeros(NBINS, cp.uint32),)  # noqa: E731
    count = lambda data: (np.int64(data.size),)  # noqa: E731

    def bincount(data):
        o = cp.zeros(NBINS, cp.int64)
        return (lambda: cp.copyto(o, cp.bincount(data, minlength=NBINS))), o

    lg = int(math.log2(h))
    for name, label in (("hist_global", "global atomics"), ("hist_shared", "shared + merge")):
        sides = {"simt": simt_make(name, out), "nvcc": nvcc_make(name, name, out, count)}
        if name in numba_k:
            sides["numba"] = numba_make(name, out)
        if name == "hist_global":
            sides["cupy bincount"] = bincount
        row(f"histogram 2^{lg} u8, {label}", (data,), expected, sides, dict(exact=True), 10,
            lambda ms: f"{h / ms / 1e6:.0f} GB/s")
        dump(name, data, out(data)[0])
    del data

    # 4. Reduction
    r = GPU_SIZES["reduce"]
    x = cp.asarray(host_rng.random(r, dtype=np.float32))
    expected = np.array([cp.asnumpy(x).astype(np.float64).sum()])
    out = lambda x: (cp.zeros(1, cp.float32),)  # noqa: E731

    def cupy_sum(x):
        o = cp.zeros((), cp.float32)
        return (lambda: cp.sum(x, out=o)), o.reshape(1)

    lg = int(math.log2(r))
    for name, function, label in (("reduce", "reduce_sum", "tree+shfl"),
                                  ("reduce_warp0", "reduce_sum_warp0", "shfl warp 0 only")):
        sides = {"simt": simt_make(name, out), "nvcc": nvcc_make(function, name, out, count)}
        if name in numba_k:
            sides["numba"] = numba_make(name, out)
        if name == "reduce":
            sides["cupy sum"] = cupy_sum
        row(f"reduce 2^{lg} fp32, {label}", (x,), expected, sides,
            dict(exact=False, rtol=1e-5), 10,
            lambda ms: f"{r * 4 / ms / 1e6:.0f} GB/s (read only; copy {copy_gbs:.0f} r+w)")
        dump(name, x, out(x)[0])
    del x

    # 5. Loops as users write them, each against the same loop in CUDA C.
    x = cp.asarray(host_rng.random(r, dtype=np.float32))
    expected = np.array([cp.asnumpy(x).astype(np.float64).sum()])
    out = lambda x: (cp.zeros(1, cp.float32),)  # noqa: E731
    row(f"reduce 2^{lg} fp32, while loop", (x,), expected,
        {"simt": simt_make("reduce_while", out),
         "nvcc": nvcc_make("reduce_sum_warp0", "reduce_while", out, count),
         "cupy sum": cupy_sum},
        dict(exact=False, rtol=1e-5), 10,
        lambda ms: f"{r * 4 / ms / 1e6:.0f} GB/s (read only)")
    dump("reduce_while", x, out(x)[0])
    step = grid1d * BLOCK
    expected = 2 * cp.asnumpy(x) + 1
    out = lambda x: (poisoned(x.shape),)  # noqa: E731
    row(f"scale 2^{lg} fp32, range step argument", (x,), expected,
        {"simt": simt_make("scale_step", out, lambda x: (0, step)),
         "nvcc": nvcc_make("scale_step", "scale_step", out,
                           lambda x: (np.int64(x.size), np.int64(0), np.int64(step)))},
        dict(exact=True), 10, lambda ms: f"{r * 8 / ms / 1e6:.0f} GB/s (copy {copy_gbs:.0f})")
    dump("scale_step", x, x, 0, step)
    del x
    rows_, cols_ = 1 << 18, 256
    a = cp.asarray(host_rng.random((rows_, cols_), dtype=np.float32))
    limit = np.float32(0.995)
    host_a = cp.asnumpy(a)
    above = host_a > limit
    expected = np.where(above.any(axis=1), above.argmax(axis=1), -1)
    out = lambda a: (cp.full(a.shape[0], -7, cp.int64),)  # noqa: E731
    row(f"first above, {rows_}x{cols_} fp32, break", (a,), expected,
        {"simt": simt_make("first_above", out, lambda a: (limit,)),
         "nvcc": nvcc_make("first_above", "first_above", out,
                           lambda a: (np.int64(a.shape[0]), np.int64(a.shape[1]), limit))},
        dict(exact=True), 10, lambda ms: f"{rows_ / ms / 1e3:.0f} Mrows/s")
    dump("first_above", a, out(a)[0], limit)
    del a, host_a, above
    b = GPU_SIZES["blur"]
    img = cp.asarray(host_rng.random((b, b), dtype=np.float32))
    host = cp.asnumpy(img)
    padded = np.pad(host, 2, mode="edge")
    expected = sum(padded[2 + di:2 + di + b, 2 + dj:2 + dj + b].astype(np.float64)
                   for di in range(-2, 3) for dj in range(-2, 3)) / 25
    out = lambda img: (poisoned(img.shape),)  # noqa: E731
    row(f"box blur 5x5 {b}^2 fp32, nested loops", (img,), expected,
        {"simt": simt_make("box_blur", out),
         "nvcc": nvcc_make("box_blur", "box_blur", out,
                           lambda img: (np.int64(img.shape[0]), np.int64(img.shape[1])))},
        dict(exact=False, rtol=1e-5), 10, lambda ms: f"{b * b * 8 / ms / 1e6:.0f} GB/s")
    dump("box_blur", img, img)
    del img, host, padded

    print(f"\nms per launch: median of {args.repeats} CUDA-event samples (sgemm 1 launch a "
          "sample, others 10), after a warm-up, sides in turns")
    print(f"{'kernel':<34} {'simt ms':>9} {'nvcc ms':>9} {'nvcc/simt':>9} {'numba ms':>9} "
          f"{'spread':>7}  {'check':<44} simt rate; reference lines")
    below = []
    for name, times, verdict, detail in rows:
        s = times.get("simt", (math.nan, math.nan))[0]
        v = times.get("nvcc", (math.nan, math.nan))[0]
        b = times.get("numba", (math.nan, math.nan))[0]
        spreads = [sp for _, sp in times.values() if not math.isnan(sp)]
        extra = "; ".join(f"{lb} {t[0]:.3f} ms" for lb, t in times.items()
                          if lb not in ("simt", "nvcc", "numba"))
        print(f"{name:<34} {s:9.3f} {v:9.3f} {v / s:9.3f} {b:9.3f} "
              f"{(f'{max(spreads):.1%}' if spreads else '-'):>7}  {verdict:<44} {detail}"
              + (f"; {extra}" if extra else ""))
        if not v / s >= 0.95:
            below.append(name)
    print("target: nvcc/simt >= 0.95" + (f"; below or not measured: {', '.join(below)}"
                                          if below else ": met on every row"))
    print("numba-cuda contracts a * b + c into fma by default (NVVM), so it is in the fma row.")
    if errors:
        print("\nerrors:")
        for e in errors:
            print("  " + e.replace("\n", "\n    "))
    if args.dump_source:
        with open(args.dump_source, "w") as f:
            for name, text in sources.items():
                f.write(f"// ==== {name} ====\n{text}\n")
        print(f"simt's generated CUDA ({', '.join(sources) or 'none'}) in {args.dump_source}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", metavar="CUBIN",
                        help="run the GPU part against this cubin of cuda/algorithms.cu")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--repeats", type=int, help="samples per side (default 21, quick 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu-blocks", type=int, default=64,
                        help="blocks of the 1-D CPU kernels and Numba's histogram chunks")
    parser.add_argument("--no-simt-opencl", action="store_true",
                        help="CPU part: leave out simt's OpenCL backend on the PoCL device")
    parser.add_argument("--dump-source", metavar="FILE",
                        help="GPU part: write simt's generated CUDA of every kernel to FILE")
    args = parser.parse_args()
    args.repeats = args.repeats or (5 if args.quick else 21)
    if args.gpu:
        gpu_main(args)
    else:
        cpu_main(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
