"""simt's OpenCL backend against hand-written OpenCL C run through PyOpenCL, in one run.

1. On an OpenCL device (the first simt device whose backend is "opencl", PoCL's
   CPU device on the development machine, or the one `--device opencl:N`
   names): the host cost of a warm launch of an empty kernel with 0 and 4
   arguments, then saxpy, a 2-D heat stencil and Mandelbrot, simt's kernels from
   examples/ against the same algorithms in bench/opencl/kernels.cl built and
   launched by PyOpenCL, on the same device with the same work-group sizes.
2. Where simt has a CUDA device and an OpenCL device on the same GPU (an NVIDIA
   GPU through NVIDIA's OpenCL driver): the same kernels, at sizes that fill a
   GPU, on simt's OpenCL backend against simt's CUDA backend.
A missing piece (PyOpenCL, an OpenCL device, a GPU) skips what needs it, with
the reason; the script still exits 0.

Run: python3 bench/opencl.py [--quick] [--device opencl:N]
Launch cost: median over batches of N warm launches and one final finish,
divided by N. Kernel time: median over repeats of the wall time of a launch
plus a finish, after a warm-up. The sides being compared take turns sample by
sample, so drift on a shared machine reaches both alike.
"""

import argparse
import contextlib
import itertools
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import heat  # noqa: E402
import mandelbrot as mandel  # noqa: E402
import saxpy as sx  # noqa: E402

import simt  # noqa: E402

KERNELS_CL = os.path.join(HERE, "opencl", "kernels.cl")

# The sizes the issue names for the CPU device, and sizes that fill an H200
# for the GPU section (2^24 floats are 64 MiB, a few tens of microseconds there,
# where the launch itself would weigh in). The Mandelbrot window and iteration
# count are examples/mandelbrot.py's.
CPU_SIZES = {"n": 1 << 24, "m": 2048, "w": 1024, "h": 768, "iterations": 200}
GPU_SIZES = {"n": 1 << 28, "m": 8192, "w": 4096, "h": 3072, "iterations": 200}


@simt.kernel
def empty0():
    pass


@simt.kernel
def empty4(x, b, c, d):
    pass


# ---- timing ------------------------------------------------------------------------


def launch_costs(methods, batches, per_batch):
    """µs per launch for each of `methods` ({name: (launch, finish)}), as two medians
    over batches of `per_batch` launches: with the one final finish (the figure
    compared: it charges each side for draining its own queue, and an
    asynchronous enqueue cannot hide work there) and of the enqueue loop alone
    (the host's share; where it is far below the first, the device's execution
    of empty kernels is what the first measures)."""
    for launch, finish in methods.values():  # warm-up: compilation, first-launch setup
        for _ in range(per_batch):
            launch()
        finish()
    with_finish = {name: [] for name in methods}
    loop_only = {name: [] for name in methods}
    for _ in range(batches):
        for name, (launch, finish) in methods.items():
            start = time.perf_counter()
            for _ in range(per_batch):
                launch()
            enqueued = time.perf_counter()
            finish()
            done = time.perf_counter()
            with_finish[name].append((done - start) / per_batch)
            loop_only[name].append((enqueued - start) / per_batch)
    return {name: (statistics.median(with_finish[name]) * 1e6,
                   statistics.median(loop_only[name]) * 1e6) for name in methods}


def kernel_times(sides, repeats, per_sample=1, warmup=2):
    """(median ms, spread) per side ({name: (run, finish)}). A sample is `per_sample`
    launches and one finish, divided by `per_sample`; spread is the interquartile
    range over the median, the noise a ratio has to beat."""
    for run, finish in sides.values():
        for _ in range(warmup):
            run()
        finish()
    samples = {name: [] for name in sides}
    for _ in range(repeats):
        for name, (run, finish) in sides.items():
            start = time.perf_counter()
            for _ in range(per_sample):
                run()
            finish()
            samples[name].append((time.perf_counter() - start) / per_sample)
    out = {}
    for name, s in samples.items():
        median = statistics.median(s)
        spread = math.nan
        if len(s) >= 4:
            q1, _, q3 = statistics.quantiles(s, n=4)
            spread = (q3 - q1) / median
        out[name] = (median * 1e3, spread)
    return out


