"""saxpy, a 2-D stencil, Mandelbrot and a grid-stride sum on simt's CPU backend, against
NumPy, Numba @njit(parallel=True) and the same simt kernels through simt's OpenCL backend
on PoCL (when an OpenCL CPU device is present), measured in the same run.

Run: python3 bench/cpu.py
"""

import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

import heat  # noqa: E402
import mandelbrot as mandel  # noqa: E402
import saxpy as sx  # noqa: E402

import simt  # noqa: E402


def timed(fn, repeats=7):
    fn()  # warm-up (and compile)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def numba_versions():
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(parallel=True, fastmath=False)
    def saxpy(a, x, y, out):
        for i in numba.prange(x.shape[0]):
            out[i] = a * x[i] + y[i]

    @numba.njit(parallel=True)
    def heat_step(u, out, alpha):
        n, m = u.shape
        for i in numba.prange(n):
            for j in range(m):
                if 0 < i < n - 1 and 0 < j < m - 1:
                    lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
                    out[i, j] = u[i, j] + alpha * lap
                else:
                    out[i, j] = u[i, j]

    @numba.njit(parallel=True)
    def mandelbrot(image, x0, y0, dx, dy, max_iter):
        height, width = image.shape
        for py in numba.prange(height):
            for px in range(width):
                c = complex(x0 + px * dx, y0 + py * dy)
                z = 0j
                n = 0
                while n < max_iter and abs(z) <= 2.0:
                    z = z * z + c
                    n += 1
                image[py, px] = n

    @numba.njit(parallel=True)
    def total(x):
        s = 0.0
        for i in numba.prange(x.shape[0]):
            s += x[i]
        return s

    return saxpy, heat_step, mandelbrot, total


@simt.kernel
def grid_stride_sum(x, out):
    # As Numba-CUDA users write it: a grid-stride while loop, then a tree in shared memory.
    s = simt.shared.array(256, np.float64)
    t = simt.thread_idx.x
    acc = 0.0
    i = simt.grid(1)
    while i < x.size:
        acc += x[i]
        i += simt.gridsize(1)
    s[t] = acc
    simt.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        simt.syncthreads()
        step //= 2
    if t == 0:
        simt.atomic.add(out, 0, s[0])


def pocl():
    """The OpenCL CPU device (PoCL) the same kernels run on, or None."""
    for d in simt.devices():
        if d.backend == "opencl" and ("pthread" in d.name.lower() or "pocl" in d.name.lower()):
            return d
    return None


def on_pocl(device, launch, arrays):
    """The median time of `launch` with `arrays` copied to `device` (None: no device)."""
    if device is None:
        return math.nan
    copies = [simt.to_device(a, device=device) for a in arrays]
    with simt.use_device(device):
        return timed(lambda: (launch(*copies), device.synchronize()))


def main():
    cpu = simt.get_device("cpu")
    ocl = pocl()
    rng = np.random.default_rng(0)
    numba_fns = numba_versions()
    rows = []

    n = 1 << 24
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a = np.float32(2.5)
    out = np.empty_like(x)
    dx, dy, dout = (simt.to_device(v, device=cpu) for v in (x, y, out))
    grid = (n + 255) // 256
    with simt.use_device(cpu):
        t_simt = timed(lambda: sx.saxpy[grid, 256](a, dx, dy, dout))
    t_numpy = timed(lambda: np.add(np.multiply(a, x, out=out), y, out=out))
    t_numba = timed(lambda: numba_fns[0](a, x, y, out)) if numba_fns else math.nan
    t_pocl = on_pocl(ocl, lambda px, py, po: sx.saxpy[grid, 256](a, px, py, po), (x, y, out))
    rows.append(("saxpy 2^24 float32", t_simt, t_numpy, t_numba, t_pocl))

    m = 2048
    u = rng.random((m, m))
    du, dv = simt.to_device(u, device=cpu), simt.empty((m, m), device=cpu)
    v = np.empty_like(u)
    g2 = ((m + 15) // 16, (m + 15) // 16)
    with simt.use_device(cpu):
        t_simt = timed(lambda: heat.heat_step[g2, (16, 16)](du, dv, 0.2))
    t_numpy = timed(lambda: heat.numpy_step(u, 0.2))
    t_numba = timed(lambda: numba_fns[1](u, v, 0.2)) if numba_fns else math.nan
    t_pocl = on_pocl(ocl, lambda pu, pv: heat.heat_step[g2, (16, 16)](pu, pv, 0.2), (u, v))
    rows.append(("heat step 2048^2 float64", t_simt, t_numpy, t_numba, t_pocl))

    w, h, it = 1024, 768, 200
    args = (-2.2, -1.2, 3.2 / w, 2.4 / h, it)
    image = simt.empty((h, w), np.int32, device=cpu)
    host_image = np.empty((h, w), np.int32)
    g3 = ((w + 15) // 16, (h + 15) // 16)
    with simt.use_device(cpu):
        t_simt = timed(lambda: mandel.mandelbrot[g3, (16, 16)](image, *args), repeats=3)
    t_numpy = timed(lambda: mandel.numpy_mandelbrot(w, h, *args), repeats=1)
    t_numba = (timed(lambda: numba_fns[2](host_image, *args), repeats=3) if numba_fns
               else math.nan)
    t_pocl = on_pocl(ocl, lambda im: mandel.mandelbrot[g3, (16, 16)](im, *args), (host_image,))
    rows.append(("mandelbrot 1024x768, 200 it", t_simt, t_numpy, t_numba, t_pocl))

    # The grid a GPU user launches for a grid-stride loop: a few blocks per core.
    xs = rng.random(n)
    dxs, dsum = simt.to_device(xs, device=cpu), simt.zeros(1, np.float64, device=cpu)
    blocks = 4 * (cpu.compute_units or 1)
    with simt.use_device(cpu):
        t_simt = timed(lambda: grid_stride_sum[blocks, 256](dxs, dsum))
    dsum = simt.zeros(1, np.float64, device=cpu)
    grid_stride_sum[blocks, 256](dxs, dsum)
    assert abs(dsum.get()[0] - xs.sum()) <= 1e-9 * xs.sum(), "grid-stride sum is wrong"
    t_numpy = timed(lambda: xs.sum())
    t_numba = timed(lambda: numba_fns[3](xs)) if numba_fns else math.nan
    t_pocl = on_pocl(ocl, lambda px, po: grid_stride_sum[blocks, 256](px, po),
                     (xs, np.zeros(1)))
    rows.append((f"grid-stride sum 2^24 f64, {blocks} blocks", t_simt, t_numpy, t_numba,
                 t_pocl))

    print(f"device: {cpu.name}; numba: {'yes' if numba_fns else 'not installed'}; "
          f"PoCL: {ocl.name if ocl else 'none'}")
    print(f"{'kernel':<36} {'simt ms':>8} {'numpy ms':>9} {'numba ms':>9} {'pocl ms':>8} "
          f"{'numpy/simt':>11} {'numba/simt':>11} {'pocl/simt':>10}")
    for name, ts, tn, tb, tp in rows:
        print(f"{name:<36} {ts * 1e3:8.2f} {tn * 1e3:9.2f} {tb * 1e3:9.2f} {tp * 1e3:8.2f} "
              f"{tn / ts:11.2f} {tb / ts:11.2f} {tp / ts:10.2f}")


if __name__ == "__main__":
    main()
