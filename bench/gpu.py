"""simt's CUDA backend against nvcc-compiled CUDA C, CuPy and numba-cuda, in one run.

Run on a machine with an NVIDIA GPU, from the repository root:
    nvcc -O3 -arch=sm_90 -cubin -o bench/cuda/kernels.cubin bench/cuda/kernels.cu
    nvcc -O2 -o /tmp/raw_launch bench/cuda/raw_launch.cpp -lcuda
    nvcc -O2 -shared -Xcompiler -fPIC -I$(python3 -c "import sysconfig; \
        print(sysconfig.get_paths()['include'])") bench/cuda/launch_floor.c \
        -o /tmp/launch_floor$(python3 -c "import sysconfig; \
        print(sysconfig.get_config_var('EXT_SUFFIX'))") -lcuda
    python3 bench/gpu.py bench/cuda/kernels.cubin /tmp/raw_launch /tmp [--launch-only]
Kernel times are medians of CUDA-event-timed launches after a warm-up;
launch costs are medians of rounds of many warm launches. The third argument is the
folder of the launch_floor module: the rows "python -> cuLaunchKernel" time a CPython
call that does nothing but the driver's launch, the floor of any Python launch path.
"""

import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import simt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import heat  # noqa: E402
from timing import event_ms, host_us  # noqa: E402
import mandelbrot as mandel  # noqa: E402
import saxpy as sx  # noqa: E402


PASSES = 5


def host_cost(fn, rounds=101, inner=256):
    """Host µs per warm call: rounds of `inner` calls, each round below the driver's queue
    depth (about 1000 pending launches) and synchronized after, so that it times the host's
    work, not the GPU's rate of empty kernels (raw_launch's long rounds show that rate)."""
    return host_us(fn, rounds, inner, sync=_synchronize)


def _synchronize():
    import cupy as cp

    cp.cuda.Device().synchronize()


@simt.kernel
def empty0():
    pass


@simt.kernel
def empty4(a, b, c, d):
    pass


FIRST_CALL = {
    "simt": """
import time, numpy as np, simt
from simt import cuda
@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
x = simt.zeros(1024, np.float32)
t = time.perf_counter(); saxpy[4, 256](np.float32(2), x, x, x); simt.current_device().synchronize()
print((time.perf_counter() - t) * 1e3)
""",
    "cupy RawModule": """
import time, cupy as cp
src = r'''extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* o, long long n)
{ long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = a * x[i] + y[i]; }'''
x = cp.zeros(1024, cp.float32)
t = time.perf_counter()
k = cp.RawModule(code=src).get_function("saxpy")
k((4,), (256,), (cp.float32(2), x, x, x, cp.int64(1024))); cp.cuda.Device().synchronize()
print((time.perf_counter() - t) * 1e3)
""",
    "numba-cuda": """
import time, numpy as np
np.row_stack = np.vstack
from numba import cuda
x = cuda.to_device(np.zeros(1024, np.float32))
t = time.perf_counter()
@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
saxpy[4, 256](np.float32(2), x, x, x); cuda.synchronize()
print((time.perf_counter() - t) * 1e3)
""",
}


def first_call_ms(name, code):
    env = dict(os.environ, CUPY_CACHE_DIR=tempfile.mkdtemp(), NUMBA_CACHE_DIR=tempfile.mkdtemp(),
               SIMT_CACHE_DIR=tempfile.mkdtemp())
    # A file, not `python -c`: simt reads kernels' source code from their file.
    path = os.path.join(tempfile.mkdtemp(), "first_call.py")
    with open(path, "w") as f:
        f.write(code)
    try:
        out = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                             timeout=300)
        return float(out.stdout.strip().splitlines()[-1])
    except Exception as error:  # a missing peer is a row, not a crash
        print(f"  ({name}: {error})")
        return float("nan")