# ---- the two ways of running the kernels ---------------------------------------------
# Each returns, per kernel, run() (one launch, no wait) and get() (the output as
# a NumPy array, after the last launch). Outputs start poisoned (NaN, -1), so a
# check sees any element a kernel failed to write.


class SimtSide:
    def __init__(self, device):
        self.device = device
        self.label = f"simt {device.id}"

    def finish(self):
        self.device.synchronize()

    def launcher(self, kernel, grid, block, *args):
        # use_device per launch: the GPU section alternates between two devices.
        # It costs about a microsecond, nothing against kernels of milliseconds.
        def run():
            with simt.use_device(self.device):
                kernel[grid, block](*args)
        return run

    def saxpy(self, a, x, y):
        dx, dy = simt.to_device(x, device=self.device), simt.to_device(y, device=self.device)
        out = simt.full(x.shape, np.nan, np.float32, device=self.device)
        return self.launcher(sx.saxpy, (x.size + 255) // 256, 256, a, dx, dy, out), out.get

    def heat(self, u, alpha):
        du = simt.to_device(u, device=self.device)
        out = simt.full(u.shape, np.nan, u.dtype, device=self.device)
        grid = ((u.shape[1] + 15) // 16, (u.shape[0] + 15) // 16)
        return self.launcher(heat.heat_step, grid, (16, 16), du, out, alpha), out.get

    def mandelbrot(self, w, h, window, iterations):
        image = simt.full((h, w), -1, np.int32, device=self.device)
        grid = ((w + 15) // 16, (h + 15) // 16)
        return (self.launcher(mandel.mandelbrot, grid, (16, 16), image, *window, iterations),
                image.get)


class PyOpenCLSide:
    def __init__(self, cl, device, contract=False):
        self.cl = cl
        self.label = "PyOpenCL"
        self.context = cl.Context([device])
        self.queue = cl.CommandQueue(self.context)  # in order, no profiling: as simt's
        with open(KERNELS_CL) as f:
            options = ["-DBENCH_CONTRACT"] if contract else []
            self.program = cl.Program(self.context, f.read()).build(options=options)

    def finish(self):
        self.queue.finish()

    def kernel(self, name, scalar_dtypes=None):
        # cl.Kernel makes a fresh kernel object (prg.name makes one per access and
        # warns when repeated); declared scalar types let PyOpenCL pack Python
        # numbers directly, its fast path.
        k = self.cl.Kernel(self.program, name)
        if scalar_dtypes is not None:
            k.set_scalar_arg_dtypes(scalar_dtypes)
        return k

    def buffer(self, host):
        flags = self.cl.mem_flags.READ_WRITE | self.cl.mem_flags.COPY_HOST_PTR
        return self.cl.Buffer(self.context, flags, hostbuf=host)

    def getter(self, buffer, shape, dtype):
        def get():
            host = np.empty(shape, dtype)
            self.cl.enqueue_copy(self.queue, host, buffer)  # blocking
            return host
        return get

    def saxpy(self, a, x, y):
        dx, dy, out = self.buffer(x), self.buffer(y), self.buffer(np.full_like(x, np.nan))
        k = self.kernel("saxpy", [np.float32, None, None, None, np.int64])
        gsize = ((x.size + 255) // 256 * 256,)
        return (lambda: k(self.queue, gsize, (256,), a, dx, dy, out, x.size),
                self.getter(out, x.shape, x.dtype))

    def heat(self, u, alpha):
        n, m = u.shape
        du, out = self.buffer(u), self.buffer(np.full_like(u, np.nan))
        k = self.kernel("heat_step", [None, None, np.float32, np.int64, np.int64])
        gsize = ((m + 15) // 16 * 16, (n + 15) // 16 * 16)
        return (lambda: k(self.queue, gsize, (16, 16), du, out, alpha, n, m),
                self.getter(out, u.shape, u.dtype))

    def mandelbrot(self, w, h, window, iterations):
        image = self.buffer(np.full((h, w), -1, np.int32))
        k = self.kernel("mandelbrot", [None] + [np.float64] * 4 + [np.int32, np.int64, np.int64])
        gsize = ((w + 15) // 16 * 16, (h + 15) // 16 * 16)
        return (lambda: k(self.queue, gsize, (16, 16), image, *window, iterations, h, w),
                self.getter(image, (h, w), np.int32))


# ---- the kernels, their inputs and their checks ----------------------------------------


def agreement(results, reference=None, rtol=0.0, atol=0.0):
    """'ok' and how close the sides are to each other, or 'FAIL' and who is off."""
    problems = []
    for name, r in results.items():
        if reference is not None and not np.allclose(r, reference, rtol=rtol, atol=atol):
            bad = ~np.isclose(r, reference, rtol=rtol, atol=atol)
            problems.append(f"{name}: {np.mean(bad):.2%} of elements off NumPy's")
    if problems:
        return "FAIL (" + "; ".join(problems) + ")"
    values = list(results.values())
    if len(values) < 2:
        return "ok (against NumPy)"
    if np.array_equal(values[0], values[1]):
        return "ok, bit-identical"
    diff = np.max(np.abs(values[0].astype(np.float64) - values[1]))
    return f"ok, max |diff| {diff:.1e}"


def mandelbrot_rows(w, h, window, iterations, rows):
    """NumPy's escape counts for some rows only (the whole image would take seconds)."""
    x0, y0, dx, dy = window
    c = (x0 + np.arange(w) * dx)[None, :] + 1j * (y0 + rows * dy)[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int32)
    for _ in range(iterations):
        active = np.abs(z) <= 2.0
        if not active.any():
            break
        z = np.where(active, z * z + c, z)
        counts += active
    return counts


def mandelbrot_check(results, w, h, window, iterations):
    """Escape counts may differ at a few boundary pixels when compilers round
    differently (contraction into fma); more than 0.1% is a bug."""
    rows = np.linspace(0, h - 1, 24).astype(np.int64)
    expected = mandelbrot_rows(w, h, window, iterations, rows)
    problems, mismatch = [], {}
    for name, image in results.items():
        if image.min() < 0 or image.max() > iterations:
            problems.append(f"{name}: counts outside 0..{iterations} (unwritten pixels?)")
        mismatch[name] = float(np.mean(image[rows] != expected))
        if mismatch[name] > 1e-3:
            problems.append(f"{name}: {mismatch[name]:.2%} of sampled pixels off NumPy's")
    if problems:
        return "FAIL (" + "; ".join(problems) + ")"
    values = list(results.values())
    if len(values) < 2:
        return "ok (sampled rows against NumPy)"
    if np.array_equal(values[0], values[1]):
        return "ok, bit-identical"
    return f"ok, {np.mean(values[0] != values[1]):.4%} of pixels differ between the two"


def workloads(sizes, seed=0):
    """[(name, build(side) -> (run, get), check(results) -> str, bytes moved or None)]."""
    rng = np.random.default_rng(seed)
    n, m, w, h, iterations = (sizes[k] for k in ("n", "m", "w", "h", "iterations"))
    a, x, y = np.float32(2.5), rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    # float32 throughout, alpha included: a Python float would promote the
    # update to float64 in simt's kernel.
    u, alpha = rng.random((m, m), dtype=np.float32), np.float32(0.2)
    window = (-2.2, -1.2, 3.2 / w, 2.4 / h)
    return [
        (f"saxpy 2^{n.bit_length() - 1} float32",
         lambda side: side.saxpy(a, x, y),
         lambda results: agreement(results, a * x + y, rtol=1e-6),
         3 * n * 4),
        (f"heat step {m}^2 float32",
         lambda side: side.heat(u, alpha),
         lambda results: agreement(results, heat.numpy_step(u, alpha), rtol=1e-5, atol=1e-6),
         2 * m * m * 4),
        (f"mandelbrot {w}x{h}, {iterations} it",
         lambda side: side.mandelbrot(w, h, window, iterations),
         lambda results: mandelbrot_check(results, w, h, window, iterations),
         None),
    ]


def compare_kernels(sides, sizes, repeats, per_sample=1, buffer_sets=1, bandwidth=False):
    """Builds, checks and times every workload on every side; returns table rows.

    Memory-bound workloads (those with a byte count) get `buffer_sets` sets of
    buffers, launched in turn: on the 2-core development machine the stencil's
    time moved by up to 40% between runs that differed only in which buffers it
    was given, a draw each side makes once per allocation; several sets average
    it out. Compute-bound ones (Mandelbrot) run far longer: a third of the repeats."""
    rows = []
    for name, build, check, nbytes in workloads(sizes):
        runs, results = {}, {}
        try:
            for side in sides:
                built = [build(side) for _ in range(buffer_sets if nbytes else 1)]
                run, get = built[0]
                run()  # the checked run (and the compilation) on poisoned outputs
                side.finish()
                results[side.label] = get()
                if len(built) > 1:
                    turn = itertools.cycle([r for r, _ in built])
                    run = lambda turn=turn: next(turn)()  # noqa: E731
                runs[side.label] = (run, side.finish)
            verdict = check(results)
            del results
            times = kernel_times(runs, repeats if nbytes else max(3, repeats // 3), per_sample,
                                 warmup=buffer_sets + 1)
        except Exception as error:
            # A failing kernel is a row, not the end of the run: on a lent GPU the
            # other rows are worth having.
            rows.append((name, {}, f"ERROR ({type(error).__name__}: {error})", ""))
            continue
        detail = ""
        if bandwidth and nbytes:
            detail = ", ".join(f"{nbytes / (t[0] * 1e-3) / 1e9:.0f} GB/s" for t in times.values())
        rows.append((name, times, verdict, detail))
    return rows


def print_kernel_table(labels, rows, ratio_label):
    first, second = labels
    print(f"{'kernel':<30} {first + ' ms':>16} {second + ' ms':>16} {ratio_label:>14} "
          f"{'spread':>7}  check")
    for name, times, verdict, detail in rows:
        t1, s1 = times.get(first, (math.nan, math.nan))
        t2, s2 = times.get(second, (math.nan, math.nan))
        spreads = [v for v in (s1, s2) if not math.isnan(v)]
        spread = f"{max(spreads):.1%}" if spreads else "-"
        print(f"{name:<30} {t1:16.3f} {t2:16.3f} {t1 / t2:14.3f} {spread:>7}  {verdict}"
              + (f"  [{detail}]" if detail else ""))


# ---- devices --------------------------------------------------------------------------


def backend_detail(name):
    """Why simt's backend `name` is unavailable, as `python -m simt info` says it."""
    try:
        for backend, _, detail in simt._core.backend_status():  # not public API
            if backend == name:
                return detail
    except Exception:
        pass
    return "no such device in simt.devices()"


def simt_opencl_device(wanted):
    """The simt device section 1 runs on, or (None, why)."""
    if wanted:
        try:
            device = simt.get_device(wanted)
        except Exception as error:
            return None, f"simt.get_device({wanted!r}) failed: {error}"
        if device.backend != "opencl":
            return None, f"{wanted} is a {device.backend} device, not an OpenCL one"
        return device, ""
    for device in simt.devices():
        if device.backend == "opencl":
            return device, ""
    return None, f"simt has no OpenCL device ({backend_detail('opencl')})"


def pyopencl_device(cl, simt_device, wanted):
    """PyOpenCL's handle on the device simt uses, or (None, why). simt numbers its
    OpenCL devices platform by platform as the ICD loader lists them, as PyOpenCL
    does; the names must agree too."""
    try:
        listed = [d for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error as error:
        return None, f"PyOpenCL finds no OpenCL platform ({error})"
    if simt_device is None:
        index = int(wanted.split(":")[1]) if wanted and ":" in wanted else 0
        if index >= len(listed):
            return None, f"PyOpenCL lists {len(listed)} OpenCL devices, not opencl:{index}"
        return listed[index], ""
    name = simt_device.name.strip()
    if simt_device.index < len(listed) and listed[simt_device.index].name.strip() == name:
        return listed[simt_device.index], ""
    same_name = [d for d in listed if d.name.strip() == name]
    if same_name:
        return same_name[0], ""
    return None, (f"no PyOpenCL device is named like simt's {simt_device.id} ({name!r}); "
                  f"PyOpenCL lists {[d.name for d in listed]}")


# ---- launch forms ----------------------------------------------------------------------
# An empty kernel on one work-item; the 4-argument form takes an array and three
# scalars (float32, int64, float64) on every side. Each form is
# {row: (0-argument launch, 4-argument launch, finish)}.

SIMT_REUSED = "simt: l = k[1, 1] once, then l(...)"


def simt_launches(device):
    x = simt.zeros(16, np.float32, device=device)
    b, c, d = np.float32(1.0), 2, 3.0
    with simt.use_device(device):
        l0, l4 = empty0[1, 1], empty4[1, 1]
    return {
        SIMT_REUSED: (lambda: l0(), lambda: l4(x, b, c, d), device.synchronize),
        "simt: k[1, 1](...) in the loop":
            (lambda: empty0[1, 1](), lambda: empty4[1, 1](x, b, c, d), device.synchronize),
    }


def pyopencl_launches(cl, peer):
    buf = peer.buffer(np.zeros(16, np.float32))
    b, c, d = 1.0, 2, 3.0  # Python scalars where PyOpenCL knows the types
    nb, nc, nd = np.float32(b), np.int64(c), np.float64(d)
    typed = [None, np.float32, np.int64, np.float64]
    q, enqueue, g, local = peer.queue, cl.enqueue_nd_range_kernel, (1,), (1,)
    k0, k4 = peer.kernel("empty0"), peer.kernel("empty4")
    t0, t4 = peer.kernel("empty0", []), peer.kernel("empty4", typed)
    s0, s4 = peer.kernel("empty0", []), peer.kernel("empty4", typed)
    f0, f4 = peer.kernel("empty0"), peer.kernel("empty4")
    f4.set_args(buf, nb, nc, nd)

    def set_and_enqueue(kernel, *kargs):
        kernel.set_args(*kargs)
        enqueue(q, kernel, g, local)

    return {
        "PyOpenCL knl(queue, g, l, *args), NumPy scalars":
            (lambda: k0(q, g, local), lambda: k4(q, g, local, buf, nb, nc, nd), peer.finish),
        "PyOpenCL knl(...) + set_scalar_arg_dtypes":
            (lambda: t0(q, g, local), lambda: t4(q, g, local, buf, b, c, d), peer.finish),
        "PyOpenCL knl.set_args + enqueue_nd_range_kernel":
            (lambda: set_and_enqueue(s0), lambda: set_and_enqueue(s4, buf, b, c, d),
             peer.finish),
        "(floor) enqueue_nd_range_kernel only, args set once":
            (lambda: enqueue(q, f0, g, local), lambda: enqueue(q, f4, g, local), peer.finish),
    }


# ---- the sections ------------------------------------------------------------------------


def section_opencl_vs_pyopencl(args):
    print("== 1. simt's OpenCL backend against PyOpenCL, same device ==")
    try:
        import pyopencl as cl
    except ImportError:
        print("pyopencl not installed: skipped")
        return
    device, why = simt_opencl_device(args.device)
    if device is None:
        print(f"{why}\n  -> PyOpenCL's side only")
    cl_device, why = pyopencl_device(cl, device, args.device)
    if cl_device is None:
        print(f"{why}: skipped")
        return
    peer = PyOpenCLSide(cl, cl_device, contract=args.contract)
    print(f"device: {device.id + ': ' + device.name if device else '(simt: none)'}; PyOpenCL "
          f"{cl.VERSION_TEXT} on {cl_device.name.strip()} ({cl_device.platform.name}, "
          f"{cl_device.version}, driver {cl_device.driver_version})"
          + ("; reference built with fma contraction" if args.contract else ""))

    # a. Warm launch, host cost: rows of (0-argument launch, 4-argument launch, finish).
    methods = {}
    if device is not None:
        methods.update(simt_launches(device))
    methods.update(pyopencl_launches(cl, peer))
    # simt launches on the current device: set once around the loops, not per launch
    # (that would cost about as much as the launch); PyOpenCL's rows ignore it.
    with simt.use_device(device) if device is not None else contextlib.nullcontext():
        timed = [launch_costs({name: (row[which], row[2]) for name, row in methods.items()},
                              args.batches, args.launches) for which in (0, 1)]
    print(f"\nwarm launch, host cost: µs per launch, median of {args.batches} batches of "
          f"{args.launches} launches + one finish")
    print(f"{'launch':<52} {'0 args':>8} {'4 args':>8}   {'enqueue loop only: 0':>20} {'4':>6}")
    for name in methods:
        print(f"{name:<52} {timed[0][name][0]:8.2f} {timed[1][name][0]:8.2f}   "
              f"{timed[0][name][1]:20.2f} {timed[1][name][1]:6.2f}")
    if device is not None:
        ratios = []
        for which in (0, 1):
            fastest_peer = min(t[0] for name, t in timed[which].items()
                               if name.startswith("PyOpenCL"))
            ratios.append(timed[which][SIMT_REUSED][0] / fastest_peer)
        print(f"simt (launcher reused) / fastest PyOpenCL form: 0 args {ratios[0]:.2f}, "
              f"4 args {ratios[1]:.2f}  (target: below 1)")

    # b. Kernels: same algorithms, device, global and work-group sizes.
    sides = ([SimtSide(device)] if device is not None else []) + [peer]
    rows = compare_kernels(sides, CPU_SIZES, args.repeats, buffer_sets=3)
    print(f"\nkernel time: ms, median of {args.repeats} (Mandelbrot {max(3, args.repeats // 3)}) "
          "launches + finish after a warm-up; saxpy and heat rotate over 3 buffer sets; "
          "work-groups 256 and 16x16")
    label = sides[0].label if device is not None else "simt"
    print_kernel_table((label, "PyOpenCL"), rows, "simt/PyOpenCL")
    if device is not None:
        print("target: simt/PyOpenCL within 1.05")


def section_opencl_vs_cuda(args):
    print("\n== 2. simt's OpenCL backend against simt's CUDA backend, same GPU ==")
    devices = simt.devices()
    cuda = next((d for d in devices if d.backend == "cuda"), None)
    if cuda is None:
        print("no CUDA device in simt.devices(): skipped (" + backend_detail("cuda") + ")")
        return
    opencl = [d for d in devices if d.backend == "opencl"]
    # The OpenCL device that is this GPU: NVIDIA's driver names it as CUDA does.
    gpu = (next((d for d in opencl if d.name.strip() == cuda.name.strip()), None)
           or next((d for d in opencl if "nvidia" in d.name.lower()), None))
    if gpu is None:
        print(f"no OpenCL device for {cuda.name} among {[d.id + ': ' + d.name for d in opencl]}"
              f" ({backend_detail('opencl')}): skipped")
        return
    print(f"devices: {gpu.id} ({gpu.name}) and {cuda.id} ({cuda.name}, {cuda.architecture})")

    # Launch cost on the GPU, both simt backends.
    x_ocl = simt.zeros(16, np.float32, device=gpu)
    x_cuda = simt.zeros(16, np.float32, device=cuda)
    b, c, d = np.float32(1.0), 2, 3.0
    print(f"\nwarm launch, host cost: µs per launch (launcher reused), median of {args.batches} "
          f"batches of {args.launches} + one synchronize")
    print(f"{'device':<12} {'0 args':>8} {'4 args':>8}   {'enqueue loop only: 0':>20} {'4':>6}")
    for device, x in ((gpu, x_ocl), (cuda, x_cuda)):
        try:
            with simt.use_device(device):
                l0, l4 = empty0[1, 1], empty4[1, 1]
                t = launch_costs({"0": (lambda: l0(), device.synchronize),
                                  "4": (lambda: l4(x, b, c, d), device.synchronize)},
                                 args.batches, args.launches)
        except Exception as error:  # reported; the kernels below still run
            print(f"{device.id:<12} ERROR ({type(error).__name__}: {error})")
            continue
        print(f"{device.id:<12} {t['0'][0]:8.2f} {t['4'][0]:8.2f}   {t['0'][1]:20.2f} "
              f"{t['4'][1]:6.2f}")

    # Kernels: 10 back-to-back launches per sample, so the host's launch cost
    # overlaps the previous kernel instead of being counted as kernel time.
    sides = [SimtSide(gpu), SimtSide(cuda)]
    rows = compare_kernels(sides, GPU_SIZES, args.gpu_repeats, per_sample=10, bandwidth=True)
    print(f"\nkernel time: ms, median of {args.gpu_repeats} samples (Mandelbrot "
          f"{max(3, args.gpu_repeats // 3)}) of 10 launches + synchronize, after a warm-up")
    print_kernel_table((sides[0].label, sides[1].label), rows, "OpenCL/CUDA")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--device", help="the simt OpenCL device for section 1, e.g. opencl:1")
    parser.add_argument("--contract", action="store_true",
                        help="build the OpenCL C reference with fma contraction allowed "
                             "(simt never contracts unless fastmath=True)")
    args = parser.parse_args()
    args.launches = 500 if args.quick else 2000
    args.batches = 5 if args.quick else 15
    args.repeats = 6 if args.quick else 31
    args.gpu_repeats = 6 if args.quick else 30
    print(f"simt {simt.__version__}; devices: {', '.join(d.id for d in simt.devices())}")
    section_opencl_vs_pyopencl(args)
    section_opencl_vs_cuda(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
