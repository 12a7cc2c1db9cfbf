"""One fresh-process first launch, for bench/runtime.py (section 3); not run by hand.

    python3 bench/warm_start_child.py SIDE DEVICE [NUMBA_MODULE_DIR]

SIDE is simt, cupy-elementwise, cupy-raw or numba-cuda; DEVICE a simt device id
(cpu, opencl:N, cuda:N; the peers take the N of cuda:N), or, for simt, "default": the
device simt chooses itself (simt.current_device()). The parent sets the disk
caches (SIMT_CACHE_DIR, CUPY_CACHE_DIR, NUMBA_CACHE_DIR, CUDA_CACHE_PATH,
POCL_CACHE_DIR). Prints one JSON line with milliseconds, timed by perf_counter:
  import_ms  the import of the library (simt; cupy; numba.cuda)
  device_ms  the first device use: finding the device and its first allocation (the
             backend starts here: simt opens only the backend it is asked for)
  setup_ms   device_ms + defining the kernel, creating the arrays, synchronizing the device
  first_ms   the first launch + a device synchronize: the compile or the load
             from the disk cache happens here, in every side
  second_ms  the second launch + a device synchronize (the warm steady state)
  ok         the result checked against NumPy
The kernel is the same in every side: y[i] = a * x[i] + y[i], float32, 2^16
elements, blocks of 256.
"""

import json
import os
import sys
import time

import numpy as np

N = 1 << 16
BLOCK = 256
GRID = (N + BLOCK - 1) // BLOCK
A = np.float32(2)


def saxpy_simt(a, x, y):
    # Compiled by simt once `simt` is imported (the name is global below): simt reads
    # the source from this file, so the kernel lives here and not in a string.
    i = simt.grid(1)  # noqa: F821
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


NUMBA_MODULE = '''"""saxpy for numba-cuda's disk cache (cache=True needs a module file)."""
from numba import cuda


@cuda.jit(cache=True)
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
'''

CUPY_RAW = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


def host_inputs():
    x = np.arange(N, dtype=np.float32) / N
    y = np.ones(N, np.float32)
    return x, y, A * x + y


def run_simt(device_id):
    global simt
    t0 = time.perf_counter()
    import simt
    t1 = time.perf_counter()
    device = simt.current_device() if device_id == "default" else simt.get_device(device_id)
    simt.empty(1, np.float32, device=device)
    device_ms = (time.perf_counter() - t1) * 1e3
    kernel = simt.kernel(saxpy_simt)
    hx, hy, expected = host_inputs()
    with simt.use_device(device):
        x = simt.to_device(hx, device=device)
        y = simt.to_device(hy, device=device)
        device.synchronize()
        t2 = time.perf_counter()
        kernel[GRID, BLOCK](A, x, y)
        device.synchronize()
        t3 = time.perf_counter()
        kernel[GRID, BLOCK](A, x, y)
        device.synchronize()
        t4 = time.perf_counter()
    ok = bool(np.allclose(y.get(), A * hx + expected))
    return t0, t1, t2, t3, t4, ok, device_ms


def run_cupy(device_id, raw):
    index = int(device_id.split(":")[1])
    t0 = time.perf_counter()
    import cupy as cp
    t1 = time.perf_counter()
    cp.cuda.Device(index).use()
    if raw:
        raw_kernel = cp.RawKernel(CUPY_RAW, "saxpy")  # compiled at the first call

        def launch(x, y):
            raw_kernel((GRID,), (BLOCK,), (A, x, y, np.int64(N)))
    else:
        ew = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y",
                                  "saxpy_ew")  # compiled at the first call

        def launch(x, y):
            ew(A, x, y)
    hx, hy, expected = host_inputs()
    x = cp.asarray(hx)
    y = cp.asarray(hy)
    cp.cuda.Device(index).synchronize()
    t2 = time.perf_counter()
    launch(x, y)
    cp.cuda.Device(index).synchronize()
    t3 = time.perf_counter()
    launch(x, y)
    cp.cuda.Device(index).synchronize()
    t4 = time.perf_counter()
    ok = bool(np.allclose(cp.asnumpy(y), A * hx + expected))
    return t0, t1, t2, t3, t4, ok


def run_numba(device_id, module_dir):
    index = int(device_id.split(":")[1])
    t0 = time.perf_counter()
    np.row_stack = np.vstack  # numba-cuda still names it; NumPy 2.5 removed it
    from numba import cuda
    t1 = time.perf_counter()
    cuda.select_device(index)
    sys.path.insert(0, module_dir)
    import numba_saxpy_module  # the @cuda.jit(cache=True) kernel, written by the parent
    hx, hy, expected = host_inputs()
    x = cuda.to_device(hx)
    y = cuda.to_device(hy)
    cuda.synchronize()
    t2 = time.perf_counter()
    numba_saxpy_module.saxpy[GRID, BLOCK](A, x, y)
    cuda.synchronize()
    t3 = time.perf_counter()
    numba_saxpy_module.saxpy[GRID, BLOCK](A, x, y)
    cuda.synchronize()
    t4 = time.perf_counter()
    ok = bool(np.allclose(y.copy_to_host(), A * hx + expected))
    return t0, t1, t2, t3, t4, ok


def main():
    side, device_id = sys.argv[1], sys.argv[2]
    if side == "simt":
        t = run_simt(device_id)
    elif side == "cupy-elementwise":
        t = run_cupy(device_id, raw=False)
    elif side == "cupy-raw":
        t = run_cupy(device_id, raw=True)
    elif side == "numba-cuda":
        t = run_numba(device_id, sys.argv[3])
    else:
        raise SystemExit(f"unknown side {side!r}")
    t0, t1, t2, t3, t4, ok = t[:6]
    extra = {"device_ms": t[6]} if len(t) > 6 else {}
    print(json.dumps({**extra, "import_ms": (t1 - t0) * 1e3, "setup_ms": (t2 - t1) * 1e3,
                      "first_ms": (t3 - t2) * 1e3, "second_ms": (t4 - t3) * 1e3, "ok": ok,
                      "pid": os.getpid()}))


if __name__ == "__main__":
    main()