def _launch_floor(folder, cubin):
    """The launch_floor extension module built into `folder`, its kernels loaded."""
    import importlib.util
    import sysconfig

    path = os.path.join(folder, "launch_floor" + sysconfig.get_config_var("EXT_SUFFIX"))
    spec = importlib.util.spec_from_file_location("launch_floor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(cubin)
    return module


_KEPT = []  # objects the cuda-python rows' launches point into


def _cuda_python_driver():
    """cuda-python's driver binding: cuda.bindings.driver (cuda-python >= 12.x), else the
    older cuda.cuda; None when the package is missing."""
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver
        except ImportError:
            return None
    return driver


def _cuda_python_cases(cubin, pointer):
    """Rows of cuda-python's cuLaunchKernel binding launching empty4 of `cubin` (loaded
    through the binding, in the current context: device 0's primary one, which simt and
    CuPy made current) with the 4 arguments simt's rows pass: the array `pointer` twice,
    1.0 (float) and 2 (long long). Two forms: kernelParams packed once (the address of a
    NumPy array of pointers to the values, the binding's cheapest form), and the
    ((values), (types)) tuple the binding packs on every call, as its examples write."""
    import ctypes

    driver = _cuda_python_driver()
    if driver is None:
        print("  (cuda-python rows skipped: neither cuda.bindings.driver nor cuda.cuda "
              "imports; pip install cuda-python)")
        return []

    def checked(result):
        status, *values = result
        if status != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuda-python: {status}")
        return values[0] if values else None

    checked(driver.cuInit(0))
    if not int(checked(driver.cuCtxGetCurrent())):  # CuPy's calls made it current, else:
        device0 = checked(driver.cuDeviceGet(0))
        checked(driver.cuCtxSetCurrent(checked(driver.cuDevicePrimaryCtxRetain(device0))))
    module = checked(driver.cuModuleLoad(cubin.encode()))
    f4 = checked(driver.cuModuleGetFunction(module, b"empty4"))
    stream = driver.CUstream(0)  # the legacy default stream, where simt's launches go
    values = (np.array([pointer, pointer], np.uint64), np.array([1.0], np.float32),
              np.array([2], np.int64))
    packed = np.array([values[0].ctypes.data, values[0].ctypes.data + 8, values[1].ctypes.data,
                       values[2].ctypes.data], np.uint64)
    params = packed.ctypes.data  # an int: read once, as a caller keeping it would
    _KEPT.append((module, values, packed))  # what `params` points into
    types = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_longlong)

    def launch_packed():
        return driver.cuLaunchKernel(f4, 1, 1, 1, 1, 1, 1, 0, stream, params, 0)

    def launch_tuple():
        return driver.cuLaunchKernel(f4, 1, 1, 1, 1, 1, 1, 0, stream,
                                     ((pointer, pointer, 1.0, 2), types), 0)

    # A failing launch would time an error path.
    for launch in (launch_packed, launch_tuple):
        checked(launch())
    return [("cuda-python cuLaunchKernel 4 args, packed once", launch_packed, 256),
            ("cuda-python cuLaunchKernel 4 args, (values, types)", launch_tuple, 256)]


# The targets of issue 41, as (name, numerator row, denominator row, bound): printed as
# ratios of the rows' medians after the table.
RATIOS = [
    ("simt configured / cuda-python packed", "simt 4 args",
     "cuda-python cuLaunchKernel 4 args, packed once", 0.7),
    ("simt configured / cuda-python (values, types)", "simt 4 args",
     "cuda-python cuLaunchKernel 4 args, (values, types)", 0.7),
    ("simt configured / CuPy RawKernel", "simt 4 args", "cupy RawKernel 4 args", 0.5),
    ("kernel[1, 1](...) / configured", "simt 4 args incl. kernel[1, 1]", "simt 4 args", 1.15),
    ("CuPy-array args / simt-array args", "simt 4 args, CuPy arrays", "simt 4 args", 1.1),
    ("PyTorch-tensor args / simt-array args", "simt 4 args, PyTorch tensors", "simt 4 args",
     1.1),
    ("simt configured - C++ cuLaunchKernel (us)", "simt 4 args", "raw cuLaunchKernel 4 args us",
     None),
]


def print_ratios(medians):
    print(f"\n{'issue 41 targets':<48} {'ratio':>7} {'target':>8}")
    for name, top, bottom, bound in RATIOS:
        if top not in medians or bottom not in medians:
            print(f"{name:<48} {'-':>7}  (row missing)")
            continue
        if bound is None:  # a difference, in µs
            print(f"{name:<48} {medians[top] - medians[bottom]:7.2f}")
            continue
        ratio = medians[top] / medians[bottom]
        verdict = "ok" if ratio <= bound else "MISSED"
        print(f"{name:<48} {ratio:7.2f} {'<= ' + str(bound):>8}  {verdict}")


