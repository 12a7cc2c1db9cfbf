"""simt's array operations against their peers, in one run, on one device.

    python bench/arrays.py [device]       # default: the current device (cuda:0 on a GPU)
    python bench/arrays.py cuda:0 sort    # only the sort rows
    python bench/arrays.py cuda:0 scan    # only the scan rows (cumulative_sum/prod, issue 38)
    python bench/arrays.py cpu cuda-cpp   # only CUDA C++ (Elementwise/Raw/ReductionKernel) rows
    python bench/arrays.py cuda:0 products  # only arg reductions and matrix-vector products
    python bench/arrays.py cpu families   # issue 38's cpu rows: each family, small-call costs
    python bench/arrays.py cpu programs   # conjugate gradients and k-means (cuda:0: vs CuPy)
    python bench/arrays.py cuda:0 issue38 # issue 38's table: every family against CuPy
                                          # (cuda) or NumPy (cpu), and the geometric mean
    python bench/arrays.py cpu issue38 fft  # only its rows whose label contains "fft"

On a CUDA device: against a hand-written float4 CUDA C kernel (compiled by NVRTC, in the
same run), CuPy (cuBLAS, cuFFT) and PyTorch where installed. On the cpu device: against NumPy. Device
times are medians of event-timed (CUDA) or synchronized wall-clock (cpu) runs after a
warm-up; host costs are medians of rounds of many warm calls. Ratios > 1 mean simt is
faster (peer time / simt time); the last lines are the table for docs/performance.md.
"""

import contextlib
import os
import statistics
import sys
import time

import numpy as np

import simt
from timing import event_ms, host_us

ROWS = []

# (label, switch, value, target) of each way simt computes matmul and FFT on cuda devices.
MATMUL_MODES = [("cuBLAS", "SIMT_CUBLAS", "1", ">= 0.95 (issue 15)"),
                ("generated kernel", "SIMT_CUBLAS", "0", "reported")]
FFT_MODES = [("cuFFT", "SIMT_CUFFT", "1", ">= 0.95 (issue 15)"),
             ("Stockham kernels", "SIMT_CUFFT", "0", "reported")]


@contextlib.contextmanager
def switched(variable, value):
    """$variable set to value for the block (simt reads SIMT_CUBLAS/SIMT_CUFFT per call)."""
    previous = os.environ.get(variable)
    os.environ[variable] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ[variable]
        else:
            os.environ[variable] = previous


def report(case, simt_value, peer_name, peer_value, unit, target):
    ratio = peer_value / simt_value
    ROWS.append((case, peer_name, simt_value, peer_value, unit, ratio, target))
    print(f"{case:38s} simt {simt_value:10.3f} {unit}  {peer_name:14s} {peer_value:10.3f} "
          f"{unit}  ratio {ratio:5.2f}  (target {target})", flush=True)


def wall_ms(fn, sync, repeats=15):
    fn()
    sync()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def cupy_event_ms(cp, fn):
    return event_ms(cp, fn, repeats=30)


def small_call_us(fn, sync=None):
    """The host cost of a warm call on one element."""
    return host_us(fn, rounds=11, inner=2000, sync=sync)


FLOAT4_ADD = r"""
extern "C" __global__ void add4(const float4* a, const float4* b, float4* out, long long n4) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)blockDim.x * gridDim.x;
  for (; i < n4; i += step) {
    float4 x = a[i], y = b[i];
    out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
"""


def check(name, got, want, rtol):
    kind = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want) else np.float64
    got, want = np.asarray(got, kind), np.asarray(want, kind)
    error = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
    if not error <= rtol:
        raise SystemExit(f"{name}: relative error {error:.3g} over {rtol}")


def check_uniform(name, values):
    # A sanity check of what is timed: floats in [0, 1) with mean 1/2.
    if not (values.min() >= 0 and values.max() < 1 and abs(values.mean() - 0.5) < 1e-3):
        raise SystemExit(f"{name}: not uniform in [0, 1): min {values.min()}, max "
                         f"{values.max()}, mean {values.mean()}")


def bench_cuda(device):
    import cupy as cp
    try:
        import torch
    except ImportError:
        torch = None
    # cupy and simt share the legacy default stream: events on it order both.
    sync = device.synchronize
    n = 2 ** 28
    rng = np.random.default_rng()
    ah, bh = rng.random(n, np.float32), rng.random(n, np.float32)
    a, b = simt.asarray(ah, device=device), simt.asarray(bh, device=device)
    out = simt.empty(n, np.float32, device)
    ca, cb = cp.asarray(ah), cp.asarray(bh)
    cout = cp.empty_like(ca)

    simt.add(a, b, out=out)
    check("add", out.get(), ah + bh, 1e-7)
    seconds = cupy_event_ms(cp, lambda: simt.add(a, b, out=out))
    gbps = 3 * 4 * n / seconds / 1e6
    raw = simt.RawKernel(FLOAT4_ADD, "add4", device=device)
    blocks = 132 * 16
    raw_ms = cupy_event_ms(cp, lambda: raw[blocks, 256](a, b, out, np.int64(n // 4)))
    check("float4 add", out.get(), ah + bh, 1e-7)
    report("add 2^28 f32 (GB/s as ms)", seconds, "float4 CUDA C", raw_ms, "ms", ">= 0.95")
    report("add 2^28 f32", seconds, "cupy", cupy_event_ms(cp, lambda: cp.add(ca, cb, out=cout)),
           "ms", ">= 1.0")
    if torch is not None:
        ta, tb = torch.as_tensor(ah, device="cuda"), torch.as_tensor(bh, device="cuda")
        tout = torch.empty_like(ta)
        report("add 2^28 f32", seconds, "torch",
               cupy_event_ms(cp, lambda: torch.add(ta, tb, out=tout)), "ms", ">= 1.0")
    print(f"  simt add: {gbps:.0f} GB/s", flush=True)

    check("sum", simt.sum(a).get(), ah.astype(np.float64).sum(), 1e-5)
    simt_ms = cupy_event_ms(cp, lambda: simt.sum(a))
    report("sum 2^28 f32", simt_ms, "cupy", cupy_event_ms(cp, lambda: cp.sum(ca)), "ms",
           ">= 1.0")
    if torch is not None:
        report("sum 2^28 f32", simt_ms, "torch", cupy_event_ms(cp, lambda: torch.sum(ta)),
               "ms", ">= 1.0")
    del a, b, out, ca, cb, cout

    mh = rng.random((8192, 8192), np.float32)
    m, cm = simt.asarray(mh, device=device), cp.asarray(mh)
    for axis in (0, 1):
        check(f"sum axis {axis}", simt.sum(m, axis=axis).get(),
              mh.astype(np.float64).sum(axis=axis), 1e-5)
        report(f"sum(axis={axis}) 8192^2 f32", cupy_event_ms(cp, lambda: simt.sum(m, axis=axis)),
               "cupy", cupy_event_ms(cp, lambda: cp.sum(cm, axis=axis)), "ms", ">= 1.0")
    del m, cm
    sh = rng.random((65536, 64), np.float32)  # short rows: a group of threads per row
    srows, csrows = simt.asarray(sh, device=device), cp.asarray(sh)
    check("sum short rows", simt.sum(srows, axis=1).get(), sh.astype(np.float64).sum(axis=1),
          1e-5)
    report("sum(axis=1) 65536x64 f32", cupy_event_ms(cp, lambda: simt.sum(srows, axis=1)),
           "cupy", cupy_event_ms(cp, lambda: cp.sum(csrows, axis=1)), "ms", ">= 1.0")
    del srows, csrows

    # A fused 4-operation expression (two products, a sum, a square root): one kernel each.
    n = 2 ** 26
    xh, yh = rng.random(n, np.float32), rng.random(n, np.float32)
    x, y, cx, cy = (simt.asarray(xh, device=device), simt.asarray(yh, device=device),
                    cp.asarray(xh), cp.asarray(yh))
    def norm2(x, y):  # not 'hypot': CuPy's kernel would clash with C's hypot
        return cp.sqrt(x * x + y * y)

    fused = simt.fuse(lambda x, y: simt.sqrt(x * x + y * y))
    cupy_fused = cp.fuse(norm2)  # CuPy's kernel takes the function's name: no lambda
    check("fuse", fused(x, y).get(), np.sqrt(xh * xh + yh * yh), 1e-6)
    report("fuse sqrt(x*x+y*y) 2^26 f32", cupy_event_ms(cp, lambda: fused(x, y)), "cupy.fuse",
           cupy_event_ms(cp, lambda: cupy_fused(cx, cy)), "ms", ">= 1.0")
    del x, y, cx, cy

    # Matrix product: simt through cuBLAS (loaded at run time) and with its generated tiled
    # kernel (SIMT_CUBLAS=0), against cuBLAS through CuPy (float32 without TF32 on both).
    n = 8192
    ph, qh = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    p, q, cp_p, cp_q = (simt.asarray(ph, device=device), simt.asarray(qh, device=device),
                        cp.asarray(ph), cp.asarray(qh))
    cublas_ms = event_ms(cp, lambda: cp_p @ cp_q, repeats=5)
    for label, variable, value, target in MATMUL_MODES:
        with switched(variable, value):
            check(f"matmul ({label})", (p[:512] @ q).get(), ph[:512] @ qh, 1e-5)
            simt_ms = event_ms(cp, lambda: p @ q, repeats=5)
        report(f"matmul 8192^2 f32 ({label})", simt_ms, "cupy (cuBLAS)", cublas_ms, "ms",
               target)
        print(f"  simt matmul ({label}): {2 * n ** 3 / simt_ms / 1e9:.1f} TFLOP/s", flush=True)
    # float16 on tensor cores (float32 accumulation on both sides).
    h, ch = p.astype(np.float16), cp_p.astype(cp.float16)
    check("matmul f16", (h[:256] @ h).get().astype(np.float32),
          ph[:256].astype(np.float16).astype(np.float32) @ ph.astype(np.float16).astype(
              np.float32), 2e-2)
    report("matmul 8192^2 f16 (cuBLAS)", event_ms(cp, lambda: h @ h, repeats=5), "cupy (cuBLAS)",
           event_ms(cp, lambda: ch @ ch, repeats=5), "ms", "reported")
    del p, q, cp_p, cp_q, h, ch

    # Random numbers: simt's Philox4x32-10 kernels against CuPy's Generator (XORWOW by
    # default, cuRAND's device API) and its legacy cuRAND host-API generator.
    n = 2 ** 28
    rout, crout = simt.empty(n, np.float32, device), cp.empty(n, cp.float32)
    srng, crng = simt.random.default_rng(0), cp.random.default_rng(0)
    check_uniform("random", srng.random(dtype=np.float32, out=rout).get())
    simt_ms = cupy_event_ms(cp, lambda: srng.random(dtype=np.float32, out=rout))
    report("random 2^28 f32", simt_ms, "cupy default_rng", cupy_event_ms(
        cp, lambda: crng.random(n, dtype=cp.float32, out=crout)), "ms", ">= 0.9 (issue 15)")
    legacy = cp.random.RandomState(0)
    report("random 2^28 f32", simt_ms, "cupy RandomState", cupy_event_ms(
        cp, lambda: legacy.random_sample(n, dtype=cp.float32)), "ms", "reported")
    print(f"  simt random: {4 * n / simt_ms / 1e6:.0f} GB/s written", flush=True)
    normal_ms = cupy_event_ms(cp, lambda: srng.standard_normal(dtype=np.float32, out=rout))
    report("standard_normal 2^28 f32", normal_ms, "cupy default_rng", cupy_event_ms(
        cp, lambda: crng.standard_normal(n, dtype=cp.float32, out=crout)), "ms", "reported")
    del rout, crout
    # FFT: simt through cuFFT (loaded at run time) and with its generated Stockham passes
    # (SIMT_CUFFT=0), against cuFFT through CuPy.
    for log2 in (20, 24):
        n = 2 ** log2
        zh = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
        z, cz = simt.asarray(zh, device=device), cp.asarray(zh)
        cufft_ms = event_ms(cp, lambda: cp.fft.fft(cz))
        for label, variable, value, target in FFT_MODES:
            with switched(variable, value):
                check(f"fft ({label})", simt.fft.fft(z).get(), np.fft.fft(zh), 1e-5)
                simt_ms = event_ms(cp, lambda: simt.fft.fft(z))
            report(f"fft 2^{log2} c64 ({label})", simt_ms, "cupy (cuFFT)", cufft_ms, "ms",
                   target)
        del z, cz
    bench_sort_cuda(device, cp, rng)
    bench_scan_cuda(device, cp, rng)
    bench_arg_and_vector_products(device, cp, rng)

    one, cone = simt.asarray(np.ones(1, np.float32), device=device), cp.ones(1, cp.float32)
    report("a + 1, 1 element (host cost)", small_call_us(lambda: one + 1, sync), "cupy",
           small_call_us(lambda: cone + 1, cp.cuda.Device().synchronize), "us", "<= cupy")


def bench_arg_and_vector_products(device, peer, rng):
    """argmax of one long row (a block per segment on GPUs) and matrix-vector products
    (a block per output element where no BLAS takes them: integers on CUDA, every
    product on OpenCL; the operands as given to NumPy's BLAS on the cpu device), against
    CuPy on CUDA and NumPy on the cpu device."""
    gpu = device.backend == "cuda"
    name = "cupy" if gpu else "numpy"
    if gpu:
        def peer_ms(fn):
            return cupy_event_ms(peer, fn)

        def simt_ms(fn):
            return cupy_event_ms(peer, fn)
    else:
        def peer_ms(fn):
            return wall_ms(fn, lambda: None)

        def simt_ms(fn):
            return wall_ms(fn, device.synchronize)
    xh = rng.standard_normal(2 ** 26).astype(np.float32)
    x, px = simt.asarray(xh, device=device), peer.asarray(xh)
    for op in ("argmax", "argmin"):
        if int(getattr(simt, op)(x).get()) != int(getattr(np, op)(xh)):
            raise SystemExit(f"{op}: not NumPy's index")
        report(f"{op} 2^26 f32", simt_ms(lambda: getattr(simt, op)(x)), name,
               peer_ms(lambda: getattr(peer, op)(px)), "ms", ">= 0.95" if gpu else ">= 1.0")
    mh = rng.standard_normal((4096, 50)).astype(np.float32)
    m, pm = simt.asarray(mh, device=device), peer.asarray(mh)
    check("argmax axis=1", simt.argmax(m, axis=1).get(), np.argmax(mh, axis=1), 0)
    report("argmax(axis=1) 4096x50 f32", simt_ms(lambda: simt.argmax(m, axis=1)), name,
           peer_ms(lambda: peer.argmax(pm, axis=1)), "ms", ">= 0.95" if gpu else ">= 1.0")
    del x, px, m, pm
    for dtype in (np.float32, np.int32):
        ah = rng.integers(-9, 9, (4096, 4096)).astype(dtype)
        vh = rng.integers(-9, 9, 4096).astype(dtype)
        a, v, pa, pv = (simt.asarray(ah, device=device), simt.asarray(vh, device=device),
                        peer.asarray(ah), peer.asarray(vh))
        check("matvec", (a @ v).get(), ah.astype(np.float64) @ vh, 1e-6)
        check("vecmat", (v @ a).get(), vh.astype(np.float64) @ ah, 1e-6)
        label = np.dtype(dtype).name
        report(f"matrix @ vector 4096^2 {label}", simt_ms(lambda: a @ v), name,
               peer_ms(lambda: pa @ pv), "ms", ">= 0.95" if gpu else ">= 1.0")
        report(f"vector @ matrix 4096^2 {label}", simt_ms(lambda: v @ a), name,
               peer_ms(lambda: pv @ pa), "ms", ">= 0.95" if gpu else ">= 1.0")
        del a, v, pa, pv


def check_sort(name, got_values, got_order, xh):
    """sort's values and argsort's indices are NumPy's stable ones, exactly."""
    if not np.array_equal(got_order, np.argsort(xh, kind="stable")):
        raise SystemExit(f"{name}: argsort differs from NumPy's stable argsort")
    if not np.array_equal(got_values, np.sort(xh, kind="stable")):
        raise SystemExit(f"{name}: sort differs from NumPy's")


def bench_sort_cuda(device, cp, rng):
    """sort and argsort (CUB's onesweep through NVRTC for one row; the generated radix
    passes as simt runs them elsewhere) against CuPy's (CUB's radix sort)."""
    from simt._array_api import _sorting

    def passes(x, indices):
        return _sorting.generated_sort(x, 0, False, indices)
    for dtype, exponent in (("float32", 22), ("float32", 26), ("int32", 26), ("float64", 25),
                            ("float16", 26)):
        xh = rng.standard_normal(2 ** exponent).astype(dtype) if dtype[0] == "f" else \
            rng.integers(-2 ** 31, 2 ** 31, 2 ** exponent).astype(dtype)
        x, cx = simt.asarray(xh, device=device), cp.asarray(xh)
        if exponent == 22:
            check_sort("sort", simt.sort(x).get(), simt.argsort(x).get(), xh)
            check_sort("sort (generated passes)", passes(x, False).get(), passes(x, True).get(),
                       xh)
        short = {"float32": "f32", "int32": "i32", "float64": "f64", "float16": "f16"}[dtype]
        target = ">= 0.8 (issue 15)" if (dtype, exponent) == ("float32", 26) else "reported"
        cupy_sort = event_ms(cp, lambda: cp.sort(cx), repeats=10)
        report(f"sort 2^{exponent} {short}", event_ms(cp, lambda: simt.sort(x), repeats=10),
               "cupy", cupy_sort, "ms", target)
        report(f"argsort 2^{exponent} {short}",
               event_ms(cp, lambda: simt.argsort(x), repeats=10),
               "cupy", event_ms(cp, lambda: cp.argsort(cx), repeats=10), "ms", "reported")
        if dtype == "float32":
            report(f"sort 2^{exponent} f32 (generated passes)",
                   event_ms(cp, lambda: passes(x, False), repeats=10), "cupy", cupy_sort, "ms",
                   "reported")
        del x, cx


def bench_scan_cuda(device, cp, rng):
    """cumulative_sum/prod (CUB's single-pass scan through NVRTC, a warp per short row;
    issue 38) against CuPy's, and the generated segmented scan as simt runs it elsewhere."""
    from simt._array_api import _reduction

    def generated(fn):
        real = _reduction._cub_scan
        _reduction._cub_scan = lambda *args: False
        try:
            return fn()
        finally:
            _reduction._cub_scan = real
    cases = [("cumulative_sum 2^26 f32", (2 ** 26,), "float32", "sum", None, False),
             ("cumulative_sum 2^25 f64", (2 ** 25,), "float64", "sum", None, False),
             ("cumulative_sum 2^26 i32->i64", (2 ** 26,), "int32", "sum", None, False),
             ("cumulative_prod 2^26 f32", (2 ** 26,), "float32", "prod", None, False),
             ("cumulative_sum 2^26 f32 include_initial", (2 ** 26,), "float32", "sum", None,
              True),
             ("cumulative_sum(axis=1) 8192^2 f32", (8192, 8192), "float32", "sum", 1, False),
             ("cumulative_sum(axis=0) 8192^2 f32", (8192, 8192), "float32", "sum", 0, False),
             ("cumulative_sum(axis=1) 65536x64 f32", (65536, 64), "float32", "sum", 1, False),
             ("cumulative_sum(axis=1) 2^20x8 f32", (2 ** 20, 8), "float32", "sum", 1, False),
             ("cumulative_sum(axis=1) 16x2^22 f32", (16, 2 ** 22), "float32", "sum", 1, False)]
    for case, shape, dtype, op, axis, initial in cases:
        xh = rng.random(shape).astype(dtype) if dtype[0] == "f" else \
            rng.integers(-2 ** 31, 2 ** 31, shape).astype(dtype)
        if op == "prod":
            xh = (0.9999 + 0.0002 * xh).astype(dtype)  # neither over- nor underflows
        x, cx = simt.asarray(xh, device=device), cp.asarray(xh)
        ours = getattr(simt, f"cumulative_{op}")
        kwargs = {"axis": axis, "include_initial": initial}

        wide = np.int64 if dtype[0] == "i" else None  # NumPy's accumulator, said outright

        def theirs():
            result = getattr(cp, f"cum{op}")(cx, axis=axis, dtype=wide)
            if initial:  # CuPy has no include_initial: its cost is a concatenate
                result = cp.concatenate([cp.zeros(1, result.dtype), result])
            return result
        got = ours(x, **kwargs).get()
        want = theirs().get()
        if dtype[0] == "f":  # float32 products of 2^26 factors round apart by ~3e-4
            check(case, got, want, 1e-2 if op == "prod" else 1e-3)
        elif not np.array_equal(got, want):
            raise SystemExit(f"{case}: differs from cupy")
        simt_ms = cupy_event_ms(cp, lambda: ours(x, **kwargs))
        report(case, simt_ms, "cupy", cupy_event_ms(cp, theirs), "ms",
               ">= 0.95 (issue 38)")
        if case in ("cumulative_sum 2^26 f32", "cumulative_sum(axis=1) 8192^2 f32"):
            report(case + " (generated)", generated(lambda: cupy_event_ms(cp, lambda: ours(
                x, **kwargs))), "cupy", cupy_event_ms(cp, theirs), "ms", "reported")
        del x, cx


def bench_cpu(device):
    sync = device.synchronize
    n = 2 ** 24
    rng = np.random.default_rng()
    ah, bh = rng.random(n, np.float32), rng.random(n, np.float32)
    a, b = simt.asarray(ah, device=device), simt.asarray(bh, device=device)
    out = simt.empty(n, np.float32, device)
    nout = np.empty_like(ah)
    simt.add(a, b, out=out)
    check("add", out.get(), ah + bh, 1e-7)
    report("add 2^24 f32", wall_ms(lambda: simt.add(a, b, out=out), sync), "numpy",
           wall_ms(lambda: np.add(ah, bh, out=nout), lambda: None), "ms", ">= 1.5")
    report("sqrt 2^24 f32", wall_ms(lambda: simt.sqrt(a, out=out), sync), "numpy",
           wall_ms(lambda: np.sqrt(ah, out=nout), lambda: None), "ms", ">= 1.5")
    check("sum", simt.sum(a).get(), ah.astype(np.float64).sum(), 1e-5)
    report("sum 2^24 f32", wall_ms(lambda: simt.sum(a), sync), "numpy",
           wall_ms(lambda: ah.sum(), lambda: None), "ms", ">= 1.5")
    report("max 2^24 f32", wall_ms(lambda: simt.max(a), sync), "numpy",
           wall_ms(lambda: ah.max(), lambda: None), "ms", ">= 1.5")
    mh = rng.random((4096, 4096), np.float32)
    m = simt.asarray(mh, device=device)
    for axis in (0, 1):
        check(f"sum axis {axis}", simt.sum(m, axis=axis).get(),
              mh.astype(np.float64).sum(axis=axis), 1e-5)
        report(f"sum(axis={axis}) 4096^2 f32", wall_ms(lambda: simt.sum(m, axis=axis), sync),
               "numpy", wall_ms(lambda: mh.sum(axis=axis), lambda: None), "ms", ">= 1.5")
    fused = simt.fuse(lambda x, y: simt.sqrt(x * x + y * y))
    check("fuse", fused(a, b).get(), np.sqrt(ah * ah + bh * bh), 1e-6)
    report("fuse sqrt(x*x+y*y) 2^24 f32", wall_ms(lambda: fused(a, b), sync), "numpy",
           wall_ms(lambda: np.sqrt(ah * ah + bh * bh), lambda: None), "ms", ">= 1.5")
    ph, qh = rng.random((2048, 2048), np.float32), rng.random((2048, 2048), np.float32)
    p, q = simt.asarray(ph, device=device), simt.asarray(qh, device=device)
    check("matmul", (p @ q).get(), ph @ qh, 1e-5)
    report("matmul 2048^2 f32", wall_ms(lambda: p @ q, sync, repeats=5), "numpy",
           wall_ms(lambda: ph @ qh, lambda: None, repeats=5), "ms", "~1.0 (the same BLAS)")
    # Random numbers: simt's Philox4x32-10 kernels against NumPy's Generator (PCG64).
    srng, nrng = simt.random.default_rng(0), np.random.default_rng(0)
    check_uniform("random", srng.random(dtype=np.float32, out=out).get())
    simt_ms = wall_ms(lambda: srng.random(dtype=np.float32, out=out), sync)
    report("random 2^24 f32", simt_ms, "numpy", wall_ms(
        lambda: nrng.random(dtype=np.float32, out=nout), lambda: None), "ms", "reported")
    print(f"  simt random: {4 * n / simt_ms / 1e6:.1f} GB/s written", flush=True)
    report("standard_normal 2^24 f32", wall_ms(
        lambda: srng.standard_normal(dtype=np.float32, out=out), sync), "numpy", wall_ms(
        lambda: nrng.standard_normal(dtype=np.float32, out=nout), lambda: None), "ms",
        "reported")
    # FFT: both are pocketfft (simt's on the array's memory, written in place).
    zh = (rng.standard_normal(2 ** 20) + 1j * rng.standard_normal(2 ** 20)).astype(np.complex64)
    z = simt.asarray(zh, device=device)
    check("fft", simt.fft.fft(z).get(), np.fft.fft(zh), 1e-5)
    report("fft 2^20 c64", wall_ms(lambda: simt.fft.fft(z), sync), "numpy",
           wall_ms(lambda: np.fft.fft(zh), lambda: None), "ms", "~1.0 (the same pocketfft)")
    bench_sort_cpu(device, rng)
    bench_arg_and_vector_products(device, np, rng)
    one, none = simt.asarray(np.ones(1, np.float32), device=device), np.ones(1, np.float32)
    simt_us = small_call_us(lambda: one + 1, sync)
    numpy_us = small_call_us(lambda: none + 1)
    report("a + 1, 1 element (host cost)", simt_us, "numpy x 3", 3 * numpy_us, "us",
           "<= 3x numpy, ratio >= 1")


SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* z, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    z[i] = a * x[i] + y[i];
}
"""


def bench_cuda_cpp_cpu(device):
    """CuPy-style CUDA C++ (ElementwiseKernel, RawKernel, ReductionKernel) on the cpu device
    against the same computation as a simt array expression and as NumPy, 10M float32."""
    sync = device.synchronize
    n = 10_000_000
    rng = np.random.default_rng()
    xh, yh = rng.random(n, np.float32), rng.random(n, np.float32)
    x, y = simt.asarray(xh, device=device), simt.asarray(yh, device=device)
    want = 2 * xh + yh
    axpy = simt.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = 2*x + y", "axpy")
    check("ElementwiseKernel 2*x+y", axpy(x, y).get(), want, 1e-6)
    expression_ms = wall_ms(lambda: 2 * x + y, sync)
    kernel_ms = wall_ms(lambda: axpy(x, y), sync)
    report("ElementwiseKernel z=2*x+y 10M f32", kernel_ms, "simt 2*x+y", expression_ms, "ms",
           ">= 0.67 (within 1.5x)")
    report("ElementwiseKernel z=2*x+y 10M f32", kernel_ms, "numpy",
           wall_ms(lambda: 2 * xh + yh, lambda: None), "ms", "reported")
    saxpy = simt.RawKernel(SAXPY, "saxpy", device=device)
    z = simt.empty(n, np.float32, device)
    grid, block = (n + 255) // 256, 256
    launch = saxpy[grid, block]
    launch(np.float32(2), x, y, z, n)
    check("RawKernel saxpy", z.get(), want, 1e-6)
    saxpy_ms = wall_ms(lambda: launch(np.float32(2), x, y, z, n), sync)
    report("RawKernel grid-stride saxpy 10M f32", saxpy_ms, "simt 2*x+y", expression_ms, "ms",
           ">= 0.67 (within 1.5x)")
    total = simt.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")
    check("ReductionKernel sum", total(x).get(), xh.astype(np.float64).sum(), 1e-5)
    reduction_ms = wall_ms(lambda: total(x), sync)
    report("ReductionKernel sum 10M f32", reduction_ms, "simt.sum", wall_ms(
        lambda: simt.sum(x), sync), "ms", ">= 0.5 (within 2x)")
    report("ReductionKernel sum 10M f32", reduction_ms, "numpy",
           wall_ms(lambda: xh.sum(), lambda: None), "ms", "reported")


def bench_sort_cpu(device, rng):
    """sort and argsort on the cpu device: NumPy's stable sort on the array's memory, so
    the ratio is the cost of simt's call and result allocation (about 1)."""
    sync = device.synchronize
    xh = rng.standard_normal(2 ** 22).astype(np.float32)
    x = simt.asarray(xh, device=device)
    check_sort("sort", simt.sort(x).get(), simt.argsort(x).get(), xh)
    report("sort 2^22 f32", wall_ms(lambda: simt.sort(x), sync, repeats=5), "numpy",
           wall_ms(lambda: np.sort(xh, kind="stable"), lambda: None, repeats=5), "ms",
           "~1.0 (NumPy's sort)")
    report("argsort 2^22 f32", wall_ms(lambda: simt.argsort(x), sync, repeats=5), "numpy",
           wall_ms(lambda: np.argsort(xh, kind="stable"), lambda: None, repeats=5), "ms",
           "~1.0 (NumPy's sort)")


def conjugate_gradient(xp, a, b, iterations):
    """Conjugate gradients on a symmetric positive definite `a` (the algorithm of CuPy's cg
    example, written here): a matrix-vector product, two dot products read on the host and
    three vector updates an iteration, as a port of a NumPy program runs them."""
    x = xp.zeros_like(b)
    r = b - a @ x
    p = r.copy()
    rs = float(r @ r)
    for _ in range(iterations):
        ap = a @ p
        alpha = rs / float(p @ ap)
        x += alpha * p
        r -= alpha * ap
        rs_next = float(r @ r)
        p = r + (rs_next / rs) * p
        rs = rs_next
    return x


def k_means(xp, points, k, iterations):
    """Lloyd's k-means (the algorithm of CuPy's kmeans example, written here): every
    point's squared distance to every center by broadcasting, the nearest by argmin, each
    center the mean of its points through a boolean mask."""
    centers = points[:k].copy()
    for _ in range(iterations):
        distances = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        labels = distances.argmin(axis=1)
        for j in range(k):
            members = points[labels == j]
            if members.shape[0]:
                centers[j] = members.mean(axis=0)
    return centers, labels


def bench_programs(device, peer, peer_name, peer_sync):
    """Whole programs, simt against `peer` (NumPy on the cpu device, CuPy on CUDA): each
    run end to end, its host reads included, median of 3 after a warm-up run."""
    sync = device.synchronize
    rng = np.random.default_rng(0)
    n = 2000
    m = rng.standard_normal((n, n))
    ah = m @ m.T / n + np.eye(n)  # symmetric, positive definite, well conditioned
    bh = rng.standard_normal(n)
    a, b = simt.asarray(ah, device=device), simt.asarray(bh, device=device)
    pa, pb = peer.asarray(ah), peer.asarray(bh)
    check("cg", conjugate_gradient(simt, a, b, 50).get(), np.linalg.solve(ah, bh), 1e-6)
    report("CG 2000^2 f64, 200 iterations", wall_ms(
        lambda: conjugate_gradient(simt, a, b, 200), sync, repeats=3), peer_name, wall_ms(
        lambda: conjugate_gradient(peer, pa, pb, 200), peer_sync, repeats=3), "ms", ">= 1.0")
    ph = rng.standard_normal((2 ** 20, 2)).astype(np.float32) + \
        rng.integers(0, 4, (2 ** 20, 1)).astype(np.float32) * 4
    points, ppoints = simt.asarray(ph, device=device), peer.asarray(ph)
    centers, _ = k_means(simt, points, 4, 10)
    want, _ = k_means(np, ph, 4, 10)
    check("k-means", centers.get(), want, 1e-4)
    report("k-means 2^20 x 2 f32, k=4, 10 iterations", wall_ms(
        lambda: k_means(simt, points, 4, 10), sync, repeats=3), peer_name, wall_ms(
        lambda: k_means(peer, ppoints, 4, 10), peer_sync, repeats=3), "ms", ">= 1.0")


def bench_cpu_families(device):
    """One row per element-wise, reduction, scan and arg-reduction family on the cpu device
    (issue 38: >= 1.0x NumPy on large arrays, simt having every core), and the host cost of
    small operations."""
    sync = device.synchronize
    rng = np.random.default_rng()
    n = 2 ** 24
    ah, bh = rng.random(n, np.float32), rng.random(n, np.float32)
    a, b = simt.asarray(ah, device=device), simt.asarray(bh, device=device)
    check("2*a+b", (2 * a + b).get(), 2 * ah + bh, 1e-7)
    report("2*a + b 2^24 f32", wall_ms(lambda: 2 * a + b, sync), "numpy",
           wall_ms(lambda: 2 * ah + bh, lambda: None), "ms", ">= 1.0")
    for name in ("sin", "exp"):
        check(name, getattr(simt, name)(a).get(), getattr(np, name)(ah), 1e-6)
        report(f"{name} 2^24 f32", wall_ms(lambda: getattr(simt, name)(a), sync), "numpy",
               wall_ms(lambda: getattr(np, name)(ah), lambda: None), "ms", ">= 1.0")
    check("cumulative_sum", simt.cumulative_sum(a).get(),
          np.cumulative_sum(ah.astype(np.float64)), 1e-4)
    report("cumulative_sum 2^24 f32", wall_ms(lambda: simt.cumulative_sum(a), sync), "numpy",
           wall_ms(lambda: np.cumulative_sum(ah), lambda: None), "ms", ">= 1.0")
    mh = rng.random((4096, 4096), np.float32)
    m = simt.asarray(mh, device=device)
    report("max(axis=1) 4096^2 f32", wall_ms(lambda: simt.max(m, axis=1), sync), "numpy",
           wall_ms(lambda: mh.max(axis=1), lambda: None), "ms", ">= 1.0")
    report("argmin(axis=1) 4096^2 f32", wall_ms(lambda: simt.argmin(m, axis=1), sync), "numpy",
           wall_ms(lambda: mh.argmin(axis=1), lambda: None), "ms", ">= 1.0")
    xs, ys = (simt.asarray(np.arange(16, dtype=np.float32), device=device) for _ in range(2))
    xh, yh = np.arange(16, dtype=np.float32), np.arange(16, dtype=np.float32)
    for label, fn, peer in (("x + y", lambda: xs + ys, lambda: xh + yh),
                            ("x.sum()", lambda: xs.sum(), lambda: xh.sum()),
                            ("x[2:9]", lambda: xs[2:9], lambda: xh[2:9])):
        report(f"{label}, 16 elements (host cost)", small_call_us(fn, sync), "target 3 us", 3.0,
               "us", "<= 3 us, ratio >= 1")
        print(f"  numpy {label}: {small_call_us(peer):.2f} us", flush=True)


def _stable(xp):
    """NumPy's keyword for its stable sort; nothing for simt and CuPy (stable already)."""
    return {"kind": "stable"} if xp is np else {}


def issue38_rows(rng, gpu):
    """(label, inputs as NumPy arrays, operation on (xp, *arrays), check) of each family
    of issue 38's table; `check` is a relative tolerance against the peer's result, or
    None where the result is random (then its mean and spread are checked, and the inputs
    are the count of values drawn)."""
    s = 1 if gpu else 4  # the cpu device's sizes: a quarter of the GPU's
    f32 = np.float32
    n26, n24 = 2 ** 26 // s, 2 ** 24 // s
    side = 8192 if gpu else 4096
    e26, e24 = (26, 24) if gpu else (24, 22)  # the labels' exponents
    big = rng.random(n26, f32)
    square = rng.random((side, side), f32)
    spd = rng.standard_normal((2048, 2048))
    spd = spd @ spd.T / 2048 + np.eye(2048)
    z24 = (rng.standard_normal(n24) + 1j * rng.standard_normal(n24)).astype(np.complex64)
    rows = [
        (f"argmax 2^{e26} f32", (big,), lambda xp, x: xp.argmax(x), 0),
        (f"argmin(axis=1) {side}^2 f32", (square,), lambda xp, x: xp.argmin(x, axis=1), 0),
        # float32 running sums of 2^{e26} terms err by ~1e-4 (both sides, differently)
        (f"cumulative_sum 2^{e26} f32", (big,), lambda xp, x: xp.cumsum(x), 1e-3),
        (f"cumulative_sum(axis=1) {side}^2 f32", (square,),
         lambda xp, x: xp.cumsum(x, axis=1), 1e-4),
        (f"unique_values 2^{e24} i32", (rng.integers(0, 2 ** 20, n24).astype(np.int32),),
         lambda xp, x: xp.unique(x), 0),
        ("batched matmul 256x(64x64) f32", (rng.random((256, 64, 64), f32),
                                            rng.random((256, 64, 64), f32)),
         lambda xp, a, b: xp.matmul(a, b), 1e-5),
        (f"standard_normal 2^{e26} f32", (n26,), None, None),  # inputs: the count drawn
        (f"random 2^{e26} f32", (n26,), None, None),
        (f"std(axis=0) {side}^2 f32", (square,), lambda xp, x: xp.std(x, axis=0), 1e-4),
        (f"a[idx] 2^{e24} of 2^{e26} f32", (big, rng.integers(0, n26, n24)),
         lambda xp, x, i: x[i], 0),
        (f"a[a > 0.5] 2^{e26} f32", (big,), lambda xp, x: x[x > 0.5], 0),
        (f"sum 2^{e26} f32", (big,), lambda xp, x: xp.sum(x), 1e-5),
        (f"max 2^{e26} f32", (big,), lambda xp, x: xp.max(x), 0),
        (f"sum(axis=0) {side}^2 f32", (square,), lambda xp, x: xp.sum(x, axis=0), 1e-5),
        (f"sum(axis=1) {side}^2 f32", (square,), lambda xp, x: xp.sum(x, axis=1), 1e-5),
        (f"a + b 2^{e26} f32", (big, big[::-1].copy()), lambda xp, a, b: a + b, 1e-7),
        (f"2*a + b 2^{e26} f32", (big, big[::-1].copy()), lambda xp, a, b: 2 * a + b, 1e-7),
        (f"sin 2^{e26} f32", (big,), lambda xp, x: xp.sin(x), 1e-6),
        (f"transpose copy {side}^2 f32", (square,),
         lambda xp, x: xp.ascontiguousarray(x.T), 0),
        # NumPy's stable sort, as issue 38 asks (simt's and CuPy's sorts are stable; NumPy's
        # default is its unstable SIMD quicksort)
        (f"sort 2^{e26} f32", (big,), lambda xp, x: xp.sort(x, **_stable(xp)), 0),
        (f"sort rows {side}^2 f32", (square,),
         lambda xp, x: xp.sort(x, axis=1, **_stable(xp)), 0),
        # Ties (random float32 values repeat) may come in any order in the peer's default
        # sort: checked as the values the indices pick.
        (f"argsort 2^{e24} f32", (big[:n24],), lambda xp, x: xp.argsort(x, **_stable(xp)),
         "order"),
        ("matmul 4096^2 f32", (square[:4096, :4096], square[-4096:, -4096:]),
         lambda xp, a, b: a @ b, 1e-5),
        ("matmul 4096^2 f64", (square[:4096, :4096].astype(np.float64),
                               square[-4096:, -4096:].astype(np.float64)),
         lambda xp, a, b: a @ b, 1e-12),
        ("cholesky 2048 f64", (spd,), lambda xp, a: xp.linalg.cholesky(a), 1e-10),
        ("solve 2048 f64", (spd, rng.standard_normal((2048, 1))),
         lambda xp, a, b: xp.linalg.solve(a, b), 1e-8),
        ("svd 512^2 f64", (rng.standard_normal((512, 512)),),
         # the array API's svdvals (simt's svd has no compute_uv=; CuPy 13 has no svdvals)
         lambda xp, a: xp.linalg.svdvals(a) if hasattr(xp.linalg, "svdvals") else
         xp.linalg.svd(a, compute_uv=False), 1e-10),
        (f"fft 2^{e24} c64", (z24,), lambda xp, z: xp.fft.fft(z), 1e-5),
        (f"fft2 4096x{4096 // s} c64", (z24.reshape(4096, 4096 // s),),
         lambda xp, z: xp.fft.fft2(z), 1e-5),
        (f"rfft 2^{e24} f32", (big[:n24],), lambda xp, x: xp.fft.rfft(x), 1e-5),
    ]
    return rows


def family_row(device, gpu, peer, peer_name, simt_ms, peer_ms, target, label, inputs, op,
               tolerance):
    """One row of bench_families: checked against the peer first, then timed."""
    if label.startswith(("standard_normal", "random")):
        n, = inputs
        method = "standard_normal" if label.startswith("standard") else "random"
        out, pout = simt.empty(n, np.float32, device), peer.empty(n, np.float32)
        srng, prng = simt.random.default_rng(0), peer.random.default_rng(0)
        values = getattr(srng, method)(dtype=np.float32, out=out).get()
        mean, spread = (0, 1) if method == "standard_normal" else (0.5, 12 ** -0.5)
        if abs(values.mean() - mean) > 1e-3 or abs(values.std() - spread) > 1e-3:
            raise SystemExit(f"{label}: mean {values.mean()}, std {values.std()}")
        report(label, simt_ms(lambda: getattr(srng, method)(dtype=np.float32, out=out)),
               peer_name, peer_ms(lambda: getattr(prng, method)(dtype=np.float32, out=pout)),
               "ms", target)
        return
    mine = tuple(simt.asarray(a, device=device) for a in inputs)
    theirs = tuple(peer.asarray(a) for a in inputs)
    want = op(peer, *theirs)
    want = want.get() if gpu else want
    got = simt.asnumpy(op(simt, *mine))
    if tolerance == "order":  # indices: the values they pick, in the peer's order
        got, want, tolerance = inputs[0][got], inputs[0][want], 0
    check(label, got, want, tolerance)
    report(label, simt_ms(lambda: op(simt, *mine)), peer_name,
           peer_ms(lambda: op(peer, *theirs)), "ms", target)
    del mine, theirs


def bench_families(device, only=None):
    """Issue 38's table: every family on `device` against CuPy (cuda) or NumPy (cpu), in
    one run, results checked against the peer's first; the geometric mean at the end.
    `only`: the rows whose label contains it (and no host costs)."""
    gpu = device.backend == "cuda"
    if gpu:
        import cupy as peer
        peer_name, peer_sync = "cupy", peer.cuda.Device().synchronize

        def peer_ms(fn):
            return event_ms(peer, fn, repeats=10)
        simt_ms = peer_ms
    else:
        peer, peer_name, peer_sync = np, "numpy", (lambda: None)

        def peer_ms(fn):
            return wall_ms(fn, peer_sync, repeats=7)

        def simt_ms(fn):
            return wall_ms(fn, device.synchronize, repeats=7)
    target = ">= 0.95" if gpu else ">= 1.0"
    rng = np.random.default_rng(1)
    first = len(ROWS)
    for label, inputs, op, tolerance in issue38_rows(rng, gpu):
        if only is not None and only not in label:
            continue
        try:  # a failed check or a missing operation is a printed row; the rest still run
            family_row(device, gpu, peer, peer_name, simt_ms, peer_ms, target, label, inputs,
                       op, tolerance)
        except (Exception, SystemExit) as error:
            print(f"{label:38s} FAILED: {type(error).__name__}: {error}", flush=True)
    if only is not None:
        return
    xs = simt.asarray(np.arange(16, dtype=np.float32), device=device)
    ys = simt.asarray(np.arange(16, dtype=np.float32), device=device)
    xp_, yp_ = peer.asarray(np.arange(16, dtype=np.float32)), peer.asarray(
        np.arange(16, dtype=np.float32))
    idx, pidx = simt.asarray(np.array([1, 5, 7]), device=device), peer.asarray([1, 5, 7])
    for label, fn, pfn in (("x + y", lambda: xs + ys, lambda: xp_ + yp_),
                           ("x.sum()", lambda: xs.sum(), lambda: xp_.sum()),
                           ("x[2:9]", lambda: xs[2:9], lambda: xp_[2:9]),
                           ("x[idx] (3 of 16)", lambda: xs[idx], lambda: xp_[pidx])):
        mine_us = host_us(fn, rounds=101, inner=64, sync=device.synchronize)
        report(f"{label}, 16 elements (host cost)", mine_us, peer_name,
               host_us(pfn, rounds=101, inner=64, sync=peer_sync), "us", target + ", <= 3 us")
    ratios = [row[5] for row in ROWS[first:]]
    print(f"geometric mean over {len(ratios)} rows: "
          f"{float(np.exp(np.mean(np.log(ratios)))):.3f}", flush=True)


def main():
    device = simt.get_device(sys.argv[1] if len(sys.argv) > 1 else None)
    print(f"device: {device}", flush=True)
    if device.backend == "cuda" and sys.argv[2:] == ["sort"]:
        import cupy
        bench_sort_cuda(device, cupy, np.random.default_rng(0))
    elif device.backend == "cuda" and sys.argv[2:] == ["scan"]:
        import cupy
        bench_scan_cuda(device, cupy, np.random.default_rng(0))
    elif sys.argv[2:] == ["products"]:
        if device.backend == "cuda":
            import cupy as peer
        else:
            peer = np
        bench_arg_and_vector_products(device, peer, np.random.default_rng(0))
    elif device.backend == "cpu" and sys.argv[2:] == ["cuda-cpp"]:
        bench_cuda_cpp_cpu(device)
    elif sys.argv[2:] == ["programs"]:
        if device.backend == "cuda":
            import cupy
            bench_programs(device, cupy, "cupy", cupy.cuda.runtime.deviceSynchronize)
        else:
            bench_programs(device, np, "numpy", lambda: None)
    elif device.backend == "cpu" and sys.argv[2:] == ["families"]:
        bench_cpu_families(device)
    elif sys.argv[2:3] == ["issue38"]:
        bench_families(device, *sys.argv[3:4])
    elif device.backend == "cuda":
        bench_cuda(device)
    elif device.backend == "cpu":
        bench_cpu(device)
        bench_cpu_families(device)
        bench_cuda_cpp_cpu(device)
        bench_programs(device, np, "numpy", lambda: None)
    else:
        raise SystemExit(f"bench/arrays.py measures cuda and cpu devices, not {device.id}")
    print("\n| case | peer | simt | peer | ratio (peer/simt) | target |\n|---|---|---|---|---|---|")
    for case, peer, s, p, unit, ratio, target in ROWS:
        print(f"| {case} | {peer} | {s:.3f} {unit} | {p:.3f} {unit} | {ratio:.2f} | {target} |")


if __name__ == "__main__":
    main()