def main():
    import cupy as cp

    launch_only = "--launch-only" in sys.argv
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    cubin = positional[0] if positional else os.path.join(HERE, "cuda", "kernels.cubin")
    raw_launch = positional[1] if len(positional) > 1 else None
    floor = _launch_floor(positional[2], cubin) if len(positional) > 2 else None
    device = simt.get_device("cuda:0")
    print(f"device: {device.name} ({device.architecture})")
    nvcc = cp.RawModule(path=cubin)

    # ---- launch overhead --------------------------------------------------------
    # Every case is timed in PASSES passes taken in turns with the raw C++ loop (a
    # subprocess), and each row is the median of its passes: one pass of each, one
    # after the other, moved by ±1.5 µs between processes on the same machine (CPU
    # clocks), which no single ratio survives.
    cases = []
    if floor:
        cases.append(("python -> cuLaunchKernel 0 args", floor.launch0, 256))
        cases.append(("python -> cuLaunchKernel 0 args, GIL released", floor.launch0_nogil, 256))
        cases.append(("python -> cuCtxGetCurrent, cuLaunchKernel 0 args",
                      floor.launch0_context, 256))
        cases.append(("python -> cuLaunchKernel 4 args, GIL released",
                      lambda: floor.launch4(1, 2, 3, 4), 256))
    x = simt.zeros(16, np.float32, device=device)
    l0, l4 = empty0[1, 1], empty4[1, 1]
    cases.append(("simt 0 args", lambda: l0(), 256))
    cases.append(("simt 4 args", lambda: l4(x, x, 1.0, 2), 256))
    cases.append(("simt 4 args incl. kernel[1, 1]", lambda: empty4[1, 1](x, x, 1.0, 2), 256))
    f32, i32 = np.float32(1), np.int32(2)  # NumPy scalars, as saxpy(np.float32(a), ...)
    cases.append(("simt 4 args, NumPy scalars", lambda: l4(x, x, f32, i32), 256))
    raw0 = simt.RawKernel('extern "C" __global__ void empty0() {}', "empty0")[1, 1]
    cases.append(("simt RawKernel 0 args", lambda: raw0(), 256))
    # Foreign arrays as arguments (issue 20: within +0.5 us of simt arrays).
    cx = cp.zeros(16, cp.float32)
    cases.append(("simt 4 args, CuPy arrays", lambda: l4(cx, cx, 1.0, 2), 256))
    try:
        import torch
        tx = torch.zeros(16, device="cuda")
        cases.append(("simt 4 args, PyTorch tensors", lambda: l4(tx, tx, 1.0, 2), 256))
    except Exception as error:
        print(f"  (torch: {error})")
    # Snippet kernels, a warm call on one element (issue 20: <= CuPy's).
    ek_simt = simt.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * 2 + y",
                                     "ek_bench")
    ek_cupy = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * 2 + y",
                                   "ek_bench")
    rk_simt = simt.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0",
                                   "rk_bench")
    rk_cupy = cp.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0",
                                 "rk_bench")
    one = simt.ones(1, np.float32, device=device)
    one_out = simt.empty(1, np.float32, device=device)
    cone, cone_out = cp.ones(1, cp.float32), cp.empty(1, cp.float32)
    cases.append(("simt ElementwiseKernel, 1 element", lambda: ek_simt(one, one, one_out), 256))
    cases.append(("simt ElementwiseKernel, 1 element, CuPy arrays",
                  lambda: ek_simt(cone, cone, cone_out), 256))
    cases.append(("simt ReductionKernel, 1 element", lambda: rk_simt(one), 128))
    cases.append(("simt ReductionKernel, 1 element, CuPy array", lambda: rk_simt(cone), 128))
    cases.append(("cupy ElementwiseKernel, 1 element", lambda: ek_cupy(cone, cone, cone_out), 256))
    cases.append(("cupy ReductionKernel, 1 element", lambda: rk_cupy(cone), 128))
    c0, c4 = nvcc.get_function("empty0"), nvcc.get_function("empty4")
    f1, i2 = cp.float32(1), cp.int64(2)
    cases.append(("cupy RawKernel 0 args", lambda: c0((1,), (1,), ()), 256))
    cases.append(("cupy RawKernel 4 args", lambda: c4((1,), (1,), (cx, cx, f1, i2)), 256))
    try:
        cases += _cuda_python_cases(cubin, x.__cuda_array_interface__["data"][0])
    except Exception as error:  # a broken peer is a printed reason, not a crash
        print(f"  (cuda-python rows skipped: {error})")
    try:
        np.row_stack = np.vstack
        from numba import cuda as ncuda

        @ncuda.jit
        def n0():
            pass

        @ncuda.jit
        def n4(a, b, c, d):
            pass

        nx = ncuda.to_device(np.zeros(16, np.float32))
        cases.append(("numba-cuda 0 args", lambda: n0[1, 1](), 256))
        cases.append(("numba-cuda 4 args", lambda: n4[1, 1](nx, nx, 1.0, 2), 256))
    except Exception as error:
        print(f"  (numba-cuda: {error})")

    passes = {}
    with simt.use_device(device):
        for _ in range(PASSES):
            if raw_launch:
                for inner, label in ((256, ""), (20000, ", queue full (GPU rate)")):
                    out = subprocess.run([raw_launch, cubin, str(inner)], capture_output=True,
                                         text=True).stdout
                    for line in out.splitlines():
                        key, value = line.split()
                        passes.setdefault(key.replace("_", " ") + label, []).append(float(value))
            for name, fn, inner in cases:
                passes.setdefault(name, []).append(host_cost(fn, rounds=21, inner=inner))
    cp.cuda.Device().synchronize()
    print(f"\n{'warm launch, host cost (' + str(PASSES) + ' passes)':<48} {'us':>7} {'range':>13}")
    for name, values in passes.items():
        print(f"{name:<48} {statistics.median(values):7.2f} {min(values):6.2f}-{max(values):<6.2f}")
    print_ratios({name: statistics.median(values) for name, values in passes.items()})
    if launch_only:
        return

    # ---- kernels ------------------------------------------------------------------
    results = []
    n = 1 << 28
    a = np.float32(2.5)
    xs = cp.random.random(n, dtype=cp.float32)
    ys = cp.random.random(n, dtype=cp.float32)
    os_ = cp.empty_like(xs)
    copy_ms = event_ms(cp, lambda: os_.__setitem__(slice(None), xs))
    copy_gbs = 2 * n * 4 / copy_ms / 1e6
    g = (n + 255) // 256
    simt_ms = event_ms(cp, lambda: sx.saxpy[g, 256](a, xs, ys, os_))
    ok = bool(cp.allclose(os_, a * xs + ys))
    f = nvcc.get_function("saxpy")
    nvcc_ms = event_ms(cp, lambda: f((g,), (256,), (a, xs, ys, os_, cp.int64(n))))
    results.append(("saxpy 2^28 float32", simt_ms, nvcc_ms, ok,
                    f"{3 * n * 4 / simt_ms / 1e6:.0f} GB/s; copy ceiling {copy_gbs:.0f} GB/s"))

    # ReductionKernel over 2^28 float32 against cupy.sum (issue 20: >= 1.0x), on a simt
    # array and on the CuPy array itself (imported on every call: its host cost is in
    # the event time, as cupy.sum's own is).
    total = cp.empty((), cp.float32)
    sum_ms = event_ms(cp, lambda: cp.sum(xs, out=total))
    want = float(cp.sum(xs.astype(cp.float64)))
    xs_simt = simt.asarray(xs)
    for label, operand in (("", xs_simt), (", CuPy input", xs)):
        rk_ms = event_ms(cp, lambda: rk_simt(operand))
        got = float(cp.asarray(rk_simt(operand)))
        results.append(("ReductionKernel sum 2^28 f32" + label, rk_ms, sum_ms,
                        abs(got - want) <= 1e-4 * want,
                        f"{n * 4 / rk_ms / 1e6:.0f} GB/s; the nvcc column is cupy.sum"))

    m = 8192
    u = cp.random.random((m, m))
    v = cp.empty_like(u)
    g2 = ((m + 31) // 32, (m + 7) // 8)
    simt_ms = event_ms(cp, lambda: heat.heat_step[g2, (32, 8)](u, v, 0.2))
    expected = cp.asarray(heat.numpy_step(cp.asnumpy(u), 0.2))
    ok = bool(cp.array_equal(v, expected) or cp.allclose(v, expected, rtol=1e-15))
    f = nvcc.get_function("heat_step")
    nvcc_ms = event_ms(cp, lambda: f(g2, (32, 8), (u, v, cp.float64(0.2), cp.int64(m), cp.int64(m))))
    results.append(("heat step 8192^2 float64", simt_ms, nvcc_ms, ok,
                    f"{2 * m * m * 8 / simt_ms / 1e6:.0f} GB/s (one read, one write)"))

    w, h, it = 4096, 4096, 256
    args = (-2.2, -1.6, 3.2 / w, 3.2 / h)
    image = cp.empty((h, w), cp.int32)
    g3 = ((w + 15) // 16, (h + 15) // 16)
    simt_ms = event_ms(cp, lambda: mandel.mandelbrot[g3, (16, 16)](image, *args, it), repeats=5)
    simt_image = image.copy()
    f = nvcc.get_function("mandelbrot")
    nvcc_ms = event_ms(cp, lambda: f(g3, (16, 16), (image, *map(cp.float64, args), cp.int32(it),
                                                      cp.int64(h), cp.int64(w))), repeats=5)
    mismatch = float(cp.mean(simt_image != image))
    results.append(("mandelbrot 4096^2, 256 it", simt_ms, nvcc_ms, mismatch < 1e-3,
                    f"{mismatch:.4%} pixels differ from nvcc's"))

    print(f"\n{'kernel':<28} {'simt ms':>9} {'nvcc ms':>9} {'nvcc/simt':>10}  check  detail")
    for name, ts, tn, ok, detail in results:
        print(f"{name:<28} {ts:9.3f} {tn:9.3f} {tn / ts:10.3f}  {'ok' if ok else 'FAIL':<5}  {detail}")

    print(f"\n{'first call, fresh process':<28} {'ms':>9}")
    for name, code in FIRST_CALL.items():
        print(f"{name:<28} {first_call_ms(name, code):9.1f}")


if __name__ == "__main__":
    main()
